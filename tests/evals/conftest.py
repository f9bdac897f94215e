"""Fixtures for the eval tests: a workspace of real skills, and a fake Messages API scripted per
query (so the trigger behaviour of every query is known in advance).

``EvalFake`` extends ``tests.fakeapi.FakeAPI`` on our side (the shared fake is not edited):

* ``plans[query_key] = [plan_run0, plan_run1, ...]`` — a plan is a list of steps, one per model
  request of that run (hop 0, 1, ...); a step is a ``Turn`` (``tool_call``/``text``) or an
  ``Err(status, retry_after=None, in_stream=False)``. The run number is how many times the query's
  first request has been seen (retries count), modulo the number of plans. ``query_key`` is
  matched as a substring of the user's query text.
* per-request faults (``Err``) are injected through ``take_fault``, which the handler calls once
  per request after the latency sleep;
* ``alt_plans = [(marker, plans)]`` — used instead of ``plans`` when ``marker`` appears in the
  listing (so a candidate description can change the behaviour);
* ``improver_replies`` — replies to improver requests (system prompt holds "eval-improver");
* ``max_in_flight`` — the most requests that were inside the server at once (counted from arrival
  to the end of the latency sleep; use ``latency`` > 0 to make it meaningful).
"""

from __future__ import annotations

import hashlib
import re
import threading
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.fakeapi import FakeAPI, Fault, MessagesRequest, Turn, text, tool_call  # noqa: F401
from tests.helpers import write_skill


@dataclass
class Err:
    status: int = 529
    retry_after: float | None = None
    in_stream: bool = False


class _Recorder(list):
    def __init__(self, fake: EvalFake):
        super().__init__()
        self.fake = fake

    def append(self, x) -> None:  # noqa: ANN001
        super().append(x)
        if isinstance(x, MessagesRequest):
            self.fake._tl.req = x
            with self.fake._flock:
                self.fake._in_flight += 1
                self.fake.max_in_flight = max(self.fake.max_in_flight, self.fake._in_flight)


def user_query(req: MessagesRequest) -> str:
    """The user's query: the last text block of the first user message (after the listing)."""
    blocks = [b for b in req.first_user_blocks if b.get("type") == "text"]
    return blocks[-1]["text"] if blocks else ""


def hop_of(req: MessagesRequest) -> int:
    return sum(1 for m in req.messages if m.get("role") == "assistant")


