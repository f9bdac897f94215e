"""The details pane shows a skill's flags, but not a client module's bookkeeping ("_" keys)."""

from __future__ import annotations

from tests.helpers import write_skill
from workbench.core.model import Environment


def test_bookkeeping_flags_are_not_shown_in_the_details(tmp_path, fake_home):
    """A client module's "_" flags (Gemini CLI's load key of an override: an encoded path) are
    not facts for the user: the details pane leaves them out (seen in the session-7 screenshot)."""
    from workbench.app.details_pane import skill_details_html
    from workbench.core.discovery import scan

    env = Environment(workspace=tmp_path / "ws", home=fake_home)
    write_skill(fake_home / ".gemini" / "skills" / "shared", "shared", "Use when: user copy.")
    write_skill(env.workspace / ".agents" / "skills" / "shared", "shared", "Use when: workspace copy.")
    write_skill(env.workspace / ".agents" / "skills" / "solo", "solo", "Use when: alone.")
    cat = scan(env, "gemini-cli")
    winner = next(s for s in cat.skills if s.name == "shared" and s.status == "listed")
    assert "_gemini_load_key" in winner.flags
    winner.flags["user_invocable"] = False  # a user-facing flag is still shown
    html = skill_details_html(winner, "Gemini CLI")
    assert "gemini_load_key" not in html and "user_invocable" in html
    solo = next(s for s in cat.skills if s.name == "solo")
    assert not solo.flags and "Flags" not in skill_details_html(solo, "Gemini CLI")
