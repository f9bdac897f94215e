"""Batch evals (Message Batches API) against the fake server: same results as the direct eval,
errored/expired requests as errors, restart + resume by id, splitting, cancel, cost estimate."""

from __future__ import annotations

import json
import threading

import anthropic
import pytest

from tests.evals.conftest import text, tool_call
from tests.fakeapi import FakeAPI, Invalid, validate_batch_body
from workbench.core.evals.batch import (
    BatchError,
    BatchEval,
    BatchLimits,
    BatchStore,
    cancel_record,
    custom_id,
    parse_custom_id,
)
from workbench.core.evals.history import HistoryStore
from workbench.core.evals.metrics import estimate_cost
from workbench.core.evals.queryset import Query
from workbench.core.evals.runner import EvalOptions, EvalRunner


def load(name):
    return tool_call("Skill", {"skill": name})


def sdk_for(fake):
    return fake.client()


def script_200(fake):
    """200 queries with known behaviour; run-independent ones (i % 5 != 3) and a 2-of-3 pattern."""
    plans, qs = {}, []
    for i in range(200):
        key = f"<{i:03d}>"
        kind = i % 5
        if kind == 0:
            plans[key] = [[load("pdf")]]
            qs.append(Query(f"{key} convert this pdf", True))
        elif kind == 1:
            plans[key] = [[text("It is sunny.")]]
            qs.append(Query(f"{key} weather today", False))
        elif kind == 2:
            plans[key] = [[load("csv")]]
            qs.append(Query(f"{key} sum this csv", False))
        elif kind == 3:
            plans[key] = [[load("pdf")], [text("no")], [load("pdf")]]
            qs.append(Query(f"{key} maybe a pdf", True))
        else:
            plans[key] = [[load("greeter"), load("pdf")]]  # a competitor first: the direct eval goes on
            qs.append(Query(f"{key} hello", False))
    fake.plans = plans
    return qs


def per_query(rep):
    return [(r.query, r.runs, r.triggers, r.errors, r.status, dict(r.also_loaded)) for r in rep.results]


def test_200x3_batch_matches_direct_with_errors_expiry_restart_and_cost(fake, catalog, settings, tmp_path):
    fake.cache_min_tokens = 4096  # haiku's minimum cacheable prefix (prices.json)
    qs = script_200(fake)
    opts = EvalOptions(runs=3, concurrency=8, max_attempts=1, backoff_base=0.01)
    sdk = sdk_for(fake)
    direct = EvalRunner(catalog, "pdf", qs, settings=settings, client=sdk, options=opts).run()
    assert direct.summary.errored == 0 and fake.invalid == []

    # errored and expired requests, only on run-independent queries (kind 0, 1, 2)
    faults = {
        custom_id(0, 10, 1): ("errored", 500),
        custom_id(0, 11, 0): "expired",
        custom_id(0, 20, 0): ("errored", 529),
        custom_id(0, 20, 1): "expired",
        custom_id(0, 20, 2): ("errored", 400),
    }
    fake.batch_outcome = lambda cid, params: faults.get(cid)
    fake.batch_max_requests = 250
    fake.batch_seconds = 3.0

    runner = EvalRunner(catalog, "pdf", qs, settings=settings, client=sdk, options=opts)
    be = BatchEval([runner], sdk, limits=BatchLimits(max_requests=250))
    est = be.estimate(calibrate=[direct])
    assert est["requests"] == 600 and est["batches"] == 3 and est["distinct"] == 200
    store = BatchStore(HistoryStore(catalog.env.workspace))
    rec = be.submit(store, workspace=catalog.env.workspace, estimate=est)
    assert len(rec["batch_ids"]) == 3 and fake.batch_requests == 3
    # "restart": poll once, then detach (the batches go on on the server)
    stop = threading.Event()
    stop.set()
    polls = []
    assert be.wait(stop, polls.append, poll_seconds=0.01) is False
    assert polls[0]["counts"]["processing"] == 600 and polls[0]["ended"] is False
    del be, runner

    rec2 = BatchStore(HistoryStore(catalog.env.workspace)).find(rec["batch_ids"][1])  # by a batch id
    assert rec2["id"] == rec["id"] and rec2["state"] == "submitted"
    be2 = BatchEval.from_record(rec2, catalog, sdk, settings=settings)
    be2.store = store
    seen = []
    assert be2.wait(None, seen.append, poll_seconds=0.2) is True
    assert seen[-1]["counts"] == {
        "processing": 0,
        "succeeded": 595,
        "errored": 3,
        "canceled": 0,
        "expired": 2,
    }
    [batch] = be2.collect()
    be2.finish(["h1"])
    assert store.find(rec["id"])["state"] == "done"
    assert fake.invalid == []
    assert batch.mode == "batch" and batch.batch_ids == rec["batch_ids"]

    d, b = per_query(direct), per_query(batch)
    faulted = {10: 1, 11: 1, 20: 3}
    for i in range(200):
        if i in faulted:
            continue
        assert b[i] == d[i], i
    # errors are errors, never non-triggers
    r10, r11, r20 = batch.results[10], batch.results[11], batch.results[20]
    assert (r10.runs, r10.triggers, r10.errors, r10.error_kinds) == (2, 2, 1, {"server": 1})
    assert (r11.runs, r11.errors, r11.error_kinds, r11.status) == (2, 1, {"expired": 1}, "passed")
    assert (r20.runs, r20.errors, r20.status, r20.passed) == (0, 3, "errored", None)
    assert r20.error_kinds == {"overloaded": 1, "expired": 1, "bad-request": 1}
    assert [x.run for x in r20.details] == [0, 1, 2]

    # the cost shown before submitting vs what the server reported, at the batch price
    actual = estimate_cost(fake.batch_usage, settings.model, batch=True)["usd"]
    assumed = estimate_cost({**est["usage"], "output_tokens": 64 * 600}, settings.model, batch=True)["usd"]
    print(
        f"estimate ${est['usd']:.6f} (output {est['output_per_request']}/request, {est['output_source']}) "
        f"vs reported ${actual:.6f}: {est['usd'] / actual - 1:+.2%}; "
        f"with 64 assumed: {assumed / actual - 1:+.2%}"
    )
    assert est["usd"] == pytest.approx(actual, rel=0.05), (est, fake.batch_usage)
    assert est["usd_direct"] == pytest.approx(est["usd"] * 2, rel=1e-3)


