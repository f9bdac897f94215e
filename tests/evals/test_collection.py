"""Collection evals: 20 skills, every query set against the whole listing, the confusion matrix with
the scripted steals (direct and batch, CLI text/JSON/HTML)."""

from __future__ import annotations

import json

import pytest

from tests.evals.conftest import EvalFake, text, tool_call
from tests.helpers import write_skill
from workbench.cli import main
from workbench.core.evals.collection import NONE, ConfusionMatrix, cell_color, load_query_dir
from workbench.core.evals.runner import EvalReport, QueryResult, RunRecord

SKILLS = [f"tool-{i:02d}" for i in range(20)]
STEALS = {"tool-03": "tool-07", "tool-11": "tool-12"}  # victim -> thief (both positives)
FALSE_TRIGGER = ("tool-05", "neg")  # tool-05's negative loads tool-05 itself


def make_collection(tmp_path):
    coll = tmp_path / "collection"
    qdir = tmp_path / "queries"
    qdir.mkdir()
    plans = {}
    for i, name in enumerate(SKILLS):
        write_skill(
            coll / "skills" / name,
            name,
            f"Use for task family number {i}: widgets of kind {i}.",
            body=f"# {name}\n",
        )
        qs = []
        for k in (1, 2):
            key = f"<{name}-p{k}>"
            qs.append({"query": f"{key} please do kind {i}", "should_trigger": True})
            plans[key] = [[tool_call("Skill", {"skill": STEALS.get(name, name)})]]
        key = f"<{name}-n>"
        qs.append({"query": f"{key} unrelated chit-chat", "should_trigger": False})
        own = name == FALSE_TRIGGER[0]
        plans[key] = [[tool_call("Skill", {"skill": name})]] if own else [[text("Sure.")]]
        (qdir / f"{name}.json").write_text(json.dumps(qs))
    (qdir / "ghost.json").write_text(json.dumps([{"query": "x", "should_trigger": True}]))
    return coll, qdir, plans


