"""The recorder as a forwarding proxy: a real client's model requests go to the configured Messages
API, and only skill loads come back.

``ForwardingResponder(upstream, api_key, client_id, skill_dirs)`` is a ``Recorder`` responder for
Anthropic-speaking clients (Claude Code, OpenCode, OpenClaw, Copilot CLI). For each Messages request
it sends the same body (non-streamed) to ``upstream`` with the user's key, then inspects the reply:

* a reply whose tool calls are all **skill loads** (the client's load tool — ``Skill``, ``skill`` —
  or, for clients that load by reading, a read of a file inside a skill folder) is delivered to the
  client as it came (re-streamed as SSE when the client asked for a stream);
* a reply with **any other tool call** (shell, write, edit, web, ...) is never delivered: the client
  receives a plain text reply that ends the turn, and the blocked call is recorded in ``blocked``.

Everything exchanged is recorded (``exchanges``); ``loaded`` lists the skills the model loaded.
The key is sent only to ``upstream`` and never stored in what is recorded or reported.
"""

from __future__ import annotations

import json
import os
import threading
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from workbench.core.capture.recorder import RecordedRequest, Reply
from workbench.core.capture.replies import sse_event

#: The skill-load tool of each Anthropic-speaking client, and the read tool (input key) of those that
#: load a skill by reading its SKILL.md.
LOAD_TOOLS: dict[str, tuple[str, ...]] = {
    "claude-code": ("Skill",),
    "opencode": ("skill",),
    "copilot-cli": ("skill",),
    "openclaw": (),
}
READ_TOOLS: dict[str, tuple[str, str]] = {"openclaw": ("read", "path")}
#: Clients whose model API the proxy speaks (the others use OpenAI Responses or Gemini).
FORWARDABLE = tuple(LOAD_TOOLS)

BLOCKED_TEXT = (
    "[Skill Workbench stopped this turn: the model called {names}, which is never "
    "delivered to the client in a trigger test.]"
)


@dataclass
class Blocked:
    """A tool call the proxy kept from the client."""

    name: str
    input: Any
    request_seq: int


@dataclass
class Exchange:
    """One forwarded request: its sequence number, the upstream status and the reply JSON."""

    request_seq: int
    status: int
    reply: Any
    delivered: bool


def _message_events(msg: dict[str, Any]) -> list[bytes]:
    """A complete Messages reply re-expressed as the SSE events of a stream."""
    head = {k: v for k, v in msg.items() if k != "content"}
    head["content"] = []
    head["stop_reason"] = None
    usage = msg.get("usage") or {}
    head["usage"] = {
        "input_tokens": usage.get("input_tokens", 0),
        "output_tokens": 0,
        "cache_read_input_tokens": usage.get("cache_read_input_tokens", 0),
        "cache_creation_input_tokens": usage.get("cache_creation_input_tokens", 0),
    }
    out = [sse_event("message_start", {"type": "message_start", "message": head})]
    for i, block in enumerate(msg.get("content") or []):
        kind = block.get("type")
        if kind == "text":
            out.append(
                sse_event(
                    "content_block_start",
                    {
                        "type": "content_block_start",
                        "index": i,
                        "content_block": {"type": "text", "text": ""},
                    },
                )
            )
            out.append(
                sse_event(
                    "content_block_delta",
                    {
                        "type": "content_block_delta",
                        "index": i,
                        "delta": {"type": "text_delta", "text": block.get("text", "")},
                    },
                )
            )
        elif kind == "tool_use":
            start = {"type": "tool_use", "id": block.get("id"), "name": block.get("name"), "input": {}}
            out.append(
                sse_event(
                    "content_block_start", {"type": "content_block_start", "index": i, "content_block": start}
                )
            )
            out.append(
                sse_event(
                    "content_block_delta",
                    {
                        "type": "content_block_delta",
                        "index": i,
                        "delta": {
                            "type": "input_json_delta",
                            "partial_json": json.dumps(block.get("input") or {}),
                        },
                    },
                )
            )
        else:
            out.append(
                sse_event(
                    "content_block_start", {"type": "content_block_start", "index": i, "content_block": block}
                )
            )
        out.append(sse_event("content_block_stop", {"type": "content_block_stop", "index": i}))
    out.append(
        sse_event(
            "message_delta",
            {
                "type": "message_delta",
                "delta": {"stop_reason": msg.get("stop_reason"), "stop_sequence": msg.get("stop_sequence")},
                "usage": {"output_tokens": usage.get("output_tokens", 0)},
            },
        )
    )
    out.append(sse_event("message_stop", {"type": "message_stop"}))
    return out


