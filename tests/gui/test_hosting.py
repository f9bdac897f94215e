"""The main window hosts every pane for real (no placeholders) and wires them together."""

from __future__ import annotations

from pathlib import Path

from tests.helpers import write_skill
from workbench.app.hosting import Placeholder
from workbench.app.main_window import TAB_KEYS
from workbench.core.model import Environment


def _env(tmp_path: Path, fake_home: Path) -> Environment:
    ws = tmp_path / "proj"
    write_skill(ws / ".claude" / "skills" / "alpha", "alpha", "Use when testing alpha things.")
    return Environment(workspace=ws, home=fake_home)


def test_every_tab_is_a_real_pane(open_window, tmp_path, fake_home):
    win = open_window(_env(tmp_path, fake_home))
    assert "evals" in TAB_KEYS
    for key in TAB_KEYS:
        w = win.pane(key)
        assert not isinstance(w, Placeholder), f"{key}: {getattr(w, 'reason', '')}"
    assert type(win.pane("evals")).__name__ == "EvalsPane"


def test_chat_proposal_refreshes_and_selects_in_workshop(open_window, tmp_path, fake_home, qtbot):
    from workbench.core.workshop import WorkshopStore

    env = _env(tmp_path, fake_home)
    win = open_window(env)
    chat = win.pane("chat")
    ws = win.pane("workshop")
    store = WorkshopStore(env.workspace)
    p = store.propose_create(
        "gamma",
        "---\nname: gamma\ndescription: Use when testing gamma.\n---\n# G\n",
        {},
        env.workspace / ".claude" / "skills",
        "test",
        "",
    )
    chat.proposal_created.emit(p.id)
    chat.review_requested.emit(p.id)
    assert win.tabs.currentWidget() is win.panes["workshop"]
    qtbot.waitUntil(lambda: p.id in repr([x.id for x in ws.store.proposals()]), timeout=5000)


def test_demo_workshop_has_a_pending_proposal(open_window, tmp_path, qtbot):
    empty = tmp_path / "empty"
    empty.mkdir()
    win = open_window(Environment(workspace=empty, home=tmp_path / "h"), allow_demo=True)
    assert win.ctx.demo
    win.show_tab("workshop")
    ws = win.pane("workshop")
    qtbot.waitUntil(
        lambda: any(p.source == "demo" and p.state == "pending" for p in ws.store.proposals()), timeout=5000
    )


def test_hosted_panes_follow_the_protocol(open_window, tmp_path, fake_home):
    """Every hosted pane offers what the window needs (``app/panes.HostedPane``): ``maybe_close``
    and ``shutdown`` (issue 15 item 6)."""
    from workbench.app.panes import HostedPane

    win = open_window(_env(tmp_path, fake_home))
    for key in ("editor", "chat", "evals", "workshop", "capture"):
        pane = win.pane(key)
        assert isinstance(pane, HostedPane), key
        assert pane.maybe_close() is True, key
