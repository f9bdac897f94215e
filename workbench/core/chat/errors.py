"""Chat errors as plain, user-facing messages (never a traceback).

``ChatError(kind, message, hint, request_id)`` is what the engine, the CLI and the chat pane show.
``from_exception(exc, base_url)`` maps the ``anthropic`` SDK 2.x exceptions to it, following the
table in ../shared/reference/chat-loop.md section 1.6 (SDK ``anthropic/_exceptions.py``).

Kinds (stable strings, used by the GUI to decide what to focus):

=====================  ==========================================================================
no-key                 no API key available (``ANTHROPIC_API_KEY`` unset, nothing in the keyring)
auth                   401: the key was rejected
billing / permission   402 / 403: the server's own message is shown
not-found              404: usually an unknown model id
bad-request            400: a request the server refused (a client bug: copy the request JSON)
context-too-long       400 "prompt is too long" or stop reason ``model_context_window_exceeded``
too-large              413: request body too large
rate-limited           429; ``retry_after`` in seconds when the server sent it
overloaded             529 / 503, and the ``overloaded_error`` sent *inside* an SSE stream
server                 other 5xx, or another error event inside the stream
timeout                the request timed out
connection             the server could not be reached (refused, DNS, dropped mid-stream)
cancelled              the user pressed Stop
protocol               the reply did not follow the Messages API (malformed stream/event/JSON)
other                  anything else (the message says what)
=====================  ==========================================================================
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

KINDS = (
    "no-key",
    "auth",
    "billing",
    "permission",
    "not-found",
    "bad-request",
    "context-too-long",
    "too-large",
    "rate-limited",
    "overloaded",
    "server",
    "timeout",
    "connection",
    "cancelled",
    "protocol",
    "other",
)

#: The longest ``retry-after`` honoured (seconds): a server asking for more (``86400``) is
#: waited on for this long at most, and the message says so. Used by the SDK client
#: (``backend.make_client``) and the eval runner.
RETRY_AFTER_CAP_S = 60.0

NO_KEY_HINT = (
    "Set ANTHROPIC_API_KEY (export ANTHROPIC_API_KEY=sk-ant-...), or type a key in the "
    "chat settings (kept in the system keyring). For a local server that speaks the "
    "Messages API (Ollama, llama.cpp, vLLM, LiteLLM), set ANTHROPIC_BASE_URL or "
    "--base-url and any dummy key, e.g. ANTHROPIC_API_KEY=local."
)


@dataclass
class ChatError(Exception):
    """A failure of a chat request, worded for the user.

    Attributes:
        kind: one of ``KINDS``.
        message: one line saying what happened.
        hint: one line saying what to do ("" when nothing helps).
        request_id: the server's ``request-id`` header when there was a response, else None.
        status: HTTP status (200 for an error event inside a stream), None without a response.
        retry_after: seconds the server asked to wait (429/529), None when not sent.
    """

    kind: str
    message: str
    hint: str = ""
    request_id: str | None = None
    status: int | None = None
    retry_after: float | None = None

    def __post_init__(self) -> None:
        super().__init__(self.message)

    def __str__(self) -> str:
        return self.message + (f" ({self.hint})" if self.hint else "")

    def to_json(self) -> dict[str, Any]:
        """``{"type":"error","kind","message","hint","request_id","status","retry_after"}``."""
        return {
            "type": "error",
            "kind": self.kind,
            "message": self.message,
            "hint": self.hint,
            "request_id": self.request_id,
            "status": self.status,
            "retry_after": self.retry_after,
        }


def no_key_error() -> ChatError:
    return ChatError("no-key", "No API key set.", NO_KEY_HINT)


def closed_error() -> ChatError:
    """The ``other`` error of a ``send`` on a closed ``ChatSession``."""
    return ChatError("other", "This chat session is closed.", "Start a new conversation.")


def _retry_after(headers: Any) -> float | None:
    if headers is None:
        return None
    ms = headers.get("retry-after-ms")
    if ms:
        try:
            return float(ms) / 1000.0
        except ValueError:
            pass
    s = headers.get("retry-after")
    if s:
        try:
            return float(s)
        except ValueError:
            return None
    return None


def _is_too_long(text: str) -> bool:
    t = text.lower()
    return (
        "prompt is too long" in t
        or "context window" in t
        or "too many tokens" in t
        or "model_context_window_exceeded" in t
        or "context_length" in t
    )


def base_url_problem(url: str | None) -> str | None:
    """Why ``url`` is not a Messages API server root, or None. Catches a root ending in ``/v1``
    (issue 13 item 8: the SDK appends ``/v1/messages`` itself, so ``http://host/v1`` asks for
    ``/v1/v1/messages`` and the server answers 404, which read as "unknown model id")."""
    if not url:
        return None
    from urllib.parse import urlsplit

    path = urlsplit(url.strip()).path.rstrip("/")
    if path.endswith("/v1"):
        root = url.strip().rstrip("/")[: -len("/v1")]
        return (
            f"the base URL {url} ends in /v1, but the client adds /v1/messages itself; "
            f"use the server root: {root}"
        )
    return None


def from_exception(exc: BaseException, base_url: str | None = None) -> ChatError:
    """Map an exception raised while talking to the server to a ``ChatError``.

    Handles the SDK hierarchy (``APIStatusError`` subclasses by status, ``APITimeoutError``,
    ``APIConnectionError``), the ``TypeError("Could not resolve authentication method…")`` the SDK
    raises without credentials, and returns kind "other" for anything else (message = the
    exception's text). Never raises.
    """
    import anthropic  # local: keeps ``import workbench.core.chat.errors`` cheap

    where = base_url or "https://api.anthropic.com"
    if isinstance(exc, ChatError):
        return exc
    if isinstance(exc, TypeError) and "authentication" in str(exc).lower():
        return no_key_error()
    if isinstance(exc, anthropic.APITimeoutError):
        return ChatError(
            "timeout",
            f"Timed out waiting for {where}.",
            "Try again, raise the timeout, or use a smaller max_tokens.",
        )
    if isinstance(exc, anthropic.APIConnectionError):
        cause = exc.__cause__ or exc.__context__
        detail = f": {cause}" if cause else ""
        return ChatError(
            "connection",
            f"Cannot reach {where}{detail}.",
            "Check the base URL and your network; for a local server, start it first (e.g. `ollama serve`).",
        )
    if isinstance(exc, anthropic.APIStatusError):
        status = exc.status_code
        rid = getattr(exc, "request_id", None)
        api_msg = getattr(exc, "api_message", None) or str(exc)
        etype = getattr(exc, "type", None) or ""
        ra = _retry_after(getattr(exc.response, "headers", None))
        if status == 200 or not status:  # error event inside the SSE stream
            if etype == "overloaded_error":
                return ChatError(
                    "overloaded",
                    f"Service overloaded (during the reply): {api_msg}",
                    "Retry the turn; the transcript so far is kept.",
                    rid,
                    200,
                    ra,
                )
            return ChatError(
                "server",
                f"The server sent an error during the reply ({etype or 'error'}): {api_msg}",
                "Retry the turn.",
                rid,
                200,
                ra,
            )
        if status == 401:
            return ChatError(
                "auth",
                f"Key rejected by {where}.",
                "Check the API key in the settings (or ANTHROPIC_API_KEY).",
                rid,
                status,
            )
        if status == 402:
            return ChatError("billing", api_msg, "Check the account's billing.", rid, status)
        if status == 403:
            return ChatError("permission", api_msg, "The key lacks permission for this request.", rid, status)
        if status == 404:
            v1 = base_url_problem(base_url)
            if v1:
                return ChatError(
                    "not-found",
                    f"Not found ({api_msg}): {v1}.",
                    "Remove the trailing /v1 from the base URL.",
                    rid,
                    status,
                )
            return ChatError(
                "not-found", api_msg, "Usually an unknown model id: refresh the model list.", rid, status
            )
        if status == 413:
            return ChatError("too-large", api_msg, "The request is too large; shorten it.", rid, status)
        capped = ""
        if ra is not None and ra > RETRY_AFTER_CAP_S:
            capped = (
                f" (the server asked to wait {ra:,.0f} s; the workbench waits at most "
                f"{RETRY_AFTER_CAP_S:g} s)"
            )
            api_msg += capped
            ra = RETRY_AFTER_CAP_S
        if status == 429:
            wait = f" Retry in {ra:g}s{capped}." if ra is not None else ""
            return ChatError(
                "rate-limited",
                f"Rate limited by {where}.{wait}",
                "Wait and retry, or lower concurrency.",
                rid,
                status,
                ra,
            )
        if status in (503, 529) or etype == "overloaded_error":
            return ChatError(
                "overloaded",
                f"Service overloaded ({status}): {api_msg}",
                "Try again in a moment; the transcript so far is kept.",
                rid,
                status,
                ra,
            )
        if status == 400 and _is_too_long(api_msg):
            return ChatError(
                "context-too-long",
                f"Context too long: {api_msg}",
                "Use a smaller listing (context size) or start a new conversation.",
                rid,
                status,
            )
        if status == 400:
            return ChatError(
                "bad-request",
                f"Request refused: {api_msg}",
                "This is a workbench bug; copy the request JSON from the trace and report it.",
                rid,
                status,
            )
        if status >= 500:
            return ChatError("server", f"Server error ({status}): {api_msg}", "Try again.", rid, status, ra)
        return ChatError("other", f"HTTP {status}: {api_msg}", "", rid, status, ra)
    mod = type(exc).__module__ or ""
    if isinstance(
        exc, (AssertionError, KeyError, IndexError, ValueError, AttributeError, TypeError, UnicodeDecodeError)
    ) and not mod.startswith(("httpx", "httpcore", "h11")):
        # the SDK's stream accumulator asserts/indexes on events it does not expect
        return ChatError(
            "protocol",
            f"The server's reply did not follow the Messages API ({_what(exc)}).",
            f"Check that {where} speaks the Anthropic Messages API (streaming); retry the turn.",
        )
    if mod.startswith(("httpx", "httpcore", "h11")) or isinstance(exc, (ConnectionError, EOFError)):
        return ChatError(
            "connection",
            f"The connection to {where} dropped during the reply ({type(exc).__name__}: {exc}).",
            "Retry the turn; the transcript so far is kept.",
        )
    return ChatError("other", f"{type(exc).__name__}: {exc}", "")


def _what(exc: BaseException) -> str:
    """A short phrase for a malformed-reply exception (no "AssertionError:" prefixes)."""
    text = str(exc).strip().splitlines()[0][:160] if str(exc).strip() else ""
    if isinstance(exc, AssertionError) or not text:
        return "an event arrived out of order or was incomplete"
    if isinstance(exc, (KeyError, IndexError)):
        return f"a field or content block was missing: {text}"
    if isinstance(exc, UnicodeDecodeError):
        return "the reply was not valid UTF-8"
    return f"unexpected content: {text}"
