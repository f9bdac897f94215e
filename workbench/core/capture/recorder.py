"""The recording stand-in: a local model-API server that records every request a real client sends.

A real coding agent (Claude Code, Codex CLI, Gemini CLI, OpenCode, OpenClaw, Copilot CLI) is pointed at
this server instead of its provider. It records each request byte for byte and answers with a short
reply in the shape the client expects, so the client's first request — which holds the exact skill
listing, its placement and the skill-load tool — can be read back. Used by the conformance lab
(``tests/conformance/``) and by ``workbench capture``.

APIs spoken (shapes from ../shared/reference/real-clients.md and chat-loop.md):

* Anthropic Messages: ``POST /v1/messages`` (any query, e.g. ``?beta=true``), streamed (SSE:
  message_start, content_block_start, content_block_delta, content_block_stop, message_delta,
  message_stop) or not; ``POST /v1/messages/count_tokens``; ``GET /v1/models``.
* OpenAI Responses: ``POST /v1/responses`` (SSE: response.created … response.completed).
* OpenAI Chat Completions: ``POST /v1/chat/completions`` (SSE chunks + ``data: [DONE]``, or JSON).
* Gemini API: ``POST /v1beta/models/{model}:generateContent`` (JSON; a request with a JSON response
  schema — Gemini CLI's router call — gets a minimal instance of that schema),
  ``:streamGenerateContent?alt=sse``, ``:countTokens``.

Anything else is recorded and answered 404 with a JSON error. The server binds 127.0.0.1 only.

A ``responder`` callable can take over the reply for a request (the capture feature's forwarding proxy
uses it): ``responder(request) -> Reply | None`` (None = default reply).
"""

from __future__ import annotations

import gzip
import json
import logging
import re
import threading
import time
import zlib
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

from workbench.core.capture.replies import (
    anthropic_events,
    anthropic_message,
    chat_completion_events,
    gemini_response,
    gemini_schema,
    responses_events,
    schema_instance,
    sse_event,
)
from workbench.core.tokens import estimate_tokens

__all__ = [
    "API_KINDS",
    "DEFAULT_REPLY",
    "RecordedRequest",
    "Recorder",
    "Reply",
    "Responder",
    "anthropic_events",
    "anthropic_message",
    "chat_completion_events",
    "classify",
    "gemini_response",
    "responses_events",
    "schema_instance",
]

log = logging.getLogger(__name__)

DEFAULT_REPLY = "OK."

#: API kinds a request is classified as (``RecordedRequest.api``).
API_KINDS = (
    "anthropic-messages",
    "anthropic-count-tokens",
    "anthropic-models",
    "openai-responses",
    "openai-chat",
    "gemini-generate",
    "gemini-stream",
    "gemini-count-tokens",
    "other",
)


@dataclass
class RecordedRequest:
    """One request as received.

    Attributes:
        seq: 0-based arrival order.
        method, path: e.g. "POST", "/v1/messages" (without the query string).
        query: parsed query string (``{key: [values]}``).
        headers: request headers (lower-cased names; the last value wins).
        body: the request body, decoded from gzip/deflate/zstd when the client compressed it.
        api: one of ``API_KINDS``.
        time: ``time.monotonic()`` at arrival.
    """

    seq: int
    method: str
    path: str
    query: dict[str, list[str]]
    headers: dict[str, str]
    body: bytes
    api: str
    time: float

    def json(self) -> Any:
        """The body parsed as JSON, or None when it is not JSON."""
        try:
            return json.loads(self.body.decode("utf-8"))
        except (UnicodeDecodeError, ValueError):
            return None

    @property
    def streamed(self) -> bool:
        """Whether the client asked for a streamed (SSE) reply."""
        if self.api in ("gemini-stream",):
            return True
        data = self.json()
        return bool(isinstance(data, dict) and data.get("stream"))

    def redacted_headers(self) -> dict[str, str]:
        """Headers with credentials replaced by ``"<redacted>"`` (for logs and reports)."""
        secret = ("authorization", "x-api-key", "x-goog-api-key", "api-key", "cookie")
        return {k: ("<redacted>" if k in secret else v) for k, v in self.headers.items()}


@dataclass
class Reply:
    """A reply a ``responder`` wants sent instead of the default.

    ``events`` (already formatted SSE chunks, bytes) are streamed when given; otherwise ``body``.
    """

    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    body: bytes = b""
    events: Iterable[bytes] | None = None


Responder = Callable[[RecordedRequest], "Reply | None"]


