"""A local fake of the Anthropic Messages API for tests (no internet, no real key).

A stdlib ``ThreadingHTTPServer`` on 127.0.0.1, port 0, that speaks:

* ``POST /v1/messages`` — plain JSON, or SSE when ``"stream": true`` with the real event sequence
  (message_start, ping, content_block_start/delta/stop per block, message_delta, message_stop;
  ../shared/reference/chat-loop.md section 4.2);
* ``POST /v1/messages/count_tokens`` — ``{"input_tokens": N}`` (N ≈ request JSON chars / 4);
* ``GET /v1/models`` — ``FakeAPI.models`` (default: two active models and a deprecated one);
* the Message Batches endpoints (``POST /v1/messages/batches``, ``GET .../batches[?limit,after_id,
  before_id]``, ``GET .../batches/{id}``, ``GET .../batches/{id}/results`` (JSONL),
  ``POST .../batches/{id}/cancel``) — see "Batches" below.

It **validates requests the way the real API does** and answers 400 with the API's error shape
(``{"type":"error","error":{"type":"invalid_request_error","message":...},"request_id":...}``):
model and max_tokens present; messages start with ``user`` and alternate; text blocks non-empty;
every ``tool_use`` answered by ``tool_result`` blocks with the same ids at the *start* of the next
user message (and no unexpected ids); tool definitions have a valid ``name`` and an object
``input_schema``, names unique; ``cache_control`` only on tools, system text blocks and text/image/
document/tool_use/tool_result blocks, at most 4 breakpoints, ``{"type":"ephemeral"[,"ttl"]}``.
Auth: ``Authorization: Bearer <key>`` (SDK 2.x) or ``x-api-key``; missing → 401. Set
``FakeAPI(api_key="k")`` to also reject any other key with 401.

Scripting (first match wins, per ``/v1/messages`` request):

1. ``fake.fail(...)`` / ``fake.drop(...)`` / ``fake.stream_error(...)`` — one-shot faults for the next
   request(s): HTTP errors (401, 429 with retry-after, 529, ...), an ``event: error`` inside the
   stream, or a connection dropped mid-stream;
2. ``fake.queue(turn, turn, ...)`` — canned turns, consumed in order;
3. ``fake.script = fn`` — ``fn(req: MessagesRequest) -> Turn | str | None`` (None = fall through);
4. ``fake.on(substring, turn)`` — keyword rules on the last user message's text (listing blocks
   included) when that message carries no tool_result;
5. after a tool_result: ``fake.after_tool`` (default ``text("Done.")``); otherwise
   ``fake.default`` (default ``text("OK")``).

Turn builders: ``text(s)``, ``tool_call(name, input, text=None)``, ``Turn(blocks, stop_reason)``
(e.g. ``stop_reason="max_tokens"`` with a tool_use block to simulate a cut call, or
``"pause_turn"``). A ``str`` reply means ``text(s)``.

Typical use::

    from tests.fakeapi import FakeAPI, fake_api, tool_call, text   # fake_api is a pytest fixture

    def test_x(fake_api):
        fake_api.on("pdf", tool_call("Skill", {"skill": "pdf"}))
        client = anthropic.Anthropic(api_key="test", base_url=fake_api.url, max_retries=0)
        ...
        assert fake_api.message_requests[-1].tool_results[0]["tool_use_id"].startswith("toolu_")

Batches: ``create`` checks ``requests`` (1..``batch_max_requests`` items, body at most
``batch_max_bytes``: else 413 ``request_too_large``), every ``custom_id`` (1-64 chars of
``[a-zA-Z0-9_-]``, unique in the batch) and refuses ``"stream"`` in ``params`` (400). Each request's
``params`` are validated like ``/v1/messages``; an invalid one ends **errored** with
``invalid_request_error`` (as the real API reports it in the results) and lands in ``invalid``.
A batch is ``in_progress`` for ``batch_seconds`` (counts all ``processing``, as the API documents),
then ``ended`` with succeeded/errored/canceled/expired counts and a ``results_url``; the replies are
chosen with the same scripting as ``/v1/messages`` (faults from ``fail`` become errored results)
when the batch ends, processed and returned in a shuffled order (``batch_seed``). Per request:
``batch_outcome = fn(custom_id, params) -> None | "expired" | "errored" | ("errored", status)``.
``cancel`` sets ``canceling``; after ``batch_cancel_seconds`` the batch ends and requests that
had not finished (each has a completion time spread over ``batch_seconds``) are ``canceled``.
``batch_usage`` sums the usage of every succeeded batch request; ``batch_requests`` counts the
creates; ``expire_batch(id)`` ends a batch at once with every unfinished request ``expired``.

Other knobs: ``latency`` (seconds before each reply), ``event_delay`` (seconds between SSE events),
``cache_min_tokens`` (prefix size from which ``cache_control`` produces cache writes/reads; default
1024), ``requests`` (every request: ``Recorded(method, path, headers, body)``),
``message_requests`` (``MessagesRequest`` views). Errors injected with ``fail`` send
``x-should-retry: false`` unless ``should_retry=True``, so the SDK does not sleep in tests.
"""

from __future__ import annotations

import itertools
import json
import random
import re
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

# ---------------------------------------------------------------------------------------------
# replies


@dataclass
class Turn:
    """One assistant reply: content blocks (wire JSON dicts) and a stop reason."""

    blocks: list[dict]
    stop_reason: str = "end_turn"
    output_tokens: int | None = None


def text(s: str) -> Turn:
    """An assistant text reply that ends the turn."""
    return Turn([{"type": "text", "text": s}], "end_turn")


