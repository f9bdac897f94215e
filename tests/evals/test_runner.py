"""The eval runner against the local fake Messages API, scripted so each query's behaviour is known."""

from __future__ import annotations

import json
import threading

import pytest

from tests.evals.conftest import Err, EvalFake, text, tool_call, tree_hashes
from tests.helpers import write_skill
from workbench.core.evals.queryset import Query
from workbench.core.evals.runner import EvalOptions, EvalRunner, EvalSetupError, eval_catalog, run_eval

OPTS = dict(backoff_base=0.01)


def load(name):
    return tool_call("Skill", {"skill": name})


def test_rates_other_tools_competitors_errors_and_no_writes(fake, catalog, settings, workspace, tmp_path):
    pdf_md = str(workspace / ".claude" / "skills" / "pdf" / "SKILL.md")
    fake.plans = {
        "q01": [[load("pdf")]],  # direct load
        "q02": [
            [
                tool_call("list_directory", {"path": "."}),
                tool_call("read_file", {"path": "notes.txt"}),
                tool_call("read_file", {"path": pdf_md}),
            ]
        ],  # other tools first, then a read
        "q03": [[load("greeter"), load("pdf")]],  # a competitor loads first
        "q04": [[load("pdf")], [text("no")], [load("pdf")]],  # 2 of 3
        "q05": [[text("sunny")]],  # negative, passes
        "q06": [[load("csv")]],  # negative, competitor only
        "q07": [[Err(500)]],  # every run errors
        "q08": [[load("pdf")], [Err(500)], [text("no")]],  # negative: 1 trigger, 1 error
    }
    qs = [
        Query("q01 merge a.pdf", True),
        Query("q02 look around then pdf", True),
        Query("q03 greet then pdf", True),
        Query("q04 sometimes", True),
        Query("q05 weather", False),
        Query("q06 csv please", False),
        Query("q07 broken", False),
        Query("q08 flaky", False),
    ]
    before = tree_hashes(workspace)
    events = []
    rep = run_eval(
        catalog,
        "pdf",
        qs,
        settings=settings,
        api_key="sk-test",
        options=EvalOptions(runs=3, max_attempts=1, **OPTS),
        progress=events.append,
    )
    assert tree_hashes(workspace) == before  # nothing written in the workspace
    assert fake.invalid == []  # every request valid for the real API
    r = {x.query.split()[0]: x for x in rep.results}
    assert (r["q01"].triggers, r["q01"].runs) == (3, 3)
    assert (r["q02"].triggers, r["q02"].runs) == (3, 3)
    assert r["q02"].details[0].tools == ["list_directory", "read_file", "read_file"]
    assert (r["q03"].triggers, r["q03"].also_loaded) == (3, {"greeter": 3})
    assert (r["q04"].triggers, r["q04"].runs, r["q04"].status) == (2, 3, "passed")
    assert r["q05"].status == "passed" and r["q05"].trigger_rate == 0.0
    assert r["q06"].status == "passed" and r["q06"].also_loaded == {"csv": 3}
    # errors are never non-triggers: q07 is errored (not passed), q08 is 1/2 on its good runs
    assert (r["q07"].status, r["q07"].runs, r["q07"].errors, r["q07"].passed) == ("errored", 0, 3, None)
    assert r["q07"].error_kinds == {"server": 3}
    assert all(d.attempts == 1 for d in r["q07"].details)  # max_attempts=1: no retry
    assert (r["q08"].runs, r["q08"].triggers, r["q08"].errors, r["q08"].status) == (2, 1, 1, "failed")
    s = rep.summary
    assert (s.total, s.passed, s.failed, s.errored) == (8, 6, 1, 1)
    # over runs: TP = 3+3+3+2 = 11, FN = 1; FP = 1 (q08), TN = 3+3+1 = 7
    assert (s.by_run.tp, s.by_run.fn, s.by_run.fp, s.by_run.tn) == (11, 1, 1, 7)
    assert s.by_run.precision == pytest.approx(11 / 12) and s.by_run.recall == pytest.approx(11 / 12)
    j = rep.to_json()
    assert set(j) >= {"skill", "runs_per_query", "threshold", "results", "summary", "usage", "cost"}
    assert set(j["results"][0]) >= {
        "query",
        "should_trigger",
        "runs",
        "triggers",
        "errors",
        "trigger_rate",
        "pass",
    }
    assert j["usage"]["input_tokens"] > 0 and j["competitors"] == ["csv", "greeter"]
    json.dumps(rep.to_json(details=True))
    runs = [e for e in events if e["type"] == "run"]
    assert [e["done"] for e in runs] == list(range(1, 25)) and runs[-1]["total"] == 24
    assert not j["warnings"]


