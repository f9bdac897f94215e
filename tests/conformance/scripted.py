"""A scripted tool call through a real client (lab tests of what a client delivers after a load).

``scripted_call(runner, ws, tool, inp)`` runs the pinned client in ``ws`` against the recorder,
answers the first Messages request that offers ``tool`` with a streamed ``tool_use`` of ``tool``
with ``inp``, lets the client send its next request (the tool's result) and stops: returns every
recorded request. Used by ``test_cc_invocation.py`` (Claude Code ``Skill``) and
``test_copilot_skill_tool.py`` (Copilot CLI ``skill``).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from workbench.core.capture.recorder import RecordedRequest, Reply, anthropic_events
from workbench.core.capture.runner import run_client


def tool_use_events(model: str, name: str, inp: dict) -> list[bytes]:
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


def scripted_call(runner: Any, ws: Path, tool: str, inp: dict, timeout: float = 120) -> list[RecordedRequest]:
    """Run ``runner``'s client in ``ws`` with one scripted call of ``tool`` (module docstring).
    Returns the recorded requests; the last ones hold the tool's result once ``calls >= 2``."""
    calls = {"n": 0}

    def responder(req: RecordedRequest) -> Reply | None:
        data = req.json()
        if req.api != "anthropic-messages" or not isinstance(data, dict):
            return None
        if not any(t.get("name") == tool for t in data.get("tools") or []):
            return None
        calls["n"] += 1
        if calls["n"] == 1:
            return Reply(
                headers={"content-type": "text/event-stream"},
                events=tool_use_events(data["model"], tool, inp),
            )
        return None

    class Once(type(runner)):  # type: ignore[misc]
        def done(self, requests: list[RecordedRequest]) -> bool:
            return calls["n"] >= 2

        def extract(self, req: RecordedRequest) -> None:  # the listing is not what is read here
            return None

    cap = run_client(Once(), ws, prompt="go", timeout=timeout, ask_version=False, responder=responder)
    return list(cap.requests) if calls["n"] >= 2 else []
