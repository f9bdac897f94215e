"""Issue 13 item 2: the tree's Status column and the status bar say where a listed skill ends up."""

from __future__ import annotations

from tests.helpers import write_skill
from workbench.app.skills_tree import SkillRole


def _rows(win) -> dict[str, str]:
    px = win.skills.proxy
    out = {}
    for r in range(px.rowCount()):
        parent = px.index(r, 0)
        for c in range(px.rowCount(parent)):
            out[px.data(px.index(c, 0, parent), SkillRole).name] = px.data(px.index(c, 1, parent))
    return out


def test_tree_and_status_bar_say_omitted_by_budget(open_window, tmp_path):
    from workbench.core.model import Environment

    ws = tmp_path / "coll"
    for i in range(80):
        write_skill(ws / f"s{i:02d}", f"s{i:02d}", "Use when " + "checking budgets " * 10 + f"#{i}.")
    (tmp_path / "h").mkdir()
    win = open_window(
        Environment(workspace=ws, home=tmp_path / "h", env={}, bins=set()),
        client_id="codex",
        context_tokens=32_000,
    )
    rows = _rows(win)
    assert len(rows) == 80
    assert "omitted by budget" in rows.values()
    assert not {v for v in rows.values() if v == "listed"}
    # the Status text in the listing state's colour, as the listing table's State column
    from PySide6.QtCore import Qt

    from workbench.app import icons

    px = win.skills.proxy
    fg = {}  # Status text -> its foreground brush, over every root's rows
    for r in range(px.rowCount()):
        top = px.index(r, 0)
        for c in range(px.rowCount(top)):
            fg[px.data(px.index(c, 1, top))] = px.data(px.index(c, 1, top), Qt.ItemDataRole.ForegroundRole)
    assert fg["omitted by budget"].color() == icons.color("listing", "omitted")
    listed_label = win.counts.labels["listed"].text()
    assert listed_label.startswith("80 listed: ") and "omitted by budget" in listed_label
    win.skills.proxy.set_filter_text("status:omitted")  # the filter knows the outcome too
    assert set(_rows(win).values()) == {"omitted by budget"}
    win.skills.proxy.set_filter_text("")
    win.ctx.set_context_tokens(1_000_000)  # a larger context: every description in full
    win.settle()
    assert set(_rows(win).values()) == {"listed in full"}
    assert win.counts.labels["listed"].text() == "80 listed: 80 in full"
    top = next(px.index(r, 0) for r in range(px.rowCount()) if px.rowCount(px.index(r, 0)))
    assert px.data(px.index(0, 1, top), Qt.ItemDataRole.ForegroundRole).color() == icons.status_color(
        "listed"
    )


def test_empty_folder_gets_a_hint(open_window, tmp_path):
    """Issue 13 item 9: an empty folder showed an empty tree and no word."""
    from workbench.core.model import Environment

    (tmp_path / "empty").mkdir()
    (tmp_path / "h").mkdir()
    win = open_window(Environment(workspace=tmp_path / "empty", home=tmp_path / "h", env={}, bins=set()))
    assert win.banner.isVisible() and "No SKILL.md in" in win.banner.text()
    assert "File &gt; Open folder" in win.banner.text() or "File > Open folder" in win.banner.text()
