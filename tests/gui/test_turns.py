"""The window's scan job takes turns with the GUI thread (``app/turns``, ``core/giveway``; issue 14:
no GUI-thread block over 50 ms while the other clients are scanned)."""

from __future__ import annotations

import sys
import threading
import time

from tests.helpers import write_skill
from workbench.core.model import CLIENT_IDS, Environment


def _ctx(tmp_path, fake_home, n: int):
    from workbench.app.context import AppContext
    from workbench.app.settings import Settings

    ws = tmp_path / "ws"
    for i in range(n):
        write_skill(ws / ".claude" / "skills" / f"s{i:03d}", f"s{i:03d}", f"Use when testing skill {i}.")
    return AppContext(Settings(persist=False), Environment(workspace=ws, home=fake_home), watch=False)


def test_the_scan_runs_in_slices_given_by_the_gui_thread(qtbot, tmp_path, fake_home):
    from workbench.app.turns import GIL_SWITCH_S
    from workbench.core import giveway

    ctx = _ctx(tmp_path, fake_home, 40)
    assert sys.getswitchinterval() == GIL_SWITCH_S
    baton = ctx._turns.baton
    baton.slice_s = 0.0  # every give-way point hands the turn back
    seen: set[int] = set()
    real = giveway.Baton.give_way

    def spy(self):  # which threads reach a give-way point
        seen.add(threading.get_ident())
        real(self)

    giveway.Baton.give_way = spy  # type: ignore[method-assign]
    try:
        ctx.rescan()
        assert ctx.wait_for_scan(60_000)
    finally:
        giveway.Baton.give_way = real  # type: ignore[method-assign]
    assert set(ctx.catalogs) == set(CLIENT_IDS)
    assert len(ctx.catalog("claude-code").skills) == 40
    assert baton.slices > 40  # one per skill at least, each given by the GUI thread
    assert threading.get_ident() not in seen  # only the job gives way
    assert not baton.waiting and not ctx._turns._slicer.isActive()  # the job is over


def test_the_slicer_gives_turns_from_the_event_loop(qtbot, tmp_path, fake_home):
    ctx = _ctx(tmp_path, fake_home, 20)
    ctx._turns.baton.slice_s = 0.0
    ctx.rescan()
    assert not ctx._turns._slicer.isActive()  # the first client is scanned at full speed
    qtbot.waitUntil(ctx._turns._slicer.isActive, timeout=60_000)  # from the first partial on
    qtbot.waitUntil(lambda: not ctx.scanning, timeout=60_000)  # qtbot's loop: the timer's turns
    assert ctx._turns.baton.slices > 20 and set(ctx.catalogs) == set(CLIENT_IDS)
    assert not ctx._turns._slicer.isActive()


def test_closing_during_a_scan_ends_the_turns_at_once(qtbot, tmp_path, fake_home):
    ctx = _ctx(tmp_path, fake_home, 40)
    ctx._turns.baton.slice_s = 0.0
    ctx.rescan()
    job = ctx._job
    qtbot.waitUntil(lambda: ctx._turns.baton.waiting, timeout=30_000)  # waits for a turn
    t0 = time.perf_counter()
    ctx.shutdown()  # no turn will come: the job must still end (cancelled), not wait 10 s
    assert job is not None and job.done.is_set()
    assert time.perf_counter() - t0 < 5


def test_when_idle_waits_for_every_deferred_turn(qtbot):
    import shiboken6
    from PySide6.QtCore import QObject

    from workbench.app.turns import LoopTurns, defer, deferred_pending

    turns = LoopTurns()
    owner, gone = QObject(), QObject()
    log: list[str] = []
    defer(owner, lambda: (log.append("a"), defer(owner, lambda: log.append("b"))))
    defer(gone, lambda: log.append("never"))
    turns.when_idle(lambda: log.append("idle"))
    turns.run_idle()
    assert log == [] and deferred_pending() == 2  # deferred work first
    shiboken6.delete(gone)  # its call is dropped with it, and no longer awaited
    assert deferred_pending() == 1
    qtbot.waitUntil(lambda: "idle" in log, timeout=5_000)  # qtbot's loop: aboutToBlock
    assert log == ["a", "b", "idle"] and deferred_pending() == 0
    turns.close()
