"""A skill of the user's named like a Claude Code built-in replaces the built-in (Claude Code
2.1.328: found by ``workbench capture`` on the demo, lab scenario ``name-like-builtin``)."""

from __future__ import annotations

from pathlib import Path

from tests.helpers import write_skill
from workbench.core.clients.claude_code.runner import builtin_tail, parse_entries
from workbench.core.discovery import scan
from workbench.core.listing import render_listing
from workbench.core.model import Environment


def test_builtin_named_like_a_user_skill_is_not_listed(tmp_path: Path) -> None:
    home, ws = tmp_path / "home", tmp_path / "ws"
    write_skill(home / ".claude/skills/code-review", "code-review", "My own review steps.")
    ws.mkdir()
    cat = scan(Environment(workspace=ws, home=home, env={}, bins=set()), "claude-code")
    text = render_listing(cat, 200_000).text
    names = [n for n, _ in parse_entries(text)]
    assert names.count("code-review") == 1 and names[0] == "code-review"
    assert "My own review steps." in text and "dataviz" in names


def test_runner_does_not_take_the_users_skill_for_a_builtin() -> None:
    entries = [("code-review", "mine"), ("dataviz", "x"), ("update-config", "y")]
    assert [n for n, _ in builtin_tail(entries, "2.1.328")] == ["dataviz", "update-config"]
