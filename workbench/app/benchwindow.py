"""``python -m workbench.app.benchwindow WORKSPACE HOME EXPECTED``: time the window on a folder.

What ``workbench bench`` runs in a fresh process (``workbench.core.bench`` cannot import Qt) to
measure the window as a user meets it, with whatever cache folder ``WORKBENCH_HOME`` names (empty
for a cold figure). Offscreen (``QT_QPA_PLATFORM`` defaults to ``offscreen``). Prints one JSON
line and exits:

* ``populated``: seconds from the interpreter's first line to the skills tree holding
  ``EXPECTED`` skills (``--screenshot`` would render from then on), imports included;
* ``complete``: every client scanned and every listing rendered (seconds, same origin);
* ``max_block_ms`` / ``blocks_over_50ms``: the longest gap between ticks of a 5 ms ``QTimer`` on
  the GUI thread after the window is shown (a gap is time the event loop could not run: work on
  the GUI thread), and how many gaps exceeded 50 ms; ``window_build_s``: building the window
  (before the event loop; not counted as a block);
* ``rss_mb``: the process's peak resident set size (MB, ``VmHWM``; see ``_peak_rss_mb``).
"""

from __future__ import annotations

import time

T0 = time.perf_counter()

import json  # noqa: E402 - the clock starts before any import
import os  # noqa: E402
import sys  # noqa: E402


def main(argv: list[str]) -> int:
    """Run the measurement (see the module docstring); 2 on bad arguments."""
    if len(argv) != 3:
        print(__doc__.splitlines()[0], file=sys.stderr)
        return 2
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    import resource

    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QApplication

    from workbench.app import _shiboken_none

    _shiboken_none.apply()
    app = QApplication.instance() or QApplication(sys.argv[:1])
    from workbench.app.main import build_window
    from workbench.cli import gui_parser

    expected = int(argv[2])
    args = gui_parser().parse_args([argv[0], "--home", argv[1], "--screenshot", os.devnull])
    t_build = time.perf_counter()
    _settings, ctx, win = build_window(args, persist_settings=False, watch=False)
    win.resize(1400, 900)
    win.show()
    out: dict = {"window_build_s": round(time.perf_counter() - t_build, 3)}
    gaps: list[float] = []
    last = [time.perf_counter()]

    def tick() -> None:
        now = time.perf_counter()
        gaps.append(now - last[0])
        last[0] = now

    def check() -> None:  # after the widgets' own slots for the change have run
        now = time.perf_counter()
        if "populated" not in out and win.skills.model.skill_count() >= expected:
            out["populated"] = round(now - T0, 3)
        if "populated" in out and not ctx.scanning and not ctx.listings_pending:
            out["complete"] = round(now - T0, 3)
            app.quit()

    ctx.catalog_changed.connect(lambda: QTimer.singleShot(0, check))
    poll = QTimer()  # the listings' background render ends without a signal of its own
    poll.timeout.connect(check)
    poll.start(50)
    timer = QTimer()
    timer.timeout.connect(tick)
    timer.start(5)
    QTimer.singleShot(300_000, app.quit)
    app.exec()
    ctx.shutdown()
    out["max_block_ms"] = round(1000 * max(gaps, default=0.0), 1)
    out["blocks_over_50ms"] = sum(1 for g in gaps if g > 0.050)
    out["rss_mb"] = _peak_rss_mb(resource)
    sys.stdout.write(json.dumps(out) + "\n")
    sys.stdout.flush()
    os._exit(0)  # like the CLI's fast exit: no teardown of 10,000 tree items


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
