"""The trigger-eval runner: every query N times through the real chat loop, in parallel.

Typical use::

    report = run_eval(catalog, "pdf", queryset.queries, settings=ChatSettings(model=...),
                      api_key=key, options=EvalOptions(runs=3, concurrency=8))
    report.summary.passed, report.to_json()      # DESIGN.md section 3 ``workbench eval`` JSON

How it avoids the known defects of skill-creator's ``run_eval.py`` (validators.md section 3.1;
numbers are that list's):

1. The skill under test is a **real skill of the real catalog** (``discovery.scan``), listed by the
   simulated client's own listing and loaded through its own load tool. The other listed skills
   stay listed as competitors (``competitors=False`` keeps only the skill under test).
2. The loop (``ChatSession``) goes on past other tool calls (list, read, shell) up to the turn
   limit (``ChatSettings.max_turns``); nothing is decided on the first tool call.
3. Another skill loading first does not end the run: it is recorded in ``also_loaded`` and the
   run goes on; only a load of *this* skill is a trigger.
4. A trigger is matched on **the resolved SKILL.md path** of the load (the load tool resolves the
   exact name to a listed skill, a read tool resolves the file's realpath), never on a substring.
5. Errors are counted apart: an errored run is never a non-trigger, and a query whose runs all
   errored is ``errored``, not passed or failed.
6. Parallel runs share nothing mutable: each run has its own ``ChatSession`` over one in-memory,
   read-only eval catalog; a candidate description lives only in a copied ``Skill``; nothing is
   written to disk (no temporary skill files at all).
7. No overall per-run timeout: each request has the SDK's read timeout (``ChatSettings.timeout``).
8. N runs per query (default 3) with a Wilson interval on k/n.
9. (``paths:``-conditional skills) the catalog's own status decides: a skill that is not listed
   is refused with the reason (``EvalSetupError``), so the eval never measures a skill the
   client would not offer.
10. The broken-harness signature is reported as a warning (``metrics.summarize``).

Concurrency: a ``ThreadPoolExecutor`` of ``concurrency`` workers shares one SDK client (SDK
retries off: the runner retries itself). A 429/529 (or an ``overloaded_error`` inside the stream)
starts a **shared cool-down** (the server's ``retry-after`` when sent, else exponential backoff):
no worker starts a request until it ends, and the allowed concurrency is halved (at most once per
cool-down); it grows back by one after ``2 x limit`` clean runs. Rate-limited runs are retried
(``max_attempts`` per run, the whole run from scratch); other transient errors (5xx, timeout,
connection) are retried with backoff but without the cool-down; auth/permission/billing/unknown
model stop the whole eval (every later run would fail the same way).

Early stop: once the skill under test has loaded, the outcome of the run is known and the run is
stopped before its next request (skill-creator also stops the process as soon as it knows);
``stop_on_trigger=False`` lets the conversation continue to the end.
"""

from __future__ import annotations

import dataclasses
import datetime as _dt
import logging
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from workbench.core.chat.engine import ChatSession
from workbench.core.chat.errors import RETRY_AFTER_CAP_S, ChatError, no_key_error
from workbench.core.chat.listinginfo import get_loader, listing_for
from workbench.core.chat.settings import ChatSettings
from workbench.core.evals.gate import Gate
from workbench.core.evals.queryset import Query
from workbench.core.evals.report import OUTCOMES, EvalReport, QueryResult, RunRecord
from workbench.core.evals.setup import (
    EvalOptions,
    EvalSetupError,
    description_sha,
    eval_catalog,
    find_target,
    real_path,
)
from workbench.core.listingkit import ListingState
from workbench.core.model import Catalog

__all__ = [
    "DEFAULT_EVAL_MODEL",
    "FATAL_BEFORE_ANSWER",
    "FATAL_KINDS",
    "OUTCOMES",
    "RETRY_KINDS",
    "THROTTLE_KINDS",
    "EvalOptions",
    "EvalReport",
    "EvalRunner",
    "EvalSetupError",
    "ProgressFn",
    "QueryResult",
    "RunRecord",
    "description_sha",
    "eval_catalog",
    "find_target",
    "run_eval",
]

log = logging.getLogger(__name__)

