"""Typed settings (declared once, persisted atomically, never crash on a bad file) and the
background-work helpers (stale tokens, debounce: only the last request runs)."""

from __future__ import annotations

import json

import pytest

from workbench.app.settings import SETTINGS, Settings
from workbench.app.workers import Debouncer, describe, run_in_background, wait_all, wait_jobs


def test_settings_roundtrip(tmp_path, qtbot):
    p = tmp_path / "settings.json"
    s = Settings(p)
    assert s.get("client") == "claude-code"
    with qtbot.waitSignal(s.changed) as sig:
        s.set("client", "codex")
    assert sig.args == ["client"]
    assert json.loads(p.read_text())["client"] == "codex"
    assert Settings(p).get("client") == "codex"
    with pytest.raises(TypeError):
        s.set("context_tokens", "many")
    with pytest.raises(KeyError):
        s.get("nope")
    assert {x.key for x in SETTINGS} >= {"client", "context_tokens", "live_reload"}
    assert all(x.description for x in SETTINGS)


def test_settings_bad_file_falls_back(tmp_path):
    p = tmp_path / "settings.json"
    p.write_text("{not json", encoding="utf-8")
    s = Settings(p)
    assert s.get("client") == "claude-code" and "could not read" in s.load_error
    p.write_text(json.dumps({"client": 3, "context_tokens": 32000, "future_key": 1}), encoding="utf-8")
    s = Settings(p)
    assert s.get("client") == "claude-code" and s.get("context_tokens") == 32000
    s.set("client", "cursor")
    assert json.loads(p.read_text())["future_key"] == 1  # unknown keys are kept


def test_settings_in_memory_never_writes(tmp_path, wb_home):
    s = Settings(persist=False)
    s.set("client", "codex")
    assert not (wb_home / "config" / "settings.json").exists()


def test_debounce_runs_only_last(qtbot):
    calls = []
    d = Debouncer(30, lambda: calls.append(len(calls)))
    for _ in range(5):
        d.trigger()
    qtbot.waitUntil(lambda: calls == [0], timeout=2000)
    qtbot.wait(60)
    assert calls == [0]


def test_jobs_report_results_errors_and_progress(qtbot):
    def work(n, progress=None):
        for i in range(n):
            progress(i + 1, n)
        return n * 2

    seen, results, errors = [], [], []
    job = run_in_background(
        work,
        3,
        progress=True,
        connect={
            "progress": lambda t, d, n: seen.append((d, n)),
            "returned": lambda t, r: results.append((t, r)),
        },
    )
    qtbot.waitUntil(lambda: results == [(job.token, 6)], timeout=5000)
    assert seen == [(1, 3), (2, 3), (3, 3)]

    def boom():
        raise ValueError("bad")

    # a job this fast used to finish before a connection made after the call: connect= fixes it
    job2 = run_in_background(boom, connect={"errored": lambda t, m: errors.append(m)})
    qtbot.waitUntil(lambda: len(errors) == 1, timeout=5000)
    # the exception travels as the object, traceback included (issue 15 item 3)
    assert isinstance(errors[0], ValueError) and str(errors[0]) == "bad"
    assert errors[0].__traceback__ is not None
    assert describe(errors[0]) == "ValueError: bad"
    assert job2.token > job.token  # tokens only increase: consumers drop stale results
    wait_all()


def test_cancel_is_explicit_and_never_an_error(qtbot):
    """``job.cancel()``: ``progress`` raises Cancelled, the job emits ``cancelled`` (not
    ``errored``); a function polling ``cancel_event`` sees it set."""
    import threading

    started = threading.Event()

    def loop(progress=None, cancel_event=None):
        started.set()
        while True:
            progress(0, 1)
            cancel_event.wait(0.01)

    got: list = []
    job = run_in_background(
        loop,
        progress=True,
        cancel_event=True,
        connect={
            "cancelled": lambda t: got.append(("cancelled", t)),
            "errored": lambda t, e: got.append(("errored", e)),
        },
    )
    assert started.wait(5)
    job.cancel()
    assert job.wait(5)
    qtbot.waitUntil(lambda: bool(got), timeout=5000)
    assert got == [("cancelled", job.token)]


def test_lane_jobs_run_in_order_and_wait_jobs(qtbot):
    """A one-thread lane runs its jobs in the order started (the editor's recovery writes)."""
    import time

    order: list[int] = []

    def step(i):
        time.sleep(0.02 if i == 0 else 0)
        order.append(i)

    jobs = [run_in_background(step, i, lane="test-serial") for i in range(5)]
    assert wait_jobs(jobs, 5000)
    assert order == [0, 1, 2, 3, 4]


def test_describe_is_one_line():
    assert describe(OSError("disk full\nmore")) == "OSError: disk full"
    assert describe(KeyError()) == "KeyError"
    assert describe("first\nsecond") == "first"


def test_stale_scan_result_is_dropped(qtbot, tmp_path, fake_home):
    """Two rescans in a row: only the second one's result is applied."""
    from tests.helpers import write_skill
    from workbench.app.context import AppContext
    from workbench.core.model import Environment

    write_skill(tmp_path / "p" / ".claude" / "skills" / "a", "a", "A.")
    ctx = AppContext(
        Settings(persist=False), Environment(workspace=tmp_path / "p", home=fake_home), watch=False
    )
    ctx.rescan()
    first = ctx._scan_token
    ctx.rescan()
    applied = []
    ctx.scan_finished.connect(lambda s: applied.append(ctx._scan_token))
    assert ctx.wait_for_scan()
    assert applied == [ctx._scan_token] and ctx._scan_token != first
    ctx.shutdown()


def test_an_error_without_a_slot_is_logged(qtbot, caplog):
    import logging

    def boom():
        raise KeyError("nobody listens")

    with caplog.at_level(logging.WARNING, logger="workbench.app.workers"):
        job = run_in_background(boom)
        assert job.wait(5)
        qtbot.waitUntil(lambda: any(r.exc_info for r in caplog.records), timeout=5000)
    rec = next(r for r in caplog.records if r.exc_info)
    assert isinstance(rec.exc_info[1], KeyError) and "boom" in rec.getMessage()
