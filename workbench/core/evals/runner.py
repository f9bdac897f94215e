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
import hashlib
import os
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from workbench.core.chat.errors import RETRY_AFTER_CAP_S, ChatError, no_key_error
from workbench.core.chat.settings import ChatSettings
from workbench.core.evals.metrics import Summary, estimate_cost, query_status, summarize, wilson_interval
from workbench.core.evals.queryset import Query
from workbench.core.model import Catalog, Skill

#: Default eval model (chat-loop.md section 1.8: "the newest haiku line for evals"); editable.
DEFAULT_EVAL_MODEL = "claude-haiku-5-5"

#: Error kinds retried with the shared cool-down / without it / never (stop the eval).
THROTTLE_KINDS = ("rate-limited", "overloaded")
RETRY_KINDS = ("server", "timeout", "connection")
FATAL_KINDS = ("no-key", "auth", "billing", "permission", "not-found")
#: Fatal only while no run has had an answer yet (the server is not there at all: issue 13 item 8,
#: an unreachable base URL gave 20 "ERR" lines after ~20 s of retries).
FATAL_BEFORE_ANSWER = ("connection",)

#: Run outcomes.
OUTCOMES = ("triggered", "not-triggered", "errored", "cancelled")

ProgressFn = Callable[[dict], None]


class EvalSetupError(Exception):
    """The eval cannot start. ``kind`` ∈ "unknown-skill", "not-listed", "no-key", "bad-options";
    ``str(err)`` says what to do."""

    def __init__(self, kind: str, message: str):
        self.kind = kind
        super().__init__(message)


@dataclass
class EvalOptions:
    """Knobs of one eval.

    Attributes:
        runs: runs per query (>= 1; default 3, skill-creator's default).
        concurrency: parallel runs (>= 1; default 8).
        threshold: pass threshold on the trigger rate, 0..1 (default 0.5).
        competitors: keep the other listed skills in the listing (default True).
        stop_on_trigger: stop a run once the skill under test loaded (default True).
        max_attempts: tries per run for retryable errors (default 4).
        backoff_base / backoff_max: seconds of the exponential backoff when the server sent no
            ``retry-after`` (base x 2^attempt, capped).
        context_tokens: context size for the listing (None = the environment's / client's).
    """

    runs: int = 3
    concurrency: int = 8
    threshold: float = 0.5
    competitors: bool = True
    stop_on_trigger: bool = True
    max_attempts: int = 4
    backoff_base: float = 1.0
    backoff_max: float = 60.0
    context_tokens: int | None = None

    def check(self) -> None:
        """Raise ``EvalSetupError("bad-options")`` for out-of-range values."""
        if not isinstance(self.runs, int) or self.runs < 1:
            raise EvalSetupError("bad-options", f"runs must be at least 1 (got {self.runs})")
        if not isinstance(self.concurrency, int) or self.concurrency < 1:
            raise EvalSetupError("bad-options", f"concurrency must be at least 1 (got {self.concurrency})")
        if not 0.0 <= float(self.threshold) <= 1.0:
            raise EvalSetupError("bad-options", f"threshold must be between 0 and 1 (got {self.threshold})")
        if self.max_attempts < 1:
            raise EvalSetupError("bad-options", "max_attempts must be at least 1")


# ---------------------------------------------------------------------------------------------
# the catalog under test


def description_sha(description: str) -> str:
    """First 12 hex digits of the sha256 of a description (history key)."""
    return hashlib.sha256(description.encode("utf-8")).hexdigest()[:12]


def find_target(catalog: Catalog, skill_name: str) -> Skill:
    """The listed skill named ``skill_name`` in ``catalog``.

    Raises ``EvalSetupError``: "unknown-skill" (no such name; the message lists the listed names)
    or "not-listed" (found but shadowed/hidden/gated/conditional/skipped; the message gives the
    client's reason).
    """
    for s in catalog.listed():
        if s.name == skill_name:
            return s
    others = [s for s in catalog.skills if s.name == skill_name]
    if others:
        s = others[0]
        extra = f" by {s.shadowed_by}" if s.shadowed_by else ""
        raise EvalSetupError(
            "not-listed",
            f"skill {skill_name!r} ({s.path}) is {s.status}{extra} for "
            f"{catalog.client}: {s.reason}. A skill the client does not list cannot "
            "trigger; see `workbench explain`.",
        )
    names = ", ".join(sorted({s.name for s in catalog.listed()})) or "(none)"
    raise EvalSetupError(
        "unknown-skill", f"no skill named {skill_name!r} for {catalog.client}; listed skills: {names}"
    )