def classify(method: str, path: str) -> str:
    """The API kind of a request path (see ``API_KINDS``)."""
    if method == "POST":
        if path.endswith("/messages/count_tokens"):
            return "anthropic-count-tokens"
        if path.endswith("/messages"):
            return "anthropic-messages"
        if path.endswith("/responses"):
            return "openai-responses"
        if path.endswith("/chat/completions"):
            return "openai-chat"
        if path.endswith(":streamGenerateContent"):
            return "gemini-stream"
        if path.endswith(":generateContent"):
            return "gemini-generate"
        if path.endswith(":countTokens"):
            return "gemini-count-tokens"
    if method == "GET" and re.search(r"/models/?$", path):
        return "anthropic-models"
    return "other"


def _decode_body(raw: bytes, encoding: str) -> bytes:
    enc = encoding.strip().lower()
    try:
        if enc in ("gzip", "x-gzip"):
            return gzip.decompress(raw)
        if enc == "deflate":
            return zlib.decompress(raw)
        if enc == "zstd":
            try:
                import zstandard
            except ImportError:
                return raw
            out: bytes = zstandard.ZstdDecompressor().decompressobj().decompress(raw)
            return out
    except Exception:  # noqa: BLE001 - keep the raw bytes when the body is not what it claims
        log.debug("request body is not valid %s; kept as sent", enc, exc_info=True)
        return raw
    return raw