def tool_call(name: str, input: dict, text: str | None = None, id: str | None = None) -> Turn:
    """An assistant reply calling one tool (``stop_reason="tool_use"``), with optional text first.
    ``id`` defaults to a fresh ``toolu_fake_N``."""
    blocks: list[dict] = []
    if text:
        blocks.append({"type": "text", "text": text})
    blocks.append({"type": "tool_use", "id": id or "", "name": name, "input": input})
    return Turn(blocks, "tool_use")


@dataclass
class Fault:
    """A one-shot fault. kind: "http" (status + error type), "stream-error" (an ``event: error``
    after ``after_events`` SSE events), "drop" (close the connection after ``after_events``), and
    the misbehaviours of ``FakeAPI.misbehave``: "silent" (never answers), "keepalive" (headers,
    then SSE comments forever), "endless" (text deltas forever), "malformed-order" (a delta
    before its block starts), "malformed-json" (an event whose data is not JSON), "no-stop"
    (the stream ends without message_stop), "garbage" (200 with a body that is not SSE)."""

    kind: str
    status: int = 500
    error_type: str = "api_error"
    message: str = "error"
    retry_after: float | None = None
    should_retry: bool = False
    after_events: int = 3


_MISBEHAVIOURS = ("silent", "keepalive", "endless", "malformed-order", "malformed-json", "no-stop", "garbage")

_ERROR_TYPES = {
    400: "invalid_request_error",
    401: "authentication_error",
    402: "billing_error",
    403: "permission_error",
    404: "not_found_error",
    413: "request_too_large",
    429: "rate_limit_error",
    500: "api_error",
    503: "api_error",
    529: "overloaded_error",
}


# ---------------------------------------------------------------------------------------------
# request views


@dataclass
class Recorded:
    method: str
    path: str
    headers: dict[str, str]
    body: Any


@dataclass
class MessagesRequest:
    """A ``POST /v1/messages`` body with helpers for scripts and assertions."""

    body: dict
    headers: dict[str, str] = field(default_factory=dict)

    @property
    def messages(self) -> list[dict]:
        return self.body.get("messages") or []

    @property
    def stream(self) -> bool:
        return bool(self.body.get("stream"))

    @property
    def system_text(self) -> str:
        s = self.body.get("system")
        if isinstance(s, str):
            return s
        return "\n".join(b.get("text", "") for b in (s or []) if isinstance(b, dict))

    @property
    def tools(self) -> list[dict]:
        return self.body.get("tools") or []

    @property
    def tool_names(self) -> list[str]:
        return [t.get("name") for t in self.tools]

    def tool(self, name: str) -> dict | None:
        return next((t for t in self.tools if t.get("name") == name), None)

    @staticmethod
    def _blocks(m: dict) -> list[dict]:
        c = m.get("content")
        if isinstance(c, str):
            return [{"type": "text", "text": c}]
        return [b for b in (c or []) if isinstance(b, dict)]

    @property
    def last_user(self) -> dict:
        for m in reversed(self.messages):
            if m.get("role") == "user":
                return m
        return {}

    @property
    def last_user_text(self) -> str:
        """Texts of the last user message (tool_results excluded), joined by newlines."""
        return "\n".join(b.get("text", "") for b in self._blocks(self.last_user) if b.get("type") == "text")

    @property
    def first_user_blocks(self) -> list[dict]:
        for m in self.messages:
            if m.get("role") == "user":
                return self._blocks(m)
        return []

    @property
    def tool_results(self) -> list[dict]:
        """tool_result blocks of the last user message."""
        return [b for b in self._blocks(self.last_user) if b.get("type") == "tool_result"]

    @property
    def ends_with_assistant(self) -> bool:
        return bool(self.messages) and self.messages[-1].get("role") == "assistant"


# ---------------------------------------------------------------------------------------------
# validation (as the real API does)

_TOOL_NAME = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")
_CACHEABLE = ("text", "image", "document", "tool_use", "tool_result", "search_result")


class Invalid(Exception):
    pass