def eval_catalog(
    catalog: Catalog, skill_name: str, description: str | None = None, competitors: bool = True
) -> tuple[Catalog, Skill]:
    """A copied ``Catalog`` for an eval and the skill under test in it.

    The original catalog and its ``Skill`` objects are not modified. With ``description`` the
    skill under test is a copy (``dataclasses.replace``) carrying that description, in memory
    only; the SKILL.md on disk is untouched. ``competitors=False`` keeps only the skill under
    test (no other skill is listed or resolvable by path). Raises ``EvalSetupError``.
    """
    target = find_target(catalog, skill_name)
    new_target = dataclasses.replace(target, description=description) if description is not None else target
    if competitors:
        skills = [new_target if s is target else s for s in catalog.skills]
    else:
        skills = [new_target]
    cat = Catalog(
        catalog.client, catalog.env, list(catalog.roots), skills, catalog.scan_seconds, list(catalog.notes)
    )
    return cat, new_target


def _real(p: Any) -> str:
    try:
        return os.path.realpath(str(p))
    except (OSError, ValueError):  # pragma: no cover
        return str(p)


# ---------------------------------------------------------------------------------------------
# results


@dataclass
class RunRecord:
    """One run of one query.

    Attributes: query_index, run (0-based), outcome (one of ``OUTCOMES``), also_loaded (names of
    other skills loaded in this run, in order), tools (tool names called, in order), hops (model
    requests of the last attempt), attempts (tries, retries included), usage (summed over all
    attempts, in tokens), error (``ChatError.to_json()`` of the last failure, or None; a run that
    triggered before an error keeps the error here but counts as triggered), stop_reason,
    seconds (wall time of all attempts).
    """

    query_index: int
    run: int
    outcome: str = "cancelled"
    also_loaded: list[str] = field(default_factory=list)
    tools: list[str] = field(default_factory=list)
    hops: int = 0
    attempts: int = 0
    usage: dict[str, int] = field(default_factory=lambda: _zero())
    error: dict | None = None
    stop_reason: str | None = None
    seconds: float = 0.0

    def to_json(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


def _zero() -> dict[str, int]:
    return {
        "input_tokens": 0,
        "output_tokens": 0,
        "cache_read_input_tokens": 0,
        "cache_creation_input_tokens": 0,
    }


@dataclass
class QueryResult:
    """Aggregate of one query's runs (see ``metrics`` for the rules).

    Attributes: index, query, should_trigger, requested (runs asked for), runs (successful runs:
    the rate's denominator), triggers, errors (errored runs), cancelled, also_loaded ({name:
    runs}), error_kinds ({kind: runs}), details (``RunRecord`` list), threshold.
    """

    index: int
    query: str
    should_trigger: bool
    requested: int
    threshold: float
    runs: int = 0
    triggers: int = 0
    errors: int = 0
    cancelled: int = 0
    also_loaded: dict[str, int] = field(default_factory=dict)
    error_kinds: dict[str, int] = field(default_factory=dict)
    details: list[RunRecord] = field(default_factory=list)
    note: str = ""

    def add(self, rec: RunRecord) -> None:
        self.details.append(rec)
        if rec.outcome == "triggered":
            self.runs += 1
            self.triggers += 1
        elif rec.outcome == "not-triggered":
            self.runs += 1
        elif rec.outcome == "errored":
            self.errors += 1
            kind = (rec.error or {}).get("kind", "other")
            self.error_kinds[kind] = self.error_kinds.get(kind, 0) + 1
        else:
            self.cancelled += 1
        for n in dict.fromkeys(rec.also_loaded):
            self.also_loaded[n] = self.also_loaded.get(n, 0) + 1

    @property
    def trigger_rate(self) -> float | None:
        return query_status(self.should_trigger, self.runs, self.triggers, self.errors, self.threshold)[0]

    @property
    def passed(self) -> bool | None:
        return query_status(self.should_trigger, self.runs, self.triggers, self.errors, self.threshold)[1]

    @property
    def status(self) -> str:
        """ "passed" | "failed" | "errored" | "not-run"."""
        return query_status(self.should_trigger, self.runs, self.triggers, self.errors, self.threshold)[2]

    @property
    def interval(self) -> tuple[float, float] | None:
        return wilson_interval(self.triggers, self.runs)

    @property
    def done(self) -> int:
        return len(self.details)

    def to_json(self, details: bool = False) -> dict[str, Any]:
        """DESIGN.md section 3 item ``{"query","should_trigger","runs","triggers","errors",
        "trigger_rate","pass"}`` plus ``status``, ``interval`` ([low, high] or null), ``requested``,
        ``cancelled``, ``also_loaded``, ``error_kinds`` and, with ``details``, ``run_details``."""
        iv = self.interval
        d = {
            "query": self.query,
            "should_trigger": self.should_trigger,
            "runs": self.runs,
            "triggers": self.triggers,
            "errors": self.errors,
            "trigger_rate": None if self.trigger_rate is None else round(self.trigger_rate, 4),
            "pass": self.passed,
            "status": self.status,
            "interval": None if iv is None else [round(iv[0], 4), round(iv[1], 4)],
            "requested": self.requested,
            "cancelled": self.cancelled,
            "also_loaded": dict(self.also_loaded),
            "error_kinds": dict(self.error_kinds),
        }
        if self.note:
            d["note"] = self.note
        if details:
            d["run_details"] = [r.to_json() for r in self.details]
        return d


@dataclass
class EvalReport:
    """Everything one eval produced. ``summary`` is recomputed from ``results``."""

    skill: str
    skill_path: str
    description: str
    client: str
    model: str
    runs_per_query: int
    threshold: float
    concurrency: int
    competitors: list[str]
    results: list[QueryResult]
    usage: dict[str, int] = field(default_factory=_zero)
    seconds: float = 0.0
    cancelled: bool = False
    fatal_error: dict | None = None
    warnings: list[str] = field(default_factory=list)
    listing_state: str | None = None
    throttle: dict[str, Any] = field(default_factory=dict)
    started_at: str = ""
    base_url: str | None = None
    mode: str = "direct"
    batch_ids: list[str] = field(default_factory=list)

    @property
    def summary(self) -> Summary:
        return summarize(self.results, self.threshold)

    @property
    def description_sha(self) -> str:
        return description_sha(self.description)

    @property
    def all_passed(self) -> bool:
        s = self.summary
        return s.total > 0 and s.passed == s.total

    def cost(self, prices: dict | None = None) -> dict[str, Any]:
        """``metrics.estimate_cost`` of the usage, at the batch price for a batch eval."""
        return estimate_cost(self.usage, self.model, prices, batch=self.mode == "batch")

    def to_json(self, details: bool = False) -> dict[str, Any]:
        """DESIGN.md section 3 ``workbench eval`` JSON: ``{"skill","runs_per_query","threshold",
        "results":[...],"summary":{...},"usage":{...}}`` plus ``skill_path``, ``description``,
        ``description_sha``, ``client``, ``model``, ``concurrency``, ``competitors``, ``cost``,
        ``warnings``, ``cancelled``, ``fatal_error``, ``listing_state``, ``throttle``,
        ``seconds``, ``started_at``, ``mode`` ("direct" | "batch") and ``batch_ids``."""
        s = self.summary
        return {
            "skill": self.skill,
            "skill_path": self.skill_path,
            "description": self.description,
            "description_sha": self.description_sha,
            "client": self.client,
            "model": self.model,
            "runs_per_query": self.runs_per_query,
            "threshold": self.threshold,
            "concurrency": self.concurrency,
            "competitors": list(self.competitors),
            "results": [r.to_json(details) for r in self.results],
            "summary": s.to_json(),
            "usage": dict(self.usage),
            "cost": self.cost(),
            "warnings": list(self.warnings) + [w for w in s.warnings if w not in self.warnings],
            "cancelled": self.cancelled,
            "fatal_error": self.fatal_error,
            "listing_state": self.listing_state,
            "throttle": dict(self.throttle),
            "seconds": round(self.seconds, 3),
            "started_at": self.started_at,
            "mode": self.mode,
            "batch_ids": list(self.batch_ids),
        }

    def subset(self, indices: list[int]) -> EvalReport:
        """A report over some of the queries (train or test part of a split); usage is not split
        (kept whole) and ``seconds`` copied."""
        keep = set(indices)
        return dataclasses.replace(
            self, results=[r for r in self.results if r.index in keep], warnings=list(self.warnings)
        )


# ---------------------------------------------------------------------------------------------
# concurrency gate


class _Gate:
    """Admission for runs: at most ``limit`` in flight, none during a cool-down."""

    def __init__(self, limit: int):
        self.max = limit
        self.limit = limit
        self.active = 0
        self.max_active = 0
        self.min_limit = limit
        self.cool_until = 0.0
        self.ok_streak = 0
        self.throttles = 0
        self.waited = 0.0
        self.cond = threading.Condition()

    def acquire(self, cancel: threading.Event) -> bool:
        with self.cond:
            while True:
                if cancel.is_set():
                    return False
                now = time.monotonic()
                if now < self.cool_until:
                    self.cond.wait(min(self.cool_until - now, 0.05))
                    continue
                if self.active < self.limit:
                    self.active += 1
                    self.max_active = max(self.max_active, self.active)
                    return True
                self.cond.wait(0.05)

    def release(self, clean: bool) -> None:
        with self.cond:
            self.active -= 1
            if clean:
                self.ok_streak += 1
                if self.limit < self.max and self.ok_streak >= 2 * self.limit:
                    self.limit += 1
                    self.ok_streak = 0
            self.cond.notify_all()

    def throttle(self, wait: float) -> tuple[float, int]:
        with self.cond:
            now = time.monotonic()
            if now >= self.cool_until:  # one reduction per cool-down, however many workers hit it
                self.limit = max(1, self.limit // 2)
                self.min_limit = min(self.min_limit, self.limit)
                self.throttles += 1
            self.ok_streak = 0
            if now + wait > self.cool_until:
                self.waited += now + wait - max(now, self.cool_until)
                self.cool_until = now + wait
            self.cond.notify_all()
            return wait, self.limit


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

    def on_event(self, ev: dict) -> None:
        t = ev.get("type")
        if t == "tool_use":
            self.tools.append(ev.get("name"))
        elif t == "skill_loaded":
            if ev.get("path") and _real(ev["path"]) == self.target_real:
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
        api_key: the key; or ``client``: an ``anthropic.Anthropic`` to share (tests).
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
        self.target_real = _real(self.target.path)
        if client is None:
            if not api_key:
                raise EvalSetupError("no-key", str(no_key_error()))
            from workbench.core.chat.backend import make_client

            client = make_client(dataclasses.replace(self.settings, max_retries=0), api_key)
        self.sdk = client
        from workbench.core.chat.engine import get_loader, listing_for

        loader = get_loader(self.catalog.client)
        ctx = self.options.context_tokens
        self.listing = listing_for(self.catalog, ctx, loader.listing_options)
        self.warnings: list[str] = []
        self.listing_state = self._listing_state(ctx, loader.listing_options)
        self._lock = threading.Lock()
        self._cancel = threading.Event()
        self._active: set[threading.Event] = set()
        self._fatal: dict | None = None
        self._answered = False  # some run got a reply from the server
        self.gate = _Gate(self.options.concurrency)

    def _listing_state(self, ctx: int | None, opts: dict) -> str | None:
        if self.target.name not in self.listing.names:
            self.warnings.append(
                f"{self.target.name} is omitted from the {self.catalog.client} listing at "
                "this context size: the model cannot see it, so it cannot trigger by "
                "its description."
            )
            return "omitted"
        try:
            from workbench.core.listing import render_listing

            rep = render_listing(self.catalog, ctx, opts)
        except Exception:  # noqa: BLE001 - the state is informative only
            return None
        for s in rep.skills:
            if _real(s.path) == self.target_real:
                if s.state == "truncated":
                    self.warnings.append(
                        f"{self.target.name}'s description is truncated in the listing "
                        f"({s.shown_chars} of {s.description_chars} chars shown)."
                    )
                elif s.state == "name-only":
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

    def _session(self) -> Any:
        from workbench.core.chat.engine import ChatSession

        return ChatSession(self.catalog, settings=self.settings, client=self.sdk, listing=self.listing)

    def first_request(self, qi: int) -> dict[str, Any]:
        """The first model request of a run of query ``qi`` (``ChatSession.first_request``: the
        same listing, tools and cache control as the direct eval's first request)."""
        return self._session().first_request(self.queries[qi].query)

    def first_turn_record(
        self,
        qi: int,
        ri: int,
        message: dict,
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

        def emit(ev: dict) -> None:
            if progress is None:
                return
            try:
                progress(ev)
            except Exception:  # noqa: BLE001 - a broken listener must not stop the eval
                pass

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
    def _one(self, qi: int, ri: int, emit: Callable[[dict], None]) -> RunRecord:
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
    """``EvalRunner(...).run(cancel, progress)`` in one call. Raises ``EvalSetupError``."""
    return EvalRunner(
        catalog,
        skill_name,
        queries,
        settings=settings,
        api_key=api_key,
        client=client,
        options=options,
        description=description,
    ).run(cancel, progress)