#: Default eval model (chat-loop.md section 1.8: "the newest haiku line for evals"); editable.
DEFAULT_EVAL_MODEL = "claude-haiku-5-5"

#: Error kinds retried with the shared cool-down / without it / never (stop the eval).
THROTTLE_KINDS = ("rate-limited", "overloaded")
RETRY_KINDS = ("server", "timeout", "connection")
FATAL_KINDS = ("no-key", "auth", "billing", "permission", "not-found")
#: Fatal only while no run has had an answer yet (the server is not there at all: issue 13 item 8,
#: an unreachable base URL gave 20 "ERR" lines after ~20 s of retries).
FATAL_BEFORE_ANSWER = ("connection",)

ProgressFn = Callable[[dict[str, Any]], None]


# ---------------------------------------------------------------------------------------------
# the runner


class _RunState:
    """What one run's chat events say: the skill under test loaded (``hit``), other skills loaded
    (``also``, in order), tools called (``tools``). ``on_trigger`` is called once on the hit."""

    def __init__(self, target_real: str, on_trigger: Callable[[], None] | None = None) -> None:
        self.target_real = target_real
        self.on_trigger = on_trigger
        self.hit = False
        self.also: list[Any] = []
        self.tools: list[Any] = []

    def on_event(self, ev: dict[str, Any]) -> None:
        t = ev.get("type")
        if t == "tool_use":
            self.tools.append(ev.get("name"))
        elif t == "skill_loaded":
            if ev.get("path") and real_path(ev["path"]) == self.target_real:
                self.hit = True
                if self.on_trigger is not None:
                    self.on_trigger()
            else:
                self.also.append(ev.get("name"))


