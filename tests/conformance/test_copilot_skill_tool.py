"""GitHub Copilot CLI's ``skill`` tool result re-checked against the real, pinned client.

Runs only when the lab is enabled (``WB_LAB=1``) and Copilot CLI 1.0.102 is installed in the lab
folder. Each case scripts a ``skill`` tool call through the recorder and compares the next
request's tool_result and ``<skill-context>`` block with ``clients/copilot_cli/skillcontext.py``.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from tests.conformance.scripted import scripted_call
from workbench.core.capture import get_runner
from workbench.core.clients.copilot_cli.skillcontext import LOADED, NOT_FOUND, skill_context

RUNNER = get_runner("copilot-cli")
pytestmark = pytest.mark.skipif(
    os.environ.get("WB_LAB") != "1" or RUNNER.lab_executable() is None,
    reason="the conformance lab is off (set WB_LAB=1 and install the pinned clients)",
)
BODY = "\n  \n# Tally\n\nAdd them up.   \n\n"


def _deliver(ws: Path, name: str) -> list[dict]:
    """Run the client in ``ws``, answer its first request with a ``skill`` call for ``name``;
    returns the content blocks of the messages after the assistant's tool_use."""
    for req in scripted_call(RUNNER, ws, "skill", {"skill": name}):
        msgs = (req.json() or {}).get("messages") or []
        for k, m in enumerate(msgs):
            if m["role"] == "assistant" and any(b.get("type") == "tool_use" for b in m["content"]):
                return [b for later in msgs[k + 1 :] for b in later["content"]]
    raise AssertionError("the client never sent the tool result")


def _skill(tmp: Path, files: list[str]) -> tuple[Path, Path]:
    ws = tmp / "ws"
    d = ws / ".github" / "skills" / "tally"
    d.mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(ws)], check=True)
    (d / "SKILL.md").write_text(
        f"---\nname: tally\ndescription: Sums numbers.\n---\n{BODY}", encoding="utf-8"
    )
    for f in files:
        (d / f).parent.mkdir(parents=True, exist_ok=True)
        (d / f).write_text("x\n", encoding="utf-8")
    return ws, d


CASES = {
    "summary-skips-case": [
        "scripts/run.sh",
        ".hidden/h.txt",
        "node_modules/x/i.js",
        "sub/skill.md",
        "Build/b.txt",
    ]
    + ["vendor/v.txt", "keep/.next/n.txt", "Skill.MD"]
    + [f"big/f{i}.txt" for i in range(51)]
    + [f"fifty/f{i}.txt" for i in range(50)],
    "truncated": [f"{c}/x{i}.txt" for c in "cab" for i in range(10, 50)],
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_skill_context_agrees_with_the_real_client(tmp_path: Path, case: str) -> None:
    ws, d = _skill(tmp_path, CASES[case])
    blocks = _deliver(ws, "tally")
    results = [b for b in blocks if b.get("type") == "tool_result"]
    texts = [b["text"] for b in blocks if b.get("type") == "text" and b["text"].startswith("<skill-context")]
    assert [r["content"] for r in results] == [LOADED.format(name="tally")]
    assert texts == [skill_context("tally", d, BODY)]


def test_unknown_skill_agrees_with_the_real_client(tmp_path: Path) -> None:
    ws, _d = _skill(tmp_path, [])
    blocks = _deliver(ws, "nosuch")
    results = [b for b in blocks if b.get("type") == "tool_result"]
    names = "tally, customize-cloud-agent, github-pr-media"
    assert [r["content"] for r in results] == [NOT_FOUND.format(name="nosuch", names=names)]
    assert not results[0].get("is_error")
