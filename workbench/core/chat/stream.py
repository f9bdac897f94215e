"""One streamed model request that Stop, two deadlines and an output cap can always end.

``stream_reply`` runs ``client.messages.stream(**req)`` on a daemon worker thread that feeds a
queue; the calling thread waits on the queue, so Stop, the request deadline, the turn deadline
and the output cap end the wait at once, whatever the server does (never answers, sends
keep-alive comments or an endless stream). An abandoned worker's stream is closed and its result
dropped; the ``OpenStream`` slot keeps the worker threads so ``ChatSession.close`` can join them
(a worker still waiting for the server's headers ends when its SDK client is closed, or at the
SDK's own timeout).
"""

from __future__ import annotations

import logging
import queue
import threading
import time
from collections.abc import Callable
from typing import Any

from workbench.core.chat.errors import ChatError

log = logging.getLogger(__name__)

EventSink = Callable[[dict[str, Any]], None]


class Cancelled(Exception):
    """Stop was pressed while a request was open (the caller ends the turn as ``cancelled``)."""


def deadline_error(seconds: float, answered: bool, turn: bool) -> ChatError:
    """The ``timeout`` ChatError of a passed deadline: ``seconds`` waited, whether the server
    ``answered`` at all, and whether it was the ``turn`` deadline (else the request's)."""
    what = "turn" if turn else "request"
    state = "the reply did not finish" if answered else "the server sent nothing"
    return ChatError(
        "timeout",
        f"The {what} deadline passed after {seconds:.0f} s: {state}.",
        "Try again, raise the timeout in the settings, or check the server.",
    )


def _close(stream: Any) -> None:
    try:
        stream.close()
    except Exception:  # noqa: BLE001 - closing a stream the server or the worker already ended
        log.debug("closing a chat stream failed", exc_info=True)


class OpenStream:
    """The stream currently open (at most one per session), shared between the request's worker
    thread and ``close`` called from any thread (Stop); also the session's live worker threads
    (``track`` / ``join``)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._stream: Any = None
        self._workers: set[threading.Thread] = set()

    def track(self, worker: threading.Thread) -> None:
        """Remember ``worker`` (a started request thread) until ``join`` sees it end."""
        with self._lock:
            self._workers.add(worker)

    def join(self, timeout: float) -> bool:
        """Wait up to ``timeout`` seconds in all for the tracked workers to end.

        Returns True when none is left alive (ended ones are forgotten)."""
        end = time.monotonic() + max(0.0, timeout)
        with self._lock:
            workers = list(self._workers)
        for w in workers:
            w.join(max(0.0, end - time.monotonic()))
        with self._lock:
            self._workers = {w for w in self._workers if w.is_alive()}
            return not self._workers

    def set(self, stream: Any) -> None:
        """Record ``stream`` as the open one."""
        with self._lock:
            self._stream = stream

    def clear(self, stream: Any) -> None:
        """Forget ``stream`` if it is still the open one."""
        with self._lock:
            if self._stream is stream:
                self._stream = None

    def close(self) -> None:
        """Close the open stream, if any (errors while closing are logged at debug level)."""
        with self._lock:
            s = self._stream
        if s is not None:
            _close(s)


def stream_reply(
    sdk: Any,
    req: dict[str, Any],
    *,
    hop: int,
    emit: EventSink,
    cancel_ev: threading.Event,
    deadline: float,
    turn_deadline: float,
    max_chars: int,
    slot: OpenStream,
) -> tuple[Any, str | None, float, float | None]:
    """Stream one reply (module docstring).

    Args:
        sdk: an ``anthropic.Anthropic`` (or anything with ``messages.stream``).
        req: the ``messages.stream`` keyword arguments.
        hop: the request's number in the turn (for the ``text_delta`` / ``tool_use_start`` events).
        emit: the event sink.
        cancel_ev: Stop.
        deadline: ``time.monotonic()`` value after which the wait ends (``min`` of the request's
            and the turn's deadline).
        turn_deadline: the turn's deadline (names the ``timeout`` error when it is the one hit).
        max_chars: the streamed text's cap (characters).
        slot: where the open stream is recorded so Stop can close it.

    Returns:
        ``(message, request_id, seconds, first_event_seconds)``; ``message`` is the SDK's final
        ``Message``, ``first_event_seconds`` None when no event came.

    Raises:
        Cancelled: Stop was pressed.
        ChatError: a deadline passed, the text passed ``max_chars``, or the stream ended early.
        Exception: whatever the SDK raised (the caller turns it into a ``ChatError``).
    """
    t0 = time.monotonic()
    ttft: float | None = None
    q: queue.Queue[tuple[str, Any]] = queue.Queue()
    stop = threading.Event()
    holder: dict[str, Any] = {}

    def work() -> None:
        try:
            with sdk.messages.stream(**req) as st:
                holder["stream"] = st
                slot.set(st)
                if stop.is_set():
                    return
                for ev in st:
                    if stop.is_set():
                        return
                    q.put(("event", ev))
                if stop.is_set():
                    return
                q.put(("done", (st.request_id, st.get_final_message())))
        except BaseException as exc:  # noqa: BLE001 - handed to the waiting thread
            q.put(("error", exc))
        finally:
            slot.clear(holder.get("stream"))

    def abandon() -> None:
        stop.set()
        st = holder.get("stream")
        if st is not None:
            _close(st)

    worker = threading.Thread(target=work, daemon=True, name="wb-chat-request")
    worker.start()
    slot.track(worker)
    out_chars = 0
    try:
        while True:
            if cancel_ev.is_set():
                raise Cancelled()
            left = deadline - time.monotonic()
            if left <= 0:
                raise deadline_error(time.monotonic() - t0, ttft is not None, deadline == turn_deadline)
            try:
                kind, val = q.get(timeout=min(0.05, left))
            except queue.Empty:
                continue
            if kind == "error":
                raise val
            if kind == "done":
                rid, msg = val
                break
            if ttft is None:
                ttft = round(time.monotonic() - t0, 3)
            et = getattr(val, "type", "")
            if et == "text":
                out_chars += len(val.text)
                if out_chars > max_chars:
                    raise ChatError(
                        "too-large",
                        f"The reply passed {max_chars:,} characters without ending; stopped.",
                        "Lower max_tokens, or check the server (an endless stream).",
                    )
                emit({"type": "text_delta", "hop": hop, "text": val.text})
            elif et == "content_block_start" and getattr(val.content_block, "type", "") == "tool_use":
                emit({"type": "tool_use_start", "hop": hop, "name": val.content_block.name})
        if cancel_ev.is_set():
            raise Cancelled()
        if msg.stop_reason is None:  # the stream ended without message_delta/message_stop
            raise ChatError(
                "connection",
                "The reply stream ended early (no message_stop).",
                "Retry the turn; the transcript so far is kept.",
                rid,
            )
    finally:
        abandon()
    return msg, rid, time.monotonic() - t0, ttft
