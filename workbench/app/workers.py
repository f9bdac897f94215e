"""The app's one background runner: run a function off the GUI thread, get results as signals.

Every pane uses it (napari's single worker helper is the model); nothing else in ``app/`` creates
threads or pools. Style (style.md section 7 habits 7 and 8): nothing slow runs on the GUI thread;
a job reports ``started / progress / yielded / returned / errored / cancelled / finished`` through
a QObject living on the GUI thread (queued connections, so slots run on the GUI thread); every job
carries a ``token`` that only increases, so a consumer can drop stale results (git-cola's
stale-token guard).

Results and errors travel as objects: ``returned`` carries the return value, ``errored`` the
exception instance itself (its ``__traceback__`` intact; ``describe(exc)`` makes the one-line
message). Cancellation is explicit: ``job.cancel()`` sets ``job.cancelled``; the function sees it
through ``progress`` (it raises ``Cancelled``) or by polling ``cancel_event=True``; a
job that raises once cancelled emits ``cancelled`` (never ``errored``); one that returns anyway
delivers its (partial) result through ``returned``.

Typical use::

    job = run_in_background(scan_everything, env, progress=True,
                            connect={"progress": on_progress, "returned": on_result,
                                     "errored": on_error})

With ``progress=True`` the function gets a keyword ``progress(done, total)`` (ints); with
``yields=True`` a keyword ``emit(obj)`` that delivers intermediate results (``yielded``); with
``cancel_event=True`` a keyword ``cancel_event`` (the job's ``threading.Event``). ``lane="name"``
runs the job on a named lane of ``LANE_THREADS`` threads (default one: jobs of such a lane run one
at a time, in the order started — the editor's recovery writes); other jobs share Qt's global pool.
"""

from __future__ import annotations

import itertools
import logging
import threading
import time
from collections.abc import Callable, Iterable
from typing import Any

from PySide6.QtCore import QObject, QRunnable, QThreadPool, QTimer, Signal

log = logging.getLogger(__name__)

_tokens = itertools.count(1)


class Cancelled(Exception):
    """Raised inside a job's ``progress`` callback after ``Job.cancel()``."""


def describe(exc: BaseException | str) -> str:
    """The one-line message for an error a job reported: ``"Type: message"`` (or the text)."""
    if isinstance(exc, str):
        return exc.splitlines()[0] if exc else ""
    text = str(exc).strip()
    first = text.splitlines()[0] if text else ""
    return f"{type(exc).__name__}: {first}" if first else type(exc).__name__


class JobSignals(QObject):
    """Signals of one background job.

    Signals:
        started(int): token.
        progress(int, int, int): token, done, total.
        yielded(int, object): token, an intermediate result (``emit(obj)`` inside the function).
        returned(int, object): token, the function's return value.
        errored(int, object): token, the exception instance (``__traceback__`` set).
        cancelled(int): token; the job was cancelled (``Job.cancel()``) before it returned.
        finished(int): token (after returned, errored or cancelled).
    """

    started = Signal(int)
    progress = Signal(int, int, int)
    yielded = Signal(int, object)
    returned = Signal(int, object)
    errored = Signal(int, object)
    cancelled = Signal(int)
    finished = Signal(int)


class Job(QRunnable):
    """A function call on a thread pool (see the module docstring for the keywords it gets).

    ``cancel()`` sets ``cancelled`` (a ``threading.Event``); ``done`` is set once the function
    ended; ``wait(timeout_s)`` blocks until then (True when it did).
    """

    def __init__(
        self,
        fn: Callable[..., Any],
        *args: Any,
        with_progress: bool = False,
        with_yield: bool = False,
        with_cancel_event: bool = False,
        **kwargs: Any,
    ) -> None:
        super().__init__()
        self.setAutoDelete(False)  # the Python object owns it; kept alive by _running
        self.fn, self.args, self.kwargs = fn, args, kwargs
        self.token = next(_tokens)
        self.signals = JobSignals()
        self.cancelled = threading.Event()
        self.done = threading.Event()
        self.with_progress = with_progress
        self.with_yield = with_yield
        self.with_cancel_event = with_cancel_event

    def cancel(self) -> None:
        """Ask the job to stop: ``progress`` raises ``Cancelled`` from now on and the
        ``cancel_event`` passed to the function is set."""
        self.cancelled.set()

    def wait(self, timeout_s: float | None = None) -> bool:
        """Block until the function ended (True) or ``timeout_s`` passed (False)."""
        return self.done.wait(timeout_s)

    def _progress(self, done: int, total: int) -> None:
        if self.cancelled.is_set():
            raise Cancelled()
        self._emit("progress", self.token, int(done), int(total))

    def _yield(self, obj: Any) -> None:
        # never raises: ``emit`` may be called from a library's own worker threads (the eval
        # runner's), which must be able to wind down and report after a cancel
        self._emit("yielded", self.token, obj)

    def _emit(self, signal_name: str, *args: Any) -> None:
        try:
            getattr(self.signals, signal_name).emit(*args)
        except RuntimeError:  # the receiver side went away (app shutting down)
            log.debug("job %d: %s not delivered (receiver gone)", self.token, signal_name)

    def run(self) -> None:  # Override QRunnable::run (worker thread)
        self._emit("started", self.token)
        try:
            kw = dict(self.kwargs)
            if self.with_progress:
                kw["progress"] = self._progress
            if self.with_yield:
                kw["emit"] = self._yield
            if self.with_cancel_event:
                kw["cancel_event"] = self.cancelled
            result = self.fn(*self.args, **kw)
        except Cancelled:
            self._emit("cancelled", self.token)
        except Exception as exc:  # noqa: BLE001 - reported to the GUI as the object, never swallowed
            log.debug("job %d (%s) failed", self.token, _name(self.fn), exc_info=exc)
            if self.cancelled.is_set():
                self._emit("cancelled", self.token)
            else:
                self._emit("errored", self.token, exc)
        else:  # a function that returns after cancel() chose to: its (partial) result is delivered
            self._emit("returned", self.token, result)
        finally:
            self.done.set()
            self._emit("finished", self.token)


