"""``workbench eval`` end to end against the fake Messages API."""

from __future__ import annotations

import json

import pytest

from tests.evals.conftest import EvalFake, text, tool_call, tree_hashes
from tests.helpers import write_skill
from workbench.cli import main


@pytest.fixture()
def env(tmp_path, monkeypatch):
    monkeypatch.setenv("WORKBENCH_HOME", str(tmp_path / "wbhome"))
    monkeypatch.setenv("WORKBENCH_NO_KEYRING", "1")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-test")
    monkeypatch.delenv("ANTHROPIC_BASE_URL", raising=False)
    ws = tmp_path / "proj"
    write_skill(ws / ".claude" / "skills" / "pdf", "pdf", "Use for PDF files.", body="# PDF\n")
    write_skill(ws / ".claude" / "skills" / "csv", "csv", "Use for CSV files.", body="# CSV\n")
    home = tmp_path / "home"
    home.mkdir()
    q = tmp_path / "q.json"
    q.write_text(
        json.dumps(
            [
                {"query": "pos-1 merge", "should_trigger": True},
                {"query": "pos-2 split", "should_trigger": True},
                {"query": "neg-1 weather", "should_trigger": False},
                {"query": "neg-2 csv", "should_trigger": False},
            ]
        )
    )
    with EvalFake() as f:
        f.plans = {
            "pos-1": [[tool_call("Skill", {"skill": "pdf"})]],
            "pos-2": [[tool_call("list_directory", {"path": "."}), tool_call("Skill", {"skill": "pdf"})]],
            "neg-1": [[text("sunny")]],
            "neg-2": [[tool_call("Skill", {"skill": "csv"})]],
        }
        yield {"ws": ws, "home": home, "q": q, "fake": f, "tmp": tmp_path}


def _args(e, *extra):
    return [
        "eval",
        str(e["ws"]),
        "--home",
        str(e["home"]),
        "--skill",
        "pdf",
        "--queries",
        str(e["q"]),
        "--base-url",
        e["fake"].url,
        *extra,
    ]


def test_json_contract_and_exit_0(env, capsys):
    before = tree_hashes(env["ws"])
    rc = main(_args(env, "--runs", "2", "--format", "json"))
    out = json.loads(capsys.readouterr().out)
    assert rc == 0
    assert {"skill", "runs_per_query", "threshold", "results", "summary", "usage"} <= set(out)
    assert out["skill"] == "pdf" and out["runs_per_query"] == 2 and out["threshold"] == 0.5
    for r in out["results"]:
        assert {"query", "should_trigger", "runs", "triggers", "errors", "trigger_rate", "pass"} <= set(r)
    assert {"total", "passed", "failed", "errored", "precision", "recall", "accuracy"} <= set(out["summary"])
    assert out["summary"]["passed"] == 4 and out["results"][3]["also_loaded"] == {"csv": 2}
    assert out["history_id"] and out["cost"]["usd"] is not None
    assert tree_hashes(env["ws"]) == before


def test_text_output_and_exit_1_on_failure(env, capsys):
    env["fake"].plans["pos-1"] = [[text("no")]]
    rc = main(_args(env, "--runs", "1", "--no-history"))
    out = capsys.readouterr().out
    assert rc == 1
    assert "FAIL + 0/1" in out and "PASS - 0/1" in out and "precision" in out and "est." in out


def test_usage_errors_exit_2(env, capsys, monkeypatch):
    assert main(_args(env, "--skill", "nope")) == 2
    assert "no skill named 'nope'" in capsys.readouterr().err
    bad = env["tmp"] / "bad.json"
    bad.write_text('[{"query": "a", "should_trigger": true},\n {"query": "b"}]')
    args = _args(env)
    args[args.index(str(env["q"]))] = str(bad)
    assert main(args) == 2
    assert f"{bad}:2:2: entry 2: missing \"should_trigger\"" in capsys.readouterr().err
    assert main(_args(env, "--runs", "0")) == 2
    monkeypatch.delenv("ANTHROPIC_API_KEY")
    assert main(_args(env)) == 2
    err = capsys.readouterr().err
    assert "no API key" in err and "ANTHROPIC_API_KEY" in err


def test_improve_leaves_a_pending_proposal(env, capsys):
    from workbench.core.workshop.store import WorkshopStore

    f = env["fake"]
    f.plans["pos-1"] = [[text("no")]]
    f.plans["pos-2"] = [[text("no")]]
    good = dict(f.plans)
    good["pos-1"] = [[tool_call("Skill", {"skill": "pdf"})]]
    good["pos-2"] = [[tool_call("Skill", {"skill": "pdf"})]]
    f.alt_plans = [("MERGES-AND-SPLITS", good)]
    f.improver_replies = [
        "<new_description>Use this skill when the user MERGES-AND-SPLITS PDF files.</new_description>"
    ]
    before = tree_hashes(env["ws"])
    rc = main(
        _args(env, "--runs", "1", "--improve", "--holdout", "0.5", "--iterations", "2", "--format", "json")
    )
    out = json.loads(capsys.readouterr().out)
    assert rc == 1  # the current description fails
    imp = out["improvement"]
    assert imp["improved"] and imp["proposal_id"] and imp["exit_reason"] == "all-train-passed"
    p = WorkshopStore(env["ws"]).get(imp["proposal_id"])
    assert (
        p.state == "pending"
        and "MERGES-AND-SPLITS" in WorkshopStore(env["ws"]).generation_files(p.id)["SKILL.md"].decode()
    )
    assert tree_hashes(env["ws"]) == before
    assert len(imp["split"]["test"]) == 2 and len(imp["split"]["train"]) == 2
