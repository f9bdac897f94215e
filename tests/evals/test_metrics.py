"""Wilson intervals, pass/fail, precision/recall/F1/accuracy, broken-harness warning, cost."""

from __future__ import annotations

import json
from types import SimpleNamespace as NS

import pytest

from workbench.core.evals.metrics import (
    Confusion,
    estimate_cost,
    price_for,
    query_status,
    summarize,
    wilson_interval,
)


def test_wilson_known_values():
    lo, hi = wilson_interval(0, 3)
    assert lo == 0.0 and hi == pytest.approx(0.5615, abs=1e-4)
    lo, hi = wilson_interval(3, 3)
    assert hi == 1.0 and lo == pytest.approx(0.4385, abs=1e-4)
    lo, hi = wilson_interval(5, 10)
    assert (lo, hi) == (pytest.approx(0.2366, abs=1e-4), pytest.approx(0.7634, abs=1e-4))
    assert wilson_interval(0, 0) is None
    with pytest.raises(ValueError):
        wilson_interval(4, 3)


def test_query_status_rules():
    assert query_status(True, 3, 2, 0, 0.5) == (2 / 3, True, "passed")
    assert query_status(True, 2, 1, 1, 0.5) == (0.5, True, "passed")  # rate >= threshold
    assert query_status(False, 2, 1, 0, 0.5) == (0.5, False, "failed")  # negative needs rate < threshold
    assert query_status(False, 0, 0, 3, 0.5) == (None, None, "errored")  # errors are not non-triggers
    assert query_status(True, 0, 0, 0, 0.5) == (None, None, "not-run")


def R(st, runs, trig, err=0):
    return NS(should_trigger=st, runs=runs, triggers=trig, errors=err)


def test_summary_over_runs_and_over_queries():
    res = [R(True, 3, 3), R(True, 3, 1), R(False, 3, 0), R(False, 3, 2), R(False, 0, 0, 3)]
    s = summarize(res, 0.5)
    assert (s.total, s.passed, s.failed, s.errored) == (5, 2, 2, 1)
    # runs: TP 4, FN 2, FP 2, TN 4
    assert (s.by_run.tp, s.by_run.fn, s.by_run.fp, s.by_run.tn) == (4, 2, 2, 4)
    assert s.by_run.precision == pytest.approx(4 / 6) and s.by_run.recall == pytest.approx(4 / 6)
    assert s.by_run.accuracy == pytest.approx(8 / 12)
    # queries (errored left out): TP 1 (3/3), FN 1 (1/3), TN 1, FP 1 (2/3)
    assert (s.by_query.tp, s.by_query.fn, s.by_query.tn, s.by_query.fp) == (1, 1, 1, 1)
    j = s.to_json()
    assert {"total", "passed", "failed", "errored", "precision", "recall", "accuracy"} <= set(j)
    assert j["errors"] == 3 and j["runs"] == 12
    assert not s.warnings
    json.dumps(j)


def test_broken_harness_signature_and_undefined_precision():
    s = summarize([R(True, 3, 0), R(True, 3, 0), R(False, 3, 0)], 0.5)
    assert s.by_run.precision is None and s.by_run.recall == 0.0 and s.by_run.f1 is None
    assert len(s.warnings) == 1 and "broken harness" in s.warnings[0]
    assert s.to_json()["precision"] is None


def test_confusion_f1_zero():
    c = Confusion(tp=0, fp=2, tn=1, fn=3)
    assert c.precision == 0.0 and c.recall == 0.0 and c.f1 == 0.0


def test_cost_estimate_and_override(tmp_path, monkeypatch):
    u = {
        "input_tokens": 1_000_000,
        "output_tokens": 100_000,
        "cache_read_input_tokens": 1_000_000,
        "cache_creation_input_tokens": 0,
    }
    c = estimate_cost(u, "claude-haiku-5-5")
    assert c["usd"] == pytest.approx(1.0 + 0.5 + 0.1) and "assumed" in c["assumption"]
    assert estimate_cost(u, "llama3")["usd"] is None
    monkeypatch.setenv("WORKBENCH_HOME", str(tmp_path))
    from workbench.core import appdirs

    appdirs.config_dir().mkdir(parents=True, exist_ok=True)
    (appdirs.config_dir() / "eval_prices.json").write_text(
        json.dumps({"llama3": {"input": 0, "output": 0}, "bad": {"input": "x"}})
    )
    assert price_for("llama3")[0] == "llama3"
    assert estimate_cost(u, "llama3")["usd"] == 0.0
    assert price_for("bad") is None
