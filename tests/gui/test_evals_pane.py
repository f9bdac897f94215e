"""The Evals pane end to end: a 20-query set against the fake Messages API, live progress, the chart,
history, export, and the improvement loop ending in a workshop proposal."""

from __future__ import annotations

import csv
import json

import pytest

from tests.evals.conftest import EvalFake, text, tool_call, tree_hashes
from tests.helpers import NEG, POS, write_skill


@pytest.fixture()
def setup(tmp_path, fake_home, monkeypatch):
    monkeypatch.setenv("WORKBENCH_NO_KEYRING", "1")
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    ws = tmp_path / "proj"
    sk = ws / ".claude" / "skills"
    write_skill(sk / "pdf", "pdf", "Use for PDF files - merge, split, extract, fill forms.", body="# PDF\n")
    write_skill(sk / "csv", "csv", "Use for CSV files and charts.", body="# CSV\n")
    write_skill(sk / "greeter", "greeter", "Use at the start of every conversation.", body="# Hi\n")
    from workbench.core.discovery import scan
    from workbench.core.model import Environment

    env = Environment(workspace=ws, home=fake_home, env={}, bins=set())
    cat = scan(env, "claude-code")
    with EvalFake(latency=0.05) as f:
        pdf_md = str(sk / "pdf" / "SKILL.md")
        plans = {}
        for i, q in enumerate(POS):
            if i in (2, 7):  # sometimes: 2 of 3
                plans[q] = [
                    [tool_call("Skill", {"skill": "pdf"})],
                    [text("sure")],
                    [tool_call("Skill", {"skill": "pdf"})],
                ]
            elif i == 4:  # another tool first, then a read of the SKILL.md
                plans[q] = [
                    [tool_call("list_directory", {"path": "."}), tool_call("read_file", {"path": pdf_md})]
                ]
            elif i == 5:  # a competitor first
                plans[q] = [[tool_call("Skill", {"skill": "greeter"}), tool_call("Skill", {"skill": "pdf"})]]
            elif i == 9:  # under-triggers: fails
                plans[q] = [[text("I can't sign files.")]]
            else:
                plans[q] = [[tool_call("Skill", {"skill": "pdf"})]]
        for i, q in enumerate(NEG):
            if i == 0:
                plans[q] = [[tool_call("Skill", {"skill": "csv"})]]
            elif i == 3:  # a near miss that over-triggers 1 of 3: still passes
                plans[q] = [[tool_call("Skill", {"skill": "pdf"})], [text("ok")], [text("ok")]]
            else:
                plans[q] = [[text("ok")]]
        f.plans = plans
        yield {"ws": ws, "env": env, "cat": cat, "fake": f, "tmp": tmp_path}


def make_pane(qtbot, s):
    from workbench.app.evals_pane import EvalsPane
    from workbench.core.chat.settings import ChatSettings

    pane = EvalsPane(
        provider=lambda: (s["env"], "claude-code", s["cat"], None),
        settings_provider=lambda: ChatSettings(base_url=s["fake"].url, max_retries=0),
        key_provider=lambda: "sk-test",
    )
    qtbot.addWidget(pane)
    pane.resize(1400, 860)
    pane.show()
    return pane


def test_twenty_queries_end_to_end_with_live_progress_and_chart(qtbot, setup, artifacts):
    from workbench.core.evals.queryset import Query

    s = setup
    pane = make_pane(qtbot, s)
    assert pane.skill_combo.currentText() in ("csv", "greeter", "pdf")
    pane.skill_combo.setCurrentText("pdf")
    pane.set_queries([Query(q, True) for q in POS] + [Query(q, False) for q in NEG])
    assert len(pane.queries()) == 20 and "10 should trigger" in pane.queries_label.text()
    before = tree_hashes(s["ws"])
    with qtbot.waitSignal(pane.finished, timeout=120_000) as blocker:
        assert pane.start_run()
        assert pane.running and not pane.run_btn.isEnabled() and pane.cancel_btn.isEnabled()
    rep = blocker.args[0]
    assert tree_hashes(s["ws"]) == before
    assert s["fake"].invalid == []
    # live progress: the bar moved through intermediate values before the end
    dones = [d for d, _t in pane.progress_seen]
    assert dones[-1] == 60 and len(dones) == 60 and dones == sorted(dones)
    qtbot.waitUntil(lambda: not pane.running, timeout=10_000)
    sm = rep.summary
    assert (sm.total, sm.passed, sm.failed, sm.errored) == (20, 19, 1, 0)
    assert pane.results_table.rowCount() == 20
    assert pane.results_table.item(9, 8).text() == "FAIL" and pane.results_table.item(0, 8).text() == "PASS"
    assert (
        pane.results_table.item(2, 3).text() == "2/3" and pane.results_table.item(5, 7).text() == "greeter×3"
    )
    rows = pane.chart.rows
    assert (
        len(rows) == 20
        and rows[0]["rate"] == 1.0
        and rows[9]["rate"] == 0.0
        and rows[13]["rate"] == pytest.approx(1 / 3, abs=1e-3)
    )
    assert "19/20 passed" in pane.summary_label.text() and "est." in pane.summary_label.text()
    # history: one description, one run
    assert pane.history_tree.topLevelItemCount() == 1
    assert pane.history_tree.topLevelItem(0).child(0).text(1) == "19/20"
    # export
    assert pane.export(s["tmp"] / "out.json") and pane.export(s["tmp"] / "out.csv")
    data = json.loads((s["tmp"] / "out.json").read_text())
    assert data["summary"]["passed"] == 19 and "run_details" in data["results"][0]
    with (s["tmp"] / "out.csv").open(encoding="utf-8", newline="") as fh:
        rows_csv = list(csv.DictReader(fh))
    assert (
        len(rows_csv) == 20 and rows_csv[9]["pass"] == "false" and rows_csv[5]["also_loaded"] == "greeter:3"
    )
    pane.grab().save(str(artifacts / "evals.png"))


