"""The Real client view: capture in the background, cancel, and differences highlighted."""

from __future__ import annotations

import stat
import subprocess
from pathlib import Path

import pytest

from tests.helpers import write_skill


@pytest.fixture()
def env(tmp_path: Path):
    from workbench.core.model import Environment

    ws = tmp_path / "ws"
    write_skill(ws / ".claude/skills/pdf", "pdf", "Use for PDF files.")
    subprocess.run(["git", "init", "-q", str(ws)], check=True)
    (tmp_path / "home").mkdir()
    return Environment(workspace=ws, home=tmp_path / "home", env={}, bins=set())


def _report(**kw):
    from workbench.core.capture.capture import CaptureReport, listing_diff

    real = (
        "The following skills are available for use with the Skill tool:\n\n"
        "- pdf: Use for PDF files.\n- builtin-one: A built-in skill the simulation did not know."
    )
    sim = (
        "The following skills are available for use with the Skill tool:\n\n"
        "- pdf: Use for PDF files.\n- builtin-one: ⟦built-in⟧·······························"
    )
    rep = CaptureReport(
        client="claude-code",
        version="2.1.400",
        modelled_version="2.1.328",
        exe="/usr/bin/claude",
        placement={"location": "user", "message_index": 0, "block_index": 4, "detail": ""},
        listing=real,
        skills=["pdf", "builtin-one"],
        builtins=["builtin-one"],
        tool={"name": "Skill"},
        simulated=sim,
        diff=listing_diff(real, sim),
        seconds=1.2,
    )
    for k, v in kw.items():
        setattr(rep, k, v)
    return rep


def test_real_client_view_highlights_differences(open_window, env, qtbot, artifacts):
    from workbench.app.capture_pane import REAL_ONLY, SIM_ONLY, CapturePane

    win = open_window(env, client_id="claude-code", size=(1280, 800))
    win.show_tab("capture")
    pane = win.panes["capture"].ensure()
    assert isinstance(pane, CapturePane)
    pane.show_report(_report())
    assert not pane.banner.isHidden() and "2.1.400" in pane.banner.text() and "2.1.328" in pane.banner.text()
    assert "1 line differs" in pane.facts.text() and "load tool: Skill" in pane.facts.text()
    block = pane.real.document().findBlockByNumber(3)
    assert block.text().startswith("- builtin-one")
    fmt = block.begin().fragment().charFormat()
    assert fmt.background().color() == REAL_ONLY
    sblock = pane.sim.document().findBlockByNumber(3)
    assert sblock.begin().fragment().charFormat().background().color() == SIM_ONLY
    same = pane.real.document().findBlockByNumber(2).begin().fragment().charFormat()
    assert same.background().color() != REAL_ONLY
    qtbot.waitUntil(pane.isVisible, timeout=3000)
    qtbot.wait(100)
    win.grab().save(str(artifacts / "real_client_view.png"))


def test_capture_runs_in_background_and_cancel_stops_it(qtbot, env, tmp_path):
    from workbench.app.capture_pane import CapturePane

    class Ctx:
        pass

    ctx = Ctx()
    ctx.env = env
    ctx.client_id = "claude-code"
    slow = tmp_path / "slowclient"
    slow.write_text('#!/bin/sh\ncase "$1" in --version) echo 2.1.328;; *) sleep 60;; esac\n')
    slow.chmod(slow.stat().st_mode | stat.S_IEXEC)
    pane = CapturePane(ctx)
    qtbot.addWidget(pane)
    pane.exe.setText(str(slow))
    with qtbot.waitSignal(pane.captured, timeout=20000) as got:
        pane.capture_btn.click()
        assert pane.is_busy() and not pane.progress.isHidden() and pane.cancel_btn.isEnabled()
        qtbot.wait(500)
        pane.cancel_btn.click()
    rep = got.args[0]
    assert rep.error_kind == "cancelled"
    assert not pane.is_busy() and pane.capture_btn.isEnabled()
    assert "cancel" in pane.facts.text().lower()