class EvalRunner:
    """Runs one query set against one skill (module docstring).

    Args:
        catalog: the client's catalog (``discovery.scan``); not modified.
        skill_name: the name the client lists the skill under.
        queries: ``Query`` list.
        settings: ``ChatSettings`` (model, base_url, max_turns, max_tokens, timeout, cache ...);
            ``settings.client`` is ignored, the catalog's client is simulated.
        api_key: the key; or ``client``: an ``anthropic.Anthropic`` to share (the caller keeps
            it open and closes it). A client made from ``api_key`` is the runner's: ``close()``
            (or ``with EvalRunner(...) as runner:``) closes it.
        options: ``EvalOptions``.
        description: a candidate description to evaluate in memory (None = the file's).

    Raises (constructor): ``EvalSetupError``.
    """

    def __init__(
        self,
        catalog: Catalog,
        skill_name: str,
        queries: list[Query],
        *,
        settings: ChatSettings | None = None,
        api_key: str | None = None,
        client: Any = None,
        options: EvalOptions | None = None,
        description: str | None = None,
    ) -> None:
        self._owns_sdk = False
        self.options = options or EvalOptions()
        self.options.check()
        if not queries:
            raise EvalSetupError("bad-options", "the query set is empty")
        self.settings = dataclasses.replace(
            settings or ChatSettings(model=DEFAULT_EVAL_MODEL), client=catalog.client
        )
        self.queries = list(queries)
        self.description_override = description
        self.catalog, self.target = eval_catalog(catalog, skill_name, description, self.options.competitors)
        self.target_real = real_path(self.target.path)
        if client is None and not api_key:
            raise EvalSetupError("no-key", str(no_key_error()))
        loader = get_loader(self.catalog.client)
        ctx = self.options.context_tokens
        self.listing = listing_for(self.catalog, ctx, loader.listing_options)
        self.warnings: list[str] = []
        self.listing_state = self._listing_state(ctx, loader.listing_options)
        self._lock = threading.Lock()
        self._cancel = threading.Event()
        self._active: set[threading.Event] = set()
        self._fatal: dict[str, Any] | None = None
        self._answered = False  # some run got a reply from the server
        self.gate = Gate(self.options.concurrency)
        if client is None:  # made last: nothing after it can raise and leave it open
            from workbench.core.chat.backend import make_client

            client = make_client(dataclasses.replace(self.settings, max_retries=0), api_key)
            self._owns_sdk = True
        self.sdk = client

    def _listing_state(self, ctx: int | None, opts: dict[str, Any]) -> str | None:
        if self.target.name not in self.listing.names:
            self.warnings.append(
                f"{self.target.name} is omitted from the {self.catalog.client} listing at "
                "this context size: the model cannot see it, so it cannot trigger by "
                "its description."
            )
            return ListingState.OMITTED
        try:
            from workbench.core.listing import render_listing

            rep = render_listing(self.catalog, ctx, opts)
        except Exception as exc:  # noqa: BLE001 - the state is informative only
            log.warning("eval: the listing of %s could not be rendered", self.catalog.client, exc_info=True)
            self.warnings.append(
                f"the {self.catalog.client} listing could not be rendered to check how "
                f"{self.target.name} is shown ({type(exc).__name__}: {exc})."
            )
            return None
        for s in rep.skills:
            if real_path(s.path) == self.target_real:
                if s.state == ListingState.TRUNCATED:
                    self.warnings.append(
                        f"{self.target.name}'s description is truncated in the listing "
                        f"({s.shown_chars} of {s.description_chars} chars shown)."
                    )
                elif s.state == ListingState.NAME_ONLY:
                    self.warnings.append(
                        f"{self.target.name} is listed by name only (no description) at this context size."
                    )
                return s.state
        return None

    # -- public ----------------------------------------------------------------------------
    def competitor_names(self) -> list[str]:
        return [n for n in self.listing.names if n != self.target.name]

    def new_report(self) -> EvalReport:
        """An empty report for this eval (one ``QueryResult`` per query, no run yet)."""
        opts = self.options
        results = [
            QueryResult(i, q.query, q.should_trigger, opts.runs, opts.threshold, note=q.note)
            for i, q in enumerate(self.queries)
        ]
        return EvalReport(
            self.target.name,
            str(self.target.path),
            self.target.description,
            self.catalog.client,
            self.settings.model,
            opts.runs,
            opts.threshold,
            opts.concurrency,
            self.competitor_names(),
            results,
            warnings=list(self.warnings),
            listing_state=self.listing_state,
            started_at=_dt.datetime.now(_dt.UTC).isoformat(timespec="seconds"),
            base_url=self.settings.effective_base_url(),
        )

    def close(self) -> None:
        """Close the SDK client if this runner made it from ``api_key`` (idempotent; never a
        client passed in). Call after ``run``; a later ``run`` then fails every query."""
        if self._owns_sdk:
            self._owns_sdk = False
            self.sdk.close()

    def __enter__(self) -> EvalRunner:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _session(self) -> ChatSession:
        return ChatSession(self.catalog, settings=self.settings, client=self.sdk, listing=self.listing)

    def first_request(self, qi: int) -> dict[str, Any]:
        """The first model request of a run of query ``qi`` (``ChatSession.first_request``: the
        same listing, tools and cache control as the direct eval's first request)."""
        return self._session().first_request(self.queries[qi].query)

    def first_turn_record(
        self,
        qi: int,
        ri: int,
        message: dict[str, Any],
        *,
        follow_up: bool = False,
        cancel: threading.Event | None = None,
    ) -> RunRecord:
        """The ``RunRecord`` of run ``ri`` of query ``qi`` from its first turn: the ``Message`` JSON
        of a batch result is replayed through the client's own tools
        (``ChatSession.run_first_turn_tools``), so a trigger is matched on the resolved SKILL.md
        path exactly as in the direct eval. When that turn called tools without loading the skill
        under test, ``follow_up=True`` goes on through the API (``ChatSession.continue_turn``, one
        attempt, full price; ``hops`` counts every request) as the direct eval would; without it
        the run counts as not triggered with ``stop_reason`` "first-turn" (skill-creator stops
        there too). A set ``cancel`` skips the follow-up."""
        run_ev = threading.Event()
        state = _RunState(self.target_real, None)
        rec = RunRecord(qi, ri, attempts=1, hops=1)
        t0 = time.monotonic()
        try:
            sess = self._session()
            res = sess.run_first_turn_tools(self.queries[qi].query, message, state.on_event)
            if not state.hit and res.stop_reason == "tool_use":
                if not follow_up or (cancel is not None and cancel.is_set()):
                    res.stop_reason = "first-turn"
                else:
                    state.on_trigger = run_ev.set if self.options.stop_on_trigger else None
                    res = sess.continue_turn(res, cancel=run_ev, on_event=state.on_event)
                    rec.hops = sum(1 for e in res.events if e.get("type") == "usage")
        except Exception as exc:  # noqa: BLE001 - a malformed result must not take the eval down
            log.warning("eval: query %d run %d: a batch result could not be replayed", qi, ri, exc_info=True)
            rec.outcome, rec.error = "errored", ChatError("other", f"{type(exc).__name__}: {exc}").to_json()
            return rec
        rec.usage = dict(res.usage)
        rec.tools, rec.also_loaded = list(state.tools), list(state.also)
        rec.stop_reason = res.stop_reason
        rec.seconds = round(time.monotonic() - t0, 3)
        if state.hit:
            rec.outcome = "triggered"
        elif res.error is not None:
            rec.outcome = "cancelled" if res.error.kind == "cancelled" else "errored"
            rec.error = res.error.to_json()
        else:
            rec.outcome = "cancelled" if res.stop_reason == "cancelled" else "not-triggered"
        return rec

    def run(self, cancel: threading.Event | None = None, progress: ProgressFn | None = None) -> EvalReport:
        """Run every query ``options.runs`` times and return the report.

        ``cancel``: set it (any thread) to stop; runs in flight are closed, the report is
        partial with ``cancelled=True``. ``progress(event)`` is called from worker threads (one
        at a time) with ``{"type":"run","done","total","index","result": QueryResult.to_json(),
        "in_flight","concurrency"}`` after each run and ``{"type":"throttle","kind","wait",
        "concurrency"}`` on a rate limit. Never raises for API problems (they are errors in the
        report).
        """
        opts = self.options
        ext = cancel or threading.Event()
        t0 = time.monotonic()
        report = self.new_report()
        results = report.results
        total = len(results) * opts.runs
        done = [0]
        finished = threading.Event()

        def watch() -> None:
            while not finished.is_set():
                if ext.wait(0.05):
                    self._cancel.set()
                    with self._lock:
                        for ev in list(self._active):
                            ev.set()
                    with self.gate.cond:
                        self.gate.cond.notify_all()
                    return

        watcher = threading.Thread(target=watch, daemon=True, name="eval-cancel")
        watcher.start()

        listener_failed: list[bool] = []
        warn_lock = threading.Lock()

        def emit(ev: dict[str, Any]) -> None:
            if progress is None:
                return
            try:
                progress(ev)
            except Exception as exc:  # noqa: BLE001 - a broken listener must not stop the eval
                log.warning("eval progress listener failed on a %s event", ev.get("type"), exc_info=True)
                with warn_lock:  # emit may run under self._lock
                    if not listener_failed:
                        listener_failed.append(True)
                        report.warnings.append(
                            f"the progress display failed ({type(exc).__name__}: {exc}); "
                            "the report is complete but the display may have missed runs."
                        )

        def task(qi: int, ri: int) -> None:
            rec = self._one(qi, ri, emit)
            with self._lock:
                results[qi].add(rec)
                for k in report.usage:
                    report.usage[k] += rec.usage.get(k, 0)
                done[0] += 1
                snap = results[qi].to_json()
                ev = {
                    "type": "run",
                    "done": done[0],
                    "total": total,
                    "index": qi,
                    "result": snap,
                    "outcome": rec.outcome,
                    "in_flight": self.gate.active,
                    "concurrency": self.gate.limit,
                }
                emit(ev)

        try:
            with ThreadPoolExecutor(max_workers=opts.concurrency, thread_name_prefix="eval") as pool:
                futs = [pool.submit(task, qi, ri) for ri in range(opts.runs) for qi in range(len(results))]
                for f in futs:
                    f.result()
        finally:
            finished.set()
        report.cancelled = self._cancel.is_set() and ext.is_set()
        report.fatal_error = self._fatal
        report.seconds = time.monotonic() - t0
        report.throttle = {
            "events": self.gate.throttles,
            "min_concurrency": self.gate.min_limit,
            "max_in_flight": self.gate.max_active,
            "cooldown_seconds": round(self.gate.waited, 3),
        }
        if self._fatal:
            report.warnings.append(
                f"stopped early: {self._fatal.get('message')} {self._fatal.get('hint') or ''}".strip()
            )
        return report

    # -- one run ---------------------------------------------------------------------------
    def _one(self, qi: int, ri: int, emit: Callable[[dict[str, Any]], None]) -> RunRecord:
        rec = RunRecord(qi, ri)
        q = self.queries[qi]
        opts = self.options
        t0 = time.monotonic()
        while True:
            if self._fatal is not None:
                rec.outcome, rec.error = "errored", dict(self._fatal)
                break
            if self._cancel.is_set() or not self.gate.acquire(self._cancel):
                rec.outcome = "cancelled"
                break
            run_ev = threading.Event()
            with self._lock:
                self._active.add(run_ev)
            if self._cancel.is_set():
                run_ev.set()
            state = _RunState(self.target_real, run_ev.set if opts.stop_on_trigger else None)
            clean = False
            rec.attempts += 1
            try:
                res = self._session().send(q.query, cancel=run_ev, on_event=state.on_event)
                err = res.error
                if err is None or any(e.get("type") == "usage" for e in res.events):
                    self._answered = True
                for k in rec.usage:
                    rec.usage[k] += res.usage.get(k, 0)
                rec.hops = sum(1 for e in res.events if e.get("type") == "usage")
                rec.stop_reason = res.stop_reason
            except Exception as exc:  # noqa: BLE001 - a run must never take the eval down
                log.warning("eval: query %d run %d failed", qi, ri, exc_info=True)
                err = ChatError("other", f"{type(exc).__name__}: {exc}")
            finally:
                with self._lock:
                    self._active.discard(run_ev)
            rec.tools, rec.also_loaded = list(state.tools), list(state.also)
            if state.hit:
                rec.outcome = "triggered"
                rec.error = err.to_json() if err else None
                clean = err is None
                self.gate.release(clean)
                break
            if err is None:
                if rec.stop_reason == "cancelled":
                    rec.outcome = "cancelled"
                    self.gate.release(False)
                    break
                rec.outcome = "not-triggered"
                self.gate.release(True)
                break
            self.gate.release(False)
            rec.error = err.to_json()
            if err.kind in FATAL_KINDS or (err.kind in FATAL_BEFORE_ANSWER and not self._answered):
                with self._lock:
                    if self._fatal is None:
                        self._fatal = err.to_json()
                rec.outcome = "errored"
                break
            if err.kind == "cancelled" or self._cancel.is_set():
                rec.outcome = "cancelled"
                break
            if rec.attempts >= opts.max_attempts or err.kind not in THROTTLE_KINDS + RETRY_KINDS:
                rec.outcome = "errored"
                break
            wait = (
                min(err.retry_after, RETRY_AFTER_CAP_S)
                if err.retry_after is not None
                else min(opts.backoff_max, opts.backoff_base * (2 ** (rec.attempts - 1)))
            )
            if err.kind in THROTTLE_KINDS:
                wait, limit = self.gate.throttle(wait)
                emit(
                    {
                        "type": "throttle",
                        "kind": err.kind,
                        "wait": wait,
                        "concurrency": limit,
                        "message": err.message,
                    }
                )
            elif self._cancel.wait(wait):
                rec.outcome = "cancelled"
                break
        rec.seconds = round(time.monotonic() - t0, 3)
        return rec


def run_eval(
    catalog: Catalog,
    skill_name: str,
    queries: list[Query],
    *,
    settings: ChatSettings | None = None,
    api_key: str | None = None,
    client: Any = None,
    options: EvalOptions | None = None,
    description: str | None = None,
    cancel: threading.Event | None = None,
    progress: ProgressFn | None = None,
) -> EvalReport:
    """``EvalRunner(...).run(cancel, progress)`` in one call (the runner is closed after).
    Raises ``EvalSetupError``."""
    with EvalRunner(
        catalog,
        skill_name,
        queries,
        settings=settings,
        api_key=api_key,
        client=client,
        options=options,
        description=description,
    ) as runner:
        return runner.run(cancel, progress)
