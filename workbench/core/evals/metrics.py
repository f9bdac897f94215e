"""Trigger-eval arithmetic: Wilson intervals, per-query pass/fail, precision/recall/F1/accuracy,
the broken-harness check, and a cost estimate from a small, editable price table.

Definitions (validators.md section 3.1/3.6; where the reference is silent, decided here):

* A **run** is one fresh conversation for one query. It ends *triggered* (the skill under test
  was loaded), *not triggered*, *errored* (an API/network error before any load of the skill;
  never counted as a non-trigger: skill-creator defect 5) or *cancelled* (not counted at all).
* ``trigger_rate = triggers / runs`` where ``runs`` counts **successful** runs only (not errored,
  not cancelled). With no successful run the rate is None and the query is ``errored`` (or
  ``not-run`` after a cancel), never passed/failed.
* A query **passes** when ``rate >= threshold`` for should-trigger queries and ``rate < threshold``
  for should-not-trigger queries (skill-creator's rule, threshold default 0.5).
* The 95 % interval is Wilson's score interval (z = 1.96) on ``triggers`` of ``runs``.
* Precision/recall/F1/accuracy are given twice: **over runs** (each successful run is one
  prediction; skill-creator's verbose output does the same) and **over queries** (a query is
  predicted "trigger" when its rate reaches the threshold; errored queries left out). The
  ``summary`` top-level ``precision``/``recall``/``accuracy`` of DESIGN.md section 3 are the
  **over-runs** figures; ``summary.by_query`` holds the others. A ratio with a zero denominator is
  None (JSON null, shown "n/a"), never 100 %.
* Broken-harness signature (validators.md 3.1 defect 10): every should-trigger query that ran has
  a rate of 0 → a warning (the harness, not the description, is the likely culprit).
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from workbench.core import appdirs

Z95 = 1.959963984540054

#: Query statuses.
QUERY_STATUSES = ("passed", "failed", "errored", "not-run")

BROKEN_HARNESS_WARNING = (
    "Every should-trigger query scored 0 % (precision {p}, recall 0 %): this is the signature of a "
    "broken harness (the skill is not offered, the trigger is not detected, or every run errored) "
    "rather than of a bad description. Check the listing (is the skill listed at this context "
    "size?), the client and the model before changing the description."
)


def wilson_interval(k: int, n: int, z: float = Z95) -> tuple[float, float] | None:
    """Wilson score interval for ``k`` successes in ``n`` trials, as (low, high) in [0, 1].

    None when ``n == 0``. Raises ValueError when ``k`` is outside 0..n.
    """
    if n <= 0:
        return None
    if not 0 <= k <= n:
        raise ValueError(f"k={k} outside 0..{n}")
    p = k / n
    z2 = z * z
    denom = 1 + z2 / n
    centre = (p + z2 / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / denom
    lo = 0.0 if k == 0 else max(0.0, centre - half)
    hi = 1.0 if k == n else min(1.0, centre + half)
    return (lo, hi)


def _ratio(a: int | float, b: int | float) -> float | None:
    return a / b if b else None


@dataclass
class Confusion:
    """Counts of one classification: tp, fp, tn, fn (ints), with derived ratios (None when the
    denominator is 0)."""

    tp: int = 0
    fp: int = 0
    tn: int = 0
    fn: int = 0

    def add(self, predicted: bool, actual: bool, n: int = 1) -> None:
        if predicted and actual:
            self.tp += n
        elif predicted:
            self.fp += n
        elif actual:
            self.fn += n
        else:
            self.tn += n

    @property
    def total(self) -> int:
        return self.tp + self.fp + self.tn + self.fn

    @property
    def precision(self) -> float | None:
        return _ratio(self.tp, self.tp + self.fp)

    @property
    def recall(self) -> float | None:
        return _ratio(self.tp, self.tp + self.fn)

    @property
    def f1(self) -> float | None:
        p, r = self.precision, self.recall
        if p is None or r is None or p + r == 0:
            return None if p is None or r is None else 0.0
        return 2 * p * r / (p + r)

    @property
    def accuracy(self) -> float | None:
        return _ratio(self.tp + self.tn, self.total)

    def to_json(self) -> dict[str, Any]:
        return {
            "tp": self.tp,
            "fp": self.fp,
            "tn": self.tn,
            "fn": self.fn,
            "precision": _round(self.precision),
            "recall": _round(self.recall),
            "f1": _round(self.f1),
            "accuracy": _round(self.accuracy),
        }


def _round(x: float | None, nd: int = 4) -> float | None:
    return None if x is None else round(x, nd)


def query_status(
    should_trigger: bool, runs: int, triggers: int, errors: int, threshold: float
) -> tuple[float | None, bool | None, str]:
    """(trigger_rate, pass, status) of one query; module docstring for the rules."""
    if runs <= 0:
        return None, None, "errored" if errors else "not-run"
    rate = triggers / runs
    ok = rate >= threshold if should_trigger else rate < threshold
    return rate, ok, "passed" if ok else "failed"


@dataclass
class Summary:
    """Aggregate of a set of query results (see ``summarize``)."""

    total: int
    passed: int
    failed: int
    errored: int
    not_run: int
    by_run: Confusion
    by_query: Confusion
    runs: int
    errors: int
    warnings: list[str] = field(default_factory=list)

    @property
    def pass_rate(self) -> float | None:
        """passed / (passed + failed): the share of decided queries that pass."""
        return _ratio(self.passed, self.passed + self.failed)

    def to_json(self) -> dict[str, Any]:
        """DESIGN.md section 3 ``summary`` (``total, passed, failed, errored, precision, recall,
        accuracy``; the three ratios over runs) plus ``f1``, ``not_run``, ``pass_rate``,
        ``runs``, ``errors`` (errored runs), ``by_run`` and ``by_query`` (confusion counts and
        ratios)."""
        return {
            "total": self.total,
            "passed": self.passed,
            "failed": self.failed,
            "errored": self.errored,
            "not_run": self.not_run,
            "precision": _round(self.by_run.precision),
            "recall": _round(self.by_run.recall),
            "accuracy": _round(self.by_run.accuracy),
            "f1": _round(self.by_run.f1),
            "pass_rate": _round(self.pass_rate),
            "runs": self.runs,
            "errors": self.errors,
            "by_run": self.by_run.to_json(),
            "by_query": self.by_query.to_json(),
        }


def summarize(results: Iterable[Any], threshold: float) -> Summary:
    """Aggregate results. Each item needs ``should_trigger``, ``runs`` (successful), ``triggers``,
    ``errors`` attributes (``runner.QueryResult`` or anything alike)."""
    res = list(results)
    by_run, by_query = Confusion(), Confusion()
    passed = failed = errored = not_run = runs = errors = 0
    for r in res:
        rate, ok, status = query_status(r.should_trigger, r.runs, r.triggers, r.errors, threshold)
        runs += r.runs
        errors += r.errors
        by_run.add(True, r.should_trigger, r.triggers)
        by_run.add(False, r.should_trigger, r.runs - r.triggers)
        if status == "passed":
            passed += 1
        elif status == "failed":
            failed += 1
        elif status == "errored":
            errored += 1
        else:
            not_run += 1
        if rate is not None:
            by_query.add(rate >= threshold, r.should_trigger)
    s = Summary(len(res), passed, failed, errored, not_run, by_run, by_query, runs, errors)
    positives = [r for r in res if r.should_trigger and r.runs > 0]
    if positives and all(r.triggers == 0 for r in positives):
        p = by_run.precision
        s.warnings.append(BROKEN_HARNESS_WARNING.format(p="n/a" if p is None else f"{p:.0%}"))
    return s


def pct(x: float | None, nd: int = 0) -> str:
    """``x`` (0..1) as a percentage string, "n/a" for None."""
    return "n/a" if x is None else f"{x * 100:.{nd}f} %"


# ---------------------------------------------------------------------------------------------
# cost


#: The price table: ``prices.json`` next to this module (the one data file; dated, sourced, every
#: number marked verified or not). USD per million tokens by model family (matched as a substring
#: of the model id, first hit wins; an exact model id in the override file wins over the families):
#: input, output, cache_write (5-minute), cache_read, min_cache_tokens; plus ``batch_discount`` (the
#: Message Batches price factor, applied to every token type). Edit ``config_dir()/eval_prices.json``
#: (``{model: {"input": n, "output": n[, "cache_write", "cache_read"]}}``) to override; the pane
#: and the CLI label every cost "est.".
def _price_table() -> dict[str, Any]:
    """``prices.json``; a missing or damaged file gives an empty table (costs "n/a"), never a crash."""
    try:
        data = json.loads(Path(__file__).with_name("prices.json").read_text(encoding="utf-8"))
        if isinstance(data, dict) and isinstance(data.get("models"), dict):
            return data
    except (OSError, ValueError):
        pass
    return {"dated": "unknown (prices.json missing)", "batch_discount": 0.5, "models": {}}


PRICE_TABLE: dict[str, Any] = _price_table()
DEFAULT_PRICES: dict[str, dict[str, float]] = {k: dict(v) for k, v in PRICE_TABLE["models"].items()}
CACHE_READ_MULTIPLIER = 0.1
CACHE_WRITE_MULTIPLIER = 1.25
BATCH_DISCOUNT = float(PRICE_TABLE["batch_discount"])
PRICES_FILE = "eval_prices.json"


def load_prices() -> dict[str, dict[str, float]]:
    """``DEFAULT_PRICES`` updated from ``config_dir()/eval_prices.json`` when present and valid
    (entries that are not ``{"input": number, "output": number}`` are ignored). Never raises."""
    prices = {k: dict(v) for k, v in DEFAULT_PRICES.items()}
    try:
        data = json.loads((appdirs.config_dir() / PRICES_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return prices
    if isinstance(data, dict):
        for k, v in data.items():
            if (
                isinstance(k, str)
                and isinstance(v, dict)
                and all(
                    isinstance(v.get(f), (int, float)) and not isinstance(v.get(f), bool)
                    for f in ("input", "output")
                )
            ):
                prices[k] = {
                    f: float(v[f])
                    for f in ("input", "output", "cache_write", "cache_read", "min_cache_tokens")
                    if isinstance(v.get(f), (int, float)) and not isinstance(v.get(f), bool)
                }
    return prices


def price_for(
    model: str, prices: dict[str, dict[str, float]] | None = None
) -> tuple[str, dict[str, float]] | None:
    """(matched key, {"input","output"} USD per MTok) for ``model``, or None when unknown."""
    table = prices if prices is not None else load_prices()
    if model in table:
        return model, table[model]
    m = (model or "").lower()
    for key, v in table.items():
        if key.lower() in m:
            return key, v
    return None


def token_prices(p: dict[str, float]) -> dict[str, float]:
    """USD per MTok for each of the four usage fields of a price entry (cache prices derived from
    the input price when the entry has none)."""
    return {
        "input_tokens": p["input"],
        "output_tokens": p["output"],
        "cache_creation_input_tokens": p.get("cache_write", p["input"] * CACHE_WRITE_MULTIPLIER),
        "cache_read_input_tokens": p.get("cache_read", p["input"] * CACHE_READ_MULTIPLIER),
    }


def estimate_cost(
    usage: dict[str, int], model: str, prices: dict[str, dict[str, float]] | None = None, batch: bool = False
) -> dict[str, Any]:
    """Cost estimate of summed ``usage`` (the four token counts of the Messages API).

    ``batch``: priced as Message Batches requests (x ``BATCH_DISCOUNT`` on every token type).
    Returns ``{"usd": float | None, "model_key", "input_per_mtok", "output_per_mtok", "batch",
    "assumption": str}``; ``usd`` is None when the model matches no price (a local server model).
    """
    hit = price_for(model, prices)
    if hit is None:
        return {
            "usd": None,
            "model_key": None,
            "input_per_mtok": None,
            "output_per_mtok": None,
            "batch": batch,
            "assumption": f"no price known for model {model!r} (edit {PRICES_FILE} in the "
            "config folder to add one)",
        }
    key, p = hit
    tp = token_prices(p)
    factor = BATCH_DISCOUNT if batch else 1.0
    usd = sum(usage.get(k, 0) * v for k, v in tp.items()) * factor / 1_000_000
    extra = f"; batch price x{BATCH_DISCOUNT:g} (unverified)" if batch else ""
    return {
        "usd": round(usd, 6),
        "model_key": key,
        "input_per_mtok": p["input"],
        "output_per_mtok": p["output"],
        "batch": batch,
        "assumption": f"assumed list price for '{key}' models: ${p['input']:g}/${p['output']:g} "
        f"per million input/output tokens; cache read "
        f"${tp['cache_read_input_tokens']:g}, cache write "
        f"${tp['cache_creation_input_tokens']:g}{extra} (estimate, table dated "
        f"{PRICE_TABLE['dated']}; edit {PRICES_FILE})",
    }
