"""The collection-eval window, opened from the Evals pane ("Collection…"): every skill's query
set against the whole listing. A queries folder (default ``<workspace>/evals``), direct or "Run as
batch", Run / Cancel, the heat-map (``matrix.MatrixView``), exports. Thin over
``workbench.core.evals.collection``.
"""

from __future__ import annotations

import dataclasses
import logging
import threading
from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QFileDialog,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from workbench.app.evals.batch import BatchFlow, batch_status
from workbench.app.evals.matrix import MatrixView
from workbench.app.workers import Job, describe, run_in_background
from workbench.core.evals.collection import ConfusionMatrix

log = logging.getLogger(__name__)


class CollectionWindow(QWidget):
    """Collection eval over the pane's catalog (module docstring). ``pane``: the ``EvalsPane``
    (its environment, settings, key, runs/threshold/concurrency and history are used)."""

    finished = Signal(object)  # ConfusionMatrix

    def __init__(self, pane: Any, parent: QWidget | None = None) -> None:
        super().__init__(parent, Qt.WindowType.Window)
        self.pane = pane
        self.setWindowTitle("Collection eval — confusion matrix")
        self.reports: list = []
        self._job: Any = None
        self.flow = BatchFlow(self, poll_seconds=30.0)
        self.flow.progress.connect(self._on_batch)
        self.flow.done.connect(lambda reps, be: self._show(reps))
        self.flow.failed.connect(lambda msg: self._say(msg, True))
        self.flow.ended.connect(lambda: self._set_running(False))
        self.dir_edit = QLineEdit(self)
        self.dir_edit.setPlaceholderText("folder of <skill>.json / .yaml query sets")
        env = pane._env()
        if env is not None and env[0] is not None:
            self.dir_edit.setText(str(Path(env[0].workspace) / "evals"))
        browse = QPushButton("Browse…", self)
        browse.clicked.connect(self._browse)
        self.batch_check = QCheckBox("Run as batch", self)
        self.batch_check.setChecked(pane.batch_check.isChecked())
        self.run_btn = QPushButton("Run", self)
        self.run_btn.clicked.connect(self.start)
        self.cancel_btn = QPushButton("Cancel", self)
        self.cancel_btn.clicked.connect(self.cancel)
        self.html_btn = QPushButton("Export HTML…", self)
        self.html_btn.clicked.connect(lambda: self._export("html"))
        self.png_btn = QPushButton("Export PNG…", self)
        self.png_btn.clicked.connect(lambda: self._export("png"))
        self.view = MatrixView(self)
        self.status = QLabel("", self)
        self.status.setWordWrap(True)
        top = QHBoxLayout()
        top.addWidget(QLabel("Queries folder", self))
        top.addWidget(self.dir_edit, 1)
        top.addWidget(browse)
        bar = QHBoxLayout()
        for w in (self.batch_check, self.run_btn, self.cancel_btn):
            bar.addWidget(w)
        bar.addStretch(1)
        bar.addWidget(self.html_btn)
        bar.addWidget(self.png_btn)
        lay = QVBoxLayout(self)
        lay.addLayout(top)
        lay.addLayout(bar)
        lay.addWidget(self.view, 1)
        lay.addWidget(self.status)
        self.resize(1100, 700)
        self._set_running(False)

    def _browse(self) -> None:
        d = QFileDialog.getExistingDirectory(self, "Query sets folder", self.dir_edit.text())
        if d:
            self.dir_edit.setText(d)

    def _say(self, text: str, error: bool = False) -> None:
        self.status.setText(text)
        self.status.setStyleSheet("color: #cf222e;" if error else "")

    def _set_running(self, on: bool) -> None:
        if not on:
            self._job = None
        self.run_btn.setEnabled(not on)
        self.cancel_btn.setEnabled(on)
        has = self.view.matrix is not None
        self.html_btn.setEnabled(has and not on)
        self.png_btn.setEnabled(has and not on)

    @property
    def running(self) -> bool:
        return self._job is not None or self.flow.running

    def start(self) -> bool:
        """Run the collection eval (direct or batch). False (status says why) when it cannot."""
        from workbench.core.evals.collection import collection_runners, load_query_dir

        if self.running:
            return False
        env = self.pane._env()
        if env is None or env[2] is None:
            self._say("No catalog yet: open a workspace first.", True)
            return False
        try:
            qd = load_query_dir(self.dir_edit.text().strip() or ".", env[2])
        except NotADirectoryError as exc:
            self._say(str(exc), True)
            return False
        if not qd.sets:
            self._say(
                "No query set in that folder names a listed skill (expected <skill>.json or .yaml).", True
            )
            return False
        key = self.pane._key()
        if not key:
            from workbench.core.chat.errors import NO_KEY_HINT

            self._say(f"No API key. {NO_KEY_HINT}", True)
            return False
        settings = self.pane._settings()
        opts = self.pane.options(env[3])
        from workbench.core.chat.backend import make_client

        batch = self.batch_check.isChecked()
        sdk = make_client(settings if batch else dataclasses.replace(settings, max_retries=0), key)
        catalog = env[2]

        def runners():
            return collection_runners(catalog, qd.sets, settings=settings, client=sdk, options=opts)

        self._set_running(True)
        note = f" ({'; '.join(qd.notes()[:3])})" if qd.notes() else ""
        self._say(f"Evaluating {len(qd.sets)} skills{note}…")
        h = self.pane._history()
        if batch:
            from workbench.core.evals.batch import BatchStore

            self.flow.confirm = self.pane.confirm_batch
            self.flow.poll_seconds = self.pane.batch_poll_seconds
            self.flow.start(
                runners,
                sdk,
                BatchStore(h),
                workspace=env[0].workspace,
                roots=list(env[0].extra_roots),
                extra={"collection": True, "queries_dir": self.dir_edit.text()},
                close_sdk=True,
            )
            return True

        def work(cancel_event: threading.Event) -> list:
            try:
                return [r.run(cancel_event) for r in runners()]
            finally:
                sdk.close()

        self._job = run_in_background(
            work,
            cancel_event=True,
            connect={
                "returned": lambda _t, reps: self._show(reps),
                "errored": lambda _t, exc: self._failed(exc),
                "cancelled": lambda _t: self._say("Cancelled."),
                "finished": lambda _t: self._set_running(False),
            },
        )
        return True

    def _failed(self, exc: BaseException) -> None:
        log.warning("eval failed", exc_info=exc)
        self._say(f"Eval failed: {describe(exc)}", True)

    def cancel(self) -> None:
        """Cancel the direct run (runs in flight are closed) or the batches on the server."""
        if isinstance(self._job, Job):
            self._job.cancel()
        self.flow.cancel()

    def _on_batch(self, ev: dict) -> None:
        if ev.get("type") == "submitted":
            self._say(
                f"Batch eval {ev['record']['id']} submitted; it is kept with the eval history "
                "(Resume batch… picks it up after a restart)."
            )
        elif ev.get("type") == "batch":
            self._say(batch_status(ev))

    def _show(self, reports: list) -> None:
        self.reports = list(reports)
        m = ConfusionMatrix.from_reports(self.reports)
        self.view.set_matrix(m)
        self._set_running(self.flow.running)
        self._say(f"Done: {len(reports)} skills.")
        self.finished.emit(m)

    def _export(self, kind: str) -> None:
        flt = "HTML (*.html)" if kind == "html" else "PNG (*.png)"
        path, _ = QFileDialog.getSaveFileName(
            self, "Export confusion matrix", f"confusion-matrix.{kind}", flt
        )
        if path:
            self.export(path)

    def export(self, path: str | Path) -> bool:
        """Export the matrix (``.png`` → PNG, else HTML)."""
        try:
            if str(path).lower().endswith(".png"):
                self.view.export_png(path)
            else:
                self.view.export_html(path)
        except (OSError, ValueError) as exc:
            self._say(f"{path}: cannot export: {exc}", True)
            return False
        self._say(f"Exported to {path}")
        return True
