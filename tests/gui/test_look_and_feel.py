"""Issue 13 item 11: every tab readable at 1280x800, on the demo and on the corpus.

For each tab: the window's minimum size fits 1280x800, and ``truncation.truncations`` finds no
cut header, cell, tab or field (it measures what Qt laid out; see that module). Screenshots go
to ``tests/_artifacts/screenshots/``; with ``WB_UPDATE_SCREENSHOTS=1`` also to
``docs/screenshots/`` (the checked-in set: not rewritten on every run, the status bar's scan time
and the checkout's paths would change them each time).

Also here: one context-size box, icons on the toolbar actions and tabs, empty states with a
sentence and an action.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.gui.truncation import truncations
from workbench.app.main_window import TAB_KEYS
from workbench.core.model import Environment

pytestmark = [pytest.mark.gui, pytest.mark.slow]

SIZE = (1280, 800)
DOCS = Path(__file__).resolve().parents[2] / "docs" / "screenshots"


def _save(win, folder: Path, name: str) -> None:
    from PySide6.QtCore import QBuffer, QByteArray, QIODevice

    from workbench.core.safefile import atomic_write

    ba = QByteArray()
    buf = QBuffer(ba)
    buf.open(QIODevice.OpenModeFlag.WriteOnly)
    assert win.grab().save(buf, "PNG")
    buf.close()
    folder.mkdir(parents=True, exist_ok=True)
    atomic_write(folder / name, bytes(ba.data()))


def _every_tab(win, label: str, artifacts: Path) -> dict[str, list[str]]:
    from workbench.app.emptystate import select_first_skill

    assert select_first_skill(win.ctx)
    win.settle()
    found = {}
    for key in TAB_KEYS:
        win.show_tab(key)
        assert win.settle_tab(key), key
        hint = win.minimumSizeHint()
        # the Evals tab forced a 1,152 px window: every tab now lets it shrink to 1024 px
        assert hint.width() <= 1024 and hint.height() <= SIZE[1], (key, hint)
        assert (win.width(), win.height()) == SIZE
        _save(win, artifacts / "screenshots", f"{label}-{key}.png")
        if os.environ.get("WB_UPDATE_SCREENSHOTS") == "1":
            _save(win, DOCS, f"{label}-{key}.png")
        found[key] = truncations(win)
    return found


def test_every_tab_fits_1280x800_on_the_demo(open_window, artifacts):
    from workbench.core.demo import demo_environment, ensure_demo_proposal

    env = demo_environment()
    assert ensure_demo_proposal(env)  # the Workshop tab then shows a real proposal
    win = open_window(env, size=SIZE)
    found = _every_tab(win, "demo", artifacts)
    assert found == {k: [] for k in TAB_KEYS}


def test_every_tab_fits_1280x800_on_the_corpus(open_window, corpus, fake_home, artifacts):
    win = open_window(Environment(workspace=corpus, home=fake_home), size=SIZE)
    found = _every_tab(win, "corpus", artifacts)
    assert found == {k: [] for k in TAB_KEYS}


def test_the_check_finds_cut_text(qtbot):
    """The checker itself: a narrow table with a long header and cell is reported."""
    from PySide6.QtWidgets import QTableWidget, QTableWidgetItem

    t = QTableWidget(1, 2)
    qtbot.addWidget(t)
    t.setHorizontalHeaderLabels(["Findings", "A very long header that cannot fit"])
    t.setItem(0, 0, QTableWidgetItem("a cell whose text is far too long for 60 px"))
    t.setColumnWidth(0, 60)
    t.setColumnWidth(1, 60)
    t.resize(200, 120)
    t.show()
    qtbot.waitExposed(t)
    found = " | ".join(truncations(t))
    assert "header 'A very long header" in found and "cell (0, 0)" in found


def test_one_context_box_and_icons(open_window, tmp_path, fake_home):
    from PySide6.QtWidgets import QToolBar

    from tests.helpers import write_skill
    from workbench.app.listing_pane import ContextSizeCombo

    ws = tmp_path / "p"
    write_skill(ws / ".claude" / "skills" / "alpha", "alpha", "Use when testing alpha.")
    win = open_window(Environment(workspace=ws, home=fake_home))
    assert len(win.findChildren(ContextSizeCombo)) == 1  # the toolbar's; the listing tab had a second
    tb = win.findChild(QToolBar, "main-toolbar")
    on_toolbar = [a for a in tb.actions() if a.objectName().startswith("action.")]
    assert {a.objectName() for a in on_toolbar} == {"action.open_folder", "action.rescan"}
    assert all(not a.icon().isNull() for a in on_toolbar)
    assert all(not win.tabs.tabIcon(i).isNull() for i in range(win.tabs.count()))
    for aid in ("open_folder", "rescan", "about", "shortcuts"):
        assert not win.actions[aid].icon().isNull(), aid


def test_empty_states_say_what_to_do(open_window, tmp_path, fake_home, qtbot):
    from tests.helpers import write_skill
    from workbench.app.emptystate import EmptyState

    ws = tmp_path / "p"
    write_skill(ws / ".claude" / "skills" / "alpha", "alpha", "Use when testing alpha.")
    win = open_window(Environment(workspace=ws, home=fake_home), size=SIZE)
    assert win.ctx.selected_path is None
    shown = {}
    for key in TAB_KEYS:
        win.show_tab(key)
        win.settle_tab(key)
        shown[key] = [e for e in win.findChildren(EmptyState) if e.isVisible()]
    for key in ("explain", "editor", "chat", "workshop"):  # nothing selected, no file, no chat, no queue
        assert shown[key], key
    for states in shown.values():
        for e in states:
            assert len(e.label.text()) > 30 and e.buttons, e.label.text()
    # the details pane: select the first listed skill from its empty state
    details = win.details.empty
    assert details.isVisible()
    details.buttons[0].click()
    assert win.ctx.selected_path is not None and not details.isVisible()
    # the Workshop's action opens the Chat tab
    win.show_tab("workshop")
    win.pane("workshop").empty.buttons[0].click()
    assert win.tabs.currentWidget() is win.panes["chat"]


def test_banner_offers_the_extra_root_toggle_when_the_context_has_it(open_window, corpus, fake_home):
    """The banner's one-click toggle between "collection" (skills as if installed: an extra root)
    and "project" (each client's own roots) for the workspace (``ctx.set_workspace_mode``)."""
    win = open_window(Environment(workspace=corpus, home=fake_home))
    assert win.ctx.extra_root == corpus and win.ctx.treatment.mode == "collection"
    assert win.banner_bar.isVisible() and win.banner_button.isVisible()
    assert win.banner_button.text() == "Open as a project"
    calls = []
    win.ctx.set_workspace_mode = calls.append
    win._update_banner()
    win.banner_button.click()
    assert calls == ["project"]
