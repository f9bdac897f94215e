"""Claude Code invocation facts re-checked against the real, pinned client (issue 17).

Runs only when the lab is enabled (``WB_LAB=1``) and Claude Code 2.1.328 is installed in the lab
folder (``workbench.core.capture.runner.lab_dir()``). Each case scripts a ``Skill`` tool call through
the recorder and compares what the real client delivers with ``clients/claude_code/arguments.py``
(argument substitution), and probes ``/name`` for the built-in command list
(``clients/claude_code/commands.py``).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.chat.test_cc_arguments import REAL_CASES
from workbench.core.capture import get_runner
from workbench.core.capture.recorder import RecordedRequest, Reply, anthropic_events
from workbench.core.capture.runner import run_client
from workbench.core.clients.claude_code.arguments import substitute
from workbench.core.clients.claude_code.commands import BUILTIN_COMMANDS, NOT_BUILTIN_PROBED

RUNNER = get_runner("claude-code")
pytestmark = pytest.mark.skipif(
    os.environ.get("WB_LAB") != "1" or RUNNER.lab_executable() is None,
    reason="the conformance lab is off (set WB_LAB=1 and install the pinned clients)",
)


def _tool_use_events(model: str, name: str, inp: dict) -> list[bytes]:
    """A streamed reply that calls ``name`` with ``inp`` (built from the recorder's text events)."""

    def sse(event: str, data: dict) -> bytes:
        return f"event: {event}\ndata: {json.dumps(data)}\n\n".encode()

    start = anthropic_events(model, "")[0]
    return [
        start,
        sse(
            "content_block_start",
            {
                "type": "content_block_start",
                "index": 0,
                "content_block": {"type": "tool_use", "id": "toolu_lab", "name": name, "input": {}},
            },
        ),
        sse(
            "content_block_delta",
            {
                "type": "content_block_delta",
                "index": 0,
                "delta": {"type": "input_json_delta", "partial_json": json.dumps(inp)},
            },
        ),
        sse("content_block_stop", {"type": "content_block_stop", "index": 0}),
        sse(
            "message_delta",
            {
                "type": "message_delta",
                "delta": {"stop_reason": "tool_use", "stop_sequence": None},
                "usage": {"output_tokens": 5},
            },
        ),
        sse("message_stop", {"type": "message_stop"}),
    ]


def _deliver(tmp: Path, body: str, args: str | None, declared: str) -> tuple[str | None, Path]:
    ws = tmp / "ws"
    shutil.rmtree(ws, ignore_errors=True)
    skill = ws / ".claude" / "skills" / "tally"
    skill.mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(ws)], check=True)
    fm = f"arguments: {declared}\n" if declared else ""
    (skill / "SKILL.md").write_text(
        f"---\nname: tally\ndescription: Sums numbers.\n{fm}---\n{body}", encoding="utf-8", newline=""
    )
    calls = {"n": 0}

    def responder(req: RecordedRequest) -> Reply | None:
        data = req.json()
        if req.api != "anthropic-messages" or not isinstance(data, dict):
            return None
        if not any(t.get("name") == "Skill" for t in data.get("tools") or []):
            return None
        calls["n"] += 1
        if calls["n"] == 1:
            inp = {"skill": "tally"} if args is None else {"skill": "tally", "args": args}
            return Reply(
                headers={"content-type": "text/event-stream"},
                events=_tool_use_events(data["model"], "Skill", inp),
            )
        return None

    class Once(type(RUNNER)):  # type: ignore[misc]
        def done(self, requests: list[RecordedRequest]) -> bool:
            return calls["n"] >= 2

        def extract(self, req: RecordedRequest):  # the listing is not what this test reads
            return None

    cap = run_client(Once(), ws, prompt="go", timeout=60, ask_version=False, responder=responder)
    for req in cap.requests:
        data = req.json() or {}
        msgs = data.get("messages") or []
        if calls["n"] >= 2 and msgs and msgs[-1]["role"] == "user" and isinstance(msgs[-1]["content"], list):
            for b in msgs[-1]["content"]:
                if b.get("type") == "text" and b.get("text", "").startswith("Base directory"):
                    return b["text"].split("\n\n", 1)[1], skill
    return None, skill


@pytest.mark.parametrize("body,args,declared,expected", REAL_CASES)
def test_substitution_agrees_with_the_real_client(
    tmp_path: Path, body: str, args: str | None, declared: str, expected: str
) -> None:
    got, skill = _deliver(tmp_path, body, args, declared)
    assert got is not None and got.replace(str(skill), "/w/.claude/skills/tally") == expected
    assert substitute(body, args, "/w/.claude/skills/tally", declared=declared.split()) == expected


@pytest.mark.parametrize("name", sorted(BUILTIN_COMMANDS)[:8] + sorted(NOT_BUILTIN_PROBED)[:3])
def test_builtin_commands(tmp_path: Path, name: str) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    subprocess.run(["git", "init", "-q", str(ws)], check=True)

    class Never(type(RUNNER)):  # type: ignore[misc]
        def done(self, requests: list[RecordedRequest]) -> bool:
            return False

        def extract(self, req: RecordedRequest):
            return None

    cap = run_client(Never(), ws, prompt=f"/{name}", timeout=30, ask_version=False)
    plain = False
    for req in cap.requests:
        data = req.json() or {}
        if req.api == "anthropic-messages" and data.get("messages"):
            last = data["messages"][-1]["content"]
            texts = [b.get("text", "") for b in last] if isinstance(last, list) else [last]
            plain = plain or (bool(texts) and texts[-1].strip() == f"/{name}")
    assert (not plain) == (name in BUILTIN_COMMANDS)