class ForwardingResponder:
    """A recorder responder that forwards Messages requests upstream (module docstring).

    Args:
        upstream: the API base URL (``https://api.anthropic.com`` or a local server), no ``/v1``.
        api_key: sent upstream as ``x-api-key`` (never recorded).
        client_id: which client is being driven (its load tool decides what passes).
        skill_dirs: folders whose files count as skills for read-to-load clients.
        model: replaces the model id the client sends (a local server's model name), or None.
        timeout: seconds per upstream request.
    """

    def __init__(
        self,
        upstream: str,
        api_key: str,
        client_id: str,
        skill_dirs: list[Path],
        model: str | None = None,
        timeout: float = 120.0,
    ) -> None:
        if client_id not in FORWARDABLE:
            raise ValueError(
                f"{client_id} does not speak the Messages API; --via-client supports {', '.join(FORWARDABLE)}"
            )
        self.upstream = upstream.rstrip("/")
        self._key = api_key
        self.client_id = client_id
        self.skill_dirs = [Path(os.path.realpath(d)) for d in skill_dirs]
        self.model = model
        self.timeout = timeout
        self.loaded: list[str] = []
        self.blocked: list[Blocked] = []
        self.exchanges: list[Exchange] = []
        self.errors: list[str] = []
        self._lock = threading.Lock()

    # -- policy ---------------------------------------------------------------------------------
    def skill_of(self, block: dict[str, Any]) -> str | None:
        """The skill a tool call loads (name), or None when it is not a skill load."""
        name, inp = block.get("name"), block.get("input") or {}
        if name in LOAD_TOOLS.get(self.client_id, ()):
            skill = inp.get("skill") or inp.get("name") if isinstance(inp, dict) else None
            return str(skill) if skill else None
        read = READ_TOOLS.get(self.client_id)
        if read and name == read[0] and isinstance(inp, dict) and isinstance(inp.get(read[1]), str):
            real = Path(os.path.realpath(inp[read[1]]))
            for d in self.skill_dirs:
                if real == d / "SKILL.md" or d in real.parents:
                    return d.name if real.name == "SKILL.md" else None
            return None
        return None

    def allowed(self, block: dict[str, Any]) -> bool:
        """Skill loads, and reads inside skill folders for read-to-load clients."""
        if block.get("name") in LOAD_TOOLS.get(self.client_id, ()):
            return True
        read = READ_TOOLS.get(self.client_id)
        if read and block.get("name") == read[0]:
            inp = block.get("input") or {}
            raw = inp.get(read[1]) if isinstance(inp, dict) else None
            if isinstance(raw, str):
                real = Path(os.path.realpath(raw))
                return any(real == d or d in real.parents for d in self.skill_dirs)
        return False

    # -- responder ------------------------------------------------------------------------------
    def __call__(self, req: RecordedRequest) -> Reply | None:
        if req.api == "anthropic-count-tokens":
            return None
        if req.api != "anthropic-messages":
            return None
        body = req.json()
        if not isinstance(body, dict):
            return None
        streamed = bool(body.get("stream"))
        send = dict(body, stream=False)
        if self.model:
            send["model"] = self.model
        status, reply = self._forward(send)
        if status != 200 or not isinstance(reply, dict):
            with self._lock:
                self.exchanges.append(Exchange(req.seq, status, reply, True))
                self.errors.append(f"upstream answered {status}: {str(reply)[:200]}")
            return Reply(
                status=status,
                headers={"content-type": "application/json"},
                body=json.dumps(reply).encode() if not isinstance(reply, bytes) else reply,
            )
        uses = [b for b in reply.get("content") or [] if isinstance(b, dict) and b.get("type") == "tool_use"]
        bad = [b for b in uses if not self.allowed(b)]
        with self._lock:
            for b in uses:
                if b in bad:
                    continue
                skill = self.skill_of(b)
                if skill and skill not in self.loaded:
                    self.loaded.append(skill)
            for b in bad:
                self.blocked.append(Blocked(str(b.get("name")), b.get("input"), req.seq))
            self.exchanges.append(Exchange(req.seq, status, reply, not bad))
        if bad:
            names = ", ".join(sorted({str(b.get("name")) for b in bad}))
            reply = {
                "id": reply.get("id", "msg_blocked"),
                "type": "message",
                "role": "assistant",
                "model": reply.get("model", body.get("model")),
                "content": [{"type": "text", "text": BLOCKED_TEXT.format(names=names)}],
                "stop_reason": "end_turn",
                "stop_sequence": None,
                "usage": reply.get("usage") or {"input_tokens": 0, "output_tokens": 0},
            }
        if streamed:
            return Reply(headers={"content-type": "text/event-stream"}, events=_message_events(reply))
        return Reply(headers={"content-type": "application/json"}, body=json.dumps(reply).encode())

    def _forward(self, body: dict[str, Any]) -> tuple[int, Any]:
        data = json.dumps(body).encode()
        req = urllib.request.Request(
            self.upstream + "/v1/messages",
            data=data,
            method="POST",
            headers={
                "content-type": "application/json",
                "x-api-key": self._key,
                "anthropic-version": "2023-06-01",
            },
        )
        try:
            with urllib.request.urlopen(req, timeout=self.timeout) as resp:  # noqa: S310 - user's API
                return resp.status, json.loads(resp.read())
        except urllib.error.HTTPError as exc:
            try:
                return exc.code, json.loads(exc.read())
            except ValueError:
                return exc.code, {"type": "error", "error": {"type": "api_error", "message": str(exc)}}
        except (urllib.error.URLError, OSError, ValueError) as exc:
            return 502, {
                "type": "error",
                "error": {"type": "api_error", "message": f"cannot reach {self.upstream}: {exc}"},
            }

    def report(self) -> dict[str, Any]:
        """``{"loaded": [...], "blocked": [{"name","input"}], "requests": N, "errors": [...]}``."""
        return {
            "loaded": list(self.loaded),
            "blocked": [{"name": b.name, "input": b.input} for b in self.blocked],
            "requests": len(self.exchanges),
            "errors": list(self.errors),
        }