@pytest.fixture()
def coll(tmp_path, monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-test")  # the rest: conftest.isolated
    home = tmp_path / "home"
    home.mkdir()
    c, q, plans = make_collection(tmp_path)
    with EvalFake() as f:
        f.plans = plans
        f.batch_seconds = 0.3
        yield {"coll": c, "q": q, "home": home, "fake": f, "tmp": tmp_path}


def _args(e, *extra):
    return [
        "eval",
        str(e["coll"]),
        "--home",
        str(e["home"]),
        "--all-skills",
        "--queries-dir",
        str(e["q"]),
        "--base-url",
        e["fake"].url,
        "--runs",
        "2",
        "--client",
        "claude-code",
        *extra,
    ]


def check_matrix(m: dict):
    labels = m["labels"]
    assert labels == SKILLS + [NONE]
    cell = {(r, c): m["matrix"][i][j] for i, r in enumerate(labels) for j, c in enumerate(labels)}
    for s in SKILLS:
        if s in STEALS:
            assert cell[(s, STEALS[s])] == 4 and cell[(s, s)] == 0
        else:
            assert cell[(s, s)] == 4
    assert cell[(NONE, NONE)] == 19 * 2 and cell[(NONE, "tool-05")] == 2
    ps = m["per_skill"]
    assert ps["tool-03"]["recall"] == 0.0 and ps["tool-07"]["precision"] == 0.5
    assert ps["tool-05"]["precision"] == pytest.approx(4 / 6, abs=1e-4) and ps["tool-05"]["recall"] == 1.0
    assert ps["tool-12"]["precision"] == 0.5 and ps["tool-00"]["precision"] == 1.0
    assert [(x["victim"], x["thief"], x["runs"], x["share"]) for x in m["steals"]] == [
        ("tool-03", "tool-07", 4, 1.0),
        ("tool-11", "tool-12", 4, 1.0),
    ]


def test_collection_direct_json_text_and_html(coll, capsys):
    html_out = coll["tmp"] / "matrix.html"
    rc = main(_args(coll, "--format", "json", "--matrix-html", str(html_out)))
    cap = capsys.readouterr()
    out = json.loads(cap.out)
    assert rc == 1  # steals make queries fail
    assert set(out["skills"]) == set(SKILLS) and len(out["history_ids"]) == 20
    assert any("ghost.json" in n for n in out["notes"]) and coll["fake"].invalid == []
    assert "as if installed" in cap.err
    check_matrix(out["matrix"])
    page = html_out.read_text()
    assert page.startswith("<!DOCTYPE html>") and "<script" not in page and "tool-07</b> took 4" in page
    rc = main(_args(coll, "--no-history"))
    txt = capsys.readouterr().out
    assert "confusion matrix" in txt and "tool-07 took 4 runs of tool-03's queries (100 % of them)" in txt
    assert "tool-05: precision 67 %, recall 100 %" in txt


def test_collection_batch_same_matrix_and_resume(coll, capsys):
    rc = main(_args(coll, "--batch", "--poll", "0.05", "--format", "json"))
    cap = capsys.readouterr()
    out = json.loads(cap.out)
    assert "estimated cost ≈ $" in cap.err and "submitted" in cap.err
    check_matrix(out["matrix"])
    assert out["batch_eval"] and all(r["mode"] == "batch" for r in out["skills"].values())
    assert rc == 1 and coll["fake"].invalid == []
    # --no-wait, then --resume by the printed id (a "restart")
    rc = main(_args(coll, "--batch", "--no-wait", "--format", "json"))
    sub = json.loads(capsys.readouterr().out)
    assert rc == 0 and sub["batch_ids"]
    rc = main(
        [
            "eval",
            str(coll["coll"]),
            "--home",
            str(coll["home"]),
            "--resume",
            sub["batch_eval"],
            "--base-url",
            coll["fake"].url,
            "--poll",
            "0.05",
            "--format",
            "json",
        ]
    )
    out2 = json.loads(capsys.readouterr().out)
    check_matrix(out2["matrix"])
    # a finished record can be cancelled (no-op on the server) and unknown ids are a usage error
    url = coll["fake"].url
    assert main(["eval", str(coll["coll"]), "--cancel", sub["batch_ids"][0], "--base-url", url]) == 0
    assert main(["eval", str(coll["coll"]), "--resume", "nope", "--base-url", coll["fake"].url]) == 2
    assert "no batch eval 'nope'" in capsys.readouterr().err


def test_estimate_only_and_usage_errors(coll, capsys):
    assert main(_args(coll, "--batch", "--estimate-only", "--format", "json")) == 0
    est = json.loads(capsys.readouterr().out)["estimate"]
    assert est["requests"] == 20 * 3 * 2 and est["usd"] > 0 and coll["fake"].batch_requests == 0
    assert main(_args(coll, "--batch", "--max-cost", "0.0000001")) == 1
    assert "above --max-cost" in capsys.readouterr().err and coll["fake"].batch_requests == 0
    assert main(["eval", str(coll["coll"]), "--all-skills"]) == 2
    empty = coll["tmp"] / "empty"
    empty.mkdir()
    assert (
        main(
            [
                "eval",
                str(empty),
                "--all-skills",
                "--queries-dir",
                str(coll["q"]),
                "--home",
                str(coll["home"]),
                "--client",
                "claude-code",
            ]
        )
        == 2
    )
    assert "lists no skill here" in capsys.readouterr().err
    assert main(["eval", str(coll["coll"])]) == 2
    assert "--skill NAME --queries FILE" in capsys.readouterr().err


def test_load_query_dir_reports_bad_and_missing(tmp_path, catalog):
    d = tmp_path / "qs"
    d.mkdir()
    (d / "pdf.json").write_text('[{"query": "a", "should_trigger": true}]')
    (d / "csv.yaml").write_text("should_trigger: [1, 2\n")
    (d / "other.json").write_text('[{"query": "a", "should_trigger": true}]')
    qd = load_query_dir(d, catalog)
    assert list(qd.sets) == ["pdf"] and sorted(qd.missing) == ["csv", "greeter"]
    assert any("csv.yaml:" in e for e in qd.errors) and qd.unknown == [str(d / "other.json")]
    with pytest.raises(NotADirectoryError):
        load_query_dir(d / "pdf.json", catalog)


def test_matrix_counts_errors_apart_and_colours():
    def rep(skill, rows):
        results = []
        for i, (should, outcomes) in enumerate(rows):
            q = QueryResult(i, f"q{i}", should, len(outcomes), 0.5)
            for ri, (outcome, also) in enumerate(outcomes):
                q.add(
                    RunRecord(
                        i,
                        ri,
                        outcome=outcome,
                        also_loaded=also,
                        error={"kind": "server"} if outcome == "errored" else None,
                    )
                )
            results.append(q)
        return EvalReport(skill, "", "", "claude-code", "m", 2, 0.5, 1, [], results)

    a = rep("a", [(True, [("triggered", []), ("errored", [])]), (False, [("not-triggered", ["x"])])])
    b = rep("b", [(True, [("not-triggered", ["a"]), ("cancelled", [])])])
    m = ConfusionMatrix.from_reports([a, b])
    assert m.labels == ["a", "b", "x", NONE]
    assert m.cells["a"]["a"] == 1 and m.errors["a"] == 1
    assert m.cells[NONE]["x"] == 1 and m.cells["b"]["a"] == 1
    assert m.per_skill()["b"]["recall"] == 0.0 and m.per_skill()["x"]["recall"] is None
    assert cell_color("a", "a", 0, 3) == "#ffffff"
    assert cell_color("a", "a", 3, 3) != cell_color("a", "b", 3, 3)
    assert "tool" not in m.to_text() and m.to_json()["unit"] == "runs"
