"""Issue 13 (GUI part): the editor preview on first open (item 6) and no side effects from
looking (item 13). Look and feel (item 11) is in ``test_look_and_feel.py``."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.helpers import write_skill
from workbench.core.model import Environment

pytestmark = pytest.mark.gui


def _env(tmp_path: Path, fake_home: Path) -> Environment:
    ws = tmp_path / "proj"
    write_skill(
        ws / ".claude" / "skills" / "alpha",
        raw=(
            "---\nname: alpha\ndescription: Use when testing alpha things.\n---\n# Alpha heading\n\nBody.\n"
        ),
    )
    write_skill(ws / ".claude" / "skills" / "beta", "beta", "Use when testing beta things.")
    return Environment(workspace=ws, home=fake_home)


def _files_under(folder: Path) -> list[str]:
    return sorted(os.path.join(d, f) for d, _dirs, files in os.walk(folder) for f in files)


def test_editor_preview_shows_on_first_open_of_the_tab(open_window, tmp_path, fake_home, qtbot):
    """Item 6: the preview was blank when the Editor tab was first opened (the pane is built by
    the tab's first show, before it is visible, and the first render waited for visibility)."""
    env = _env(tmp_path, fake_home)
    win = open_window(env)
    alpha = env.workspace / ".claude" / "skills" / "alpha" / "SKILL.md"
    win.ctx.select_skill(alpha)
    win.show_tab("editor")
    pane = win.pane("editor")
    assert pane.path == str(alpha)
    qtbot.waitUntil(lambda: "Alpha heading" in pane.preview.toPlainText(), timeout=5000)
    assert win.settle_tab("editor")


def test_editor_preview_of_a_pane_built_hidden(qtbot, tmp_path):
    """The same fault at the pane level: open a file while the pane is not shown yet."""
    from workbench.app.editor import EditorPane

    path = write_skill(tmp_path / "s" / "gamma", raw="---\nname: gamma\ndescription: d\n---\n# Gamma\n")
    pane = EditorPane()
    qtbot.addWidget(pane)
    try:
        pane.open_file(path)
        pane.show()
        qtbot.waitUntil(lambda: "Gamma" in pane.preview.toPlainText(), timeout=5000)
    finally:
        pane.shutdown()


def test_viewing_every_tab_writes_nothing(open_window, tmp_path, fake_home, wb_home, qtbot):
    """Item 13: showing the Workshop tab created the workshop database; no tab may write
    anything under the app's folders just by being looked at."""
    from workbench.app.main_window import TAB_KEYS

    win = open_window(_env(tmp_path, fake_home))
    for key in TAB_KEYS:
        win.show_tab(key)
        win.settle_tab(key)
    assert _files_under(wb_home) == []
    ws = win.pane("workshop")
    assert ws.model.rowCount() == 0 and "No proposals yet" in ws.header.text()


def test_workshop_opens_the_store_once_a_proposal_exists(open_window, tmp_path, fake_home, qtbot):
    from workbench.core.workshop import WorkshopStore

    env = _env(tmp_path, fake_home)
    win = open_window(env)
    win.show_tab("workshop")
    pane = win.pane("workshop")
    p = WorkshopStore(env.workspace).propose_create(
        "gamma",
        "---\nname: gamma\ndescription: Use when testing gamma.\n---\n# G\n",
        {},
        env.workspace / ".claude" / "skills",
        "cli",
        "",
    )
    pane._poll_log()  # what the 2 s poll does
    assert [r.id for r in pane.model.rows] == [p.id]


def test_draft_skills_is_off_by_default_in_window_and_cli(open_window, tmp_path, fake_home):
    """Item 13: "let the model draft skills" was on in the window but opt-in in the CLI."""
    from workbench.cli import build_parser

    win = open_window(_env(tmp_path, fake_home))
    chat = win.pane("chat")
    assert not chat.propose_check.isChecked()
    args = build_parser().parse_args(["chat", "hello"])
    assert args.allow_propose is False