class Recorder:
    """A recording stand-in server on ``127.0.0.1`` (an ephemeral port unless ``port`` is given).

    Use as a context manager (``with Recorder() as rec: ... rec.url``) or ``start()``/``stop()``.
    ``requests`` (a snapshot list) holds every ``RecordedRequest`` in arrival order. Thread-safe.

    Args:
        reply_text: the text every default reply carries.
        responder: optional hook that may return a ``Reply`` to send instead of the default.
        port: 0 = pick a free port.
    """

    def __init__(
        self, reply_text: str = DEFAULT_REPLY, responder: Responder | None = None, port: int = 0
    ) -> None:
        self.reply_text = reply_text
        self.responder = responder
        self._port = port
        self._lock = threading.Lock()
        self._requests: list[RecordedRequest] = []
        self._arrived = threading.Condition(self._lock)
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # lifecycle --------------------------------------------------------------------------------
    def start(self) -> Recorder:
        """Bind and serve in a daemon thread. Returns self."""
        handler = _make_handler(self)
        self._server = ThreadingHTTPServer(("127.0.0.1", self._port), handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, name="recorder", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving and close the socket."""
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None

    def __enter__(self) -> Recorder:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def port(self) -> int:
        assert self._server is not None, "Recorder not started"
        return int(self._server.server_address[1])

    @property
    def url(self) -> str:
        """``http://127.0.0.1:PORT`` (no trailing slash, no ``/v1``)."""
        return f"http://127.0.0.1:{self.port}"

    # records ----------------------------------------------------------------------------------
    @property
    def requests(self) -> list[RecordedRequest]:
        with self._lock:
            return list(self._requests)

    def clear(self) -> None:
        with self._lock:
            self._requests.clear()

    def wait_for(
        self, predicate: Callable[[RecordedRequest], bool], timeout: float
    ) -> RecordedRequest | None:
        """Block until a recorded request satisfies ``predicate`` (or ``timeout`` seconds pass)."""
        deadline = time.monotonic() + timeout
        with self._arrived:
            while True:
                for req in self._requests:
                    if predicate(req):
                        return req
                left = deadline - time.monotonic()
                if left <= 0:
                    return None
                self._arrived.wait(left)

    def _record(self, method: str, raw_path: str, headers: dict[str, str], body: bytes) -> RecordedRequest:
        parts = urlsplit(raw_path)
        with self._arrived:
            req = RecordedRequest(
                seq=len(self._requests),
                method=method,
                path=parts.path,
                query=parse_qs(parts.query),
                headers=headers,
                body=body,
                api=classify(method, parts.path),
                time=time.monotonic(),
            )
            self._requests.append(req)
            self._arrived.notify_all()
        return req

    # default replies --------------------------------------------------------------------------
    def default_reply(self, req: RecordedRequest) -> Reply:
        """The reply sent when no responder takes the request."""
        data = req.json()
        model = str(data.get("model", "recorder")) if isinstance(data, dict) else "recorder"
        text = self.reply_text
        sse = {"content-type": "text/event-stream", "cache-control": "no-cache"}
        js = {"content-type": "application/json"}
        if req.api == "anthropic-messages":
            if req.streamed:
                return Reply(headers=sse, events=anthropic_events(model, text))
            return Reply(headers=js, body=json.dumps(anthropic_message(model, text)).encode())
        if req.api == "anthropic-count-tokens":
            return Reply(
                headers=js, body=json.dumps({"input_tokens": max(1, estimate_tokens(len(req.body)))}).encode()
            )
        if req.api == "anthropic-models":
            return Reply(
                headers=js, body=b'{"data": [], "has_more": false, "first_id": null, "last_id": null}'
            )
        if req.api == "openai-responses":
            if req.streamed:
                return Reply(headers=sse, events=responses_events(model, text))
            done = json.loads(responses_events(model, text)[-1].split(b"data: ", 1)[1])
            return Reply(headers=js, body=json.dumps(done["response"]).encode())
        if req.api == "openai-chat":
            if req.streamed:
                return Reply(headers=sse, events=chat_completion_events(model, text))
            return Reply(
                headers=js,
                body=json.dumps(
                    {
                        "id": "chatcmpl-recorder",
                        "object": "chat.completion",
                        "created": int(time.time()),
                        "model": model,
                        "choices": [
                            {
                                "index": 0,
                                "finish_reason": "stop",
                                "message": {"role": "assistant", "content": text},
                            }
                        ],
                        "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
                    }
                ).encode(),
            )
        if req.api in ("gemini-generate", "gemini-stream"):
            schema = gemini_schema(data)
            reply_text = json.dumps(schema_instance(schema)) if schema is not None else text
            body = gemini_response(reply_text)
            if req.api == "gemini-stream":
                return Reply(headers=sse, events=[sse_event(None, body)])
            return Reply(headers=js, body=json.dumps(body).encode())
        if req.api == "gemini-count-tokens":
            return Reply(
                headers=js, body=json.dumps({"totalTokens": max(1, estimate_tokens(len(req.body)))}).encode()
            )
        return Reply(
            status=404,
            headers=js,
            body=json.dumps(
                {
                    "type": "error",
                    "error": {
                        "type": "not_found_error",
                        "message": f"recorder: no handler for {req.method} {req.path}",
                    },
                }
            ).encode(),
        )


def _make_handler(rec: Recorder) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        server_version = "workbench-recorder"

        def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - stdlib signature
            return

        def _read_body(self) -> bytes:
            if self.headers.get("transfer-encoding", "").lower() == "chunked":
                chunks = []
                while True:
                    size_line = self.rfile.readline()
                    if not size_line:
                        break
                    size = int(size_line.split(b";", 1)[0].strip() or b"0", 16)
                    if size == 0:
                        while self.rfile.readline() not in (b"\r\n", b"\n", b""):
                            pass
                        break
                    chunks.append(self.rfile.read(size))
                    self.rfile.readline()
                raw = b"".join(chunks)
            else:
                raw = self.rfile.read(int(self.headers.get("content-length") or 0))
            return _decode_body(raw, self.headers.get("content-encoding", ""))

        def _handle(self) -> None:
            body = self._read_body() if self.command in ("POST", "PUT", "PATCH") else b""
            headers = {k.lower(): v for k, v in self.headers.items()}
            req = rec._record(self.command, self.path, headers, body)
            reply = None
            if rec.responder is not None:
                try:
                    reply = rec.responder(req)
                except Exception as exc:  # noqa: BLE001 - a broken hook must not hang the client
                    log.warning(
                        "recorder: the responder failed on %s %s", self.command, req.path, exc_info=True
                    )
                    reply = Reply(
                        status=500,
                        headers={"content-type": "application/json"},
                        body=json.dumps(
                            {
                                "type": "error",
                                "error": {"type": "api_error", "message": f"recorder hook: {exc}"},
                            }
                        ).encode(),
                    )
            if reply is None:
                reply = rec.default_reply(req)
            self._send(reply)

        def _send(self, reply: Reply) -> None:
            self.send_response(reply.status)
            for k, v in reply.headers.items():
                self.send_header(k, v)
            if reply.events is not None:
                self.send_header("connection", "close")
                self.end_headers()
                try:
                    for chunk in reply.events:
                        self.wfile.write(chunk)
                        self.wfile.flush()
                except (BrokenPipeError, ConnectionResetError):
                    pass
                self.close_connection = True
                return
            self.send_header("content-length", str(len(reply.body)))
            self.end_headers()
            try:
                self.wfile.write(reply.body)
            except (BrokenPipeError, ConnectionResetError):
                self.close_connection = True

        do_POST = _handle
        do_GET = _handle
        do_PUT = _handle
        do_PATCH = _handle
        do_DELETE = _handle

        def do_HEAD(self) -> None:
            rec._record("HEAD", self.path, {k.lower(): v for k, v in self.headers.items()}, b"")
            self.send_response(200)
            self.send_header("content-length", "0")
            self.end_headers()

    return Handler
