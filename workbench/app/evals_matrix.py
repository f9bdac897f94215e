"""Batch and collection evals in the GUI: the batch flow (estimate → confirm → submit → poll →
collect), the confusion-matrix heat-map and the collection-eval window. Thin over
``workbench.core.evals.batch`` and ``workbench.core.evals.collection``.

* ``BatchFlow(parent, confirm=None, poll_seconds=30)``: ``start(runners_fn, sdk, store, workspace,
  roots, extra)`` runs ``runners_fn()`` and the cost estimate in the background, asks ``confirm(est)
  -> bool`` on the GUI thread (default: a ``QMessageBox`` with the estimate), then submits, polls and
  collects in the background. ``resume(rec, catalog, sdk, store)`` picks up a stored batch eval.
  ``cancel()`` cancels the batches on the server (what had finished is still collected). Signals:
  ``progress(dict)`` (the batch poll events), ``estimated(dict)``, ``submitted(dict)`` (the record),
  ``done(list, object)`` (reports, ``BatchEval``), ``failed(str)``, ``ended()`` (always, last).
* ``MatrixView(parent)``: ``set_matrix(ConfusionMatrix)``; a ``QTableView`` over ``MatrixModel``
  (cells coloured by ``collection.cell_color``: green diagonal, red steals), per-skill precision /
  recall and the top steals below; ``export_png(path)`` (``QWidget.grab`` of the table and the
  summary) and ``export_html(path)`` (``ConfusionMatrix.to_html``, self-contained).
* ``CollectionWindow(pane)``: a window opened from the Evals pane ("Collection…"): a queries folder
  (default ``<workspace>/evals``), direct or "Run as batch", Run / Cancel, the heat-map, exports.
"""

from __future__ import annotations

import dataclasses
import html
import logging
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QObject, QPersistentModelIndex, Qt, Signal
from PySide6.QtGui import QColor, QPainter, QPixmap
from PySide6.QtWidgets import (
    QCheckBox,
    QFileDialog,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QMessageBox,
    QPushButton,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from workbench.app.workers import describe, run_in_background
from workbench.core.evals.collection import ConfusionMatrix, cell_color
from workbench.core.evals.metrics import pct
from workbench.core.text import agree, plural

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
        self._job: Any = None

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
        log.warning("batch eval failed", exc_info=exc)
        self._job = None
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
    ) -> None:
        """Build the runners and estimate (background), confirm, then submit and wait."""
        from workbench.core.evals.batch import BatchEval

        self._cancel = threading.Event()

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
        return (
            QMessageBox.question(parent, "Submit batch eval?", estimate_text(est) + "\n\nSubmit?")
            == QMessageBox.StandardButton.Yes
        )

    def _submit_wait(
        self, be: Any, store: Any, workspace: Any, roots: Any, est: dict, extra: Any, emit: Callable
    ) -> tuple:
        rec = be.submit(store, workspace=workspace, roots=roots, estimate=est, extra=extra)
        emit({"type": "submitted", "record": rec})
        return self._wait(be, emit)

    def _wait(self, be: Any, emit: Callable[[Any], None]) -> tuple:
        interval = self.poll_seconds
        while not be.wait(self._cancel, emit, poll_seconds=interval):
            # Cancel pressed: cancel on the server, then poll (every second at most) until the
            # batch has ended; what had finished is collected
            be.cancel()
            self._cancel = threading.Event()
            interval = min(interval, 1.0)
        return be.collect(), be

    def resume(self, rec: dict, catalog: Any, sdk: Any, store: Any, settings: Any = None) -> None:
        """Pick up the stored batch eval ``rec`` (background): poll until it ended and collect."""
        from workbench.core.evals.batch import BatchEval

        self._cancel = threading.Event()

        def work(emit: Callable[[Any], None]) -> tuple:
            be = BatchEval.from_record(rec, catalog, sdk, settings=settings)
            be.store = store
            self.batch = be
            return self._wait(be, emit)

        self._run(work, self._collected)

    def _collected(self, res: Any) -> None:
        reports, be = res
        self._job = None
        self.done.emit(reports, be)
        self.ended.emit()

    def cancel(self) -> None:
        """Cancel the batches on the server (results so far are still collected)."""
        self._cancel.set()