def test_uncalibrated_estimate_and_cache_model(fake, catalog, settings):
    qs = [Query(f"<{i:03d}> convert", True) for i in range(40)]
    fake.plans = {f"<{i:03d}>": [[load("pdf")]] for i in range(40)}
    fake.cache_min_tokens = 10  # everything cacheable on the server and in the table
    from workbench.core import appdirs

    appdirs.config_dir().mkdir(parents=True, exist_ok=True)
    (appdirs.config_dir() / "eval_prices.json").write_text(
        json.dumps({"claude-sonnet-5-5": {"input": 3, "output": 15, "min_cache_tokens": 10}})
    )
    sdk = sdk_for(fake)
    runner = EvalRunner(
        catalog,
        "pdf",
        qs,
        settings=settings.__class__(**{**settings.__dict__, "model": "claude-sonnet-5-5"}),
        client=sdk,
        options=EvalOptions(runs=2),
    )
    be = BatchEval([runner], sdk)
    est = be.estimate()
    assert est["output_source"] == "assumed" and est["cache_write_tokens"] > 0
    assert est["cache_read_tokens"] == est["cache_write_tokens"] * 79
    assert est["usd"] < est["usd_no_cache"] < est["max_usd"]
    be.submit()
    assert be.wait(poll_seconds=0.05)
    [rep] = be.collect()
    assert rep.summary.passed == 40 and rep.cost()["usd"] is not None
    actual = estimate_cost(fake.batch_usage, "claude-sonnet-5-5", batch=True)["usd"]
    assert fake.batch_usage["cache_read_input_tokens"] > 0
    # output tokens are assumed (64 per request); the input side (with the cache model) is counted
    same_out = estimate_cost(
        {**est["usage"], "output_tokens": fake.batch_usage["output_tokens"]}, "claude-sonnet-5-5", batch=True
    )["usd"]
    assert same_out == pytest.approx(actual, rel=0.05)


def test_cancel_marks_canceled_runs_not_non_triggers(fake, catalog, settings, tmp_path):
    fake.batch_seconds = 5.0
    qs = [Query("a pdf", True), Query("weather", False)]
    sdk = sdk_for(fake)
    store = BatchStore(folder=tmp_path / "b")
    be = BatchEval([EvalRunner(catalog, "pdf", qs, settings=settings, client=sdk)], sdk)
    rec = be.submit(store)
    assert cancel_record(store.find(rec["id"]), sdk, store) == rec["batch_ids"]
    assert store.find(rec["id"])["state"] == "cancelled"
    assert be.wait(poll_seconds=0.02)
    [rep] = be.collect()
    assert rep.cancelled
    assert all(r.cancelled == 3 and r.runs == 0 and r.status == "not-run" for r in rep.results)


