"""Background work for the GUI: run a function on the thread pool, get results as signals.

Style (style.md section 7 habits 7 and 8): nothing slow runs on the GUI thread; a job reports
``started / progress / returned / errored / finished`` through a QObject living on the GUI thread
(queued connections, so slots run on the GUI thread); every job carries a ``token`` that only
increases, so a consumer can drop stale results (git-cola's stale-token guard).

Typical use::

    job = run_in_background(scan_everything, env, progress=True,
                            connect={"progress": on_progress, "returned": on_result})

With ``progress=True`` the function gets a keyword ``progress(done, total)`` (ints); with
``yields=True`` a keyword ``emit(obj)`` that delivers intermediate results (``yielded``).
"""

from __future__ import annotations

import itertools
import threading
import traceback
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QObject, QRunnable, QThreadPool, QTimer, Signal

_tokens = itertools.count(1)


class JobSignals(QObject):
    """Signals of one background job.

    Signals:
        started(int): token.
        progress(int, int, int): token, done, total.
        yielded(int, object): token, an intermediate result (``emit(obj)`` inside the function).
        returned(int, object): token, the function's return value.
        errored(int, str): token, a one-line message followed by the traceback.
        finished(int): token (after returned or errored).
    """

    started = Signal(int)
    progress = Signal(int, int, int)
    yielded = Signal(int, object)
    returned = Signal(int, object)
    errored = Signal(int, str)
    finished = Signal(int)


class Job(QRunnable):
    """A function call on the global thread pool. ``cancel()`` sets ``cancelled`` (a
    ``threading.Event``) which a cooperative function may poll through ``progress``: once it is
    set, calling ``progress`` raises ``Cancelled``."""

    def __init__(
        self,
        fn: Callable[..., Any],
        *args: Any,
        with_progress: bool = False,
        with_yield: bool = False,
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

    def cancel(self) -> None:
        self.cancelled.set()

    def _progress(self, done: int, total: int) -> None:
        if self.cancelled.is_set():
            raise Cancelled()
        self._emit("progress", self.token, int(done), int(total))

    def _emit(self, signal_name: str, *args: Any) -> None:
        try:
            getattr(self.signals, signal_name).emit(*args)
        except RuntimeError:  # the receiver side went away (app shutting down)
            pass

    def run(self) -> None:  # Override QRunnable::run (worker thread)
        self._emit("started", self.token)
        try:
            kw = dict(self.kwargs)
            if self.with_progress:
                kw["progress"] = self._progress
            if self.with_yield:
                kw["emit"] = lambda obj: self._emit("yielded", self.token, obj)
            result = self.fn(*self.args, **kw)
        except Cancelled:
            self._emit("errored", self.token, "cancelled")
        except Exception as exc:  # noqa: BLE001 - reported to the GUI, never swallowed
            self._emit("errored", self.token, f"{type(exc).__name__}: {exc}\n{traceback.format_exc()}")
        else:
            self._emit("returned", self.token, result)
        finally:
            self.done.set()
            self._emit("finished", self.token)


class Cancelled(Exception):
    """Raised inside a job's ``progress`` callback after ``Job.cancel()``."""


_running: set[Job] = set()


def run_in_background(
    fn: Callable[..., Any],
    *args: Any,
    progress: bool = False,
    yields: bool = False,
    pool: QThreadPool | None = None,
    connect: dict[str, Callable[..., Any]] | None = None,
    **kwargs: Any,
) -> Job:
    """Start ``fn(*args, **kwargs)`` on ``pool`` (default: the global pool) and return the Job.

    ``connect`` maps signal names of ``JobSignals`` ("returned", "errored", "progress",
    "yielded", "started", "finished") to slots; they are connected *before* the job starts.
    Always use it for results: a fast job can emit before a connection made after this call
    returns, and a signal emitted with nothing connected is lost (a test caught exactly that).
    """
    job = Job(fn, *args, with_progress=progress, with_yield=yields, **kwargs)
    for name, slot in (connect or {}).items():
        getattr(job.signals, name).connect(slot)
    _running.add(job)
    job.signals.finished.connect(lambda _t, j=job: _running.discard(j))
    (pool or QThreadPool.globalInstance()).start(job)
    return job


def wait_all(timeout_ms: int = 30_000) -> bool:
    """Block until every job started here finished (for shutdown and tests)."""
    return QThreadPool.globalInstance().waitForDone(timeout_ms)


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
