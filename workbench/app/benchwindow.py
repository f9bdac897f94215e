"""``python -m workbench.app.benchwindow WORKSPACE HOME EXPECTED``: time the window on a folder.

What ``workbench bench`` runs in a fresh process (``workbench.core.bench`` cannot import Qt) to
measure the window as a user meets it, with whatever cache folder ``WORKBENCH_HOME`` names (empty
for a cold figure). Offscreen (``QT_QPA_PLATFORM`` defaults to ``offscreen``). Prints one JSON
line and exits:

* ``populated``: seconds from the interpreter's first line to the skills tree holding
  ``EXPECTED`` skills (``--screenshot`` would render from then on), imports included;
* ``complete``: every client scanned and every listing rendered (seconds, same origin);
* ``populated_cpu`` / ``complete_cpu``: this process's CPU seconds (all its threads, not the
  parse pool's processes) at those two moments: what the machine's load does not change;
* ``max_block_ms`` / ``blocks_over_50ms``: the longest gap between ticks of a 5 ms ``QTimer`` on
  the GUI thread after the window is shown (a gap is time the event loop could not run: work on
  the GUI thread), and how many gaps exceeded 50 ms; ``window_build_s``: building the window
  and its first layout and paint (before the event loop; not counted as a block);
* ``max_block_cpu_ms``: the most CPU the GUI thread itself used in one gap (``time.thread_time``:
  what a busy machine does not stretch, unlike the gap; waiting for the GIL is not counted);
* ``max_block_asleep_ms``: the longest the GUI thread slept in one gap while not idle: the gap
  minus its CPU minus its time waiting for a core (``/proc/thread-self/schedstat``, Linux): in
  practice waiting for the GIL (a gap's 5 ms timer interval itself is not counted as a gap);
* ``rss_mb``: the process's peak resident set size (MB, ``VmHWM``; see ``_peak_rss_mb``).

``--stacks`` (after the three arguments) adds ``blocks_at`` (``[end, ms, cpu ms, run-queue ms]`` of
every block over 50 ms, ``end`` in seconds from the same origin, ``cpu ms`` the GUI thread's CPU in
it, ``run-queue ms`` the time it waited for a core: the rest is waiting for the GIL) and ``blocks``: for the longest GUI-thread blocks, the
block's length and where the GUI thread was (innermost frames, sampled every 10 ms by a watchdog
thread while a block lasts: the most frequent place first). A thread waiting for the GIL held by
the background scan shows the line it waits on.
"""

from __future__ import annotations

import time

T0 = time.perf_counter()

import json  # noqa: E402 - the clock starts before any import
import os  # noqa: E402
import sys  # noqa: E402


def main(argv: list[str]) -> int:
    """Run the measurement (see the module docstring); 2 on bad arguments."""
    stacks = "--stacks" in argv
    argv = [a for a in argv if a != "--stacks"]
    if len(argv) != 3:
        print(__doc__.splitlines()[0], file=sys.stderr)
        return 2
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    import resource

    from workbench.app.main import build_window, start_parse_pool
    from workbench.cli import gui_parser
    from workbench.options import environment_from_args

    expected = int(argv[2])
    args = gui_parser().parse_args([argv[0], "--home", argv[1], "--screenshot", os.devnull])
    env = environment_from_args(args)
    pool = start_parse_pool(args, env)  # as ``main.run_gui``: before Qt, the only thread forks
    from workbench.core import forkrun

    forkrun.forbid("the window runs Qt threads")  # as ``main._run_gui``

    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QApplication

    from workbench.app import _shiboken_none

    _shiboken_none.apply()
    app = QApplication.instance() or QApplication(sys.argv[:1])
    t_build = time.perf_counter()
    _settings, ctx, win = build_window(args, persist_settings=False, watch=False, env=env, parse_pool=pool)
    win.resize(1400, 900)
    win.show()
    app.processEvents()  # the first layout and paint: part of showing the window (not a block)
    out: dict = {"window_build_s": round(time.perf_counter() - t_build, 3)}
    gaps: list[float] = []
    cpu_gaps: list[float] = []  # the GUI thread's own CPU seconds in each gap
    last = [time.perf_counter()]
    last_cpu = [time.thread_time()]
    last_runq = [_runqueue_s()]
    slept: list[float] = []  # per gap: wall - CPU - run queue = the GUI thread asleep (GIL, I/O)

    over: list[list[float]] = []  # [end (s since T0), ms, cpu ms, run-queue ms] of blocks > 50 ms

    def tick() -> None:
        now, cpu, runq = time.perf_counter(), time.thread_time(), _runqueue_s()
        gaps.append(now - last[0])
        cpu_gaps.append(cpu - last_cpu[0])
        slept.append(max(0.0, gaps[-1] - cpu_gaps[-1] - (runq - last_runq[0])))
        if gaps[-1] > 0.050:
            ms = [1000 * gaps[-1], 1000 * cpu_gaps[-1], 1000 * (runq - last_runq[0])]
            over.append([round(now - T0, 3), *(round(x, 1) for x in ms)])
        last[0], last_cpu[0], last_runq[0] = now, cpu, runq

    def check() -> None:  # after the widgets' own slots for the change have run
        now = time.perf_counter()
        if "populated" not in out and win.skills.model.skill_count() >= expected:
            out["populated"] = round(now - T0, 3)
            out["populated_cpu"] = round(time.process_time(), 3)
        if "populated" in out and not ctx.scanning and not ctx.listings_pending:
            out["complete"] = round(now - T0, 3)
            out["complete_cpu"] = round(time.process_time(), 3)
            app.quit()

    ctx.catalog_changed.connect(lambda: QTimer.singleShot(0, check))
    poll = QTimer()  # the listings' background render ends without a signal of its own
    poll.timeout.connect(check)
    poll.start(50)
    timer = QTimer()
    timer.timeout.connect(tick)
    timer.start(5)
    QTimer.singleShot(300_000, app.quit)
    watch = _BlockSampler(last) if stacks else None
    app.exec()
    ctx.shutdown()
    if watch is not None:
        out["blocks"] = watch.stop()
        out["blocks_at"] = over
    out["max_block_ms"] = round(1000 * max(gaps, default=0.0), 1)
    out["blocks_over_50ms"] = sum(1 for g in gaps if g > 0.050)
    out["max_block_cpu_ms"] = round(1000 * max(cpu_gaps, default=0.0), 1)
    out["max_block_asleep_ms"] = round(1000 * max(slept, default=0.0), 1)
    out["rss_mb"] = _peak_rss_mb(resource)
    sys.stdout.write(json.dumps(out) + "\n")
    sys.stdout.flush()
    os._exit(0)  # like the CLI's fast exit: no teardown of 10,000 tree items