def validate_messages_body(body: Any, *, count_only: bool = False) -> None:
    """Raise ``Invalid(message)`` where the real API would answer 400."""
    if not isinstance(body, dict):
        raise Invalid("request body must be a JSON object")
    if not isinstance(body.get("model"), str) or not body["model"]:
        raise Invalid("model: Field required")
    if not count_only:
        mt = body.get("max_tokens")
        if not isinstance(mt, int) or isinstance(mt, bool) or mt < 1:
            raise Invalid("max_tokens: Field required (a positive integer)")
    t = body.get("temperature")
    if t is not None and (not isinstance(t, (int, float)) or not 0 <= t <= 1):
        raise Invalid("temperature: must be between 0 and 1")
    breakpoints = 0

    def cc(obj: dict, where: str) -> None:
        nonlocal breakpoints
        if "cache_control" not in obj or obj["cache_control"] is None:
            return
        c = obj["cache_control"]
        if (
            not isinstance(c, dict)
            or c.get("type") != "ephemeral"
            or set(c) - {"type", "ttl"}
            or c.get("ttl", "5m") not in ("5m", "1h")
        ):
            raise Invalid(f"{where}.cache_control: invalid value {c!r}")
        breakpoints += 1

    if "cache_control" in body and body["cache_control"] is not None:
        cc(body, "request")
    tools = body.get("tools")
    if tools is not None:
        if not isinstance(tools, list):
            raise Invalid("tools: must be a list")
        seen = set()
        for i, tl in enumerate(tools):
            if not isinstance(tl, dict):
                raise Invalid(f"tools.{i}: must be an object")
            name = tl.get("name")
            if not isinstance(name, str) or not _TOOL_NAME.match(name):
                raise Invalid(f"tools.{i}.name: String should match pattern '^[a-zA-Z0-9_-]{{1,64}}$'")
            if name in seen:
                raise Invalid(f"tools: Tool names must be unique ({name})")
            seen.add(name)
            sch = tl.get("input_schema")
            if not isinstance(sch, dict) or sch.get("type") != "object":
                raise Invalid(f"tools.{i}.input_schema: Input should be an object schema with type 'object'")
            cc(tl, f"tools.{i}")
    system = body.get("system")
    if system is not None and not isinstance(system, str):
        if not isinstance(system, list):
            raise Invalid("system: must be a string or a list of text blocks")
        for i, b in enumerate(system):
            if not isinstance(b, dict) or b.get("type") != "text" or not isinstance(b.get("text"), str):
                raise Invalid(f"system.{i}: must be a text block")
            if not b["text"]:
                raise Invalid(f"system.{i}: text content blocks must be non-empty")
            cc(b, f"system.{i}")
    msgs = body.get("messages")
    if not isinstance(msgs, list) or not msgs:
        raise Invalid("messages: at least one message is required")
    prev_role = None
    pending: list[str] = []
    for i, m in enumerate(msgs):
        role = m.get("role") if isinstance(m, dict) else None
        if role not in ("user", "assistant"):
            raise Invalid(f"messages.{i}.role: Input should be 'user' or 'assistant'")
        if i == 0 and role != "user":
            raise Invalid("messages: first message must use the \"user\" role")
        if role == prev_role:
            raise Invalid(f"messages.{i}: roles must alternate between \"user\" and \"assistant\"")
        content = m.get("content")
        blocks = [{"type": "text", "text": content}] if isinstance(content, str) else content
        if not isinstance(blocks, list) or (not blocks and i != len(msgs) - 1):
            raise Invalid(f"messages.{i}: content must be a non-empty string or list")
        if role == "user":
            ids = []
            seen_other = False
            for j, b in enumerate(blocks):
                if not isinstance(b, dict):
                    raise Invalid(f"messages.{i}.content.{j}: must be an object")
                if b.get("type") == "tool_result":
                    if seen_other:
                        raise Invalid(f"messages.{i}: tool_result blocks must come first in the content")
                    ids.append(b.get("tool_use_id"))
                else:
                    seen_other = True
            if pending:
                missing = [x for x in pending if x not in ids]
                if missing:
                    raise Invalid(
                        f"messages.{i}: `tool_use` ids were found without `tool_result` blocks "
                        f"immediately after: {', '.join(missing)}. Each `tool_use` block must "
                        "have a corresponding `tool_result` block in the next message."
                    )
            extra = [x for x in ids if x not in pending]
            if extra:
                raise Invalid(
                    f"messages.{i}.content: unexpected `tool_use_id` found in `tool_result` "
                    f"blocks: {', '.join(map(str, extra))}. Each `tool_result` block must have a "
                    "corresponding `tool_use` block in the previous message."
                )
            pending = []
        else:
            pending = [b.get("id") for b in blocks if isinstance(b, dict) and b.get("type") == "tool_use"]
        for j, b in enumerate(blocks):
            if not isinstance(b, dict) or not isinstance(b.get("type"), str):
                raise Invalid(f"messages.{i}.content.{j}: block must have a type")
            bt = b["type"]
            if bt == "text" and (not isinstance(b.get("text"), str) or not b["text"]):
                raise Invalid(f"messages.{i}.content.{j}: text content blocks must be non-empty")
            if bt == "tool_use" and (not b.get("id") or not isinstance(b.get("input"), dict)):
                raise Invalid(f"messages.{i}.content.{j}: tool_use needs id and object input")
            if "cache_control" in b and b["cache_control"] is not None:
                if bt not in _CACHEABLE:
                    raise Invalid(f"messages.{i}.content.{j}.cache_control: not allowed on {bt} blocks")
                cc(b, f"messages.{i}.content.{j}")
        prev_role = role
    if pending and msgs[-1].get("role") == "assistant" and not count_only:
        pass  # an assistant prefill ending in tool_use is odd but the API accepts resuming it
    if breakpoints > 4:
        raise Invalid(f"A maximum of 4 blocks with cache_control may be provided. Found {breakpoints}.")


# ---------------------------------------------------------------------------------------------
# the server


DEFAULT_MODELS = [
    {
        "type": "model",
        "id": "claude-sonnet-5-5",
        "display_name": "Claude Sonnet 5.5",
        "created_at": "2026-09-01T00:00:00Z",
        "lifecycle": "active",
        "max_input_tokens": 200000,
        "max_tokens": 64000,
    },
    {
        "type": "model",
        "id": "claude-haiku-5-5",
        "display_name": "Claude Haiku 5.5",
        "created_at": "2026-09-01T00:00:00Z",
        "lifecycle": "active",
        "max_input_tokens": 200000,
        "max_tokens": 64000,
    },
    {
        "type": "model",
        "id": "claude-sonnet-4-5",
        "display_name": "Claude Sonnet 4.5",
        "created_at": "2025-09-29T00:00:00Z",
        "lifecycle": "deprecated",
        "max_input_tokens": 200000,
        "max_tokens": 64000,
    },
]


