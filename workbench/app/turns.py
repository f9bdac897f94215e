"""``LoopTurns``: the GUI thread's event-loop turns, as background jobs need them.

* ``baton``: a ``core.giveway.Baton``. The window's scan job runs inside ``baton.applied()`` and
  takes turns with the GUI thread: ``start_slicing()`` starts a 1 ms timer whose every tick lets
  the job run one slice (``SLICE_S``) while the GUI thread waits, so the two never compete for
  the GIL (issue 14: a GUI turn of 55 ms of its own CPU lasted 130-200 ms while the scan thread
  ran Python), and sets a shorter GIL switch interval (``GIL_SWITCH_S``) for the parts that run
  beside it. A tick only comes when the event loop has handled what was pending (input,
  paint, posted events), so the GUI's work goes first and a block is one slice plus one turn.
* ``when_idle(fn)``: call ``fn`` once every turn the panes deferred with ``defer()`` has run (a
  partial scan result is shown over several turns; the scan job waits for that, ``Baton.away``,
  before it renders the first client's listing beside them: that render made a 100 ms block).
  Checked when the loop is about to block (``aboutToBlock``: with the glib dispatcher that is the
  start of every loop iteration, busy or not, hence the count). ``run_idle()`` does it by hand
  for loops driven by ``processEvents`` (tests, ``--screenshot``), which never block.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable

from PySide6.QtCore import QAbstractEventDispatcher, QObject, Qt, QTimer

from workbench.core.giveway import Baton

#: Seconds the scan job runs per turn it is given (a GUI-thread block is at most this plus the
#: GUI's own work in one turn).
SLICE_S = 0.015

#: Seconds the GUI thread waits for a slice to end before it goes on regardless (a job inside
#: one long call without a give-way point).
SLICE_TIMEOUT_S = 0.01

#: The interpreter's GIL switch interval in the window (seconds; CPython's default is 0.005): how
#: long a thread that wants the GIL waits before it asks the running thread to drop it. The scan
#: job's listing renders have no give-way point (``Baton.away``) and run beside the GUI thread,
#: which takes the GIL back at each return from Qt into Python: 0.5 ms instead of 5 ms per
#: return (window on 10,000 skills at load 4-5: longest block 91-374 -> 45-71 ms).
GIL_SWITCH_S = 0.0005


#: A slicer tick this long (seconds) after the previous one means the event loop was busy in
#: between (its 1 ms interval otherwise): no slice in that turn.
BUSY_S = 0.005

#: ``defer``'s delay (ms): a real timer, activated after the timers already due.
DEFER_MS = 1

_deferred: set[int] = set()  # ``defer`` calls not yet run (ids), on the GUI thread only
_next_id = [0]


def defer(owner: QObject, fn: Callable[[], None]) -> None:
    """Run ``fn`` on a later turn of the GUI thread (a 1 ms single-shot timer: dropped with
    ``owner``), counted until it has run or ``owner`` is destroyed: ``LoopTurns.when_idle``
    waits for every such call. For a pane's work split over turns (issue 14). Not
    ``singleShot(0)``: Qt 6 posts that as an event, and a chain of posted events (each with the
    paint it causes) ran as one block, before any timer that came due meanwhile."""
    _next_id[0] += 1
    key = _next_id[0]
    _deferred.add(key)

    def run() -> None:
        _deferred.discard(key)
        QObject.disconnect(conn)
        fn()

    conn = owner.destroyed.connect(lambda *_: _deferred.discard(key))
    QTimer.singleShot(DEFER_MS, owner, run)


def deferred_pending() -> int:
    """How many ``defer`` calls have not run yet."""
    return len(_deferred)


class LoopTurns(QObject):
    """The GUI thread's turns: the scan's ``baton`` and ``when_idle`` calls (module docstring).
    Create it on the GUI thread once the ``QApplication`` exists; ``close()`` ends both."""

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        sys.setswitchinterval(GIL_SWITCH_S)  # process-wide: the window's process only
        self.baton = Baton(SLICE_S)
        self._idle_calls: list[Callable[[], None]] = []
        self._disp: QAbstractEventDispatcher | None = QAbstractEventDispatcher.instance()
        self._slicer = QTimer(self)
        self._slicer.setInterval(1)
        self._slicer.setTimerType(Qt.TimerType.PreciseTimer)
        self._slicer.timeout.connect(self._slice)
        self._last_tick = 0.0  # perf_counter at the end of the last ``_slice``
        self._skipped = False  # the last ``_slice`` gave no slice (the loop was busy)

    def start_slicing(self) -> None:
        """A job using ``baton`` was started: give it turns until ``stop_slicing``."""
        self._last_tick = time.perf_counter()
        self._slicer.start()

    def stop_slicing(self) -> None:
        """No job uses ``baton`` any more."""
        self._slicer.stop()

    def _slice(self) -> None:
        now = time.perf_counter()
        busy = now - self._last_tick > BUSY_S  # the loop did other work since the last tick
        self._last_tick = now
        if busy and not self._skipped:  # that work (a paint, a pane's turn) and a slice would
            self._skipped = True  # make one long block: the timers due meanwhile first, the
            self._slicer.start()  # slice a tick later (once: a busy loop must not starve it)
            return
        self._skipped = False
        if self.baton.run_slice(SLICE_TIMEOUT_S) and self._slicer.isActive():
            # the next slice 1 ms from now, not from when this one began: the timers that came
            # due during it go first (else two slices could run back to back in one turn)
            self._slicer.start()
        self._last_tick = time.perf_counter()

    def when_idle(self, fn: Callable[[], None]) -> None:
        """Call ``fn`` (on the GUI thread) once the event loop has nothing left to do."""
        if self._disp is None:  # pragma: no cover - no event loop in this thread
            QTimer.singleShot(0, self, fn)
            return
        if not self._idle_calls:
            self._disp.aboutToBlock.connect(self.run_idle)
        self._idle_calls.append(fn)

    def run_idle(self) -> None:
        """Call what ``when_idle`` queued, once no ``defer`` call is pending (the loop is idle)."""
        if self._idle_calls and not _deferred:
            calls, self._idle_calls = self._idle_calls, []
            if self._disp is not None:
                self._disp.aboutToBlock.disconnect(self.run_idle)
            for fn in calls:
                fn()

    def close(self) -> None:
        """Window close: no more slices (a job waiting for a turn goes on at once) and no more
        idle calls."""
        self._slicer.stop()
        self.baton.release()
        if self._idle_calls and self._disp is not None:
            self._disp.aboutToBlock.disconnect(self.run_idle)
        self._idle_calls = []