class _BlockSampler:
    """While the GUI thread has not ticked for over 50 ms, sample its stack every 10 ms (a daemon
    thread); ``stop()`` returns the 8 longest blocks as ``{"ms", "where": [[count, frames], ...]}``
    (frames = the 6 innermost ``file:line function``, innermost last)."""

    def __init__(self, last: list[float]) -> None:
        import _thread
        import threading

        self._last = last
        self._gui = threading.get_ident()
        self._stop = threading.Event()
        self._done = threading.Event()
        self._blocks: dict[float, dict[str, int]] = {}
        # a raw thread: not counted by ``threading.active_count()``, so the scan still forks its
        # parse pool (``cache parse pool's ``parallel_ok````) as it does without the sampler
        _thread.start_new_thread(self._run, ())

    def _run(self) -> None:
        try:
            self._sample()
        finally:
            self._done.set()

    def _sample(self) -> None:
        import traceback

        while not self._stop.wait(0.010):
            start = self._last[0]
            if time.perf_counter() - start < 0.050:
                continue
            frame = sys._current_frames().get(self._gui)
            if frame is None:
                continue
            where = " <- ".join(
                f"{os.path.basename(f.filename)}:{f.lineno} {f.name}"
                for f in reversed(traceback.extract_stack(frame)[-6:])
            )
            seen = self._blocks.setdefault(start, {})
            seen[where] = seen.get(where, 0) + 1

    def stop(self) -> list[dict[str, object]]:
        self._stop.set()
        self._done.wait(1.0)
        out: list[tuple[float, dict[str, object]]] = []
        starts = sorted(self._blocks)
        for i, start in enumerate(starts):
            end = starts[i + 1] if i + 1 < len(starts) else time.perf_counter()
            samples = self._blocks[start]
            ms = float(10 * sum(samples.values()) + 50)  # sampled length (10 ms steps)
            where = sorted(((n, w) for w, n in samples.items()), reverse=True)[:3]
            ms = min(ms, round(1000 * (end - start), 1))
            out.append((ms, {"ms": ms, "where": where}))
        return [b for _ms, b in sorted(out, key=lambda x: -x[0])[:8]]


def _runqueue_s() -> float:
    """Seconds the calling thread has waited for a core (Linux ``/proc/thread-self/schedstat``,
    second field, ns); 0.0 where it is not available. In a block, wall - CPU - this = time the
    GUI thread slept: waiting for the GIL (or I/O)."""
    try:
        with open("/proc/thread-self/schedstat", "rb") as fh:
            return int(fh.read().split()[1]) / 1e9
    except (OSError, ValueError, IndexError):
        return 0.0


def _peak_rss_mb(resource) -> float:
    """This process's peak RSS in MB: ``VmHWM`` of /proc/self/status (Linux: counts this program
    only, while ``ru_maxrss`` also keeps the RSS the process had as a fork of its parent before
    ``exec``), else ``ru_maxrss``."""
    try:
        with open("/proc/self/status", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("VmHWM:"):
                    return round(int(line.split()[1]) / 1024, 1)
    except (OSError, ValueError, IndexError):
        pass
    return round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