def test_trigger_matches_resolved_path_not_substring(fake, tmp_path, fake_home, settings):
    """A read of ``pdf-extra/SKILL.md`` (its path contains "pdf") is not a trigger of ``pdf``; a read
    through a symlinked folder that resolves to pdf's SKILL.md is."""
    from workbench.core.discovery import scan
    from workbench.core.model import Environment

    ws = tmp_path / "p2"
    sk = ws / ".claude" / "skills"
    write_skill(sk / "pdf", "pdf", "Use for PDFs.")
    write_skill(sk / "pdf-extra", "pdf-extra", "Use for PDF extras.")
    (ws / "link").symlink_to(sk / "pdf")
    cat = scan(Environment(workspace=ws, home=fake_home, env={}, bins=set()), "claude-code")
    fake.plans = {
        "q1": [[tool_call("read_file", {"path": str(sk / "pdf-extra" / "SKILL.md")})]],
        "q2": [[tool_call("read_file", {"path": "link/SKILL.md"})]],
        "q3": [[load("pdf-extra")]],
    }
    rep = run_eval(
        cat,
        "pdf",
        [Query("q1", False), Query("q2", True), Query("q3", False)],
        settings=settings,
        api_key="k",
        options=EvalOptions(runs=1, **OPTS),
    )
    a, b, c = rep.results
    assert (a.triggers, a.also_loaded) == (0, {"pdf-extra": 1})
    assert b.triggers == 1
    assert (c.triggers, c.also_loaded) == (0, {"pdf-extra": 1})


def test_candidate_description_in_memory_only(fake, catalog, settings, workspace):
    before = tree_hashes(workspace)
    target = next(s for s in catalog.skills if s.name == "pdf")
    fake.plans = {"q1": [[text("ok")]]}
    rep = run_eval(
        catalog,
        "pdf",
        [Query("q1", True)],
        settings=settings,
        api_key="k",
        description="Use for CANDIDATE-XYZ documents.",
        options=EvalOptions(runs=2, **OPTS),
    )
    listing = "\n".join(b.get("text", "") for b in fake.message_requests[0].first_user_blocks)
    assert "CANDIDATE-XYZ" in listing and "extract text, merge" not in listing
    assert rep.description == "Use for CANDIDATE-XYZ documents."
    assert target.description.startswith("Use for PDF files")  # the scanned catalog is untouched
    assert tree_hashes(workspace) == before
    assert "broken harness" in rep.to_json()["warnings"][0]  # every positive at 0 %


def test_no_competitors_lists_only_the_skill(fake, catalog, settings):
    fake.plans = {"q1": [[load("csv")]]}
    rep = run_eval(
        catalog,
        "pdf",
        [Query("q1", False)],
        settings=settings,
        api_key="k",
        options=EvalOptions(runs=1, competitors=False, **OPTS),
    )
    listing = "\n".join(b.get("text", "") for b in fake.message_requests[0].first_user_blocks)
    assert "- pdf:" in listing and "csv" not in listing and "greeter" not in listing
    assert rep.competitors == [] and rep.results[0].also_loaded == {}  # csv is unknown here
    cat2, t = eval_catalog(catalog, "pdf", competitors=False)
    assert [s.name for s in cat2.skills] == ["pdf"] and len(catalog.skills) == 3