def test_query_editor_load_save_and_errors(qtbot, setup):
    s = setup
    pane = make_pane(qtbot, s)
    p = s["tmp"] / "q.yaml"
    p.write_text("should_trigger:\n  - a pdf job\nshould_not_trigger:\n  - the weather\n")
    assert pane.load_queries_file(p)
    assert [(q.query, q.should_trigger) for q in pane.queries()] == [
        ("a pdf job", True),
        ("the weather", False),
    ]
    pane.add_query("another", False)
    out = s["tmp"] / "saved.json"
    assert pane.save_queries_file(out)
    assert json.loads(out.read_text())[2] == {"query": "another", "should_trigger": False}
    pane.query_table.selectRow(0)
    pane.remove_selected()
    assert len(pane.queries()) == 2
    bad = s["tmp"] / "bad.json"
    bad.write_text('[{"query": 1, "should_trigger": true}]')
    assert not pane.load_queries_file(bad)
    assert f"{bad}:1:12" in pane.status.text() and len(pane.queries()) == 2  # nothing lost
    pane.key_provider = lambda: None
    assert not pane.start_run() and "ANTHROPIC_API_KEY" in pane.status.text()
    assert not pane.export(s["tmp"] / "x.json")


def test_cancel_from_the_pane(qtbot, setup):
    from workbench.core.evals.queryset import Query

    s = setup
    s["fake"].latency = 0.3
    pane = make_pane(qtbot, s)
    pane.skill_combo.setCurrentText("pdf")
    pane.set_queries([Query(q, True) for q in POS])
    pane.conc_spin.setValue(2)
    with qtbot.waitSignal(pane.finished, timeout=60_000) as blocker:
        pane.start_run()
        qtbot.waitUntil(lambda: len(pane.progress_seen) >= 1, timeout=30_000)
        pane.cancel_btn.click()
    rep = blocker.args[0]
    assert rep.cancelled and rep.summary.not_run > 0
    assert "partial" in pane.summary_label.text()


def test_improve_from_the_pane_reports_the_proposal(qtbot, setup):
    from workbench.core.evals.queryset import Query
    from workbench.core.workshop.store import WorkshopStore

    s = setup
    f = s["fake"]
    f.latency = 0.0
    bad = {q: [[text("no")]] for q in POS}
    bad.update({q: [[text("ok")]] for q in NEG})
    good = {q: [[tool_call("Skill", {"skill": "pdf"})]] for q in POS}
    good.update({q: [[text("ok")]] for q in NEG})
    f.plans = bad
    f.alt_plans = [("WHOLE-PDF-LIFECYCLE", good)]
    f.improver_replies = [
        "<new_description>Use this skill for the WHOLE-PDF-LIFECYCLE: create, edit, "
        "merge, split, sign or read PDF files.</new_description>"
    ]
    pane = make_pane(qtbot, s)
    pane.skill_combo.setCurrentText("pdf")
    pane.set_queries([Query(q, True) for q in POS] + [Query(q, False) for q in NEG])
    pane.runs_spin.setValue(1)
    with qtbot.waitSignal(pane.proposal_created, timeout=120_000) as blocker:
        assert pane.start_improve()
    pid = blocker.args[0]
    qtbot.waitUntil(lambda: not pane.running, timeout=10_000)
    assert pane.last_proposal_id == pid and pid in pane.status.text()
    p = WorkshopStore(s["ws"]).get(pid)
    assert p.state == "pending" and p.source == "eval"
    assert pane.history_tree.topLevelItemCount() == 2


def test_hosted_on_a_real_app_context(qtbot, setup):
    """The main window constructs hosted panes as ``cls(ctx, parent)``: the skill list follows the
    context's catalog."""
    from workbench.app.context import AppContext
    from workbench.app.evals_pane import EvalsPane
    from workbench.app.settings import Settings

    ctx = AppContext(Settings(persist=False), setup["env"], client_id="claude-code", watch=False)
    ctx.rescan()
    assert ctx.wait_for_scan(60_000)
    pane = EvalsPane(ctx, None)
    qtbot.addWidget(pane)
    qtbot.waitUntil(lambda: pane.skill_combo.count() == 3, timeout=10_000)
    assert [pane.skill_combo.itemText(i) for i in range(3)] == ["csv", "greeter", "pdf"]