class EvalFake(FakeAPI):
    def __init__(self, **kw):
        super().__init__(**kw)
        self.message_requests = _Recorder(self)
        self._tl = threading.local()
        self._flock = threading.Lock()
        self._in_flight = 0
        self.max_in_flight = 0
        self.plans: dict[str, list[list]] = {}
        self.alt_plans: list[tuple[str, dict]] = []  # (text in the listing, plans) tried first
        self.improver_replies: list[str] = []
        self.improver_requests: list[MessagesRequest] = []
        self._seen: dict[str, int] = {}
        self._run_of: dict[int, int] = {}
        self.script = self._script

    def _plan_for(self, req: MessagesRequest):
        """(plan, hop, run) for this request, or (None, None, None) for an unscripted query."""
        q = user_query(req)
        table = self.plans
        listing = (
            "\n".join(b.get("text", "") for b in req.first_user_blocks if b.get("type") == "text")
            + req.system_text
        )
        for marker, alt in self.alt_plans:
            if marker in listing:
                table = alt
                break
        key = next((k for k in table if k in q), None)
        if key is None:
            return None, None, None
        plans = table[key]
        hop = hop_of(req)
        if hop == 0:
            with self._flock:
                run = self._seen.get(key, 0)
                self._seen[key] = run + 1
        else:  # later hops: the run number is encoded in the first tool_use id of the run
            run = 0
            first = req.messages[1].get("content") or []
            for b in first if isinstance(first, list) else []:
                m = re.match(r"toolu_r(\d+)_", str(b.get("id", "")))
                if m:
                    run = int(m.group(1))
                    break
        return plans[run % len(plans)], hop, run

    def take_fault(self):
        with self._flock:
            self._in_flight -= 1
        req = getattr(self._tl, "req", None)
        if req is not None and "eval-improver" in req.system_text:
            return super().take_fault()
        if req is not None:
            plan, hop, run = self._plan_for(req)
            self._tl.plan = (plan, hop, run)
            if plan is not None and hop < len(plan) and isinstance(plan[hop], Err):
                e = plan[hop]
                if e.in_stream:
                    return Fault("stream-error", 200, "overloaded_error", "Overloaded", after_events=3)
                return Fault(
                    "http",
                    e.status,
                    {429: "rate_limit_error", 529: "overloaded_error"}.get(e.status, "api_error"),
                    f"fake {e.status}",
                    e.retry_after,
                    False,
                )
        return super().take_fault()

    def _script(self, req: MessagesRequest):
        if "eval-improver" in req.system_text:
            with self._flock:
                self.improver_requests.append(req)
                return (
                    self.improver_replies.pop(0)
                    if self.improver_replies
                    else "<new_description>Use this skill for anything.</new_description>"
                )
        plan, hop, run = getattr(self._tl, "plan", (None, None, None))
        if plan is None:
            return None
        if hop < len(plan) and isinstance(plan[hop], Turn):
            t = plan[hop]
            blocks = []
            for b in t.blocks:
                b = dict(b)
                if b.get("type") == "tool_use" and not b.get("id"):
                    b["id"] = f"toolu_r{run}_{self.next_id('u')}"
                blocks.append(b)
            return Turn(blocks, t.stop_reason, t.output_tokens)
        return text("Done.")


@pytest.fixture(autouse=True)
def isolated(tmp_path, monkeypatch):
    monkeypatch.setenv("WORKBENCH_HOME", str(tmp_path / "wbhome"))
    monkeypatch.setenv("WORKBENCH_NO_KEYRING", "1")
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    monkeypatch.delenv("ANTHROPIC_BASE_URL", raising=False)


@pytest.fixture()
def fake():
    with EvalFake() as f:
        yield f


@pytest.fixture()
def workspace(tmp_path) -> Path:
    """A project with three Claude Code skills: pdf (under test), csv and greeter (competitors)."""
    ws = tmp_path / "proj"
    sk = ws / ".claude" / "skills"
    write_skill(
        sk / "pdf",
        "pdf",
        "Use for PDF files - extract text, merge, fill forms.",
        body="# PDF\n\nUse pypdf.\n",
    )
    write_skill(sk / "csv", "csv", "Use for CSV files and spreadsheets.", body="# CSV\n")
    write_skill(sk / "greeter", "greeter", "Use at the start of every conversation.", body="# Hi\n")
    (ws / "notes.txt").write_text("a workspace file\n")
    return ws


@pytest.fixture()
def catalog(workspace, fake_home):
    from workbench.core.discovery import scan
    from workbench.core.model import Environment

    env = Environment(workspace=workspace, home=fake_home, env={}, bins=set())
    cat = scan(env, "claude-code")
    assert sorted(s.name for s in cat.listed()) == ["csv", "greeter", "pdf"], [
        (s.name, s.status, s.reason) for s in cat.skills
    ]
    return cat


@pytest.fixture()
def settings(fake):
    from workbench.core.chat.settings import ChatSettings

    return ChatSettings(base_url=fake.url, model="claude-haiku-5-5", max_retries=0, max_turns=6)


def tree_hashes(root: Path) -> dict[str, str]:
    """sha256 of every file under ``root`` (relative path -> hex), for "nothing was written"."""
    out = {}
    for p in sorted(root.rglob("*")):
        if p.is_file():
            out[str(p.relative_to(root))] = hashlib.sha256(p.read_bytes()).hexdigest()
    return out