def test_goes_on_past_other_tools_up_to_the_turn_limit(fake, catalog, settings):
    settings.max_turns = 3
    fake.plans = {"q1": [[tool_call("list_directory", {"path": "."})] * 5]}
    rep = run_eval(
        catalog,
        "pdf",
        [Query("q1", True)],
        settings=settings,
        api_key="k",
        options=EvalOptions(runs=1, **OPTS),
    )
    d = rep.results[0].details[0]
    assert d.outcome == "not-triggered" and d.stop_reason == "max_turns" and d.hops == 3
    assert rep.results[0].errors == 0 and rep.results[0].status == "failed"


def test_stops_a_run_once_the_skill_loaded(fake, catalog, settings):
    fake.plans = {"q1": [[load("pdf"), tool_call("list_directory", {"path": "."})]]}
    rep = run_eval(
        catalog,
        "pdf",
        [Query("q1", True)],
        settings=settings,
        api_key="k",
        options=EvalOptions(runs=1, **OPTS),
    )
    assert rep.results[0].triggers == 1 and len(fake.message_requests) == 1
    fake.message_requests.clear()
    rep = run_eval(
        catalog,
        "pdf",
        [Query("q1", True)],
        settings=settings,
        api_key="k",
        options=EvalOptions(runs=1, stop_on_trigger=False, **OPTS),
    )
    assert rep.results[0].triggers == 1 and len(fake.message_requests) == 3


def test_rate_limits_share_a_cooldown_and_lower_concurrency(fake, catalog, settings):
    fake.plans = {f"q{i:02d}": [[Err(429, retry_after=0.2), load("pdf")]] for i in range(8)}
    # the first request of each run is rate limited; the retry (a fresh run, hop 0 again) succeeds
    fake.plans = {f"q{i:02d}": [[Err(429, retry_after=0.2)], [load("pdf")]] for i in range(8)}
    events = []
    rep = run_eval(
        catalog,
        "pdf",
        [Query(f"q{i:02d}", True) for i in range(8)],
        settings=settings,
        api_key="k",
        options=EvalOptions(runs=1, concurrency=8, **OPTS),
        progress=events.append,
    )
    assert all(r.triggers == 1 and r.errors == 0 for r in rep.results)
    assert all(r.details[0].attempts == 2 for r in rep.results)
    th = [e for e in events if e["type"] == "throttle"]
    assert th and th[0]["wait"] == pytest.approx(0.2) and th[0]["kind"] == "rate-limited"
    assert rep.throttle["events"] >= 1 and rep.throttle["min_concurrency"] <= 4
    assert rep.throttle["cooldown_seconds"] >= 0.2


def test_overloaded_inside_the_stream_is_retried(fake, catalog, settings):
    fake.plans = {"q1": [[Err(529, in_stream=True)], [load("pdf")]]}
    rep = run_eval(
        catalog,
        "pdf",
        [Query("q1", True)],
        settings=settings,
        api_key="k",
        options=EvalOptions(runs=1, **OPTS),
    )
    d = rep.results[0].details[0]
    assert d.outcome == "triggered" and d.attempts == 2 and rep.throttle["events"] == 1


def test_rejected_key_stops_the_eval(catalog, settings):
    with EvalFake(api_key="right") as f:
        settings.base_url = f.url
        rep = run_eval(
            catalog,
            "pdf",
            [Query(f"q{i}", True) for i in range(6)],
            settings=settings,
            api_key="wrong",
            options=EvalOptions(runs=3, concurrency=2, **OPTS),
        )
        assert len(f.message_requests) < 18
    assert rep.fatal_error["kind"] == "auth"
    assert all(r.status == "errored" for r in rep.results)
    assert rep.summary.errored == 6 and rep.summary.failed == 0
    assert any("stopped early" in w for w in rep.warnings)


