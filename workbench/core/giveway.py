"""Give-way points: a background job runs in slices between the foreground thread's turns.

CPython runs one thread's bytecode at a time (the GIL). While the window's scan thread runs Python,
the GUI thread waits for the GIL every time it comes back from Qt into Python (each model
``data()`` call, each slot): up to ``sys.getswitchinterval()`` (5 ms) per return, so a GUI turn of
55 ms of its own CPU lasted 130-200 ms (issue 14: no GUI-thread block over 50 ms). Qt's event
dispatcher signals cannot tell a background thread when the GUI is busy (with the glib dispatcher
``aboutToBlock`` is emitted before every iteration, busy or not, and ``awake`` after it).

So the two take turns instead of competing: a ``Baton``. The background job calls ``give_way()``
at points where a pause is harmless (between skills, between clients); inside ``Baton.applied()``
a point whose slice (``slice_s``) is used up hands the turn back and waits until the foreground
calls ``run_slice()`` (the window does so from a 1 ms timer: when its event loop has nothing
more urgent). A job that gets no turn within ``max_wait_s`` (no foreground loop gives turns, or
one turn takes that long) runs on unattended until the next ``run_slice()``. The foreground waits while the slice runs: the two never run Python at the same
time, a GUI turn is never slowed by the job, and the job never waits longer than the GUI's own
work. ``run_slice`` gives up waiting after ``timeout_s`` (a job stuck in one long C call, no
give-way point), and ``release()`` ends the turns for good (window close). A job that must wait
for the foreground (a partial result being shown) does so inside ``away()``.

Anywhere outside ``Baton.applied()``, ``give_way()`` is one thread-local look-up (~50 ns).
Nothing here imports Qt.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

_local = threading.local()


class Baton:
    """Turns between one foreground thread and one background job (module docstring).

    Args:
        slice_s: how long the background runs before it gives the turn back (seconds; checked
            at its give-way points, so a slice lasts until the first point after that).

    Attributes:
        slices: slices run so far (for tests and the bench).
    """

    def __init__(self, slice_s: float = 0.015, max_wait_s: float = 1.0) -> None:
        self.slice_s = slice_s
        self.max_wait_s = max_wait_s
        self.slices = 0
        self._cv = threading.Condition(threading.Lock())
        self._bg_turn = False  # the background holds the turn (a slice is running)
        self._waiting = False  # the background waits for a turn at a give-way point
        self._released = False  # no more turns: give_way is a no-op
        self._unattended = False  # no turn came within max_wait_s: run on until run_slice
        self._given = False  # the foreground has called ``run_slice`` since ``reset``
        self._slice_end = 0.0

    # -- background side ---------------------------------------------------------------------
    def give_way(self) -> None:
        """In the background job: hand the turn back once the slice is used up, and wait for
        the next one (``run_slice``)."""
        if self._released or self._unattended or time.perf_counter() < self._slice_end:
            return
        with self._cv:
            self._bg_turn = False
            self._waiting = True
            self._cv.notify_all()
            if not self._cv.wait_for(lambda: self._bg_turn or self._released, self.max_wait_s):
                self._unattended = True  # nobody gives turns (no event loop): run on
            self._waiting = False
        self._slice_end = time.perf_counter() + self.slice_s

    @contextmanager
    def applied(self) -> Iterator[Baton]:
        """In the background thread: ``give_way()`` takes turns on this baton inside the block
        (the first slice starts at once; before the foreground's first ``run_slice`` since
        ``reset``, the job runs unattended). Leaving the block hands the turn back for good."""
        outer = getattr(_local, "baton", None)
        _local.baton = self
        self._unattended = not self._given  # until the foreground gives turns, none is awaited
        self._slice_end = time.perf_counter() + self.slice_s
        try:
            yield self
        finally:
            _local.baton = outer
            with self._cv:
                self._bg_turn = self._waiting = False
                self._cv.notify_all()

    @contextmanager
    def away(self) -> Iterator[None]:
        """In the background job, around a wait for the foreground (e.g. for it to show a
        partial result): the foreground does not wait for this thread meanwhile; after the block
        the job waits for its next turn."""
        with self._cv:
            self._bg_turn = False
            self._cv.notify_all()
        try:
            yield
        finally:
            self._slice_end = 0.0
            self.give_way()

    # -- foreground side ---------------------------------------------------------------------
    def run_slice(self, timeout_s: float = 0.25) -> bool:
        """In the foreground: when the background waits for a turn, let it run one slice and
        wait until it gives the turn back (at most ``timeout_s``: then both run on). Returns True
        when a slice was started."""
        with self._cv:
            self._given = True
            self._unattended = False  # turns are given: an unattended job waits for them again
            if not self._waiting or self._released:
                return False
            self._bg_turn = True
            self.slices += 1
            self._cv.notify_all()
            if not self._cv.wait_for(lambda: not self._bg_turn or self._released, timeout_s):
                self._bg_turn = False  # it goes on until its next give-way point, then waits
        return True

    def reset(self) -> None:
        """Before a new job: it runs unattended until the foreground's first ``run_slice``
        (e.g. the window gives turns only once it has something to show)."""
        with self._cv:
            self._given = False
            self._unattended = True

    def release(self) -> None:
        """No more turns: a waiting background job goes on, ``give_way`` returns at once."""
        with self._cv:
            self._released = True
            self._cv.notify_all()

    @property
    def waiting(self) -> bool:
        """True while the background job waits for a turn."""
        return self._waiting


def give_way() -> None:
    """A point where the calling background job may pause for the foreground: takes turns on
    the baton of the enclosing ``Baton.applied()`` block of this thread; a no-op without one."""
    baton = getattr(_local, "baton", None)
    if baton is not None:
        baton.give_way()


def current_baton() -> Baton | None:
    """The baton ``give_way()`` takes turns on in this thread, or None (look it up once before a
    loop, then call its ``give_way`` per step)."""
    return getattr(_local, "baton", None)


@contextmanager
def away() -> Iterator[None]:
    """``Baton.away()`` of this thread's baton, or nothing: around work that has no give-way
    point inside (e.g. one client's listing render) or waits for another thread, so the
    foreground does not wait for it (both threads then run, sharing the GIL)."""
    baton = getattr(_local, "baton", None)
    if baton is None:
        yield
    else:
        with baton.away():
            yield
