"""``workbench capture`` against the real, pinned clients (issue 16 "Done when").

Runs only with ``WB_LAB=1`` and the clients installed in the lab folder. For each client: capture on
a lab scenario shows a zero-line diff against the simulation; with another version's built-ins
stored and chosen (``texts_version``), the diff is not empty. Also: the forwarding proxy with the
real Claude Code — the skill load reaches it, a shell call does not.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.conformance.lab import build
from tests.conformance.scenarios import SCENARIOS
from tests.fakeapi import fake_api, text, tool_call  # noqa: F401 (fixture)
from workbench.core.capture import RUNNABLE_CLIENTS, get_runner
from workbench.core.capture.capture import capture
from workbench.core.capture.texts import store_client_texts
from workbench.core.model import Environment

LAB = os.environ.get("WB_LAB") == "1"
pytestmark = pytest.mark.skipif(not LAB, reason="the conformance lab is off (set WB_LAB=1)")
SCENARIO = next(s for s in SCENARIOS if s.id == "basic-one")


def _installed(client: str) -> Path:
    exe = get_runner(client).lab_executable()
    if exe is None:
        pytest.skip(f"{client} is not installed in the lab folder")
    return exe


@pytest.fixture(autouse=True)
def _home(tmp_path, monkeypatch):
    monkeypatch.setenv("WORKBENCH_HOME", str(tmp_path / "wbhome"))


@pytest.mark.parametrize("client", RUNNABLE_CLIENTS)
def test_capture_matches_the_simulation_and_differs_with_other_builtins(client: str, tmp_path: Path) -> None:
    exe = _installed(client)
    ws, home = build(SCENARIO, client, tmp_path / "case")
    env = Environment(workspace=ws, home=home)
    rep = capture(env, client, exe=exe, timeout=240)
    assert rep.error is None, rep.error
    assert rep.version == get_runner(client).version and not rep.version_differs
    assert "alpha" in rep.skills and rep.listing
    assert rep.diff == [], "\n".join(rep.diff)
    if not rep.builtins:
        return  # a client without built-ins cannot be given other ones
    store_client_texts(
        client,
        "0.0.0-other",
        {
            "builtins": [
                {
                    "name": "another-version-skill",
                    "description": "A built-in of another version " * 4,
                    "location": None,
                }
            ],
            "prose": {},
        },
    )
    other = capture(env, client, exe=exe, timeout=240, texts_version="0.0.0-other")
    assert other.error is None and other.diff


def test_forwarding_through_real_claude_code_blocks_the_shell_call(fake_api, tmp_path: Path) -> None:
    from workbench.core.capture.via import chat_via_client

    exe = _installed("claude-code")
    ws = tmp_path / "ws"
    (ws / ".claude/skills/pdf").mkdir(parents=True)
    (ws / ".claude/skills/pdf/SKILL.md").write_text(
        "---\nname: pdf\ndescription: Use for PDF files.\n---\nFill the form.\n"
    )
    subprocess.run(["git", "init", "-q", str(ws)], check=True)
    (tmp_path / "home").mkdir()
    pwned = tmp_path / "PWNED"
    fake_api.queue(
        tool_call("Skill", {"skill": "pdf"}), tool_call("Bash", {"command": f"touch {pwned}"}), text("never")
    )
    fake_api.default = text("done")
    res = chat_via_client(
        Environment(workspace=ws, home=tmp_path / "home"),
        "claude-code",
        "fill my pdf",
        base_url=fake_api.url,
        api_key="sk-test",
        skill_dirs=[ws / ".claude/skills/pdf"],
        exe=exe,
        timeout=120,
    )
    assert res.loaded == ["pdf"], res.to_json()
    assert [b["name"] for b in res.blocked] == ["Bash"]
    assert not pwned.exists()
    shutil.rmtree(ws, ignore_errors=True)
