"""The Evals pane's batch runs (estimate → confirm → submit → poll → collect, resume after a restart)
and the collection window's confusion-matrix heat-map (direct and batch, PNG/HTML export)."""

from __future__ import annotations

import pytest

from tests.evals.conftest import EvalFake, text, tool_call
from tests.evals.test_collection import SKILLS, STEALS, make_collection
from tests.helpers import write_skill
from workbench.core.evals.queryset import Query


def _pane(qtbot, env, cat, tmp_path, **kw):
    from workbench.app.evals_pane import EvalsPane
    from workbench.core.chat.settings import ChatSettings

    pane = EvalsPane(
        provider=lambda: (env, "claude-code", cat, None),
        settings_provider=lambda: ChatSettings(base_url=kw["url"], max_retries=0),
        key_provider=lambda: "sk-test",
        history_root=tmp_path / "hist",
    )
    pane.confirm_batch = kw.get("confirm", lambda est: True)
    pane.batch_poll_seconds = 0.05
    qtbot.addWidget(pane)
    return pane


@pytest.fixture()
def small(tmp_path, fake_home, monkeypatch):
    monkeypatch.setenv("WORKBENCH_NO_KEYRING", "1")
    monkeypatch.setenv("WORKBENCH_HOME", str(tmp_path / "wbhome"))
    ws = tmp_path / "proj"
    sk = ws / ".claude" / "skills"
    write_skill(sk / "pdf", "pdf", "Use for PDF files.", body="# PDF\n")
    write_skill(sk / "csv", "csv", "Use for CSV files.", body="# CSV\n")
    from workbench.core.discovery import scan
    from workbench.core.model import Environment

    env = Environment(workspace=ws, home=fake_home, env={}, bins=set())
    cat = scan(env, "claude-code")
    with EvalFake() as f:
        f.plans = {
            "<p1>": [[tool_call("Skill", {"skill": "pdf"})]],
            "<p2>": [[text("no")]],
            "<n1>": [[tool_call("Skill", {"skill": "csv"})]],
        }
        f.batch_seconds = 0.2
        yield {"env": env, "cat": cat, "fake": f}


QS = [Query("<p1> merge pdfs", True), Query("<p2> split pdf", True), Query("<n1> csv chart", False)]


def test_pane_runs_as_batch_and_resumes_after_restart(qtbot, small, tmp_path, artifacts):
    f = small["fake"]
    asked = []
    pane = _pane(
        qtbot, small["env"], small["cat"], tmp_path, url=f.url, confirm=lambda est: asked.append(est) or True
    )
    pane.skill_combo.setCurrentText("pdf")
    pane.set_queries(QS)
    pane.batch_check.setChecked(True)
    assert pane.start_run()
    qtbot.waitUntil(lambda: not pane.running, timeout=60000)
    assert asked and asked[0]["requests"] == 9 and asked[0]["usd"] > 0
    rep = pane.report
    assert rep.mode == "batch" and [(r.triggers, r.runs) for r in rep.results] == [(3, 3), (0, 3), (0, 3)]
    assert rep.results[2].also_loaded == {"csv": 3} and f.invalid == []
    assert "Batch" in pane.status.text() or "Done" in pane.status.text()
    assert pane.results_table.item(0, 8).text() == "PASS" and pane.results_table.item(1, 8).text() == "FAIL"
    pane.grab().save(str(artifacts / "evals_pane_batch.png"))

    # declined estimate: nothing submitted
    n = f.batch_requests
    pane.confirm_batch = lambda est: False
    assert pane.start_run()
    qtbot.waitUntil(lambda: not pane.running, timeout=60000)
    assert f.batch_requests == n and "Not submitted" in pane.status.text()

    # submit, then "restart" (a new pane) and resume the pending batch eval
    pane.confirm_batch = lambda est: True
    pane.batch_poll_seconds = 30.0
    f.batch_seconds = 1.0
    assert pane.start_run()
    qtbot.waitUntil(lambda: len(pane.batches().pending()) == 1, timeout=60000)
    pane.cancel()  # Cancel = cancel on the server, then collect
    qtbot.waitUntil(lambda: not pane.running, timeout=60000)
    assert pane.report.cancelled or pane.report.summary.total == 3
    assert f.batch_requests == n + 1

    # a batch submitted by an app that then quit (record in the pane's history folder)
    from workbench.core.evals.batch import BatchEval, BatchStore
    from workbench.core.evals.history import HistoryStore
    from workbench.core.evals.runner import EvalRunner

    f.batch_seconds = 0.3
    sdk = f.client()
    store = BatchStore(HistoryStore(small["env"].workspace, tmp_path / "hist"))
    BatchEval([EvalRunner(small["cat"], "pdf", QS, client=sdk)], sdk).submit(store)
    pane3 = _pane(qtbot, small["env"], small["cat"], tmp_path, url=f.url)  # the restart
    assert len(pane3.batches().pending()) == 1 and "1 batch eval submitted earlier" in pane3.status.text()
    assert pane3.batches().resume()
    qtbot.waitUntil(lambda: not pane3.running and pane3.report is not None, timeout=60000)
    assert pane3.report.mode == "batch" and pane3.skill_combo.currentText() == "pdf"
    assert [(r.triggers, r.runs) for r in pane3.report.results] == [(3, 3), (0, 3), (0, 3)]
    assert pane3.batches().pending() == []


