"""What an eval produced: one ``RunRecord`` per run, one ``QueryResult`` per query, the
``EvalReport`` (DESIGN.md section 3 ``workbench eval`` JSON)."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any

from workbench.core.evals.metrics import Summary, estimate_cost, query_status, summarize, wilson_interval
from workbench.core.evals.setup import description_sha

#: Run outcomes.
OUTCOMES = ("triggered", "not-triggered", "errored", "cancelled")


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
    error: dict[str, Any] | None = None
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
    fatal_error: dict[str, Any] | None = None
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

    def cost(self, prices: dict[str, Any] | None = None) -> dict[str, Any]:
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
