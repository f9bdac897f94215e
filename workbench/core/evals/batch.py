"""Trigger evals through the Message Batches API: first turns only, half price, resumable.

Typical use::

    runners = [EvalRunner(catalog, "pdf", queries, settings=s, client=sdk, options=opts)]
    be = BatchEval(runners, sdk)
    est = be.estimate()                  # count_tokens: show est["usd"] before submitting
    rec = be.submit(BatchStore(history), workspace=ws)   # rec["id"]: resume with it
    be.wait(cancel, progress)            # polls: processing/succeeded/errored/canceled/expired
    reports = be.collect()               # one EvalReport per runner, mode "batch"

What a batch run is (decisions; chat-loop.md section 3 "our batch mode", validators.md 3.1):

* One request per query x run: ``EvalRunner.first_request`` (``ChatSession.first_request``: the
  direct eval's own first request: client-shaped listing, tools, cache control). ``custom_id`` is
  ``j<runner>-q<query>-r<run>`` (the API's 1-64 chars of ``[a-zA-Z0-9_-]``, unique).
* The **first turn decides** (skill-creator's ``run_eval.py`` does the same): the reply is
  replayed through the client's own tools (``EvalRunner.first_turn_record``), so a load of the
  skill under test is matched on the resolved SKILL.md path. A first turn that calls only other
  tools (list, read of another file) counts as not triggered and is flagged
  (``stop_reason == "first-turn"``, and a report warning): the direct eval would go on.
* ``errored`` and ``expired`` results, and requests with no result, are **errors** (kinds: the
  API error type mapped like ``chat.errors``, "expired", "missing"), never non-triggers;
  ``canceled`` ones are cancelled runs (not counted), as after Stop in the direct eval.
* Limits (``BatchLimits``): at most 100,000 requests and 256 MB per batch (the API's documented
  limits); a larger plan is split into several batches, all stored in one record.
* Cost before submitting (``estimate``): input tokens from ``messages.count_tokens`` (one call per
  distinct request, runs of a query are identical; above ``max_counts`` distinct requests an evenly
  spaced sample is counted and the rest scaled by characters), the cacheable prefix (tools +
  system + a first-turn listing) counted once per distinct prefix and assumed written once and read
  by every other request when it reaches the model's ``min_cache_tokens`` and caching is on
  (batches cache on a best-effort basis: the figure without cache hits is given too), output
  tokens assumed per request (``output_tokens``, default 64, or calibrated from a previous
  report's usage per request), priced with ``metrics.estimate_cost(..., batch=True)``.
* Resumable: ``submit`` writes a record (``BatchStore``: ``<history dir>/_batches/<id>.json``,
  next to the eval history) with the batch ids, the queries, settings and options;
  ``BatchEval.from_record`` rebuilds it after a restart (``workbench eval --resume ID``; ID = the
  record id or one of its batch ids) and ``cancel_record`` cancels (``--cancel ID``).
"""

from __future__ import annotations

import datetime as _dt
import json
import logging
import secrets
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

from workbench.core.chat.errors import ChatError, from_exception
from workbench.core.evals.batchplan import (
    DEFAULT_OUTPUT_TOKENS,
    MAX_TOKEN_COUNTS,
    Planned,
    custom_id,
    estimate_batch,
    parse_custom_id,
)
from workbench.core.evals.batchstore import BatchError, BatchStore
from workbench.core.evals.queryset import Query
from workbench.core.evals.runner import EvalReport, EvalRunner, RunRecord
from workbench.core.text import plural

__all__ = [
    "COUNT_KEYS",
    "DEFAULT_OUTPUT_TOKENS",
    "DEFAULT_POLL_SECONDS",
    "ERROR_KINDS",
    "MAX_TOKEN_COUNTS",
    "BatchError",
    "BatchEval",
    "BatchLimits",
    "BatchStore",
    "Planned",
    "cancel_record",
    "custom_id",
    "parse_custom_id",
]

log = logging.getLogger(__name__)

#: Seconds between polls (the API's batches usually end within an hour).
DEFAULT_POLL_SECONDS = 30.0