class FakeAPI:
    """The fake server (module docstring). Use as a context manager or ``start()``/``stop()``."""

    def __init__(
        self,
        *,
        api_key: str | None = None,
        models: list[dict] | None = None,
        latency: float = 0.0,
        event_delay: float = 0.0,
        cache_min_tokens: int = 1024,
        serve_models: bool = True,
    ):
        self.api_key = api_key
        self.models = list(DEFAULT_MODELS if models is None else models)
        self.serve_models = serve_models
        self.latency = latency
        self.event_delay = event_delay
        self.cache_min_tokens = cache_min_tokens
        self._clients: list[Any] = []
        self.script: Callable[[MessagesRequest], Turn | str | None] | None = None
        self.rules: list[tuple[str, Turn]] = []
        self.after_tool: Turn | str = text("Done.")
        self.default: Turn | str = text("OK")
        self.requests: list[Recorded] = []
        self.message_requests: list[MessagesRequest] = []
        self.invalid: list[str] = []  # 400 messages sent (tests assert this stays empty)
        self._queue: list[Turn | str] = []
        self._faults: list[Fault] = []
        self._cache: set[str] = set()
        self._ids = itertools.count(1)
        self._lock = threading.Lock()
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None
        # batches (module docstring)
        self.batch_seconds = 0.3
        self.batch_cancel_seconds = 0.05
        self.batch_max_requests = 100_000
        self.batch_max_bytes = 256 * 1024 * 1024
        self.batch_seed = 7
        self.batch_outcome: Callable[[str, dict], Any] | None = None
        self.batches: dict[str, FakeBatch] = {}
        self.batch_usage: dict[str, int] = {
            "input_tokens": 0,
            "output_tokens": 0,
            "cache_read_input_tokens": 0,
            "cache_creation_input_tokens": 0,
        }
        self.batch_requests = 0
        self.stopping = threading.Event()  # ends the endless misbehaviours

    # -- scripting -------------------------------------------------------------------------
    def queue(self, *turns: Turn | str) -> FakeAPI:
        """Canned turns for the next requests, in order."""
        self._queue.extend(turns)
        return self

    def on(self, substring: str, turn: Turn | str) -> FakeAPI:
        """When the last user message (no tool_result in it) contains ``substring``, reply ``turn``."""
        self.rules.append((substring, turn))
        return self

    def fail(
        self,
        status: int,
        *,
        times: int = 1,
        retry_after: float | None = None,
        error_type: str | None = None,
        message: str | None = None,
        should_retry: bool = False,
    ) -> FakeAPI:
        """The next ``times`` message requests answer HTTP ``status`` with the API's error shape."""
        et = error_type or _ERROR_TYPES.get(status, "api_error")
        for _ in range(times):
            self._faults.append(Fault("http", status, et, message or f"fake {et}", retry_after, should_retry))
        return self

    def stream_error(
        self, error_type: str = "overloaded_error", message: str = "Overloaded", after_events: int = 3
    ) -> FakeAPI:
        """The next streamed reply sends ``event: error`` after ``after_events`` events."""
        self._faults.append(Fault("stream-error", 200, error_type, message, after_events=after_events))
        return self

    def misbehave(self, kind: str, times: int = 1) -> FakeAPI:
        """The next ``times`` message requests misbehave (``Fault`` kinds "silent", "keepalive",
        "endless", "malformed-order", "malformed-json", "no-stop", "garbage"). The endless ones
        stop when the client hangs up or the server stops."""
        for _ in range(times):
            self._faults.append(Fault(kind))
        return self

    def drop(self, after_events: int = 3) -> FakeAPI:
        """The next streamed reply closes the connection after ``after_events`` events."""
        self._faults.append(Fault("drop", after_events=after_events))
        return self

    # -- lifecycle -------------------------------------------------------------------------
    @property
    def url(self) -> str:
        assert self._server is not None, "FakeAPI not started"
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    def start(self) -> FakeAPI:
        handler = type("Handler", (_Handler,), {"fake": self})
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(
            target=self._server.serve_forever, args=(0.05,), daemon=True, name="fakeapi"
        )
        self._thread.start()
        return self

    def client(self, **kw: Any) -> Any:
        """An ``anthropic.Anthropic`` for this server (key "sk-test", no retries unless ``kw``
        says otherwise), closed by ``stop``."""
        import anthropic

        kw = {"api_key": "sk-test", "base_url": self.url, "max_retries": 0, **kw}
        self._clients.append(anthropic.Anthropic(**kw))
        return self._clients[-1]

    def stop(self) -> None:
        for c in self._clients:
            c.close()
        self._clients.clear()
        self.stopping.set()
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None

    def __enter__(self) -> FakeAPI:
        return self.start()

    def __exit__(self, *exc: Any) -> None:
        self.stop()

    # -- internals -------------------------------------------------------------------------
    def next_id(self, prefix: str) -> str:
        with self._lock:
            return f"{prefix}_fake_{next(self._ids):04d}"

    def take_fault(self) -> Fault | None:
        with self._lock:
            return self._faults.pop(0) if self._faults else None

    def choose(self, req: MessagesRequest) -> Turn:
        with self._lock:
            canned = self._queue.pop(0) if self._queue else None
        reply: Turn | str | None = canned
        if reply is None and self.script is not None:
            reply = self.script(req)
        if reply is None and not req.tool_results:
            for sub, turn in self.rules:
                if sub in req.last_user_text:
                    reply = turn
                    break
        if reply is None:
            reply = self.after_tool if req.tool_results else self.default
        if isinstance(reply, str):
            reply = text(reply)
        blocks = []
        for b in reply.blocks:
            b = dict(b)
            if b.get("type") == "tool_use" and not b.get("id"):
                b["id"] = self.next_id("toolu")
            blocks.append(b)
        return Turn(blocks, reply.stop_reason, reply.output_tokens)

    def answer(self, req: MessagesRequest) -> tuple[Fault | None, Turn, dict, int, str]:
        """Record ``req`` and pick its reply: (fault or None, turn, usage, output tokens, message id).
        An "http" fault means the reply is that error (``turn`` is then unused)."""
        self.message_requests.append(req)
        if self.latency:
            time.sleep(self.latency)
        fault = self.take_fault()
        if fault is not None and fault.kind == "http":
            return fault, Turn([]), {}, 0, ""
        turn = self.choose(req)
        usage = self.usage_for(req.body)
        out_tokens = turn.output_tokens or max(1, len(json.dumps(turn.blocks)) // 4)
        return fault, turn, usage, out_tokens, self.next_id("msg")

    def expire_batch(self, batch_id: str) -> None:
        """End batch ``batch_id`` now: every request not yet finished is ``expired`` (24 h passed)."""
        self.batches[batch_id].end_now("expired")

    def usage_for(self, body: dict) -> dict[str, int]:
        """≈ tokens (chars/4); a cache_control'd prefix (tools, system and message blocks up to the
        last breakpoint) of at least ``cache_min_tokens`` is written, then read."""
        total = max(
            1,
            len(json.dumps(body.get("messages"))) // 4
            + len(json.dumps(body.get("system") or "")) // 4
            + len(json.dumps(body.get("tools") or [])) // 4,
        )
        # the cached prefix runs up to the last cache_control breakpoint, message blocks included
        lead: list = []
        upto = 0
        for m in body.get("messages") or []:
            for b in m.get("content") if isinstance(m.get("content"), list) else []:
                lead.append(b)
                if isinstance(b, dict) and b.get("cache_control"):
                    upto = len(lead)
        lead = lead[:upto]
        has_cc = bool(lead) or "cache_control" in json.dumps([body.get("tools"), body.get("system")])
        prefix = {
            "tools": body.get("tools"),
            "system": body.get("system"),
            "model": body.get("model"),
            "lead": lead,
        }
        ptoks = (
            len(json.dumps(body.get("tools") or []))
            + len(json.dumps(body.get("system") or ""))
            + (len(json.dumps(lead)) if lead else 0)
        ) // 4
        read = write = 0
        if has_cc and ptoks >= self.cache_min_tokens:
            key = json.dumps(prefix, sort_keys=True)
            with self._lock:
                if key in self._cache:
                    read = ptoks
                else:
                    write = ptoks
                    self._cache.add(key)
        return {
            "input_tokens": max(1, total - read - write),
            "cache_creation_input_tokens": write,
            "cache_read_input_tokens": read,
        }


def message_json(msg_id: str, model: str, turn: Turn, usage: dict, out_tokens: int) -> dict:
    """The non-streamed ``Message`` object of a reply."""
    return {
        "id": msg_id,
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": turn.blocks,
        "stop_reason": turn.stop_reason,
        "stop_sequence": None,
        "usage": {**usage, "output_tokens": out_tokens},
    }


_CUSTOM_ID = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")
_BATCH_ONE = re.compile(r"^/v1/messages/batches/([A-Za-z0-9_-]+)(/results)?$")
_BATCH_CANCEL = re.compile(r"^/v1/messages/batches/([A-Za-z0-9_-]+)/cancel$")


def validate_batch_body(body: Any, max_requests: int = 100_000) -> list[dict]:
    """The ``requests`` of a batch create body; raises ``Invalid`` as the real API would (400, or
    "too many ..." for the 413 of an oversized batch)."""
    if not isinstance(body, dict) or not isinstance(body.get("requests"), list) or not body["requests"]:
        raise Invalid("requests: Field required (a non-empty list of {custom_id, params})")
    reqs = body["requests"]
    if len(reqs) > max_requests:
        raise Invalid(f"too many requests in the batch: {len(reqs)} > {max_requests}")
    seen: set[str] = set()
    for i, r in enumerate(reqs):
        if not isinstance(r, dict) or not isinstance(r.get("params"), dict):
            raise Invalid(f"requests.{i}: expected an object with custom_id and params")
        cid = r.get("custom_id")
        if not isinstance(cid, str) or not _CUSTOM_ID.match(cid):
            raise Invalid(f"requests.{i}.custom_id: String should match pattern '^[a-zA-Z0-9_-]{{1,64}}$'")
        if cid in seen:
            raise Invalid(
                f"requests.{i}.custom_id: duplicate custom_id {cid!r}; custom_id must be unique "
                "within a batch"
            )
        seen.add(cid)
        if r["params"].get("stream"):
            raise Invalid(f"requests.{i}.params.stream: streaming is not supported in batches")
    return reqs


class FakeBatch:
    """One message batch of the fake (module docstring, "Batches")."""

    _seq = itertools.count(1)

    def __init__(self, fake: FakeAPI, requests: list[dict]):
        self.fake = fake
        self.seq = next(self._seq)
        self.id = f"msgbatch_fake_{self.seq:04d}_{fake.next_id('b')[-4:]}"
        self.requests = requests
        self.created = time.time()
        rnd = random.Random(fake.batch_seed + self.seq)
        order = list(range(len(requests)))
        rnd.shuffle(order)  # processing (and results) order differs from the request order
        self.order = order
        n = max(1, len(order))
        self.done_at = {k: self.created + fake.batch_seconds * (pos + 1) / n for pos, k in enumerate(order)}
        self.cancel_at: float | None = None
        self.ended: float | None = None
        self.lines: list[dict] | None = None
        self.forced: str | None = None
        self.lock = threading.Lock()

    def status(self) -> str:
        self._advance()
        if self.lines is not None:
            return "ended"
        return "canceling" if self.cancel_at is not None else "in_progress"

    def cancel(self) -> None:
        with self.lock:
            if self.lines is None and self.cancel_at is None:
                self.cancel_at = time.time()

    def end_now(self, why: str) -> None:
        with self.lock:
            if self.lines is None:
                self.forced = why
                self._finish(time.time())

    def _advance(self) -> None:
        with self.lock:
            if self.lines is not None:
                return
            now = time.time()
            if self.cancel_at is not None and now >= self.cancel_at + self.fake.batch_cancel_seconds:
                self._finish(self.cancel_at)
            elif self.cancel_at is None and now >= self.created + self.fake.batch_seconds:
                self._finish(now)

    def _finish(self, cutoff: float) -> None:
        """Process every request (in the shuffled order); unfinished ones by ``cutoff`` are
        canceled (after a cancel) or expired (``expire_batch``)."""
        lines = []
        for k in self.order:
            r = self.requests[k]
            cid, params = r["custom_id"], r["params"]
            if self.done_at[k] > cutoff and (self.cancel_at is not None or self.forced):
                lines.append({"custom_id": cid, "result": {"type": self.forced or "canceled"}})
                continue
            lines.append({"custom_id": cid, "result": self._process(cid, params)})
        self.lines = lines
        self.ended = time.time()

    def _process(self, cid: str, params: dict) -> dict:
        planned = self.fake.batch_outcome(cid, params) if self.fake.batch_outcome else None
        if planned == "expired":
            return {"type": "expired"}
        if planned is not None:
            status = planned[1] if isinstance(planned, tuple) else 500
            return _errored(status, _ERROR_TYPES.get(status, "api_error"), f"fake batch error {status}")
        try:
            validate_messages_body(params)
        except Invalid as exc:
            self.fake.invalid.append(f"{cid}: {exc}")
            return _errored(400, "invalid_request_error", str(exc))
        req = MessagesRequest(params, {})
        fault, turn, usage, out_tokens, msg_id = self.fake.answer(req)
        if fault is not None:
            return _errored(fault.status, fault.error_type, fault.message)
        with self.fake._lock:
            for k in self.fake.batch_usage:
                self.fake.batch_usage[k] += usage.get(k, 0) if k != "output_tokens" else out_tokens
        msg = message_json(msg_id, params["model"], turn, usage, out_tokens)
        return {"type": "succeeded", "message": msg}

    def counts(self) -> dict[str, int]:
        c = {"processing": 0, "succeeded": 0, "errored": 0, "canceled": 0, "expired": 0}
        if self.lines is None:
            c["processing"] = len(self.requests)
        else:
            for x in self.lines:
                c[x["result"]["type"]] += 1
        return c

    def results(self) -> list[dict] | None:
        return self.lines if self.status() == "ended" else None

    def to_json(self, base_url: str) -> dict:
        st = self.status()

        def iso(t: float | None) -> str | None:
            return None if t is None else time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(t))

        return {
            "id": self.id,
            "type": "message_batch",
            "processing_status": st,
            "request_counts": self.counts(),
            "created_at": iso(self.created),
            "expires_at": iso(self.created + 86400),
            "ended_at": iso(self.ended),
            "cancel_initiated_at": iso(self.cancel_at),
            "archived_at": None,
            "results_url": f"{base_url}/v1/messages/batches/{self.id}/results" if st == "ended" else None,
        }


