"""The description-improvement loop against the fake server (improver replies scripted)."""

from __future__ import annotations

import json

from tests.evals.conftest import text, tool_call, tree_hashes
from workbench.core.evals.history import HistoryStore
from workbench.core.evals.improve import improve_description, parse_description
from workbench.core.evals.queryset import Query
from workbench.core.evals.runner import EvalOptions
from workbench.core.evals.split import split_queries

GOOD = "Use this skill when the user works with GOODDESC documents - extract, merge or fill PDF forms."


def _queries():
    return [Query(f"pos-{i:02d} handle this document", True) for i in range(10)] + [
        Query(f"neg-{i:02d} something else", False) for i in range(10)
    ]


def _script(fake):
    fake.plans = {f"pos-{i:02d}": [[text("no")]] for i in range(10)}
    fake.plans.update({f"neg-{i:02d}": [[text("no")]] for i in range(10)})
    good = {f"pos-{i:02d}": [[tool_call("Skill", {"skill": "pdf"})]] for i in range(10)}
    good.update({f"neg-{i:02d}": [[text("no")]] for i in range(10)})
    fake.alt_plans = [("GOODDESC", good)]


def test_loop_finds_a_better_description_and_leaves_a_proposal(fake, catalog, settings, workspace):
    from workbench.core.workshop.store import WorkshopStore

    _script(fake)
    fake.improver_replies = [
        "<new_description>" + "x" * 1100 + "</new_description>",  # too long: ask again
        f"Here it is.\n<new_description>\n  {GOOD}\n</new_description>",
    ]
    before = tree_hashes(workspace)
    qs = _queries()
    hist = HistoryStore(workspace)
    res = improve_description(
        catalog,
        "pdf",
        qs,
        settings=settings,
        api_key="k",
        options=EvalOptions(runs=2, backoff_base=0.01),
        iterations=5,
        history=hist,
    )
    assert tree_hashes(workspace) == before  # the SKILL.md was never written
    assert res.exit_reason == "all-train-passed" and res.best == 1
    assert [a.iteration for a in res.evaluated] == [0, 1]
    assert res.attempts[1].description == GOOD
    assert res.attempts[0].score("test") == (4, 8) and res.attempts[1].score("test") == (8, 8)
    assert any("asked again" in w for w in res.warnings)
    # the improver saw train failures only: no held-out query, no test score
    split = split_queries(qs)
    assert len(fake.improver_requests) == 2
    body = json.dumps(fake.improver_requests[0].body)
    for i in split.test:
        assert qs[i].query not in body
    train_pos = [qs[i].query for i in split.train if qs[i].should_trigger]
    assert all(q in body for q in train_pos)
    assert "test" not in fake.improver_requests[0].last_user_text.lower()
    assert "limit" in fake.improver_requests[1].last_user_text
    # the winner is a pending workshop proposal bound to the file, never applied
    store = WorkshopStore(workspace)
    p = store.get(res.proposal_id)
    assert p.state == "pending" and p.kind == "update" and p.source == "eval" and p.name == "pdf"
    new_md = store.generation_files(p.id)["SKILL.md"].decode()
    assert GOOD in new_md and "# PDF" in new_md
    assert (workspace / ".claude/skills/pdf/SKILL.md").read_text().count("GOODDESC") == 0
    # history: both evaluated descriptions, with the split
    groups = hist.by_description("pdf")
    assert len(groups) == 2 and {g["description"] for g in groups} >= {GOOD}
    rec = hist.load("pdf", groups[0]["entries"][0].id)
    assert rec["kind"] == "improve" and rec["split"]["seed"] == 42
    j = res.to_json()
    assert j["improved"] and j["proposal_id"] == p.id and j["best_description"] == GOOD
    json.dumps(j)


def test_ties_keep_the_current_description_and_duplicates_are_rejected(fake, catalog, settings, workspace):
    from workbench.core.workshop.store import WorkshopStore

    _script(fake)
    fake.improver_replies = [
        "<new_description>Use for other things.</new_description>",
        "<new_description>Use   for other\nthings.</new_description>",
        "no tags at all",
    ]
    res = improve_description(
        catalog,
        "pdf",
        _queries(),
        settings=settings,
        api_key="k",
        options=EvalOptions(runs=1, backoff_base=0.01),
        iterations=3,
    )
    assert res.exit_reason == "max-iterations"
    assert [a.rejected != "" for a in res.attempts] == [False, False, True, True]
    assert "already tried" in res.attempts[2].rejected and "no <new_description>" in res.attempts[3].rejected
    assert res.best == 0 and res.proposal_id is None
    assert WorkshopStore(workspace).proposals() == []


def test_prompt_and_parse():
    assert parse_description("a <new_description> x\n y </new_description> b") == "x y"
    assert parse_description("<new_description> </new_description>") is None
    assert parse_description("nothing") is None


def test_improver_error_stops_the_loop(fake, catalog, settings):
    _script(fake)
    fake.fail(500)  # the next request: the baseline eval's first... make it the improver's instead
    fake._faults.clear()

    orig = fake.take_fault

    def take():
        req = getattr(fake._tl, "req", None)
        if req is not None and "eval-improver" in req.system_text:
            with fake._flock:
                fake._in_flight -= 1
            from tests.fakeapi import Fault

            return Fault("http", 400, "invalid_request_error", "bad improver request")
        return orig()

    fake.take_fault = take
    res = improve_description(
        catalog,
        "pdf",
        _queries(),
        settings=settings,
        api_key="k",
        options=EvalOptions(runs=1, backoff_base=0.01),
        iterations=2,
    )
    assert res.exit_reason == "improver-error" and res.error["kind"] == "bad-request"
    assert res.best == 0 and res.proposal_id is None and len(res.evaluated) == 1