#: API error type in an errored result -> ``ChatError`` kind (chat/errors.py table).
ERROR_KINDS = {
    "invalid_request_error": "bad-request",
    "authentication_error": "auth",
    "billing_error": "billing",
    "permission_error": "permission",
    "not_found_error": "not-found",
    "request_too_large": "too-large",
    "rate_limit_error": "rate-limited",
    "overloaded_error": "overloaded",
    "api_error": "server",
    "timeout_error": "timeout",
}

COUNT_KEYS = ("processing", "succeeded", "errored", "canceled", "expired")

ProgressFn = Callable[[dict[str, Any]], None]


@dataclass
class BatchLimits:
    """Per-batch limits of the Message Batches API: ``max_requests`` (100,000) and ``max_bytes``
    (256 MB of request JSON)."""

    max_requests: int = 100_000
    max_bytes: int = 256 * 1024 * 1024


def _utc() -> str:
    return _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds")


def _obj(x: Any) -> Any:
    """SDK model -> plain JSON data (dicts pass through)."""
    if hasattr(x, "to_dict"):
        return x.to_dict()
    if hasattr(x, "model_dump"):
        return x.model_dump()
    return x


# ---------------------------------------------------------------------------------------------
# the batch eval


class BatchEval:
    """The evals of ``runners`` (``EvalRunner``s sharing one SDK client ``sdk``) as message batches
    (module docstring). ``limits``: ``BatchLimits``. ``batch_ids`` / ``record`` are set by
    ``submit`` or ``from_record``."""

    def __init__(self, runners: list[EvalRunner], sdk: Any, *, limits: BatchLimits | None = None) -> None:
        if not runners:
            raise BatchError("nothing to evaluate")
        self.runners = runners
        self.sdk = sdk
        self.limits = limits or BatchLimits()
        self.batch_ids: list[str] = []
        self.record: dict[str, Any] | None = None
        self.store: BatchStore | None = None
        self._plan: list[Planned] | None = None
        self.counts: dict[str, int] = {k: 0 for k in COUNT_KEYS}

    # -- planning --------------------------------------------------------------------------
    def plan(self) -> list[Planned]:
        """Every request (query x run of every runner); the params of a query are built once."""
        if self._plan is None:
            out = []
            for j, r in enumerate(self.runners):
                for qi in range(len(r.queries)):
                    params = r.first_request(qi)
                    for ri in range(r.options.runs):
                        out.append(Planned(custom_id(j, qi, ri), params, j, qi, ri))
            self._plan = out
        return self._plan

    def chunks(self) -> list[list[Planned]]:
        """The plan split so that each batch stays within ``limits`` (requests and JSON bytes)."""
        out: list[list[Planned]] = [[]]
        size = 0
        sizes: dict[int, int] = {}
        for p in self.plan():
            n = sizes.get(id(p.params))
            if n is None:
                n = sizes[id(p.params)] = len(json.dumps(p.params, ensure_ascii=False).encode())
            n += len(p.custom_id) + 40
            if out[-1] and (len(out[-1]) >= self.limits.max_requests or size + n > self.limits.max_bytes):
                out.append([])
                size = 0
            out[-1].append(p)
            size += n
        return out

    @property
    def model(self) -> str:
        return self.runners[0].settings.model

    # -- cost ------------------------------------------------------------------------------
    def estimate(
        self,
        *,
        output_tokens: float | None = None,
        calibrate: list[Any] | None = None,
        max_counts: int = MAX_TOKEN_COUNTS,
        concurrency: int = 4,
    ) -> dict[str, Any]:
        """The cost of the plan before submitting: ``batchcost.estimate_batch`` (its docstring has
        the arguments and the returned figures). Raises ``BatchError`` when ``count_tokens`` fails."""
        return estimate_batch(
            self.sdk,
            self.plan(),
            self.runners[0].settings,
            n_batches=len(self.chunks()),
            output_tokens=output_tokens,
            calibrate=calibrate,
            max_counts=max_counts,
            concurrency=concurrency,
        )

    # -- submitting ------------------------------------------------------------------------
    def submit(
        self,
        store: BatchStore | None = None,
        *,
        workspace: Any = None,
        roots: list[Any] | None = None,
        estimate: dict[str, Any] | None = None,
        extra: dict[str, Any] | None = None,
    ) -> dict[str, Any]:
        """Create the batches (one per ``chunks()`` part) and write the record (when ``store``).
        Returns the record. Raises ``BatchError`` (batches created before a failure are cancelled
        and named in the message)."""
        ids: list[str] = []
        for part in self.chunks():
            try:
                b = self.sdk.messages.batches.create(
                    requests=[{"custom_id": p.custom_id, "params": p.params} for p in part]
                )
            except Exception as exc:  # noqa: BLE001
                err = from_exception(exc, self.runners[0].settings.effective_base_url())
                left = []
                for bid in ids:
                    try:
                        self.sdk.messages.batches.cancel(bid)
                    except Exception:  # noqa: BLE001 - best effort; named in the message
                        log.warning("batch eval: could not cancel batch %s", bid, exc_info=True)
                        left.append(bid)
                done = [bid for bid in ids if bid not in left]
                before = f" (cancelled the batches created before: {', '.join(done)})" if done else ""
                if left:
                    before += f" (could not cancel {', '.join(left)}: cancel them with --cancel)"
                raise BatchError(f"could not create the batch: {err.message}{before}", err) from None
            ids.append(b.id)
        self.batch_ids = ids
        r0 = self.runners[0]
        s = r0.settings
        rec = {
            "version": 1,
            "kind": "batch-eval",
            "id": f"{_dt.datetime.now(_dt.UTC).strftime('%Y%m%dT%H%M%S')}-{secrets.token_hex(3)}",
            "created_at": _utc(),
            "state": "submitted",
            "batch_ids": ids,
            "workspace": str(workspace) if workspace is not None else "",
            "client": r0.catalog.client,
            "roots": [str(x) for x in roots or []],
            "context_tokens": r0.options.context_tokens,
            "settings": {
                "model": s.model,
                "max_tokens": s.max_tokens,
                "temperature": s.temperature,
                "base_url": s.base_url,
                "cache": s.cache,
                "max_turns": s.max_turns,
            },
            "options": {
                "runs": r0.options.runs,
                "threshold": r0.options.threshold,
                "competitors": r0.options.competitors,
                "context_tokens": r0.options.context_tokens,
            },
            "jobs": [
                {
                    "skill": r.target.name,
                    "description": r.description_override,
                    "queries": [q.to_json() for q in r.queries],
                }
                for r in self.runners
            ],
            "estimate": estimate,
            "history_ids": [],
            **(extra or {}),
        }
        self.record = rec
        self.store = store
        if store is not None:
            store.save(rec)
        return rec

    @classmethod
    def from_record(cls, rec: dict[str, Any], catalog: Any, sdk: Any, *, settings: Any = None) -> BatchEval:
        """Rebuild a submitted batch eval from its record over ``catalog`` (the workspace scanned
        again). Raises ``BatchError`` for a bad record, ``EvalSetupError`` when a skill is gone."""
        import dataclasses

        from workbench.core.chat.settings import ChatSettings
        from workbench.core.evals.runner import EvalOptions

        try:
            st = rec["settings"]
            s = dataclasses.replace(settings) if settings is not None else ChatSettings()
            s.model = st["model"]
            for k in ("max_tokens", "temperature", "cache", "max_turns"):
                setattr(s, k, st.get(k, getattr(s, k)))
            o = rec["options"]
            runners = []
            for job in rec["jobs"]:
                opts = EvalOptions(
                    runs=int(o["runs"]),
                    threshold=float(o["threshold"]),
                    competitors=bool(o["competitors"]),
                    context_tokens=o.get("context_tokens"),
                )
                qs = [Query(q["query"], bool(q["should_trigger"]), q.get("note", "")) for q in job["queries"]]
                runners.append(
                    EvalRunner(
                        catalog,
                        job["skill"],
                        qs,
                        settings=s,
                        client=sdk,
                        options=opts,
                        description=job.get("description"),
                    )
                )
            be = cls(runners, sdk)
            be.batch_ids = list(rec["batch_ids"])
        except (KeyError, TypeError, ValueError) as exc:
            raise BatchError(f"batch record {rec.get('id')!r} is damaged: {exc}") from None
        be.record = rec
        return be

    # -- polling ---------------------------------------------------------------------------
    def poll(self) -> tuple[bool, dict[str, int]]:
        """Retrieve every batch once: (all ended, summed request counts). Raises ``BatchError``."""
        counts = {k: 0 for k in COUNT_KEYS}
        ended = True
        for bid in self.batch_ids:
            try:
                b = self.sdk.messages.batches.retrieve(bid)
            except Exception as exc:  # noqa: BLE001
                err = from_exception(exc, self.runners[0].settings.effective_base_url())
                raise BatchError(f"could not read batch {bid}: {err.message}", err) from None
            rc = _obj(b.request_counts)
            for k in COUNT_KEYS:
                counts[k] += int(rc.get(k) or 0)
            ended = ended and b.processing_status == "ended"
        self.counts = counts
        return ended, counts

    def wait(
        self,
        cancel: threading.Event | None = None,
        progress: ProgressFn | None = None,
        poll_seconds: float = DEFAULT_POLL_SECONDS,
        max_errors: int = 5,
    ) -> bool:
        """Poll until every batch has ended (True) or ``cancel`` is set (False: the batches go on
        and can be resumed). ``progress({"type": "batch", "batch_ids", "counts", "total",
        "ended", "seconds"})`` after each poll. Transient poll errors are retried up to
        ``max_errors`` times in a row, then ``BatchError`` is raised."""
        cancel = cancel or threading.Event()
        t0 = time.monotonic()
        fails = 0
        while True:
            try:
                ended, counts = self.poll()
                fails = 0
            except BatchError as exc:
                fails += 1
                log.warning("batch eval: poll %d failed: %s", fails, exc)
                if fails >= max_errors or (
                    exc.error is not None and exc.error.kind in ("auth", "not-found", "permission")
                ):
                    raise
                ended, counts = False, self.counts
            if progress is not None:
                try:
                    progress(
                        {
                            "type": "batch",
                            "batch_ids": list(self.batch_ids),
                            "counts": dict(counts),
                            "total": sum(counts.values()),
                            "ended": ended,
                            "seconds": round(time.monotonic() - t0, 1),
                        }
                    )
                except Exception:  # noqa: BLE001 - a broken listener must not stop polling
                    log.warning("batch eval progress listener failed", exc_info=True)
            if ended:
                return True
            if cancel.wait(poll_seconds):
                return False

    def cancel(self) -> None:
        """Ask the server to cancel every batch (requests not yet processed end ``canceled``) and
        mark the record cancelled. Raises ``BatchError``."""
        cancel_record(
            self.record if self.record is not None else {"batch_ids": self.batch_ids},
            self.sdk,
            self.store if self.record is not None else None,
        )

    # -- results ---------------------------------------------------------------------------
    def collect(
        self, *, follow_up: bool = True, cancel: threading.Event | None = None, concurrency: int = 8
    ) -> list[EvalReport]:
        """Read every ended batch's results (JSONL, any order) into one ``EvalReport`` per runner
        (``mode`` "batch", same ``QueryResult`` rules as the direct eval). ``follow_up``: a first
        turn that called tools without loading the skill under test is continued through the API
        like the direct eval (``EvalRunner.first_turn_record``; ``concurrency`` at a time; a warning
        counts them: their later requests are full-price although the report's cost prices all
        usage at the batch price). Raises ``BatchError``."""
        reports = [r.new_report() for r in self.runners]
        for rep in reports:
            rep.mode, rep.batch_ids, rep.concurrency = "batch", list(self.batch_ids), 0
        got: dict[str, tuple[int, int, int, dict[str, Any]]] = {}
        for bid in self.batch_ids:
            try:
                for item in self.sdk.messages.batches.results(bid):
                    d = _obj(item)
                    cid = d.get("custom_id", "")
                    where = parse_custom_id(cid)
                    if (
                        where is None
                        or where[0] >= len(self.runners)
                        or cid in got
                        or where[1] >= len(self.runners[where[0]].queries)
                    ):
                        continue
                    got[cid] = (*where, d.get("result") or {})
            except Exception as exc:  # noqa: BLE001
                err = from_exception(exc, self.runners[0].settings.effective_base_url())
                raise BatchError(f"could not read the results of batch {bid}: {err.message}", err) from None

        def one(item: tuple[int, int, int, dict[str, Any]]) -> tuple[int, RunRecord]:
            j, qi, ri, result = item
            return j, self._record(self.runners[j], qi, ri, result, follow_up, cancel)

        with ThreadPoolExecutor(max_workers=max(1, concurrency)) as pool:
            recs = list(pool.map(one, got.values()))
        for p in self.plan():
            if p.custom_id not in got:
                recs.append(
                    (
                        p.job,
                        RunRecord(
                            p.qi,
                            p.ri,
                            outcome="errored",
                            error=ChatError(
                                "missing", "the batch returned no result for this request"
                            ).to_json(),
                        ),
                    )
                )
        first_turn = [0] * len(self.runners)
        followed = [0] * len(self.runners)
        for j, rec in recs:
            first_turn[j] += rec.stop_reason == "first-turn"
            followed[j] += rec.hops > 1
            self._add(reports[j], rec)
        for j, rep in enumerate(reports):
            for r in rep.results:
                r.details.sort(key=lambda x: x.run)
            rep.cancelled = any(r.cancelled for r in rep.results)
            rep.seconds = self._elapsed()
            if first_turn[j]:
                rep.warnings.append(
                    f"{plural(first_turn[j], 'run')} called other tools on their first turn and "
                    "were not continued: counted as not triggered (a batch eval without "
                    "follow-up decides on the first turn only)."
                )
            if followed[j]:
                rep.warnings.append(
                    f"{plural(followed[j], 'run')} called other tools first and were continued "
                    "through the direct API (full price for those requests)."
                )
        return reports

    def _elapsed(self) -> float:
        """Seconds from the record's creation to now (0 without a record)."""
        try:
            t0 = _dt.datetime.fromisoformat((self.record or {})["created_at"])
        except (KeyError, TypeError, ValueError):
            return 0.0
        return max(0.0, (_dt.datetime.now(_dt.UTC) - t0).total_seconds())

    @staticmethod
    def _add(rep: EvalReport, rec: RunRecord) -> None:
        rep.results[rec.query_index].add(rec)
        for k in rep.usage:
            rep.usage[k] += rec.usage.get(k, 0)

    @staticmethod
    def _record(
        runner: EvalRunner,
        qi: int,
        ri: int,
        result: dict[str, Any],
        follow_up: bool = False,
        cancel: threading.Event | None = None,
    ) -> RunRecord:
        t = result.get("type")
        if t == "succeeded":
            return runner.first_turn_record(
                qi, ri, _obj(result.get("message")) or {}, follow_up=follow_up, cancel=cancel
            )
        if t == "canceled":
            return RunRecord(qi, ri, outcome="cancelled", attempts=1)
        if t == "expired":
            err = ChatError(
                "expired",
                "the request expired before the batch processed it (24 h limit)",
                "Resubmit the eval; batches usually end within an hour.",
            )
        else:
            e = (result.get("error") or {}).get("error") or {}
            err = ChatError(
                ERROR_KINDS.get(e.get("type", ""), "other"),
                e.get("message") or f"batch request {t or 'failed'}",
            )
        return RunRecord(qi, ri, outcome="errored", attempts=1, error=err.to_json())

    def finish(self, history_ids: list[str]) -> None:
        """Mark the record done (with the history ids of the saved reports)."""
        if self.record is not None:
            self.record["state"] = "done"
            self.record["history_ids"] = list(history_ids)
            self.record["finished_at"] = _utc()
            if self.store is not None:
                self.store.save(self.record)


def cancel_record(rec: dict[str, Any], sdk: Any, store: BatchStore | None = None) -> list[str]:
    """Cancel the batches of record ``rec`` on the server; returns their ids. Raises ``BatchError``."""
    ids = list(rec.get("batch_ids") or [])
    for bid in ids:
        try:
            sdk.messages.batches.cancel(bid)
        except Exception as exc:  # noqa: BLE001
            err = from_exception(exc)
            raise BatchError(f"could not cancel batch {bid}: {err.message}", err) from None
    if store is not None:
        rec["state"] = "cancelled"
        store.save(rec)
    return ids