def _errored(status: int, etype: str, message: str) -> dict:
    return {
        "type": "errored",
        "error": {"type": "error", "error": {"type": etype, "message": message}, "request_id": None},
    }


class _Handler(BaseHTTPRequestHandler):
    fake: FakeAPI
    protocol_version = "HTTP/1.1"
    timeout = 30

    def log_message(self, fmt: str, *args: Any) -> None:  # keep test output clean
        pass

    # -- helpers ---------------------------------------------------------------------------
    def _json(self, status: int, obj: Any, headers: dict[str, str] | None = None) -> None:
        data = json.dumps(obj).encode()
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        self.send_header("request-id", self._rid)
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(data)

    def _error(self, status: int, etype: str, message: str, headers: dict[str, str] | None = None) -> None:
        if status == 400:
            self.fake.invalid.append(message)
        self._json(
            status,
            {"type": "error", "error": {"type": etype, "message": message}, "request_id": self._rid},
            headers,
        )

    def _auth_ok(self) -> bool:
        auth = self.headers.get("authorization") or ""
        key = (
            auth[7:].strip() if auth.lower().startswith("bearer ") else (self.headers.get("x-api-key") or "")
        )
        if not key:
            self._error(401, "authentication_error", "missing API key (Authorization: Bearer or x-api-key)")
            return False
        if self.fake.api_key is not None and key != self.fake.api_key:
            self._error(401, "authentication_error", "invalid x-api-key")
            return False
        return True

    def _read_body(self) -> Any:
        n = int(self.headers.get("content-length") or 0)
        raw = self.rfile.read(n) if n else b""
        try:
            return json.loads(raw or b"null")
        except ValueError:
            return raw.decode("utf-8", "replace")

    # -- routes ----------------------------------------------------------------------------
    def do_GET(self) -> None:  # noqa: N802
        self._rid = self.fake.next_id("req")
        self.fake.requests.append(Recorded("GET", self.path, dict(self.headers), None))
        path = self.path.split("?")[0]
        if path.startswith("/v1/messages/batches"):
            if self._auth_ok() and not self._batch_get(path):
                self._error(404, "not_found_error", f"Not found: {path}")
            return
        if path == "/v1/models" and self.fake.serve_models:
            if not self._auth_ok():
                return
            data = self.fake.models
            self._json(
                200,
                {
                    "data": data,
                    "has_more": False,
                    "first_id": data[0]["id"] if data else None,
                    "last_id": data[-1]["id"] if data else None,
                },
            )
            return
        self._error(404, "not_found_error", f"Not found: {path}")

    def do_POST(self) -> None:  # noqa: N802
        self._rid = self.fake.next_id("req")
        body = self._read_body()
        self.fake.requests.append(Recorded("POST", self.path, dict(self.headers), body))
        path = self.path.split("?")[0]
        batch_route = path == "/v1/messages/batches" or _BATCH_CANCEL.match(path)
        if path not in ("/v1/messages", "/v1/messages/count_tokens") and not batch_route:
            self._error(404, "not_found_error", f"Not found: {path}")
            return
        if not self._auth_ok():
            return
        if not self.headers.get("anthropic-version"):
            self._error(400, "invalid_request_error", "anthropic-version: header is required")
            return
        if batch_route:
            self._batch_post(path, body)
            return
        count_only = path.endswith("count_tokens")
        try:
            validate_messages_body(body, count_only=count_only)
        except Invalid as exc:
            self._error(400, "invalid_request_error", str(exc))
            return
        if count_only:
            self._json(200, {"input_tokens": max(1, len(json.dumps(body)) // 4)})
            return
        req = MessagesRequest(body, dict(self.headers))
        fault, turn, usage, out_tokens, msg_id = self.fake.answer(req)
        if fault is not None and fault.kind == "http":
            h = {"x-should-retry": "true" if fault.should_retry else "false"}
            if fault.retry_after is not None:
                h["retry-after"] = f"{fault.retry_after:g}"
            self._error(fault.status, fault.error_type, fault.message, h)
            return
        if fault is not None and fault.kind in _MISBEHAVIOURS:
            self._misbehave(fault.kind, body["model"])
            return
        if not req.stream:
            self._json(200, message_json(msg_id, body["model"], turn, usage, out_tokens))
            return
        self._stream(msg_id, body["model"], turn, usage, out_tokens, fault)

    # -- batches ---------------------------------------------------------------------------
    def _batch_post(self, path: str, body: Any) -> None:
        m = _BATCH_CANCEL.match(path)
        if m:
            b = self.fake.batches.get(m.group(1))
            if b is None:
                self._error(404, "not_found_error", f"message batch {m.group(1)} not found")
                return
            b.cancel()
            self._json(200, b.to_json(self.fake.url))
            return
        size = int(self.headers.get("content-length") or 0)
        if size > self.fake.batch_max_bytes:
            self._error(
                413,
                "request_too_large",
                f"batch of {size} bytes exceeds the {self.fake.batch_max_bytes} byte limit",
            )
            return
        try:
            reqs = validate_batch_body(body, self.fake.batch_max_requests)
        except Invalid as exc:
            status = 413 if str(exc).startswith("too many") else 400
            self._error(status, _ERROR_TYPES[status], str(exc))
            return
        b = FakeBatch(self.fake, reqs)
        with self.fake._lock:
            self.fake.batches[b.id] = b
            self.fake.batch_requests += 1
        self._json(200, b.to_json(self.fake.url))

    def _batch_get(self, path: str) -> bool:
        if path == "/v1/messages/batches":
            q = dict(p.split("=", 1) for p in (self.path.split("?", 1) + [""])[1].split("&") if "=" in p)
            items = sorted(self.fake.batches.values(), key=lambda x: x.seq, reverse=True)  # newest first
            ids = [x.id for x in items]
            if q.get("after_id") in ids:
                items = items[ids.index(q["after_id"]) + 1 :]
            elif q.get("before_id") in ids:
                items = items[: ids.index(q["before_id"])]
            limit = int(q.get("limit") or 20)
            page = [x.to_json(self.fake.url) for x in items[:limit]]
            self._json(
                200,
                {
                    "data": page,
                    "has_more": len(items) > limit,
                    "first_id": page[0]["id"] if page else None,
                    "last_id": page[-1]["id"] if page else None,
                },
            )
            return True
        m = _BATCH_ONE.match(path)
        if not m:
            return False
        b = self.fake.batches.get(m.group(1))
        if b is None:
            self._error(404, "not_found_error", f"message batch {m.group(1)} not found")
            return True
        if not m.group(2):
            self._json(200, b.to_json(self.fake.url))
            return True
        lines = b.results()
        if lines is None:
            self._error(
                400,
                "invalid_request_error",
                f"message batch {b.id} is still {b.status()}; "
                "results are available once processing has ended",
            )
            return True
        data = "".join(json.dumps(x) + "\n" for x in lines).encode()
        self.send_response(200)
        self.send_header("content-type", "application/binary")
        self.send_header("content-length", str(len(data)))
        self.send_header("request-id", self._rid)
        self.end_headers()
        self.wfile.write(data)
        return True

    # -- SSE -------------------------------------------------------------------------------
    def _stream(
        self, msg_id: str, model: str, turn: Turn, usage: dict, out_tokens: int, fault: Fault | None
    ) -> None:
        events: list[tuple[str, dict]] = [
            (
                "message_start",
                {
                    "type": "message_start",
                    "message": {
                        "id": msg_id,
                        "type": "message",
                        "role": "assistant",
                        "model": model,
                        "content": [],
                        "stop_reason": None,
                        "stop_sequence": None,
                        "usage": {**usage, "output_tokens": 1},
                    },
                },
            ),
            ("ping", {"type": "ping"}),
        ]
        for i, b in enumerate(turn.blocks):
            if b["type"] == "text":
                events.append(
                    (
                        "content_block_start",
                        {
                            "type": "content_block_start",
                            "index": i,
                            "content_block": {"type": "text", "text": ""},
                        },
                    )
                )
                s = b["text"]
                for k in range(0, len(s), 16):
                    events.append(
                        (
                            "content_block_delta",
                            {
                                "type": "content_block_delta",
                                "index": i,
                                "delta": {"type": "text_delta", "text": s[k : k + 16]},
                            },
                        )
                    )
            elif b["type"] == "tool_use":
                events.append(
                    (
                        "content_block_start",
                        {
                            "type": "content_block_start",
                            "index": i,
                            "content_block": {
                                "type": "tool_use",
                                "id": b["id"],
                                "name": b["name"],
                                "input": {},
                            },
                        },
                    )
                )
                js = json.dumps(b.get("input", {}))
                if turn.stop_reason == "max_tokens" and b is turn.blocks[-1]:
                    js = js[: max(1, len(js) // 2)]  # a cut call: partial JSON
                half = len(js) // 2
                for part in ("", js[:half], js[half:]):
                    events.append(
                        (
                            "content_block_delta",
                            {
                                "type": "content_block_delta",
                                "index": i,
                                "delta": {"type": "input_json_delta", "partial_json": part},
                            },
                        )
                    )
            else:
                events.append(
                    ("content_block_start", {"type": "content_block_start", "index": i, "content_block": b})
                )
            events.append(("content_block_stop", {"type": "content_block_stop", "index": i}))
        events.append(
            (
                "message_delta",
                {
                    "type": "message_delta",
                    "delta": {"stop_reason": turn.stop_reason, "stop_sequence": None},
                    "usage": {"output_tokens": out_tokens, **usage},
                },
            )
        )
        events.append(("message_stop", {"type": "message_stop"}))

        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.send_header("cache-control", "no-cache")
        self.send_header("request-id", self._rid)
        self.send_header("transfer-encoding", "chunked")
        self.end_headers()
        try:
            for n, (name, data) in enumerate(events):
                if fault is not None and n == fault.after_events:
                    if fault.kind == "drop":
                        self.wfile.flush()
                        self.close_connection = True
                        self.connection.shutdown(2)
                        return
                    if fault.kind == "stream-error":
                        self._chunk(
                            "error",
                            {"type": "error", "error": {"type": fault.error_type, "message": fault.message}},
                        )
                        break
                self._chunk(name, data)
                if self.fake.event_delay:
                    time.sleep(self.fake.event_delay)
            self.wfile.write(b"0\r\n\r\n")
            self.wfile.flush()
        except (BrokenPipeError, ConnectionResetError, OSError):
            self.close_connection = True  # the client hung up (Stop)

    def _misbehave(self, kind: str, model: str) -> None:
        stopping = self.fake.stopping
        try:
            if kind == "silent":
                while not stopping.wait(0.05):
                    pass
                return
            if kind == "garbage":
                body = b"<html>502 Bad Gateway</html>\n"
                self.send_response(200)
                self.send_header("content-type", "text/event-stream")
                self.send_header("content-length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)
                return
            self.send_response(200)
            self.send_header("content-type", "text/event-stream")
            self.send_header("request-id", self._rid)
            self.send_header("transfer-encoding", "chunked")
            self.end_headers()
            start = {
                "type": "message_start",
                "message": {
                    "id": self.fake.next_id("msg"),
                    "type": "message",
                    "role": "assistant",
                    "model": model,
                    "content": [],
                    "stop_reason": None,
                    "stop_sequence": None,
                    "usage": {"input_tokens": 1, "output_tokens": 1},
                },
            }
            if kind == "keepalive":
                while not stopping.wait(0.05):
                    self._raw(b": keep-alive\n\n")
                return
            self._chunk("message_start", start)
            delta = {
                "type": "content_block_delta",
                "index": 0,
                "delta": {"type": "text_delta", "text": "la " * 50},
            }
            if kind == "endless":
                self._chunk(
                    "content_block_start",
                    {
                        "type": "content_block_start",
                        "index": 0,
                        "content_block": {"type": "text", "text": ""},
                    },
                )
                while not stopping.is_set():
                    self._chunk("content_block_delta", delta)
                return
            if kind == "malformed-order":
                self._chunk("content_block_delta", {**delta, "index": 3})
            elif kind == "malformed-json":
                self._raw(b"event: content_block_start\ndata: {not json\n\n")
            # "no-stop" (and after the malformed event): the stream just ends
            self._raw(b"")
            self.wfile.write(b"0\r\n\r\n")
            self.wfile.flush()
        except (BrokenPipeError, ConnectionResetError, OSError):
            self.close_connection = True

    def _raw(self, payload: bytes) -> None:
        if payload:
            self.wfile.write(b"%x\r\n%s\r\n" % (len(payload), payload))
            self.wfile.flush()

    def _chunk(self, name: str, data: dict) -> None:
        payload = f"event: {name}\ndata: {json.dumps(data)}\n\n".encode()
        self.wfile.write(b"%x\r\n%s\r\n" % (len(payload), payload))
        self.wfile.flush()


@pytest.fixture()
def fake_api():
    """A started ``FakeAPI`` (stopped after the test)."""
    with FakeAPI() as f:
        yield f
