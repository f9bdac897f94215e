"""The skill-disclosure chat loop on the official ``anthropic`` SDK (streaming).

Typical use (any thread; the GUI runs it in a worker)::

    session = ChatSession(catalog, settings=ChatSettings(model="claude-sonnet-5-5"),
                          api_key=key, context_tokens=200_000)
    result = session.send("convert this pdf", cancel=threading.Event(), on_event=print)
    result.triggered          # ["pdf"]
    result.to_json()          # DESIGN.md section 3 ``workbench chat`` JSON

One ``send`` = one user message = up to ``settings.max_turns`` model requests: each request is
streamed (``client.messages.stream``); text deltas go to ``on_event`` as ``text_delta`` events;
tool calls are executed and their results sent back, until the model stops (``end_turn``,
``stop_sequence``, ``refusal``, ...), ``pause_turn`` (the turn is sent back unchanged to resume),
``max_tokens`` (a cut ``tool_use`` is not run: its input may be partial; reported ``truncated``),
an error, Stop, or the turn limit (``stop_reason == "max_turns"``, the workbench's own value).

Where the listing goes, which tool loads a skill and what it returns come from the client's
``loading.py`` (``workbench.core.chat.loadkit.Loader``). The listing text comes from
``workbench.core.listing.render_listing``.

Events (dicts; every recorded one also lands in ``result.events``):

* ``listing`` {turn, placement, placement_note, skills:[names], chars, tokens_est, sent_now, cached, budget}
* ``request`` {turn, hop} (transient) · ``text_delta`` {hop, text} (transient, streaming)
* ``tool_use`` {hop, id, name, input, resolved, skill, truncated}
* ``skill_loaded`` {hop, name, path, via, body_chars, tokens_est, args, injections}
* ``tool_result`` {hop, id, name, chars, is_error, notes, preview}
* ``text`` {hop, text} · ``usage`` {hop, input_tokens, output_tokens, cache_read_input_tokens,
  cache_creation_input_tokens, stop_reason, request_id, seconds, first_event_seconds, cache_note}
* ``proposal`` {hop, tool_use_id, id, state, kind, name, target, target_dir, blocking, findings,
  tool} — a Workshop proposal made by ``propose_skill`` (``workbench/core/chat/propose.py``; emitted
  from ``ToolOutcome.events`` after ``tool_use``, before ``tool_result``)
* ``limit`` {message} · ``cancelled`` {hop} · ``error`` (``ChatError.to_json()``)
* ``warning`` {message} — recorded (not sent) when the ``on_event`` listener raised; also logged

Caching: ``cache_control: {"type":"ephemeral"}`` on the last tool, the last system block and (for
user-turn listings) the listing block: the stable prefix, at most 3 of the API's 4 breakpoints.
When both cache figures come back 0 the ``cache_note`` explains it (prefix below the model's
minimum cacheable size of 1,024-4,096 tokens, or a server without caching) instead of flagging it.

The API key is held by the SDK client only; it is never part of an event, the trace, the
transcript or ``last_request``.

Closing: a session built with ``api_key`` makes (and owns) its SDK client; ``close()`` (or ``with
ChatSession(...) as session:``) stops a running turn, closes that client's pooled connections and
joins the request threads (``CLOSE_JOIN_S``). A client passed in as ``client`` is never closed.
"""

from __future__ import annotations

import copy
import json
import logging
import math
import threading
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

from workbench.core.chat.errors import ChatError, closed_error, from_exception, no_key_error
from workbench.core.chat.listinginfo import ListingInfo, get_loader, listing_for
from workbench.core.chat.result import TurnResult, usage_dict
from workbench.core.chat.settings import ChatSettings
from workbench.core.chat.stream import Cancelled, EventSink, OpenStream, stream_reply
from workbench.core.chat.toolcalls import run_tool_calls
from workbench.core.chat.tools import FileAccess, ToolContext, ToolSpec, make_list_tool, make_shell_tool
from workbench.core.model import Catalog
from workbench.core.tokens import estimate_tokens

__all__ = [
    "MAX_OUTPUT_CHARS",
    "TRANSIENT",
    "TURN_DEADLINE_S",
    "ChatSession",
    "EventSink",
    "ListingInfo",
    "TurnResult",
    "get_loader",
    "listing_for",
]

log = logging.getLogger(__name__)

#: Events sent to ``on_event`` but not recorded in the trace (high volume / no lasting value).
TRANSIENT = ("text_delta", "request", "tool_use_start")