# ---------------------------------------------------------------------------------------------
# the heat-map


_Index = QModelIndex | QPersistentModelIndex


class MatrixModel(QAbstractTableModel):
    """A ``ConfusionMatrix`` as a table: rows/columns = labels, plus an "errors" column."""

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.m: ConfusionMatrix | None = None

    def set_matrix(self, m: ConfusionMatrix | None) -> None:
        self.beginResetModel()
        self.m = m
        self.endResetModel()

    def rowCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: N802, B008 - Qt API
        return 0 if self.m is None or parent.isValid() else len(self.m.labels)

    def columnCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: N802, B008 - Qt API
        return 0 if self.m is None or parent.isValid() else len(self.m.labels) + 1

    def headerData(
        self,
        section: int,
        orientation: Qt.Orientation,  # noqa: N802 - Qt API
        role: int = Qt.ItemDataRole.DisplayRole,
    ) -> Any:
        if self.m is None or role not in (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.ToolTipRole):
            return None
        labels = self.m.labels
        if orientation == Qt.Orientation.Horizontal:
            if section == len(labels):
                return "errors"
            return labels[section] if role == Qt.ItemDataRole.ToolTipRole else _short(labels[section])
        return labels[section]

    def data(self, index: _Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if self.m is None or not index.isValid():
            return None
        labels = self.m.labels
        row = labels[index.row()]
        if index.column() == len(labels):
            n = self.m.errors[row]
            if role == Qt.ItemDataRole.DisplayRole:
                return str(n) if n else ""
            if role == Qt.ItemDataRole.TextAlignmentRole:
                return int(Qt.AlignmentFlag.AlignCenter)
            return None
        col = labels[index.column()]
        n = self.m.cells[row][col]
        tot = self.m.row_total(row)
        if role == Qt.ItemDataRole.DisplayRole:
            return str(n) if n else ""
        if role == Qt.ItemDataRole.BackgroundRole:
            return QColor(cell_color(row, col, n, tot))
        if role == Qt.ItemDataRole.TextAlignmentRole:
            return int(Qt.AlignmentFlag.AlignCenter)
        if role == Qt.ItemDataRole.ToolTipRole:
            who = "should-not-trigger queries" if row == "none" else f"queries written for {row}"
            what = "loaded no skill" if col == "none" else f"loaded {col}"
            return f"{n} of {tot} runs of {who} {what}"
        return None


def _short(label: str, n: int = 14) -> str:
    return label if len(label) <= n else label[: n - 1] + "…"


class MatrixView(QWidget):
    """The heat-map and its summary (module docstring)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.matrix: ConfusionMatrix | None = None
        self.model = MatrixModel(self)
        self.table = QTableView(self)
        self.table.setModel(self.model)
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        self.table.verticalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        self.table.setWordWrap(False)
        self.summary = QLabel("No collection eval yet.", self)
        self.summary.setWordWrap(True)
        self.summary.setTextFormat(Qt.TextFormat.RichText)
        self.summary.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addWidget(self.table, 1)
        lay.addWidget(self.summary)

    def set_matrix(self, m: ConfusionMatrix | None) -> None:
        self.matrix = m
        self.model.set_matrix(m)
        if m is None:
            self.summary.setText("No collection eval yet.")
            return
        e = html.escape
        low = sorted(m.per_skill().items(), key=lambda kv: (kv[1]["recall"] is None, kv[1]["recall"] or 0))
        ps = " · ".join(f"{e(s)}: P {pct(v['precision'])} / R {pct(v['recall'])}" for s, v in low[:12])
        steals = (
            "; ".join(
                f"<b>{e(x['thief'])}</b> took {x['runs']} of {e(x['victim'])}'s runs "
                f"({x['share'] * 100:.0f} %)"
                for x in m.steals(5)
            )
            or "none"
        )
        self.summary.setText(
            f"<b>Rows</b>: the skill a query was written for (none = should-not-trigger); "
            f"<b>columns</b>: the skill loaded; cells = runs ({e(m.mode)}, "
            f"{e(m.model)}).<br>"
            f"<b>Top steals</b>: {steals}<br><b>Lowest recall first</b>: {ps}"
        )

    def export_html(self, path: str | Path) -> None:
        """Write the self-contained HTML page. Raises OSError / ValueError (no matrix)."""
        from workbench.core.safefile import atomic_write

        if self.matrix is None:
            raise ValueError("no matrix yet")
        atomic_write(path, self.matrix.to_html().encode("utf-8"))

    def export_png(self, path: str | Path) -> None:
        """Write a PNG of the table (grown to show every cell) and the summary. Raises OSError /
        ValueError (no matrix)."""
        if self.matrix is None:
            raise ValueError("no matrix yet")
        t = self.table
        w = t.verticalHeader().width() + t.horizontalHeader().length() + 4
        h = t.horizontalHeader().height() + t.verticalHeader().length() + 4
        old = t.size()
        t.resize(max(w, 200), max(h, 100))
        table_px = t.grab()
        t.resize(old)
        self.summary.setFixedWidth(max(w, 400))
        sum_px = self.summary.grab()
        self.summary.setMinimumWidth(0)
        self.summary.setMaximumWidth(16777215)
        img = QPixmap(max(table_px.width(), sum_px.width()), table_px.height() + sum_px.height() + 6)
        img.fill(QColor("#ffffff"))
        p = QPainter(img)
        p.drawPixmap(0, 0, table_px)
        p.drawPixmap(0, table_px.height() + 6, sum_px)
        p.end()
        from workbench.app.icons import png_bytes
        from workbench.core.safefile import atomic_write

        atomic_write(path, png_bytes(img))


# ---------------------------------------------------------------------------------------------
# the collection window


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
        self._cancel: threading.Event | None = None
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
            )
            return True
        self._cancel = threading.Event()
        cancel = self._cancel

        def work():
            return [r.run(cancel) for r in runners()]

        self._job = run_in_background(
            work,
            connect={
                "returned": lambda _t, reps: self._show(reps),
                "errored": lambda _t, exc: self._failed(exc),
                "finished": lambda _t: self._set_running(False),
            },
        )
        return True

    def _failed(self, exc: BaseException) -> None:
        log.warning("eval failed", exc_info=exc)
        self._say(f"Eval failed: {describe(exc)}", True)

    def cancel(self) -> None:
        if self._cancel is not None:
            self._cancel.set()
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


def batch_status(ev: dict) -> str:
    """The status line of a batch poll event."""
    c = ev["counts"]
    return (
        f"Batch: {c['processing']} processing · {c['succeeded']} succeeded · {c['errored']} errored · "
        f"{c['canceled']} canceled · {c['expired']} expired ({ev['seconds']:.0f} s)"
    )


# ---------------------------------------------------------------------------------------------
# the Evals pane's batch runs


class PaneBatch(QObject):
    """ "Run as batch" and "Resume batch…" of the ``EvalsPane`` (the pane keeps only a small hook):
    runs the pane's single-skill eval through ``BatchFlow`` and shows the report like a direct run;
    the reports are saved to the pane's history with the batch eval's id."""

    def __init__(self, pane: Any) -> None:
        super().__init__(pane)
        self.pane = pane
        self.flow = BatchFlow(pane)
        self.flow.progress.connect(self._on_event)
        self.flow.estimated.connect(lambda est: pane._message(estimate_text(est)))
        self.flow.done.connect(self._done)
        self.flow.failed.connect(
            lambda msg: pane._message(f"Batch eval: {msg}", error=msg != "Not submitted.")
        )
        self.flow.ended.connect(pane._job_finished)
        self.window: CollectionWindow | None = None

    def _sdk(self, settings: Any, key: str) -> Any:
        from workbench.core.chat.backend import make_client

        return make_client(settings, key)

    def start(self) -> bool:
        """Start the pane's eval as a batch (False when the pane cannot start, it says why)."""
        p = self.pane
        got = p._begin()
        if got is None:
            return False
        catalog, skill, qs, key, opts, settings, h = got
        from workbench.core.evals.batch import BatchStore
        from workbench.core.evals.runner import EvalRunner

        sdk = self._sdk(settings, key)
        p._job = self.flow
        p._set_running(True)
        p._message(f"Counting tokens for {len(qs)} queries × {opts.runs} runs on {skill}…")
        self.flow.confirm = p.confirm_batch
        self.flow.poll_seconds = p.batch_poll_seconds
        env = p._env()
        self.flow.start(
            lambda: [EvalRunner(catalog, skill, qs, settings=settings, client=sdk, options=opts)],
            sdk,
            BatchStore(h) if h is not None else None,
            workspace=env[0].workspace if env else None,
            roots=list(env[0].extra_roots) if env else None,
        )
        return True

    def pending(self) -> list[dict]:
        """Submitted, not yet collected batch evals of the pane's workspace (newest first)."""
        from workbench.core.evals.batch import BatchStore

        h = self.pane._history()
        return BatchStore(h).list("submitted") if h is not None else []

    def note_pending(self) -> int:
        """Say in the pane's status line how many batch evals wait to be collected; returns it."""
        try:
            n = len(self.pending())
        except Exception as exc:  # noqa: BLE001 - informative only (no workspace yet, unreadable folder)
            log.info("pending batch evals not listed", exc_info=exc)
            self.pane._message(f"Pending batch evals could not be listed: {describe(exc)}", error=True)
            return 0
        if n:
            self.pane._message(
                f"{plural(n, 'batch eval')} submitted earlier for this workspace "
                f"{agree(n, 'is', 'are')} pending: Resume batch… collects the newest."
            )
        return n

    def resume(self, rec: dict | None = None) -> bool:
        """Pick up ``rec`` (default: the newest pending batch eval of the workspace)."""
        p = self.pane
        if p._job is not None:
            return False
        rec = rec or next(iter(self.pending()), None)
        env = p._env()
        if rec is None or env is None or env[2] is None:
            p._message(
                "No pending batch eval for this workspace." if rec is None else "No catalog yet.",
                error=rec is not None,
            )
            return False
        key = p._key()
        if not key:
            from workbench.core.chat.errors import NO_KEY_HINT

            p._message(f"No API key. {NO_KEY_HINT}", error=True)
            return False
        from workbench.core.evals.batch import BatchStore

        settings = p._settings()
        p._job = self.flow
        p._set_running(True)
        p._message(f"Resuming batch eval {rec['id']} ({', '.join(rec.get('batch_ids') or [])})…")
        self.flow.poll_seconds = p.batch_poll_seconds
        self.flow.resume(rec, env[2], self._sdk(settings, key), BatchStore(p._history()), settings)
        return True

    def _on_event(self, ev: dict) -> None:
        if ev.get("type") == "submitted":
            self.pane._message(
                f"Batch eval {ev['record']['id']} submitted; it is kept with the eval "
                "history: Resume batch… picks it up after a restart."
            )
        elif ev.get("type") == "batch":
            c = ev["counts"]
            done = ev["total"] - c["processing"]
            self.pane.progress.setRange(0, max(1, ev["total"]))
            self.pane.progress.setValue(done)
            self.pane.status.setText(batch_status(ev))

    def _done(self, reports: list, be: Any) -> None:
        p = self.pane
        h = p._history()
        ids: list[str | None] = []
        problems: list[str] = []
        extra = {"batch_eval": (be.record or {}).get("id")}
        for rep, r in zip(reports, be.runners):
            try:
                ids.append(h.save(rep, queries=r.queries, extra=extra).id if h is not None else None)
            except OSError as exc:
                log.warning("batch eval report not saved to history", exc_info=exc)
                problems.append(f"not saved to history: {exc}")
                ids.append(None)
        try:
            be.finish([i for i in ids if i])
        except OSError as exc:
            log.warning("batch record not closed", exc_info=exc)
            problems.append(f"batch record not updated: {exc}")
        if (be.record or {}).get("collection") or len(reports) > 1:
            self.window = CollectionWindow(p)
            self.window.show()
            self.window._show(reports)
            p._message(
                f"Collection batch eval {(be.record or {}).get('id')} collected."
                + (f" Eval {'; '.join(problems)}." if problems else ""),
                error=bool(problems),
            )
            return
        rep = reports[0]
        if p.skill_combo.findText(rep.skill) >= 0:
            p.skill_combo.setCurrentText(rep.skill)
        p.set_queries([dataclasses.replace(q) for q in be.runners[0].queries])
        p._reset_results(be.runners[0].queries, rep.runs_per_query)
        p.progress.setValue(p.progress.maximum())
        p._on_run_done((rep, ids[0], "; ".join(problems)))
