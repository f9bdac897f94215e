"""Errors are seen in the eval runner (issue 15 item 7): a failing progress listener or a run that
raises is logged and shows in the report, never silently dropped; the key is in no log record."""

from __future__ import annotations

import logging

from tests.evals.conftest import tool_call
from workbench.core.evals.queryset import Query
from workbench.core.evals.runner import EvalOptions, EvalRunner

KEY = "sk-ant-api03-EVAL-SECRET-0123456789abcdef"


def test_broken_progress_listener_becomes_a_report_warning(fake, catalog, settings, caplog):
    caplog.set_level(logging.DEBUG)
    fake.plans = {"q1": [[tool_call("Skill", {"skill": "pdf"})]]}
    runner = EvalRunner(
        catalog, "pdf", [Query("q1 merge", True)], settings=settings, api_key=KEY, options=EvalOptions(runs=2)
    )

    def progress(ev: dict) -> None:
        raise RuntimeError("window closed")

    with runner:
        rep = runner.run(progress=progress)
    assert rep.results[0].triggers == 2  # the eval went on
    assert [w for w in rep.warnings if "progress display failed" in w] == [
        "the progress display failed (RuntimeError: window closed); the report is complete but "
        "the display may have missed runs."
    ]
    logged = [r for r in caplog.records if r.name == "workbench.core.evals.runner"]
    assert len(logged) == 2 and all(r.levelno == logging.WARNING for r in logged)
    for r in caplog.records:
        assert KEY not in r.getMessage()


def test_a_run_that_raises_is_an_error_with_its_reason_and_a_log_record(
    fake, catalog, settings, caplog, monkeypatch
):
    runner = EvalRunner(
        catalog,
        "pdf",
        [Query("q1 merge", True)],
        settings=settings,
        api_key="sk-test",
        options=EvalOptions(runs=1, max_attempts=1),
    )

    def broken_session() -> object:
        raise ZeroDivisionError("bug in the session")

    monkeypatch.setattr(runner, "_session", broken_session)
    caplog.set_level(logging.WARNING, logger="workbench.core.evals")
    with runner:
        rep = runner.run()
    rec = rep.results[0].details[0]
    assert rec.outcome == "errored"
    assert rec.error is not None and rec.error["message"] == "ZeroDivisionError: bug in the session"
    logged = [r for r in caplog.records if r.name == "workbench.core.evals.runner"]
    assert len(logged) == 1 and logged[0].exc_info is not None
