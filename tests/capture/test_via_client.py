"""The forwarding proxy (``--via-client``): skill loads reach the client, nothing else does.

A stand-in client (``fake_client.py``) runs every tool the model calls; the fake Messages API is
scripted to call the skill tool and then a shell tool. The skill must be reported as loaded and the
shell call must never reach the client (the file it would create does not exist)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.fakeapi import fake_api, text, tool_call  # noqa: F401 (fixture)
from tests.helpers import write_skill
from workbench.core.capture.runner import ClientRunner, RunContext, RunSpec
from workbench.core.capture.via import ViaClientError, chat_via_client, eval_via_client, resolve_client
from workbench.core.model import Environment

FAKE = Path(__file__).with_name("fake_client.py")


class FakeRunner(ClientRunner):
    """Runs ``fake_client.py`` as if it were Claude Code (its load tool is ``Skill``)."""

    client_id = "claude-code"
    version = "0.0-fake"
    bin_name = "python3"

    def prepare(self, ctx: RunContext) -> RunSpec:
        return RunSpec([str(ctx.exe), str(FAKE), ctx.prompt], env={"ANTHROPIC_BASE_URL": ctx.base_url})

    def version_argv(self, exe: Path) -> list[str]:
        return [str(exe), "-c", "print('0.0.1')"]


@pytest.fixture()
def ws(tmp_path: Path) -> Path:
    w = tmp_path / "ws"
    write_skill(w / ".claude/skills/pdf", "pdf", "Use for PDF files.", body="Do PDF things.\n")
    subprocess.run(["git", "init", "-q", str(w)], check=True)
    (tmp_path / "home").mkdir()
    return w


def _env(ws: Path) -> Environment:
    return Environment(workspace=ws, home=ws.parent / "home", env={}, bins=set())


def test_skill_load_passes_and_shell_call_never_reaches_the_client(ws, fake_api, tmp_path):
    pwned = tmp_path / "PWNED"
    fake_api.queue(
        tool_call("Skill", {"skill": "pdf"}),
        tool_call("Bash", {"command": f"touch {pwned}"}),
        text("never reached"),
    )
    res = chat_via_client(
        _env(ws),
        "claude-code",
        "fill my pdf",
        base_url=fake_api.url,
        api_key="sk-test",
        skill_dirs=[ws / ".claude/skills/pdf"],
        exe=Path(sys.executable),
        runner=FakeRunner(),
        timeout=60,
    )
    assert res.error is None, res.error
    assert res.loaded == ["pdf"]
    assert [b["name"] for b in res.blocked] == ["Bash"]
    assert not pwned.exists()
    assert "stopped this turn" in res.text and "Bash" in res.text
    # the upstream saw both requests; the key went upstream only
    assert len(fake_api.message_requests) == 2
    assert "sk-test" not in json.dumps(res.to_json())


def test_eval_via_client_counts_triggers_in_the_eval_format(ws, fake_api):
    fake_api.on("pdf", tool_call("Skill", {"skill": "pdf"}))
    fake_api.after_tool = text("done")
    fake_api.default = text("no skill needed")
    rep = eval_via_client(
        _env(ws),
        "claude-code",
        "pdf",
        [("fill my pdf form", True), ("what time is it", False)],
        2,
        base_url=fake_api.url,
        api_key="k",
        skill_dirs=[ws / ".claude/skills/pdf"],
        exe=Path(sys.executable),
        runner=FakeRunner(),
        concurrency=2,
        timeout=60,
    )
    by_q = {r["query"]: r for r in rep["results"]}
    assert by_q["fill my pdf form"]["triggers"] == 2 and by_q["fill my pdf form"]["pass"] is True
    assert by_q["what time is it"]["triggers"] == 0 and by_q["what time is it"]["pass"] is True
    assert rep["summary"]["passed"] == 2 and rep["via_client"] is True


def test_unreachable_upstream_is_an_error_not_a_non_trigger(ws):
    res = chat_via_client(
        _env(ws),
        "claude-code",
        "fill my pdf",
        base_url="http://127.0.0.1:9",
        api_key="k",
        skill_dirs=[],
        exe=Path(sys.executable),
        runner=FakeRunner(),
        timeout=30,
    )
    assert res.error and "cannot reach" in res.error


def test_clients_that_cannot_be_driven():
    with pytest.raises(ViaClientError) as e:
        resolve_client("codex", None)
    assert e.value.kind == "unsupported"
    with pytest.raises(ViaClientError) as e:
        resolve_client("claude-code", Path("/nonexistent/claude"), FakeRunner())
    assert e.value.kind == "not-installed"