#: A turn (every request and tool call of one ``send``) ends after this many seconds; each
#: request also ends after ``settings.timeout`` seconds, its whole streamed reply included.
TURN_DEADLINE_S = 600.0
#: seconds ``ChatSession.close`` waits in all for the request threads to end
CLOSE_JOIN_S = 5.0
#: A reply's streamed text is cut (an error) past this many characters: an endless stream.
MAX_OUTPUT_CHARS = 1_000_000


#: The smallest cacheable prefix across current models (tokens); chat-loop.md section 1.7.
MIN_CACHEABLE_TOKENS = 1024
MAX_CACHEABLE_MINIMUM = 4096


# ---------------------------------------------------------------------------------------------
# the session


class ChatSession:
    """A conversation with one simulated client over one catalog.

    Args:
        catalog: ``workbench.core.model.Catalog`` (its ``client`` picks the loader unless
            ``client_id`` is given).
        settings: ``ChatSettings`` (model, max_tokens, temperature, max_turns, base_url, ...).
        api_key: the key (never stored by the session beyond the SDK client). None = no key:
            ``send`` returns a ``no-key`` error without contacting anyone.
        client: an ``anthropic.Anthropic`` to use instead of building one (tests, custom transport);
            the caller keeps it (``close`` never closes it).
        listing: a ``ListingInfo`` to use instead of rendering one.
        context_tokens: passed to the listing renderer.
        extra_tools: more ``ToolSpec`` (e.g. the workshop's ``propose_skill``).
        shell_approver: ``callable(command) -> bool``; None = the shell tool never runs anything.
        system_prompt: replaces the base system prompt (the listing is still added per client).
    """

    def __init__(
        self,
        catalog: Catalog,
        *,
        settings: ChatSettings | None = None,
        api_key: str | None = None,
        client: Any = None,
        client_id: str | None = None,
        listing: ListingInfo | None = None,
        context_tokens: int | None = None,
        extra_tools: list[ToolSpec] | tuple[Any, ...] = (),
        shell_approver: Callable[[str], bool] | None = None,
        system_prompt: str | None = None,
        fork_depth: int = 0,
    ) -> None:
        self.catalog = catalog
        self.fork_depth = fork_depth
        self.settings = settings or ChatSettings()
        self.client_id = client_id or catalog.client or self.settings.client
        self.loader = get_loader(self.client_id)
        self.listing = listing or listing_for(catalog, context_tokens, self.loader.listing_options)
        self._sdk = client
        self._api_key_present = bool(api_key) or client is not None
        #: whether ``close`` closes ``_sdk`` (True only for the client made here from ``api_key``)
        self._owns_sdk = False
        if client is None and api_key:
            from workbench.core.chat.backend import make_client

            self._sdk = make_client(self.settings, api_key)
            self._owns_sdk = True
        self._closed = False
        self._running = 0  # turns in progress (``send``/``continue_turn`` on some thread)
        self.history: list[dict[str, Any]] = []
        self.session_id = str(uuid.uuid4())
        self.turn = 0
        self.last_request: dict[str, Any] | None = None
        self._pending_results: list[dict[str, Any]] = []
        self._open = OpenStream()
        self._cancel = threading.Event()
        #: seconds one ``send`` may take in all (requests and tools); see ``TURN_DEADLINE_S``
        self.turn_deadline_s = TURN_DEADLINE_S
        self._turn_deadline = math.inf

        self.workspace = Path(catalog.env.workspace or Path.cwd())
        listed = catalog.listed()
        by_name = {s.name: s for s in listed}
        self.listed = [by_name[n] for n in self.listing.names if n in by_name] or listed
        known = list(catalog.skills)
        allowed = [self.workspace] + [r.path for r in catalog.roots if r.exists] + [s.dir for s in known]
        self.ctx = ToolContext(
            fs=FileAccess(allowed, self.workspace),
            skills=self.listed,
            known=known,
            workspace=self.workspace,
            session_id=self.session_id,
            shell_approver=shell_approver,
            client_id=self.client_id,
            subagent=self._run_fork if fork_depth == 0 else None,
        )
        self.tools: list[ToolSpec] = self._build_tools(list(extra_tools))
        base = system_prompt if system_prompt is not None else self.loader.base_system(self.workspace)
        self.system_blocks: list[dict[str, Any]] = [{"type": "text", "text": base}]
        self.listing_block_text = self.loader.wrap_listing(self.listing.text) if self.listing.text else ""
        if self.listing_block_text and self.loader.placement == "system":
            self.system_blocks.append({"type": "text", "text": self.listing_block_text})
        if self.settings.cache:
            self.system_blocks[-1]["cache_control"] = {"type": "ephemeral"}

    # -- setup -----------------------------------------------------------------------------
    def _build_tools(self, extra: list[ToolSpec]) -> list[ToolSpec]:
        tools = list(self.loader.tools(self.listed))
        names = {t.name for t in tools}
        for t in (self.loader.read_tool(), make_list_tool(), make_shell_tool(), *extra):
            if t.name not in names:
                tools.append(t)
                names.add(t.name)
        return tools

    def tool_params(self) -> list[dict[str, Any]]:
        params = [t.to_param() for t in self.tools]
        if params and self.settings.cache:
            params[-1]["cache_control"] = {"type": "ephemeral"}
        return params

    def prefix_chars(self) -> int:
        """Characters of the stable prefix (tool definitions as JSON + system + user-turn listing)."""
        n = len(json.dumps([t.to_param() for t in self.tools]))
        n += sum(len(b["text"]) for b in self.system_blocks)
        if self.loader.placement != "system":
            n += len(self.listing_block_text)
        return n

    # -- control ---------------------------------------------------------------------------
    def cancel(self) -> None:
        """Stop the running ``send`` (from any thread): closes the open stream."""
        self._cancel.set()
        self._open.close()

    def reset(self) -> None:
        """Start a new conversation (same listing and tools)."""
        self.history.clear()
        self._pending_results.clear()
        self.turn = 0

    def close(self, timeout: float = CLOSE_JOIN_S) -> bool:
        """Release the session (from any thread; idempotent): Stop a running turn, close the SDK
        client if this session made it from ``api_key`` (never one passed in as ``client``), then
        wait up to ``timeout`` seconds in all for the request threads to end. A later ``send``
        ends at once with an ``other`` error ("closed").

        Returns True when no request thread is left alive. One still waiting for a passed-in
        client's reply headers is left to that client's timeout (False)."""
        self._closed = True
        if self._running:
            self.cancel()
        else:
            self._open.close()
        sdk, owned = self._sdk, self._owns_sdk
        self._owns_sdk = False
        if owned and sdk is not None:
            try:
                sdk.close()
            except Exception:  # noqa: BLE001 - closing is best effort; the pool is dropped anyway
                log.debug("closing the chat SDK client failed", exc_info=True)
        ended = self._open.join(timeout)
        if not ended and timeout > 0:
            log.warning("chat: a request thread is still alive %.1f s after close", timeout)
        return ended

    def __enter__(self) -> ChatSession:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- the loop --------------------------------------------------------------------------
    def send(
        self, text: str, *, cancel: threading.Event | None = None, on_event: EventSink | None = None
    ) -> TurnResult:
        """Send one user message and run the tool loop (module docstring). Never raises for API,
        network or tool problems: they end the turn with ``result.error`` set and an ``error`` event."""
        self._cancel = cancel or threading.Event()
        cancel_ev = self._cancel
        self._turn_deadline = time.monotonic() + self.turn_deadline_s
        res = TurnResult(self.client_id, self.settings.model)
        self.turn += 1
        emit = self._emitter(res, on_event)
        first = not any(m["role"] == "user" for m in self.history)
        emit(
            {
                "type": "listing",
                "placement": self.loader.placement,
                "placement_note": self.loader.placement_note,
                "skills": list(self.listing.names),
                "chars": len(self.listing_block_text),
                "tokens_est": estimate_tokens(len(self.listing_block_text)),
                "sent_now": first or self.loader.placement == "system",
                "cached": self.settings.cache,
                "budget": self.listing.budget,
            }
        )

        if self._closed:
            return self._fail(res, closed_error(), emit)
        if not self._api_key_present or self._sdk is None:
            return self._fail(res, no_key_error(), emit)

        self._append_user(self.user_content(text, first))
        return self._running_loop(res, emit, cancel_ev, 0)

    def _emitter(self, res: TurnResult, on_event: EventSink | None) -> EventSink:
        """The event sink of one turn: records ``ev`` in ``res.events`` (unless ``TRANSIENT``) and
        passes it to ``on_event``. A failing listener is logged and, the first time, recorded as a
        ``warning`` event (the turn goes on)."""
        warned: list[bool] = []

        def emit(ev: dict[str, Any]) -> None:
            ev.setdefault("turn", self.turn)
            if ev["type"] not in TRANSIENT:
                res.events.append(ev)
            if on_event is None:
                return
            try:
                on_event(ev)
            except Exception as exc:  # noqa: BLE001 - a broken listener must not kill the loop
                log.warning("chat event listener failed on a %s event", ev["type"], exc_info=True)
                if not warned:
                    warned.append(True)
                    res.events.append(
                        {
                            "type": "warning",
                            "turn": self.turn,
                            "message": f"the event listener failed on a {ev['type']} event "
                            f"({type(exc).__name__}: {exc}); the display may miss events",
                        }
                    )

        return emit

    def _running_loop(
        self, res: TurnResult, emit: EventSink, cancel_ev: threading.Event, hop: int
    ) -> TurnResult:
        """``_loop`` counted in ``_running`` (so ``close`` knows to Stop it)."""
        self._running += 1
        try:
            return self._loop(res, emit, cancel_ev, hop)
        finally:
            self._running -= 1

    def _loop(self, res: TurnResult, emit: EventSink, cancel_ev: threading.Event, hop: int) -> TurnResult:
        """The request/tool loop from request ``hop + 1`` on, over ``self.history``."""
        while True:
            if hop >= max(1, self.settings.max_turns):
                res.stop_reason = "max_turns"
                emit(
                    {
                        "type": "limit",
                        "message": f"stopped after {hop} model requests "
                        f"(turn limit {self.settings.max_turns})",
                    }
                )
                return res
            hop += 1
            if cancel_ev.is_set():
                return self._cancelled(res, hop, emit)
            try:
                msg, rid, seconds, ttft = self._request(hop, emit, cancel_ev)
            except Cancelled:
                return self._cancelled(res, hop, emit)
            except Exception as exc:  # noqa: BLE001 - every API/network problem becomes a ChatError
                if cancel_ev.is_set():
                    return self._cancelled(res, hop, emit)
                err = from_exception(exc, self.settings.effective_base_url())
                log.warning("chat request %d failed: %s (%s)", hop, err.kind, type(exc).__name__)
                return self._fail(res, err, emit)

            usage = usage_dict(msg.usage)
            for k in res.usage:
                res.usage[k] += usage[k]
            blocks = [b.to_dict() for b in msg.content]
            text_out = "".join(b.get("text", "") for b in blocks if b.get("type") == "text")
            if text_out:
                emit({"type": "text", "hop": hop, "text": text_out})
            stop = msg.stop_reason
            emit(
                {
                    "type": "usage",
                    "hop": hop,
                    **usage,
                    "stop_reason": stop,
                    "request_id": rid,
                    "seconds": round(seconds, 3),
                    "first_event_seconds": ttft,
                    "cache_note": self._cache_note(usage),
                }
            )
            res.stop_reason = stop
            res.text = text_out
            sendable = [b for b in blocks if not (b.get("type") == "text" and not b.get("text"))]
            tool_uses = [b for b in sendable if b.get("type") == "tool_use"]
            if sendable:
                self.history.append({"role": "assistant", "content": sendable})

            if stop == "pause_turn":
                continue
            if stop == "model_context_window_exceeded":
                return self._fail(
                    res,
                    ChatError(
                        "context-too-long",
                        "The model's context window is full.",
                        "Start a new conversation or use a smaller listing.",
                        rid,
                    ),
                    emit,
                    keep_stop=True,
                )
            if stop == "max_tokens" and tool_uses:
                cut = tool_uses[-1]
                emit(
                    {
                        "type": "tool_use",
                        "hop": hop,
                        "id": cut["id"],
                        "name": cut["name"],
                        "input": cut.get("input"),
                        "resolved": None,
                        "skill": None,
                        "truncated": True,
                    }
                )
                self._pending_results = [
                    self._unrun(
                        b, "Not run: the reply was cut by max_tokens before this tool call was complete."
                    )
                    for b in tool_uses
                ]
                return res
            if stop != "tool_use":
                if tool_uses:  # answered next time so the history stays valid
                    self._pending_results = [self._unrun(b, "Not run: the turn ended.") for b in tool_uses]
                return res
            self._run_tools(tool_uses, hop, emit, res)

    # -- internals -------------------------------------------------------------------------
    def _run_fork(self, prompt: str, info: dict[str, Any]) -> dict[str, Any]:
        """Run a forked skill (``context: fork``) as a subagent: a new conversation over the same
        catalog, listing and tools whose only user message is ``prompt`` (the skill body as the
        client delivers it) — it does not see this conversation. Returns a ``fork`` event with the
        sub-transcript (``events``), the final ``text``, ``usage`` and ``error`` (or None).
        The system prompt is the loader's ``fork_system`` (the workbench's own words)."""
        child = ChatSession(
            self.catalog,
            settings=self.settings,
            client=self._sdk,
            client_id=self.client_id,
            listing=self.listing,
            shell_approver=self.ctx.shell_approver,
            fork_depth=self.fork_depth + 1,
            system_prompt=self.loader.fork_system(self.workspace, info.get("agent")),
        )
        child._api_key_present = self._api_key_present
        child.session_id = self.session_id
        child._open = self._open  # Stop and ``close`` reach the subagent's request (and thread)
        res = child.send(prompt, cancel=self._cancel)
        return {
            "type": "fork",
            "skill": info.get("skill"),
            "agent": info.get("agent"),
            "prompt": prompt,
            "events": res.events,
            "text": res.text,
            "usage": dict(res.usage),
            "stop_reason": res.stop_reason,
            "error": res.error.message if res.error is not None else None,
        }

    def _append_user(self, blocks: list[dict[str, Any]]) -> None:
        """Append user content; tool_results (pending ones first) lead; merged into a trailing
        user message (after Stop or the turn limit) so roles keep alternating."""
        blocks = self._pending_results + blocks
        self._pending_results = []
        if self.history and self.history[-1]["role"] == "user":
            old = self.history[-1]["content"]
            res = [b for b in old + blocks if b.get("type") == "tool_result"]
            other = [b for b in old + blocks if b.get("type") != "tool_result"]
            self.history[-1]["content"] = res + other
        elif blocks:
            self.history.append({"role": "user", "content": blocks})

    def user_content(self, text: str, first: bool) -> list[dict[str, Any]]:
        """The content blocks of a user message: the listing block first when this client puts the
        listing in the first user turn (``first``; cache-controlled with ``settings.cache``), then
        ``text`` (omitted when empty)."""
        content: list[dict[str, Any]] = []
        if first and self.listing_block_text and self.loader.placement != "system":
            blk: dict[str, Any] = {"type": "text", "text": self.listing_block_text}
            if self.settings.cache:
                blk["cache_control"] = {"type": "ephemeral"}
            content.append(blk)
        if text:
            content.append({"type": "text", "text": text})
        return content

    def first_request(self, text: str) -> dict[str, Any]:
        """The ``messages.create`` keyword arguments (= a Message Batches ``params`` object) of the
        first model request ``send(text)`` would make in a new conversation, built by the same
        code (system blocks, tools, cache control, listing placement). Nothing is sent and the
        session is not changed. No key in it."""
        saved = self.history
        try:
            self.history = [{"role": "user", "content": self.user_content(text, True)}]
            return self.build_request()
        finally:
            self.history = saved

    def run_first_turn_tools(
        self, text: str, message: dict[str, Any], on_event: EventSink | None = None
    ) -> TurnResult:
        """Replay a first-turn reply obtained elsewhere (a Message Batches result): ``message`` is
        the API's ``Message`` JSON for ``first_request(text)``. Its text and ``tool_use`` blocks are
        handled like ``send`` handles a streamed reply (same tool handlers, same ``tool_use`` /
        ``skill_loaded`` / ``tool_result`` / ``usage`` events), but no request is made: tool calls
        run only when ``stop_reason == "tool_use"`` (a ``max_tokens`` cut call is not run, as in
        ``send``). The history then holds the exchange, so ``continue_turn`` can go on. Returns
        the ``TurnResult`` (usage = the message's)."""
        res = TurnResult(self.client_id, self.settings.model)
        self.turn += 1
        emit = self._emitter(res, on_event)
        self.history = [{"role": "user", "content": self.user_content(text, True)}]
        raw = message.get("usage") or {}
        res.usage = {k: int(raw.get(k) or 0) for k in res.usage}
        blocks = [b for b in (message.get("content") or []) if isinstance(b, dict)]
        text_out = "".join(b.get("text", "") for b in blocks if b.get("type") == "text")
        if text_out:
            emit({"type": "text", "hop": 1, "text": text_out})
        res.stop_reason, res.text = message.get("stop_reason"), text_out
        emit(
            {
                "type": "usage",
                "hop": 1,
                **res.usage,
                "stop_reason": res.stop_reason,
                "request_id": message.get("id"),
                "seconds": None,
                "first_event_seconds": None,
                "cache_note": self._cache_note(res.usage),
            }
        )
        sendable = [b for b in blocks if not (b.get("type") == "text" and not b.get("text"))]
        if sendable:
            self.history.append({"role": "assistant", "content": sendable})
        if res.stop_reason == "tool_use":
            self._run_tools([b for b in sendable if b.get("type") == "tool_use"], 1, emit, res)
        return res

    def continue_turn(
        self, res: TurnResult, *, cancel: threading.Event | None = None, on_event: EventSink | None = None
    ) -> TurnResult:
        """Go on after ``run_first_turn_tools`` returned ``res`` with ``stop_reason == "tool_use"``:
        the loop of ``send`` from the second request on (same turn limit, events, errors), adding
        to ``res``. Needs a client (else a ``no-key`` error)."""
        self._cancel = cancel or threading.Event()
        emit = self._emitter(res, on_event)
        if self._closed:
            return self._fail(res, closed_error(), emit)
        if not self._api_key_present or self._sdk is None:
            return self._fail(res, no_key_error(), emit)
        return self._running_loop(res, emit, self._cancel, 1)

    @staticmethod
    def _unrun(b: dict[str, Any], why: str) -> dict[str, Any]:
        return {"type": "tool_result", "tool_use_id": b["id"], "content": why, "is_error": True}

    def build_request(self) -> dict[str, Any]:
        """The keyword arguments of the next ``messages.stream`` call (no key in it)."""
        req: dict[str, Any] = {
            "model": self.settings.model,
            "max_tokens": int(self.settings.max_tokens),
            "system": self.system_blocks,
            "tools": self.tool_params(),
            "messages": self.history,
        }
        if self.settings.temperature is not None:
            req["temperature"] = float(self.settings.temperature)
        return req

    def _request(
        self, hop: int, emit: EventSink, cancel_ev: threading.Event
    ) -> tuple[Any, str | None, float, float | None]:
        """One streamed request (``workbench.core.chat.stream.stream_reply``): Stop (``cancel_ev``),
        the request deadline (``settings.timeout`` seconds, whole reply included), the turn deadline
        (``TURN_DEADLINE_S`` from ``send``) and the output cap (``MAX_OUTPUT_CHARS``) end it."""
        req = self.build_request()
        self.last_request = copy.deepcopy(req)
        emit({"type": "request", "hop": hop})
        return stream_reply(
            self._sdk,
            req,
            hop=hop,
            emit=emit,
            cancel_ev=cancel_ev,
            deadline=min(time.monotonic() + float(self.settings.timeout), self._turn_deadline),
            turn_deadline=self._turn_deadline,
            max_chars=MAX_OUTPUT_CHARS,
            slot=self._open,
        )

    def _run_tools(self, tool_uses: list[dict[str, Any]], hop: int, emit: EventSink, res: TurnResult) -> None:
        """Run the calls and append their ``tool_result`` blocks (+ extra blocks) as the user turn."""
        self._append_user(run_tool_calls(tool_uses, self.tools, self.ctx, hop, emit, res))

    def _cache_note(self, usage: dict[str, int]) -> str:
        if not self.settings.cache:
            return "caching off"
        r, w = usage["cache_read_input_tokens"], usage["cache_creation_input_tokens"]
        if r:
            return f"cache hit: {r} tokens read from the cache"
        if w:
            return f"cache written: {w} tokens (a later request can read them)"
        est = estimate_tokens(self.prefix_chars())
        if est < MAX_CACHEABLE_MINIMUM:
            return (
                f"nothing cached: the stable prefix is ≈{est} tokens (est.), likely below this "
                f"model's minimum cacheable size ({MIN_CACHEABLE_TOKENS:,}-{MAX_CACHEABLE_MINIMUM:,} "
                "tokens depending on the model); expected, not a fault"
            )
        return (
            "nothing cached although the prefix is large: the server may not support prompt "
            "caching (local servers usually do not), or the prefix changed"
        )

    def _fail(self, res: TurnResult, err: ChatError, emit: EventSink, keep_stop: bool = False) -> TurnResult:
        res.error = err
        if not keep_stop:
            res.stop_reason = "error"
        emit(err.to_json())
        return res

    def _cancelled(self, res: TurnResult, hop: int, emit: EventSink) -> TurnResult:
        res.stop_reason = "cancelled"
        emit({"type": "cancelled", "hop": hop})
        return res
