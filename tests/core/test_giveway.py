"""``core.giveway``: a background job and the foreground take turns (issue 14: GUI-thread blocks)."""

from __future__ import annotations

import threading
import time

from workbench.core.giveway import Baton, away, current_baton, give_way


def _job(
    baton: Baton, steps: int, log: list[str], running: threading.Event, *, slice_s: float = 0.0
) -> threading.Thread:
    """A background thread taking ``steps`` give-way steps on ``baton`` (each step logs "bg");
    the foreground has given turns before (``run_slice``), so the job waits for them."""
    baton.slice_s = slice_s
    baton.run_slice()

    def run() -> None:
        with baton.applied():
            for _ in range(steps):
                running.set()
                log.append("bg")
                give_way()
                running.clear()

    t = threading.Thread(target=run, daemon=True)
    t.start()
    return t


def _wait(cond, timeout: float = 5.0) -> None:
    deadline = time.monotonic() + timeout
    while not cond():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.001)


def test_give_way_outside_a_baton_is_a_no_op():
    assert current_baton() is None
    give_way()  # returns at once
    with away():
        pass


def test_the_job_runs_only_in_the_slices_the_foreground_gives():
    baton, log, running = Baton(), [], threading.Event()
    t = _job(baton, 5, log, running)  # slice 0: every step hands the turn back
    _wait(lambda: baton.waiting)
    assert log == ["bg"]  # the first slice ran at once, then it waits for a turn
    time.sleep(0.02)
    assert log == ["bg"]  # no turn given: no progress
    for _ in range(5):  # the 5th turn: its last give-way point returns, the job ends
        assert baton.run_slice(timeout_s=5)
        log.append("fg")  # the foreground runs only once the slice was handed back
    t.join(5)
    assert not t.is_alive()
    assert log == ["bg", "bg", "fg", "bg", "fg", "bg", "fg", "bg", "fg", "fg"]
    assert baton.slices == 5
    assert not baton.run_slice()  # nobody waits: returns at once


def test_a_slice_lasts_until_the_first_give_way_point_after_slice_s():
    baton, log, running = Baton(), [], threading.Event()
    t = _job(baton, 1000, log, running, slice_s=10.0)  # one slice is enough for all steps
    t.join(5)
    assert not t.is_alive() and len(log) == 1000 and baton.slices == 0


def test_run_slice_gives_up_after_its_timeout_and_the_job_stops_at_its_next_point():
    baton = Baton(slice_s=0.0)
    release = threading.Event()
    steps: list[int] = []

    def run() -> None:
        with baton.applied():
            give_way()  # waits for the first turn
            steps.append(1)
            release.wait(5)  # a long step without a give-way point
            give_way()
            steps.append(2)

    baton.run_slice()  # the foreground is there
    t = threading.Thread(target=run, daemon=True)
    t.start()
    _wait(lambda: baton.waiting)
    t0 = time.perf_counter()
    assert baton.run_slice(timeout_s=0.05)
    assert 0.04 < time.perf_counter() - t0 < 2  # waited its timeout, not for the step
    assert steps == [1]
    release.set()
    _wait(lambda: baton.waiting)  # back at a point: waits for a turn again
    assert steps == [1]
    assert baton.run_slice(timeout_s=5)
    t.join(5)
    assert steps == [1, 2]


def test_away_lets_the_foreground_go_on_and_the_job_waits_for_a_turn_after_it():
    baton = Baton(slice_s=10.0)
    inside, leave, after = threading.Event(), threading.Event(), threading.Event()

    def run() -> None:
        with baton.applied():
            with away():
                inside.set()
                leave.wait(5)
            after.set()

    baton.run_slice()  # the foreground is there
    t = threading.Thread(target=run, daemon=True)
    t.start()
    inside.wait(5)
    assert not baton.run_slice(timeout_s=5)  # away: nothing to wait for
    leave.set()
    _wait(lambda: baton.waiting)
    assert not after.is_set()  # it waits for its turn after the block
    assert baton.run_slice(timeout_s=5)
    t.join(5)
    assert after.is_set()


def test_release_lets_a_waiting_job_go_on_for_good():
    baton, log, running = Baton(), [], threading.Event()
    t = _job(baton, 50, log, running)
    _wait(lambda: baton.waiting)
    baton.release()
    t.join(5)
    assert not t.is_alive() and len(log) == 50
    assert not baton.run_slice()


def test_leaving_applied_hands_the_turn_back():
    baton = Baton(slice_s=0.0)
    go = threading.Event()

    def run() -> None:
        with baton.applied():
            give_way()
            go.wait(5)  # the last slice: ends by leaving the block, not at a point

    baton.run_slice()  # the foreground is there
    t = threading.Thread(target=run, daemon=True)
    t.start()
    _wait(lambda: baton.waiting)
    threading.Timer(0.05, go.set).start()
    t0 = time.perf_counter()
    assert baton.run_slice(timeout_s=5)
    assert time.perf_counter() - t0 < 4  # returned when the job left, not at the timeout
    t.join(5)
    assert current_baton() is None  # only the job's thread had it


def test_a_job_nobody_gives_turns_runs_on_after_max_wait_until_turns_come_again():
    baton, log, running = Baton(max_wait_s=0.05), [], threading.Event()
    t0 = time.perf_counter()
    t = _job(baton, 200, log, running)  # slice 0: every point would wait for a turn
    t.join(5)
    assert not t.is_alive() and len(log) == 200
    assert time.perf_counter() - t0 < 2  # waited once (0.05 s), not at each of 200 points
    go = threading.Event()

    def run() -> None:
        with baton.applied():
            go.wait(5)
            for _ in range(3):
                give_way()

    t = threading.Thread(target=run, daemon=True)  # a new job waits for turns again
    t.start()
    go.set()
    _wait(lambda: baton.waiting)  # waits for turns again
    while t.is_alive():
        baton.run_slice(timeout_s=1)
    assert baton.slices >= 3


def test_after_reset_a_job_runs_unattended_until_the_first_turn_is_given():
    baton, log = Baton(), []
    baton.run_slice()
    baton.reset()  # e.g. a new scan: nothing to show yet
    baton.slice_s = 0.0
    go, more = threading.Event(), threading.Event()

    def run() -> None:
        with baton.applied():
            for _ in range(100):
                give_way()  # unattended: never waits
            log.append("first part")
            go.set()
            more.wait(5)
            give_way()  # turns were given meanwhile: waits for one
            log.append("second part")

    t = threading.Thread(target=run, daemon=True)
    t.start()
    assert go.wait(5) and log == ["first part"]
    assert not baton.run_slice()  # the first turn offered: nobody waits yet
    more.set()
    _wait(lambda: baton.waiting)
    assert log == ["first part"]
    assert baton.run_slice(timeout_s=5)
    t.join(5)
    assert log == ["first part", "second part"]