@pytest.fixture()
def collection(tmp_path, fake_home, monkeypatch):
    monkeypatch.setenv("WORKBENCH_NO_KEYRING", "1")
    monkeypatch.setenv("WORKBENCH_HOME", str(tmp_path / "wbhome"))
    coll, qdir, plans = make_collection(tmp_path)
    from workbench.core.discovery import scan
    from workbench.core.model import Environment

    env = Environment(workspace=coll, home=fake_home, env={}, bins=set(), extra_roots=[coll / "skills"])
    cat = scan(env, "claude-code")
    with EvalFake() as f:
        f.plans = plans
        f.batch_seconds = 0.3
        yield {"env": env, "cat": cat, "fake": f, "q": qdir}


def test_collection_window_heatmap_exports(qtbot, collection, tmp_path, artifacts):
    f = collection["fake"]
    pane = _pane(qtbot, collection["env"], collection["cat"], tmp_path, url=f.url)
    pane.runs_spin.setValue(2)
    win = pane.open_collection()
    qtbot.addWidget(win)
    win.dir_edit.setText(str(collection["q"]))
    assert win.start()
    qtbot.waitUntil(lambda: not win.running and win.view.matrix is not None, timeout=60000)
    m = win.view.matrix
    for victim, thief in STEALS.items():
        assert m.cells[victim][thief] == 4
    assert [(x["victim"], x["thief"]) for x in m.steals()] == list(STEALS.items())
    model = win.view.model
    assert model.rowCount() == len(SKILLS) + 1 and model.columnCount() == len(SKILLS) + 2
    from PySide6.QtCore import Qt

    i3, i7 = SKILLS.index("tool-03"), SKILLS.index("tool-07")
    steal = model.data(model.index(i3, i7), Qt.ItemDataRole.BackgroundRole)
    diag = model.data(model.index(0, 0), Qt.ItemDataRole.BackgroundRole)
    assert steal.red() > steal.green() and diag.green() > diag.red()
    assert "4 of 4 runs of queries written for tool-03 loaded tool-07" in model.data(
        model.index(i3, i7), Qt.ItemDataRole.ToolTipRole
    )
    assert "tool-07</b> took 4" in win.view.summary.text()
    win.resize(1280, 800)
    win.grab().save(str(artifacts / "evals_collection_matrix.png"))
    png, page = tmp_path / "m.png", tmp_path / "m.html"
    assert win.export(png) and win.export(page)
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and "<table>" in page.read_text()
    from PySide6.QtGui import QImage

    img = QImage(str(png))
    assert img.width() > 600 and img.height() > 400
    import shutil

    shutil.copy(png, artifacts / "evals_collection_export.png")

    # the same as a batch: same matrix
    win.batch_check.setChecked(True)
    pane.confirm_batch = lambda est: True
    assert win.start()
    qtbot.waitUntil(lambda: not win.running and win.reports and win.reports[0].mode == "batch", timeout=60000)
    assert win.view.matrix.to_json()["matrix"] == m.to_json()["matrix"] and f.invalid == []


def test_closing_detaches_a_running_batch_eval(qtbot, small, tmp_path):
    """Closing the app while a batch eval polls: polling stops at once, nothing is cancelled on the
    server, no signal reaches the closed pane, the flow's SDK client is closed, and a new pane
    ("Resume batch…") still finds the batch pending."""
    f = small["fake"]
    f.batch_seconds = 30.0
    pane = _pane(qtbot, small["env"], small["cat"], tmp_path, url=f.url)
    pane.batch_poll_seconds = 30.0
    pane.skill_combo.setCurrentText("pdf")
    pane.set_queries(QS)
    pane.batch_check.setChecked(True)
    assert pane.start_run()
    qtbot.waitUntil(lambda: len(pane.batches().pending()) == 1, timeout=60000)
    flow = pane.batches().flow
    ended = []
    flow.ended.connect(lambda: ended.append(1))
    sdk = flow._own_sdk
    assert sdk is not None
    pane.shutdown(timeout=10.0)
    assert not flow.running and flow._own_sdk is None and sdk.is_closed()
    assert all(b.cancel_at is None for b in f.batches.values())
    qtbot.wait(200)
    assert ended == []
    pane2 = _pane(qtbot, small["env"], small["cat"], tmp_path, url=f.url)
    assert len(pane2.batches().pending()) == 1