def test_cancel_gives_a_partial_report(fake, catalog, settings):
    fake.latency = 0.2
    fake.plans = {f"q{i:02d}": [[load("pdf")]] for i in range(10)}
    cancel = threading.Event()

    def prog(ev):
        if ev["type"] == "run" and ev["done"] >= 2:
            cancel.set()

    rep = run_eval(
        catalog,
        "pdf",
        [Query(f"q{i:02d}", True) for i in range(10)],
        settings=settings,
        api_key="k",
        options=EvalOptions(runs=3, concurrency=2, **OPTS),
        cancel=cancel,
        progress=prog,
    )
    assert rep.cancelled
    done = sum(r.runs + r.errors for r in rep.results)
    assert 2 <= done < 30 and sum(r.cancelled for r in rep.results) == 30 - done
    assert rep.summary.not_run >= 1


def test_eight_requests_in_flight_and_cache_control_on_the_stable_prefix(fake, catalog, settings):
    fake.latency = 0.4
    fake.plans = {f"q{i:02d}": [[text("no")]] for i in range(16)}
    rep = run_eval(
        catalog,
        "pdf",
        [Query(f"q{i:02d}", False) for i in range(16)],
        settings=settings,
        api_key="k",
        options=EvalOptions(runs=1, concurrency=8, **OPTS),
    )
    assert fake.max_in_flight >= 8 and rep.throttle["max_in_flight"] == 8
    req = fake.message_requests[0].body
    assert req["tools"][-1]["cache_control"] == {"type": "ephemeral"}
    assert req["system"][-1]["cache_control"] == {"type": "ephemeral"}
    first = req["messages"][0]["content"]
    assert first[0]["cache_control"] == {"type": "ephemeral"} and "pdf" in first[0]["text"]  # listing block


def test_setup_errors(fake, catalog, settings, workspace):
    with pytest.raises(EvalSetupError) as ei:
        EvalRunner(catalog, "nope", [Query("a", True)], settings=settings, api_key="k")
    assert ei.value.kind == "unknown-skill" and "csv, greeter, pdf" in str(ei.value)
    with pytest.raises(EvalSetupError) as ei:
        EvalRunner(catalog, "pdf", [Query("a", True)], settings=settings)
    assert ei.value.kind == "no-key" and "ANTHROPIC_API_KEY" in str(ei.value)
    with pytest.raises(EvalSetupError, match="runs must be"):
        EvalRunner(
            catalog, "pdf", [Query("a", True)], settings=settings, api_key="k", options=EvalOptions(runs=0)
        )
    s = next(x for x in catalog.skills if x.name == "csv")
    s.status, s.reason = "hidden", "disable-model-invocation: true"
    with pytest.raises(EvalSetupError) as ei:
        EvalRunner(catalog, "csv", [Query("a", True)], settings=settings, api_key="k")
    assert ei.value.kind == "not-listed" and "hidden" in str(ei.value)


def test_read_tool_client_and_other_clients(fake, workspace, fake_home, settings):
    """OpenClaw loads by reading SKILL.md: a read of the file is the trigger."""
    from workbench.core.discovery import scan
    from workbench.core.model import Environment

    env = Environment(
        workspace=workspace,
        home=fake_home,
        env={},
        bins=set(),
        extra_roots=[workspace / ".claude" / "skills"],
    )
    cat = scan(env, "openclaw")
    pdf = next(s for s in cat.listed() if s.name == "pdf")
    fake.plans = {"q1": [[tool_call("read", {"path": str(pdf.path)})]]}
    rep = run_eval(
        cat, "pdf", [Query("q1", True)], settings=settings, api_key="k", options=EvalOptions(runs=2, **OPTS)
    )
    assert rep.results[0].triggers == 2 and rep.client == "openclaw"