def _name(fn: Callable[..., Any]) -> str:
    return getattr(fn, "__qualname__", None) or repr(fn)


def _unhandled(token: int, name: str, exc: BaseException) -> None:
    """The ``errored`` slot of a job started without one: the error is logged, never lost."""
    log.warning("background job %d (%s) failed", token, name, exc_info=exc)


_running: set[Job] = set()
_lanes: dict[str, QThreadPool] = {}

#: Threads of the named lanes (others get one). The editor's lint and preview jobs get their own
#: two threads so a long scan on the global pool never delays a keystroke's diagnostics.
LANE_THREADS = {"editor": 2}


def _pool(lane: str | None) -> QThreadPool:
    if lane is None:
        return QThreadPool.globalInstance()
    pool = _lanes.get(lane)
    if pool is None:
        pool = _lanes[lane] = QThreadPool()
        pool.setMaxThreadCount(LANE_THREADS.get(lane, 1))
    return pool


def run_in_background(
    fn: Callable[..., Any],
    *args: Any,
    progress: bool = False,
    yields: bool = False,
    cancel_event: bool = False,
    lane: str | None = None,
    connect: dict[str, Callable[..., Any]] | None = None,
    **kwargs: Any,
) -> Job:
    """Start ``fn(*args, **kwargs)`` off the GUI thread and return the Job.

    ``connect`` maps signal names of ``JobSignals`` ("returned", "errored", "cancelled",
    "progress", "yielded", "started", "finished") to slots; they are connected *before* the job
    starts. Always use it for results: a fast job can emit before a connection made after this
    call returns, and a signal emitted with nothing connected is lost (a test caught exactly
    that). An "errored" slot gets ``(token, exception)``; without one the error is logged as a
    warning (logger ``workbench.app.workers``). ``lane`` names a one-thread queue
    (see ``LANE_THREADS``); None = Qt's global pool.
    """
    job = Job(fn, *args, with_progress=progress, with_yield=yields, with_cancel_event=cancel_event, **kwargs)
    slots = dict(connect or {})
    fn_name = _name(fn)
    slots.setdefault("errored", lambda token, exc: _unhandled(token, fn_name, exc))
    for name, slot in slots.items():
        getattr(job.signals, name).connect(slot)
    _running.add(job)
    job.signals.finished.connect(lambda _t, j=job: _running.discard(j))
    _pool(lane).start(job)
    return job


def wait_all(timeout_ms: int = 30_000) -> bool:
    """Block until every job started here finished (for shutdown and tests), lanes included."""
    ok = True
    for lane in list(_lanes.values()):
        ok = lane.waitForDone(timeout_ms) and ok
    return QThreadPool.globalInstance().waitForDone(timeout_ms) and ok


def wait_jobs(jobs: Iterable[Job], timeout_ms: int = 30_000) -> bool:
    """Block until each of ``jobs`` ended (True) or ``timeout_ms`` passed in all (False)."""
    deadline = time.monotonic() + timeout_ms / 1000
    return all(job.wait(max(0.0, deadline - time.monotonic())) for job in list(jobs))


class Debouncer(QObject):
    """Coalesce bursts of calls into one, ``delay_ms`` after the last (single-shot QTimer).

    ``trigger()`` (re)starts the timer; ``callback`` runs once on the GUI thread. ``flush()`` runs
    a pending call now (used before screenshots and in tests).
    """

    def __init__(self, delay_ms: int, callback: Callable[[], None], parent: QObject | None = None):
        super().__init__(parent)
        self._cb = callback
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(delay_ms)
        self._timer.timeout.connect(self._cb)

    def trigger(self) -> None:
        self._timer.start()

    @property
    def pending(self) -> bool:
        return self._timer.isActive()

    def flush(self) -> None:
        if self._timer.isActive():
            self._timer.stop()
            self._cb()

    def cancel(self) -> None:
        self._timer.stop()