def test_batch_server_validation(fake):
    ok = {
        "custom_id": "a-1",
        "params": {"model": "m", "max_tokens": 5, "messages": [{"role": "user", "content": "hi"}]},
    }
    assert validate_batch_body({"requests": [ok]}) == [ok]
    for bad, why in (
        (dict(ok, custom_id="a b"), "custom_id"),
        (dict(ok, custom_id="x" * 65), "custom_id"),
        (dict(ok, params=dict(ok["params"], stream=True)), "stream"),
    ):
        with pytest.raises(Invalid, match=why):
            validate_batch_body({"requests": [bad]})
    with pytest.raises(Invalid, match="duplicate"):
        validate_batch_body({"requests": [ok, ok]})
    with pytest.raises(Invalid, match="too many"):
        validate_batch_body({"requests": [ok, dict(ok, custom_id="b")]}, max_requests=1)
    sdk = sdk_for(fake)
    with pytest.raises(anthropic.BadRequestError):
        sdk.messages.batches.create(requests=[ok, ok])
    # invalid params end errored (as the real API reports them), listed in fake.invalid
    fake.batch_seconds = 0.01
    bad = {"custom_id": "x", "params": {"model": "m", "messages": []}}
    b = sdk.messages.batches.create(requests=[bad, ok])
    assert [x.id for x in sdk.messages.batches.list()] == [b.id]
    import time

    time.sleep(0.05)
    got = {r.custom_id: r.result.type for r in sdk.messages.batches.results(b.id)}
    assert got == {"x": "errored", "a-1": "succeeded"} and fake.invalid[-1].startswith("x: max_tokens")
    assert sdk.messages.batches.retrieve(b.id).request_counts.errored == 1


def test_results_come_in_another_order_and_expire_batch():
    with FakeAPI() as fake:
        fake.batch_seconds = 10
        sdk = sdk_for(fake)
        reqs = [
            {
                "custom_id": f"r{i}",
                "params": {"model": "m", "max_tokens": 5, "messages": [{"role": "user", "content": f"q{i}"}]},
            }
            for i in range(30)
        ]
        b = sdk.messages.batches.create(requests=reqs)
        assert b.processing_status == "in_progress" and b.results_url is None
        with pytest.raises(anthropic.AnthropicError, match="results_url"):
            list(sdk.messages.batches.results(b.id))
        fake.expire_batch(b.id)
        out = [r.custom_id for r in sdk.messages.batches.results(b.id)]
        assert sorted(out) == sorted(r["custom_id"] for r in reqs) and out != [r["custom_id"] for r in reqs]
        assert sdk.messages.batches.retrieve(b.id).request_counts.expired == 30


def test_chunks_split_by_requests_and_bytes(fake, catalog, settings):
    sdk = sdk_for(fake)
    qs = [Query(f"<{i:03d}> q", True) for i in range(10)]
    runner = EvalRunner(catalog, "pdf", qs, settings=settings, client=sdk, options=EvalOptions(runs=3))
    be = BatchEval([runner], sdk, limits=BatchLimits(max_requests=7))
    assert [len(c) for c in be.chunks()] == [7, 7, 7, 7, 2]
    one = len(json.dumps(be.plan()[0].params, ensure_ascii=False).encode()) + 60  # as chunks() counts
    be.limits = BatchLimits(max_bytes=one * 4)
    parts = be.chunks()
    assert sum(map(len, parts)) == 30 and max(map(len, parts)) <= 4 and len(parts) >= 8
    assert len({p.custom_id for p in be.plan()}) == 30


def test_custom_ids_and_bad_record(catalog, settings):
    assert parse_custom_id(custom_id(2, 10, 1)) == (2, 10, 1) and parse_custom_id("zz") is None
    with pytest.raises(BatchError, match="damaged"):
        BatchEval.from_record({"id": "x", "settings": {}}, catalog, object(), settings=settings)


def test_price_table_is_dated_sourced_and_complete():
    from workbench.core.evals.metrics import PRICE_TABLE, token_prices

    assert PRICE_TABLE["dated"] and PRICE_TABLE["sources"] and PRICE_TABLE["batch_discount"] == 0.5
    for key, p in PRICE_TABLE["models"].items():
        assert {"input", "output", "cache_write", "cache_read", "min_cache_tokens", "verified"} <= set(p), key
        assert p["cache_write"] == pytest.approx(p["input"] * 1.25)
        assert p["cache_read"] == pytest.approx(p["input"] / 10)
        assert token_prices(p)["cache_read_input_tokens"] == p["cache_read"]
    u = {
        "input_tokens": 1_000_000,
        "output_tokens": 1_000_000,
        "cache_read_input_tokens": 1_000_000,
        "cache_creation_input_tokens": 1_000_000,
    }
    full, half = estimate_cost(u, "claude-haiku-5-5"), estimate_cost(u, "claude-haiku-5-5", batch=True)
    assert full["usd"] == pytest.approx(1 + 5 + 0.1 + 1.25) and half["usd"] == pytest.approx(full["usd"] / 2)
    assert "batch price x0.5 (unverified)" in half["assumption"]
