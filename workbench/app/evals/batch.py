"""Batch evals in the GUI: the batch flow (estimate → confirm → submit → poll → collect) off the
GUI thread, on the app's runner. Thin over ``workbench.core.evals.batch``.

``BatchFlow(parent, confirm=None, poll_seconds=30)``: ``start(runners_fn, sdk, store, workspace,
roots, extra)`` runs ``runners_fn()`` and the cost estimate in the background, asks ``confirm(est)
-> bool`` on the GUI thread (default: a ``QMessageBox`` with the estimate), then submits, polls and
collects in the background. ``resume(rec, catalog, sdk, store)`` picks up a stored batch eval.
``cancel()`` cancels the batches on the server (what had finished is still collected).
``detach(timeout)`` (window closing): stops polling and waits for the worker, leaves the batches
running on the server (the stored record lets "Resume batch…" collect them after a restart),
emits nothing more and closes the flow's SDK client. Signals:
``progress(dict)`` (the batch poll events), ``estimated(dict)``, ``submitted(dict)`` (the record),
``done(list, object)`` (reports, ``BatchEval``), ``failed(str)``, ``ended()`` (always, last).
``close_sdk=True`` (``start``/``resume``) hands the SDK client to the flow: closed on ``ended``.

The Evals pane's "Run as batch" is ``panebatch.PaneBatch``; the collection window is
``collection.CollectionWindow``; the heat-map is ``matrix.MatrixView``.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import (
    QWidget,
)

from workbench.app.dialogs import ask_yes_no
from workbench.app.workers import describe, run_in_background

log = logging.getLogger(__name__)


def estimate_text(est: dict) -> str:
    """One paragraph describing a batch cost estimate (``BatchEval.estimate``)."""
    usd = "n/a (unknown model price)" if est.get("usd") is None else f"≈ ${est['usd']:.4f}"
    more = (
        ""
        if est.get("usd") is None
        else (f" (direct API ≈ ${est['usd_direct']:.4f}; upper bound ${est['max_usd']:.4f})")
    )
    return (
        f"{est['requests']:,} requests in {est['batches']} batch(es), {est['input_tokens']:,} input "
        f"tokens counted. Estimated cost {usd} at the batch price{more}. {est['assumption']}"
    )


class BatchFlow(QObject):
    """Estimate → confirm → submit → poll → collect off the GUI thread (module docstring)."""

    progress = Signal(object)
    estimated = Signal(object)
    submitted = Signal(object)
    done = Signal(object, object)
    failed = Signal(str)
    ended = Signal()

    def __init__(
        self,
        parent: QObject | None = None,
        confirm: Callable[[dict], bool] | None = None,
        poll_seconds: float = 30.0,
    ) -> None:
        super().__init__(parent)
        self.confirm = confirm
        self.poll_seconds = poll_seconds
        self.batch: Any = None
        self.last_estimate: dict | None = None
        self._cancel = threading.Event()
        self._detached = threading.Event()
        self._job: Any = None
        self._own_sdk: Any = None  # the client to close when the flow ends (``close_sdk=True``)
        self.ended.connect(self._close_sdk)

    def _close_sdk(self) -> None:
        sdk, self._own_sdk = self._own_sdk, None
        if sdk is not None:
            sdk.close()

    @property
    def running(self) -> bool:
        return self._job is not None

    def _run(self, fn: Callable[..., Any], done: Callable[[Any], None]) -> None:
        """Run ``fn(emit=...)`` in the background; ``emit(event)`` reaches ``progress`` on the GUI
        thread, the result reaches ``done``, an exception ``failed`` (logged with its traceback)."""
        self._job = run_in_background(
            fn,
            yields=True,
            connect={
                "yielded": lambda _t, ev: self.progress.emit(ev),
                "returned": lambda _t, res: done(res),
                "errored": lambda _t, exc: self._fail(exc),
            },
        )

    def _fail(self, exc: BaseException) -> None:
        self._job = None
        if self._detached.is_set():
            return
        log.warning("batch eval failed", exc_info=exc)
        self.failed.emit(describe(exc))
        self.ended.emit()

    def start(
        self,
        runners_fn: Callable[[], list],
        sdk: Any,
        store: Any,
        *,
        workspace: Any = None,
        roots: list | None = None,
        extra: dict | None = None,
        close_sdk: bool = False,
    ) -> None:
        """Build the runners and estimate (background), confirm, then submit and wait.
        ``close_sdk``: the flow closes ``sdk`` when it ends (``ended``), however it ends."""
        from workbench.core.evals.batch import BatchEval

        self._cancel = threading.Event()
        self._own_sdk = sdk if close_sdk else None

        def estimate(emit: Callable[[Any], None]) -> tuple:
            be = BatchEval(runners_fn(), sdk)
            return be, be.estimate()

        def estimated(res: Any) -> None:
            be, est = res
            self.batch, self.last_estimate = be, est
            self.estimated.emit(est)
            if not self._ask(est):
                self._job = None
                self.failed.emit("Not submitted.")
                self.ended.emit()
                return
            self._run(
                lambda emit: self._submit_wait(be, store, workspace, roots, est, extra, emit), self._collected
            )

        self._run(estimate, estimated)

    def _ask(self, est: dict) -> bool:
        if self.confirm is not None:
            return bool(self.confirm(est))
        p = self.parent()
        parent = p if isinstance(p, QWidget) else None
        return ask_yes_no(parent, "Submit batch eval?", estimate_text(est) + "\n\nSubmit?")

    def _submit_wait(
        self, be: Any, store: Any, workspace: Any, roots: Any, est: dict, extra: Any, emit: Callable
    ) -> tuple | None:
        rec = be.submit(store, workspace=workspace, roots=roots, estimate=est, extra=extra)
        emit({"type": "submitted", "record": rec})
        return self._wait(be, emit)

    def _wait(self, be: Any, emit: Callable[[Any], None]) -> tuple | None:
        interval = self.poll_seconds
        while not be.wait(self._cancel, emit, poll_seconds=interval):
            if self._detached.is_set():
                return None  # detached: the batches go on on the server
            # Cancel pressed: cancel on the server, then poll (every second at most) until the
            # batch has ended; what had finished is collected
            be.cancel()
            self._cancel = threading.Event()
            interval = min(interval, 1.0)
        return be.collect(), be

    def resume(
        self, rec: dict, catalog: Any, sdk: Any, store: Any, settings: Any = None, close_sdk: bool = False
    ) -> None:
        """Pick up the stored batch eval ``rec`` (background): poll until it ended and collect.
        ``close_sdk`` as in ``start``."""
        from workbench.core.evals.batch import BatchEval

        self._cancel = threading.Event()
        self._own_sdk = sdk if close_sdk else None

        def work(emit: Callable[[Any], None]) -> tuple | None:
            be = BatchEval.from_record(rec, catalog, sdk, settings=settings)
            be.store = store
            self.batch = be
            return self._wait(be, emit)

        self._run(work, self._collected)

    def _collected(self, res: Any) -> None:
        self._job = None
        if res is None or self._detached.is_set():
            return
        reports, be = res
        self.done.emit(reports, be)
        self.ended.emit()

    def cancel(self) -> None:
        """Cancel the batches on the server (results so far are still collected)."""
        self._cancel.set()

    def detach(self, timeout: float = 10.0) -> None:
        """Stop polling without cancelling anything on the server (the app is closing): wait up to
        ``timeout`` seconds for the worker, emit no more signals, close the SDK client this flow
        owns (``close_sdk=True``). A stored batch eval is collected later by "Resume batch…"."""
        self._detached.set()
        self._cancel.set()
        job = self._job
        if job is not None:
            job.wait(timeout)
        self._job = None
        self._close_sdk()


def batch_status(ev: dict) -> str:
    """The status line of a batch poll event."""
    c = ev["counts"]
    return (
        f"Batch: {c['processing']} processing · {c['succeeded']} succeeded · {c['errored']} errored · "
        f"{c['canceled']} canceled · {c['expired']} expired ({ev['seconds']:.0f} s)"
    )
