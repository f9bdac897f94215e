"""Window work on the GUI thread stays small (issue 14): the tree expands its root rows only."""

from __future__ import annotations

from tests.helpers import write_skill
from workbench.core.model import Environment


def test_every_root_row_is_expanded_after_load_and_filter(open_window, tmp_path, fake_home):
    ws = tmp_path / "proj"
    write_skill(ws / ".claude" / "skills" / "alpha", "alpha", "Use when testing alpha.")
    write_skill(fake_home / ".claude" / "skills" / "beta", "beta", "Use when testing beta.")
    win = open_window(Environment(workspace=ws, home=fake_home), client_id="claude-code")
    tree, px = win.skills.tree, win.skills.proxy

    def expanded() -> list[bool]:
        return [tree.isExpanded(px.index(r, 0)) for r in range(px.rowCount()) if px.rowCount(px.index(r, 0))]

    assert len(expanded()) == 2 and all(expanded())
    win.skills.filter.setText("beta")
    assert expanded() == [True]
    win.skills.filter.clear()
    assert len(expanded()) == 2 and all(expanded())
