"""Claude Code invocation facts re-checked against the real, pinned client (issue 17).

Runs only when the lab is enabled (``WB_LAB=1``) and Claude Code 2.1.328 is installed in the lab
folder (``workbench.core.capture.runner.lab_dir()``). Each case scripts a ``Skill`` tool call through
the recorder and compares what the real client delivers with ``clients/claude_code/arguments.py``
(argument substitution), and probes ``/name`` for the built-in command list
(``clients/claude_code/commands.py``).
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.chat.test_cc_arguments import REAL_CASES
from tests.conformance.scripted import scripted_call
from workbench.core.capture import get_runner
from workbench.core.capture.recorder import RecordedRequest
from workbench.core.capture.runner import run_client
from workbench.core.clients.claude_code.arguments import substitute
from workbench.core.clients.claude_code.commands import BUILTIN_COMMANDS, NOT_BUILTIN_PROBED

RUNNER = get_runner("claude-code")
pytestmark = pytest.mark.skipif(
    os.environ.get("WB_LAB") != "1" or RUNNER.lab_executable() is None,
    reason="the conformance lab is off (set WB_LAB=1 and install the pinned clients)",
)


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
    inp = {"skill": "tally"} if args is None else {"skill": "tally", "args": args}
    for req in scripted_call(RUNNER, ws, "Skill", inp, timeout=60):
        msgs = (req.json() or {}).get("messages") or []
        if msgs and msgs[-1]["role"] == "user" and isinstance(msgs[-1]["content"], list):
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
