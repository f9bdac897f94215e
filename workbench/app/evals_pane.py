"""The Evals pane: edit a query set, run it many times against one skill, watch trigger rates
arrive live, keep a history per description, export, and run the description-improvement loop.

Thin over ``workbench.core.evals`` (all rules live there). Runs go off the GUI thread
(``workers.run_in_background``); per-run progress from the eval's worker threads reaches the GUI
through the job's ``yielded`` signal (queued), so every widget update happens on the GUI thread.

Constructor (hostable by the main window, which tries ``(ctx, parent)``):
``EvalsPane(ctx=None, parent=None, *, provider=None, settings_provider=None, key_provider=None,
history_root=None, credentials=None)``

* ``ctx``: an ``AppContext`` (env, client, catalog and context size are read from it, and the
  skill list follows ``catalog_changed``); or
* ``provider``: ``callable() -> (env, client_id, catalog, context_tokens)`` (tests, other hosts);
* ``settings_provider``: ``callable() -> ChatSettings`` (default: the saved chat settings,
  ``core.chat.settings.load_settings``); the pane's Model field overrides the model (default
  ``claude-haiku-5-5``, the eval default);
* ``key_provider``: ``callable() -> str | None`` (tests); by default the key comes from the
  ``Credentials`` service (``credentials``, else ``ctx.credentials``): the key typed in the Chat
  pane this session, then ``ANTHROPIC_API_KEY``, then the keyring.

"Run as batch", "Resume batch…" and "Collection…" (the confusion-matrix window) are built in
``evals_matrix.py`` (``PaneBatch``, ``CollectionWindow``); the pane keeps only the hook.

Decision (spec silent): the chart shows one bar per query in query-set order, numbered like the
table rows; should-trigger bars blue, should-not-trigger orange, errored queries as a grey "×",
the Wilson interval as a thin whisker and the threshold as a dashed red line.
"""

from __future__ import annotations

import html
import logging
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from PySide6.QtCore import QRectF, Qt, Signal
from PySide6.QtGui import QBrush, QColor, QFont, QPainter, QPen
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QComboBox,
    QDoubleSpinBox,
    QFileDialog,
    QGroupBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QProgressBar,
    QPushButton,
    QSizePolicy,
    QSpinBox,
    QSplitter,
    QTableWidget,
    QTableWidgetItem,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from workbench.app.credentials import Credentials
from workbench.app.emptystate import EmptyState
from workbench.app.workers import Job, describe, run_in_background
from workbench.core.evals.metrics import pct
from workbench.core.evals.queryset import Query, QuerySetError, load_queries, save_queries
from workbench.core.evals.runner import DEFAULT_EVAL_MODEL, EvalOptions
from workbench.core.text import plural

log = logging.getLogger(__name__)

SHOULD_COLOR = QColor("#2f6fdf")
SHOULD_NOT_COLOR = QColor("#d9822b")
ERROR_COLOR = QColor("#8c959f")
THRESHOLD_COLOR = QColor("#cf222e")
PASS_COLOR = QColor("#2e9d4a")
FAIL_COLOR = QColor("#cf222e")

RESULT_COLUMNS = ("#", "Query", "Expect", "k/n", "Rate", "95 % CI", "Errors", "Also loaded", "Result")



class TriggerChart(QWidget):
    """Bar chart of the trigger rate per query (QPainter).

    ``set_rows([{"label","should_trigger","rate" (0..1 or None),"interval" ([lo, hi] or None),
    "status"}])`` and ``set_threshold(t)``; repaints on change.
    """

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.rows: list[dict] = []
        self.threshold = 0.5
        self.setMinimumHeight(170)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Expanding)

    def set_rows(self, rows: list[dict]) -> None:
        self.rows = list(rows)
        self.update()

    def set_threshold(self, t: float) -> None:
        self.threshold = float(t)
        self.update()

    def paintEvent(self, _ev: Any) -> None:  # noqa: N802 - Qt override
        p = QPainter(self)
        p.setRenderHint(QPainter.RenderHint.Antialiasing)
        p.fillRect(self.rect(), QColor("white"))
        fm = p.fontMetrics()
        left, right = fm.horizontalAdvance("100 %") + 10, 10
        # legend: entries flow onto more lines when the chart is narrow (never cut)
        entries = [
            (SHOULD_COLOR, "should trigger"),
            (SHOULD_NOT_COLOR, "should not trigger"),
            (ERROR_COLOR, "× errored / not run"),
            (None, f"threshold {self.threshold:.0%}"),
        ]
        x, y = left, 4
        for col, label in entries:
            wid = (14 if col is not None else 0) + fm.horizontalAdvance(label)
            if x > left and x + wid > self.width() - right:
                x, y = left, y + fm.height() + 2
            if col is not None:
                p.fillRect(QRectF(x, y, 10, 10), col)
            p.setPen(QColor("#24292f") if col is not None else THRESHOLD_COLOR)
            p.drawText(int(x + (14 if col is not None else 0)), y + fm.ascent() - 1, label)
            x += wid + 10
        top, bottom = y + fm.height() + 6, fm.height() + 8
        w = max(1, self.width() - left - right)
        h = max(1, self.height() - top - bottom)
        plot = QRectF(left, top, w, h)
        # grid
        p.setPen(QPen(QColor("#d0d7de"), 1))
        for frac in (0, 0.25, 0.5, 0.75, 1.0):
            gy = plot.bottom() - frac * h
            p.drawLine(int(plot.left()), int(gy), int(plot.right()), int(gy))
            p.setPen(QColor("#57606a"))
            lab = f"{frac * 100:.0f} %"
            p.drawText(int(plot.left() - fm.horizontalAdvance(lab) - 5), int(gy + fm.ascent() / 2 - 1), lab)
            p.setPen(QPen(QColor("#d0d7de"), 1))
        n = len(self.rows)
        if n:
            slot = w / n
            bw = max(2.0, slot * 0.7)
            for i, r in enumerate(self.rows):
                cx = plot.left() + slot * (i + 0.5)
                base = SHOULD_COLOR if r.get("should_trigger") else SHOULD_NOT_COLOR
                rate = r.get("rate")
                if rate is None:
                    p.setPen(QPen(ERROR_COLOR, 2))
                    s = min(bw, 10) / 2
                    my = plot.bottom() - 8
                    p.drawLine(int(cx - s), int(my - s), int(cx + s), int(my + s))
                    p.drawLine(int(cx - s), int(my + s), int(cx + s), int(my - s))
                else:
                    bh = max(1.5, rate * h)
                    rect = QRectF(cx - bw / 2, plot.bottom() - bh, bw, bh)
                    p.setPen(Qt.PenStyle.NoPen)
                    p.setBrush(QBrush(base))
                    p.drawRect(rect)
                    if r.get("status") == "failed":
                        p.setPen(QPen(FAIL_COLOR, 2))
                        p.setBrush(Qt.BrushStyle.NoBrush)
                        p.drawRect(rect.adjusted(-1, -1, 1, 1))
                iv = r.get("interval")
                if iv:
                    p.setPen(QPen(QColor("#24292f"), 1))
                    y0, y1 = plot.bottom() - iv[0] * h, plot.bottom() - iv[1] * h
                    p.drawLine(int(cx), int(y0), int(cx), int(y1))
                    p.drawLine(int(cx - 3), int(y0), int(cx + 3), int(y0))
                    p.drawLine(int(cx - 3), int(y1), int(cx + 3), int(y1))
                if slot >= fm.horizontalAdvance("00") + 2 or i % max(1, int(20 / max(slot, 1))) == 0:
                    p.setPen(FAIL_COLOR if r.get("status") == "failed" else QColor("#57606a"))
                    lab = str(r.get("label", i + 1))
                    p.drawText(
                        int(cx - fm.horizontalAdvance(lab) / 2), int(plot.bottom() + fm.ascent() + 3), lab
                    )
        # threshold line
        ty = plot.bottom() - self.threshold * h
        pen = QPen(THRESHOLD_COLOR, 1.5, Qt.PenStyle.DashLine)
        p.setPen(pen)
        p.drawLine(int(plot.left()), int(ty), int(plot.right()), int(ty))
        p.setPen(QPen(QColor("#57606a"), 1))
        p.drawLine(int(plot.left()), int(plot.top()), int(plot.left()), int(plot.bottom()))
        p.end()


class EvalsPane(QWidget):
    """The Evals tab (module docstring).

    Signals:
        finished(object): the ``EvalReport`` of a finished (or cancelled) run.
        improved(object): the ``ImproveResult`` of a finished improvement loop.
        proposal_created(str): the id of a workshop proposal the loop created.
    """

    finished = Signal(object)
    improved = Signal(object)
    proposal_created = Signal(str)

    def __init__(
        self,
        ctx: Any = None,
        parent: QWidget | None = None,
        *,
        provider: Callable[[], tuple] | None = None,
        settings_provider: Callable[[], Any] | None = None,
        key_provider: Callable[[], str | None] | None = None,
        history_root: Path | None = None,
        credentials: Credentials | None = None,
    ) -> None:
        super().__init__(parent)
        self.ctx = ctx
        if credentials is None:
            credentials = ctx.credentials if ctx is not None else Credentials(parent=self)
        self.credentials = credentials
        if provider is None and ctx is not None:
            provider = lambda: (ctx.env, ctx.client_id, ctx.catalog(), ctx.context_tokens)  # noqa: E731
        self.provider = provider
        self.settings_provider = settings_provider
        self.key_provider = key_provider
        self.history_root = history_root
        self.report: Any = None
        self.improve_result: Any = None
        self.last_proposal_id: str | None = None
        self.progress_seen: list[tuple[int, int]] = []
        self._job: Any = None
        self._build()
        if ctx is not None and hasattr(ctx, "catalog_changed"):
            ctx.catalog_changed.connect(self.refresh_skills)
            ctx.client_changed.connect(lambda *_: self.refresh_skills())
        self.refresh_skills()
        self._set_running(False)
        self.batches().note_pending()

    # -- building --------------------------------------------------------------------------
    def _build(self) -> None:
        self.skill_combo = QComboBox(self)
        self.skill_combo.setMinimumWidth(160)

        def on_skill_changed(*_: object) -> None:
            self.refresh_history()
            self.suggest_queries()

        self.skill_combo.currentTextChanged.connect(on_skill_changed)
        self.model_edit = QLineEdit(DEFAULT_EVAL_MODEL, self)
        self.model_edit.setToolTip(
            "Model id used for the eval runs (default: a Haiku model; editable for local servers)"
        )
        self.runs_spin = QSpinBox(self)
        self.runs_spin.setRange(1, 100)
        self.runs_spin.setValue(3)
        self.conc_spin = QSpinBox(self)
        self.conc_spin.setRange(1, 64)
        self.conc_spin.setValue(8)
        self.thr_spin = QDoubleSpinBox(self)
        self.thr_spin.setRange(0.0, 1.0)
        self.thr_spin.setSingleStep(0.05)
        self.thr_spin.setValue(0.5)
        self.thr_spin.valueChanged.connect(lambda v: self.chart.set_threshold(v))
        self.comp_check = QCheckBox("Competitors", self)
        self.comp_check.setChecked(True)
        self.comp_check.setToolTip("Keep the workspace's other listed skills in the listing")
        # batch and collection evals live in evals_matrix.py (PaneBatch, CollectionWindow)
        self.batch_check = QCheckBox("Run as batch", self)
        self.batch_check.setToolTip(
            "Send the first turns through the Message Batches API (half price, "
            "results usually within an hour); the cost estimate is shown first"
        )
        self.resume_btn = QPushButton("Resume batch…", self)
        self.resume_btn.clicked.connect(lambda: self.batches().resume())
        self.collection_btn = QPushButton("Collection…", self)
        self.collection_btn.setToolTip("Every skill's query set against the whole listing: confusion matrix")
        self.collection_btn.clicked.connect(self.open_collection)
        self.run_btn = QPushButton("Run", self)
        self.run_btn.clicked.connect(self.start_run)
        self.cancel_btn = QPushButton("Cancel", self)
        self.cancel_btn.clicked.connect(self.cancel)
        self.improve_btn = QPushButton("Improve description…", self)
        self.improve_btn.setToolTip(
            "Split the queries (60/40, seed 42), let the model propose better "
            "descriptions from the training failures, keep the best on the "
            "held-out queries as a workshop proposal"
        )
        self.improve_btn.clicked.connect(self.start_improve)
        self.iter_spin = QSpinBox(self)
        self.iter_spin.setRange(1, 20)
        self.iter_spin.setValue(5)
        self.iter_spin.setToolTip("Improvement iterations (new candidates at most)")
        self.export_json_btn = QPushButton("Export JSON…", self)
        self.export_json_btn.clicked.connect(lambda: self._export_dialog("json"))
        self.export_csv_btn = QPushButton("Export CSV…", self)
        self.export_csv_btn.clicked.connect(lambda: self._export_dialog("csv"))

        # Three short rows (one long row made the pane, and so the window, 1,152 px wide at least):
        # what to test, how many runs, then the commands.
        bar = QHBoxLayout()
        bar.addWidget(QLabel("Skill", self))
        bar.addWidget(self.skill_combo, 2)
        bar.addWidget(QLabel("Model", self))
        bar.addWidget(self.model_edit, 1)
        bar.addWidget(self.comp_check)
        bar1 = QHBoxLayout()
        for lab, w in (
            ("Runs", self.runs_spin),
            ("Concurrency", self.conc_spin),
            ("Threshold", self.thr_spin),
            ("Iterations", self.iter_spin),
        ):
            bar1.addWidget(QLabel(lab, self))
            bar1.addWidget(w)
            bar1.addSpacing(8)
        bar1.addStretch(1)
        bar2 = QHBoxLayout()
        for btn in (self.run_btn, self.cancel_btn, self.improve_btn, self.batch_check):
            bar2.addWidget(btn)
        bar2.addStretch(1)
        bar3 = QHBoxLayout()  # batches, collections and exports (one row with the runs was too wide)
        bar3.addWidget(self.resume_btn)
        bar3.addWidget(self.collection_btn)
        bar3.addStretch(1)
        bar3.addWidget(self.export_json_btn)
        bar3.addWidget(self.export_csv_btn)

        # query editor
        self.query_table = QTableWidget(0, 2, self)
        self.query_table.setHorizontalHeaderLabels(["Trigger?", "Query"])
        self.query_table.horizontalHeader().setSectionResizeMode(0, QHeaderView.ResizeMode.ResizeToContents)
        self.query_table.horizontalHeader().setSectionResizeMode(1, QHeaderView.ResizeMode.Stretch)
        self.query_table.verticalHeader().setDefaultSectionSize(22)
        self.add_btn = QPushButton("Add", self)
        self.add_btn.clicked.connect(lambda: self.add_query("", True, edit=True))
        self.remove_btn = QPushButton("Remove", self)
        self.remove_btn.clicked.connect(self.remove_selected)
        self.load_btn = QPushButton("Load…", self)
        self.load_btn.clicked.connect(self._load_dialog)
        self.save_btn = QPushButton("Save…", self)
        self.save_btn.clicked.connect(self._save_dialog)
        qbtns = QHBoxLayout()
        for b in (self.add_btn, self.remove_btn, self.load_btn, self.save_btn):
            qbtns.addWidget(b)
        qbtns.addStretch(1)
        self.queries_label = QLabel("", self)
        # wrapped: unwrapped, its long advice line set the query box's minimum width, and in the
        # main window the results table and chart were squeezed to a sliver (test_flows.py flow 5)
        self.queries_label.setWordWrap(True)
        qbox = QGroupBox("Query set", self)
        ql = QVBoxLayout(qbox)
        ql.addWidget(self.query_table, 1)
        ql.addLayout(qbtns)
        ql.addWidget(self.queries_label)

        # results
        self.results_table = QTableWidget(0, len(RESULT_COLUMNS), self)
        self.results_table.setHorizontalHeaderLabels(list(RESULT_COLUMNS))
        self.results_table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.results_table.verticalHeader().setVisible(False)
        self.results_table.verticalHeader().setDefaultSectionSize(20)
        hh = self.results_table.horizontalHeader()
        for c in range(len(RESULT_COLUMNS)):
            hh.setSectionResizeMode(c, QHeaderView.ResizeMode.ResizeToContents)
        hh.setSectionResizeMode(1, QHeaderView.ResizeMode.Stretch)
        self.chart: TriggerChart = TriggerChart(self)
        self.summary_label = QLabel("No run yet.", self)
        self.summary_label.setWordWrap(True)
        self.summary_label.setTextFormat(Qt.TextFormat.RichText)
        self.history_tree = QTreeWidget(self)
        self.history_tree.setHeaderLabels(
            ["Description / run", "Passed", "Precision", "Recall", "Model", "Kind"]
        )
        hh2 = self.history_tree.header()
        hh2.setStretchLastSection(False)
        for c in range(1, 6):
            hh2.setSectionResizeMode(c, QHeaderView.ResizeMode.ResizeToContents)
        hh2.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        hbox = QGroupBox("History (per description)", self)
        hl = QVBoxLayout(hbox)
        hl.setContentsMargins(4, 4, 4, 4)
        hl.addWidget(self.history_tree)

        # Queries and results each get the full width (queries read as sentences, the results
        # table has 9 columns); the chart and the history share the bottom row.
        below = QSplitter(Qt.Orientation.Horizontal, self)
        below.addWidget(self.chart)
        below.addWidget(hbox)
        below.setStretchFactor(0, 1)
        below.setStretchFactor(1, 1)
        below.setSizes([400, 400])  # halves: the chart's legend then fits on one or two lines
        right = QSplitter(Qt.Orientation.Vertical, self)
        right.addWidget(self.results_table)
        right.addWidget(below)
        right.setStretchFactor(0, 1)
        right.setStretchFactor(1, 1)
        split = QSplitter(Qt.Orientation.Vertical, self)
        split.addWidget(qbox)
        split.addWidget(right)
        split.setStretchFactor(0, 2)
        split.setStretchFactor(1, 3)
        split.setSizes([330, 420])
        self.splitter = split

        self.empty_states = [
            EmptyState(
                self.query_table,
                "No queries yet. Add prompts that should trigger the skill and "
                "near-misses that should not (aim for 8–10 of each), or load a query file.",
                [("Add query", lambda: self.add_query("", True, edit=True)), ("Load…", self._load_dialog)],
            ),
            EmptyState(
                self.results_table,
                "No run yet. <i>Run</i> sends every query to the model "
                "several times and shows how often it loads the skill.",
                [("Run", self.start_run)],
            ),
            EmptyState(
                self.history_tree,
                "No runs of this skill yet: each run and each improved description is kept here.",
                [("Run", self.start_run)],
            ),
        ]
        self.progress = QProgressBar(self)
        self.progress.setFormat("%v / %m runs")
        self.status = QLabel("", self)
        self.status.setWordWrap(True)
        foot = QHBoxLayout()
        foot.addWidget(self.progress, 1)
        foot.addWidget(self.status, 2)

        lay = QVBoxLayout(self)
        lay.setContentsMargins(6, 6, 6, 6)
        lay.addLayout(bar)
        lay.addLayout(bar1)
        lay.addLayout(bar2)
        lay.addLayout(bar3)
        lay.addWidget(split, 1)
        lay.addWidget(self.summary_label)
        lay.addLayout(foot)

    # -- the query set ---------------------------------------------------------------------
    def add_query(self, text: str, should_trigger: bool, edit: bool = False) -> int:
        """Append a row; returns its index."""
        r = self.query_table.rowCount()
        self.query_table.insertRow(r)
        chk = QTableWidgetItem("")
        chk.setFlags(
            Qt.ItemFlag.ItemIsUserCheckable | Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable
        )
        chk.setCheckState(Qt.CheckState.Checked if should_trigger else Qt.CheckState.Unchecked)
        self.query_table.setItem(r, 0, chk)
        self.query_table.setItem(r, 1, QTableWidgetItem(text))
        self._update_counts()
        if edit:
            self.query_table.setCurrentCell(r, 1)
            item = self.query_table.item(r, 1)
            if item is not None:
                self.query_table.editItem(item)
        return r

    def set_queries(self, queries: list[Query]) -> None:
        self.query_table.setRowCount(0)
        for q in queries:
            self.add_query(q.query, q.should_trigger)
        self._update_counts()

    def queries(self) -> list[Query]:
        """The table as ``Query`` objects (rows with an empty query are skipped)."""
        out = []
        for r in range(self.query_table.rowCount()):
            it = self.query_table.item(r, 1)
            text = it.text() if it else ""
            if not text.strip():
                continue
            chk = self.query_table.item(r, 0)
            out.append(Query(text, chk is not None and chk.checkState() == Qt.CheckState.Checked))
        return out

    def remove_selected(self) -> None:
        rows = sorted({i.row() for i in self.query_table.selectedIndexes()}, reverse=True)
        for r in rows:
            self.query_table.removeRow(r)
        self._update_counts()

    def _update_counts(self) -> None:
        qs = self.queries()
        pos = sum(q.should_trigger for q in qs)
        self.queries_label.setText(
            f"{len(qs)} queries: {pos} should trigger, {len(qs) - pos} should not "
            "(aim for 8-10 of each, negatives as near-misses)"
        )

    def load_queries_file(self, path: str | Path) -> bool:
        """Load a query set (JSON or YAML) into the table; errors go to the status line."""
        try:
            qs = load_queries(path)
        except QuerySetError as exc:
            self._message(str(exc), error=True)
            return False
        self.set_queries(qs.queries)
        self._message(
            f"Loaded {len(qs.queries)} queries from {path}"
            + (f" ({len(qs.warnings)} warnings: {qs.warnings[0]})" if qs.warnings else "")
        )
        return True

    def save_queries_file(self, path: str | Path) -> bool:
        try:
            save_queries(path, self.queries())
        except OSError as exc:
            self._message(f"{path}: cannot save: {exc}", error=True)
            return False
        self._message(f"Saved {len(self.queries())} queries to {path}")
        return True

    def _load_dialog(self) -> None:
        env = self._env()
        ws = Path(getattr(env[0], "workspace", "") or "") if env is not None and env[0] is not None else None
        start = str(ws / "evals") if ws is not None and (ws / "evals").is_dir() else (str(ws) if ws else "")
        path, _ = QFileDialog.getOpenFileName(
            self, "Load query set", start, "Query sets (*.json *.yaml *.yml);;All files (*)"
        )
        if path:
            self.load_queries_file(path)

    def _save_dialog(self) -> None:
        path, _ = QFileDialog.getSaveFileName(self, "Save query set", "eval_queries.json", "JSON (*.json)")
        if path:
            self.save_queries_file(path)

    # -- environment -----------------------------------------------------------------------
    def _env(self) -> tuple | None:
        if self.provider is None:
            return None
        try:
            return self.provider()
        except Exception as exc:  # noqa: BLE001 - shown, never raised
            log.warning("catalog provider failed", exc_info=exc)
            self._message(f"No catalog: {exc}", error=True)
            return None

    def refresh_skills(self) -> None:
        """Fill the skill combo with the listed skills of the current catalog (keeps the choice)."""
        cur = self.skill_combo.currentText()
        env = self._env()
        names = []
        if env is not None and env[2] is not None:
            names = sorted({s.name for s in env[2].listed()})
        self.skill_combo.blockSignals(True)
        self.skill_combo.clear()
        self.skill_combo.addItems(names)
        if cur in names:
            self.skill_combo.setCurrentText(cur)
        else:  # first show: the skill selected in the tree, if it is listed
            sel = getattr(self.ctx, "selected_path", None) if self.ctx is not None else None
            picked = (
                next((s.name for s in env[2].listed() if str(s.path) == str(sel)), None)
                if (sel is not None and env is not None and env[2] is not None)
                else None
            )
            if picked is not None and picked in names:
                self.skill_combo.setCurrentText(picked)
        self.skill_combo.blockSignals(False)
        self.refresh_history()
        self.suggest_queries()

    #: Where a workspace keeps query sets by convention (the demo does): evals/<skill>.<ext>.
    QUERY_FILE_PATTERNS = ("evals/{name}.json", "evals/{name}.yaml", "evals/{name}.yml")

    def suggest_queries(self) -> Path | None:
        """With an empty query table, load ``<workspace>/evals/<skill>.json|yaml|yml`` when it
        exists (QA: the demo ships evals/code-review.json, yet the tab opened empty and the Load
        dialog started in the current folder). Returns the file loaded, or None."""
        if self.query_table.rowCount():  # never replace the user's queries
            return None
        env = self._env()
        skill = self.skill_combo.currentText()
        if env is None or env[0] is None or not skill:
            return None
        ws = Path(getattr(env[0], "workspace", "") or ".")
        for pat in self.QUERY_FILE_PATTERNS:
            f = ws / pat.format(name=skill)
            if f.is_file() and self.load_queries_file(f):
                return f
        return None

    def _settings(self):
        import dataclasses

        from workbench.core.chat.settings import ChatSettings, load_settings

        s = self.settings_provider() if self.settings_provider else load_settings()
        s = dataclasses.replace(s) if isinstance(s, ChatSettings) else ChatSettings()
        m = self.model_edit.text().strip()
        if m:
            s.model = m
        return s

    def _key(self) -> str | None:
        """The API key: ``key_provider`` when given, else the credentials service's."""
        if self.key_provider is not None:
            return self.key_provider()
        return self.credentials.key()

    def _history(self):
        env = self._env()
        if env is None:
            return None
        from workbench.core.evals.history import HistoryStore

        return HistoryStore(env[0].workspace, self.history_root)

    # -- running ---------------------------------------------------------------------------
    def _prepare(self) -> tuple | None:
        env = self._env()
        if env is None or env[2] is None:
            self._message("No catalog yet: open a workspace first.", error=True)
            return None
        skill = self.skill_combo.currentText()
        if not skill:
            self._message("Choose the skill under test.", error=True)
            return None
        qs = self.queries()
        if not qs:
            self._message("The query set is empty: add queries or load a file.", error=True)
            return None
        key = self._key()
        if not key:
            from workbench.core.chat.errors import NO_KEY_HINT

            self._message(f"No API key. {NO_KEY_HINT}", error=True)
            return None
        return env, skill, qs, key, self.options(env[3])

    def options(self, context_tokens: int | None) -> EvalOptions:
        """The ``EvalOptions`` of the pane's fields."""
        return EvalOptions(
            runs=self.runs_spin.value(),
            concurrency=self.conc_spin.value(),
            threshold=self.thr_spin.value(),
            competitors=self.comp_check.isChecked(),
            context_tokens=context_tokens,
        )

    #: ``callable(estimate) -> bool`` asked before a batch is submitted (None: a message box).
    confirm_batch: Callable[[dict], bool] | None = None
    #: Seconds between batch polls.
    batch_poll_seconds: float = 30.0

    def batches(self) -> Any:
        """The pane's ``evals_matrix.PaneBatch`` (built on first use)."""
        if getattr(self, "_batches", None) is None:
            from workbench.app.evals_matrix import PaneBatch

            self._batches = PaneBatch(self)
        return self._batches

    def open_collection(self) -> Any:
        """Open the collection-eval window (``evals_matrix.CollectionWindow``)."""
        from workbench.app.evals_matrix import CollectionWindow

        self.collection_window = CollectionWindow(self)
        self.collection_window.show()
        return self.collection_window

    def _reset_results(self, qs: list[Query], runs: int) -> None:
        self.results_table.setRowCount(0)
        for i, q in enumerate(qs):
            self.results_table.insertRow(i)
            vals = [
                str(i + 1),
                q.query,
                "trigger" if q.should_trigger else "no",
                f"0/{runs}",
                "",
                "",
                "",
                "",
                "…",
            ]
            for c, v in enumerate(vals):
                it = QTableWidgetItem(v)
                if c == 2:
                    it.setForeground(SHOULD_COLOR if q.should_trigger else SHOULD_NOT_COLOR)
                self.results_table.setItem(i, c, it)
        self._chart_rows = [
            {
                "label": str(i + 1),
                "should_trigger": q.should_trigger,
                "rate": None,
                "interval": None,
                "status": "not-run",
            }
            for i, q in enumerate(qs)
        ]
        self.chart.set_rows(self._chart_rows)
        self.chart.set_threshold(self.thr_spin.value())
        self.progress.setRange(0, len(qs) * runs)
        self.progress.setValue(0)
        self.progress_seen = []

    def _begin(self):
        """Common start of a run or an improvement: None when busy or not ready (the status
        line says why), else (catalog, skill, queries, key, options, settings, history) —
        everything the worker needs, built here so it never touches the GUI."""
        if self._job is not None:
            return None
        prep = self._prepare()
        if prep is None:
            return None
        env, skill, qs, key, opts = prep
        settings = self._settings()
        self._reset_results(qs, opts.runs)
        return env[2], skill, qs, key, opts, settings, self._history()

    def start_run(self) -> bool:
        """Start an eval of the table's queries in the background. Returns False (and says why in
        the status line) when it cannot start."""
        if self.batch_check.isChecked():
            return self.batches().start()
        got = self._begin()
        if got is None:
            return False
        catalog, skill, qs, key, opts, settings, h = got

        def work(cancel_event: threading.Event, emit: Callable[[Any], None]) -> tuple:
            from workbench.core.evals.runner import run_eval

            rep = run_eval(
                catalog,
                skill,
                qs,
                settings=settings,
                api_key=key,
                options=opts,
                cancel=cancel_event,
                progress=emit,
            )
            hist, problem = None, ""
            try:
                if h is not None:
                    hist = h.save(rep, queries=qs).id
            except OSError as exc:
                log.warning("eval history not saved", exc_info=exc)
                problem = f"not saved to history: {exc}"
            return rep, hist, problem

        self._start(work, self._on_run_done, f"Running {len(qs)} queries × {opts.runs} runs on {skill}…")
        return True

    def start_improve(self) -> bool:
        """Run the description-improvement loop in the background; the result's proposal id is
        shown and emitted (``proposal_created``)."""
        got = self._begin()
        if got is None:
            return False
        catalog, skill, qs, key, opts, settings, h = got
        iters = self.iter_spin.value()

        def work(cancel_event: threading.Event, emit: Callable[[Any], None]) -> Any:
            from workbench.core.evals.improve import improve_description

            return improve_description(
                catalog,
                skill,
                qs,
                settings=settings,
                api_key=key,
                options=opts,
                iterations=iters,
                history=h,
                cancel=cancel_event,
                progress=emit,
            )

        self._start(
            work, self._on_improve_done, f"Improving the description of {skill} (up to {iters} candidates)…"
        )
        return True

    def _start(self, fn, done, message: str) -> None:
        self._set_running(True)
        self._message(message)
        # slots connected before the job starts (workers.run_in_background ``connect=``): a fast
        # job's signals would otherwise be lost
        self._job = run_in_background(
            fn,
            yields=True,
            cancel_event=True,
            connect={
                "yielded": lambda _t, ev: self._on_event(ev),
                "returned": lambda _t, res: done(res),
                "errored": lambda _t, exc: self._on_failed(exc),
                "cancelled": lambda _t: self._message("Cancelled."),
                "finished": lambda _t: self._job_finished(),
            },
        )

    def cancel(self) -> None:
        if getattr(self, "_batches", None) is not None and self._job is self._batches.flow:
            self._batches.flow.cancel()
            self._message("Cancelling the batch on the server; what has finished is still collected…")
            return
        if isinstance(self._job, Job):
            self._job.cancel()
            self._message("Cancelling: closing the runs in flight…")

    @property
    def running(self) -> bool:
        return self._job is not None

    def _job_finished(self) -> None:
        self._job = None
        self._set_running(False)

    def _set_running(self, on: bool) -> None:
        for w in (
            self.run_btn,
            self.improve_btn,
            self.add_btn,
            self.remove_btn,
            self.load_btn,
            self.skill_combo,
            self.runs_spin,
            self.conc_spin,
            self.thr_spin,
            self.comp_check,
            self.batch_check,
            self.resume_btn,
        ):
            w.setEnabled(not on)
        self.cancel_btn.setEnabled(on)
        has = self.report is not None
        self.export_json_btn.setEnabled(has and not on)
        self.export_csv_btn.setEnabled(has and not on)

    def _on_event(self, ev: dict) -> None:
        t = ev.get("type")
        if t == "run":
            self.progress.setRange(0, ev["total"])
            self.progress.setValue(ev["done"])
            self.progress_seen.append((ev["done"], ev["total"]))
            self._update_row(ev["index"], ev["result"])
            it = ev.get("iteration")
            pre = f"Iteration {it}: " if it is not None else ""
            self.status.setText(
                f"{pre}{ev['done']}/{ev['total']} runs · {ev.get('in_flight', 0)} in flight · "
                f"concurrency {ev.get('concurrency')}"
            )
        elif t == "throttle":
            self.status.setText(
                f"Rate limited ({ev['kind']}): all runs wait {ev['wait']:.1f} s; concurrency "
                f"now {ev['concurrency']}"
            )
        elif t == "iteration":
            if ev.get("phase") == "eval":
                qs = self.queries()
                self._reset_results(qs, self.runs_spin.value())
                d = ev.get("description")
                self._message(
                    f"Iteration {ev['iteration']}: evaluating "
                    + ("the current description" if d is None else f"candidate: {d[:120]}")
                )
            else:
                self._message(
                    f"Iteration {ev['iteration']}: asking the model for a new description "
                    "(training failures only)…"
                )

    def _update_row(self, i: int, d: dict) -> None:
        if i >= self.results_table.rowCount():
            return
        rate = d.get("trigger_rate")
        iv = d.get("interval")
        status: str = d.get("status") or ""
        vals = {
            3: f"{d['triggers']}/{d['runs']}"
            + (f" of {d['requested']}" if d['runs'] != d['requested'] else ""),
            4: "n/a" if rate is None else f"{rate * 100:.0f} %",
            5: "" if iv is None else f"{iv[0] * 100:.0f}–{iv[1] * 100:.0f} %",
            6: str(d["errors"]) if d["errors"] else "",
            7: ", ".join(f"{k}×{v}" for k, v in d.get("also_loaded", {}).items()),
            8: {"passed": "PASS", "failed": "FAIL", "errored": "ERROR", "not-run": "…"}.get(status, status),
        }
        for c, v in vals.items():
            it = self.results_table.item(i, c)
            if it is None:
                it = QTableWidgetItem()
                self.results_table.setItem(i, c, it)
            it.setText(v)
            if c == 8:
                it.setForeground(
                    {"PASS": PASS_COLOR, "FAIL": FAIL_COLOR, "ERROR": ERROR_COLOR}.get(v, QColor("#24292f"))
                )
                f = QFont(it.font())
                f.setBold(v in ("PASS", "FAIL", "ERROR"))
                it.setFont(f)
        if i < len(getattr(self, "_chart_rows", [])):
            self._chart_rows[i].update({"rate": rate, "interval": iv, "status": status})
            self.chart.set_rows(self._chart_rows)

    def show_report(self, rep: Any) -> None:
        """Show a finished report (table, chart, summary)."""
        self.report = rep
        for r in rep.results:
            self._update_row(r.index, r.to_json())
        s = rep.summary
        j = s.to_json()
        c = rep.cost()
        cost = (
            f"≈ ${c['usd']:.4f} <i>(est.)</i>" if c["usd"] is not None else "cost n/a (unknown model price)"
        )
        u = rep.usage
        warn = "".join(
            f"<br><span style='color:#9a6700'>⚠ {html.escape(w)}</span>" for w in rep.to_json()["warnings"]
        )
        state = " <b>(cancelled: partial)</b>" if rep.cancelled else ""
        self.summary_label.setText(
            f"<b>{s.passed}/{s.total} passed</b>, {s.failed} failed, {s.errored} errored{state} · over runs: "
            f"precision {pct(j['precision'])}, recall {pct(j['recall'])}, F1 {pct(j['f1'])}, accuracy "
            f"{pct(j['accuracy'])} · over queries: precision {pct(j['by_query']['precision'])}, recall "
            f"{pct(j['by_query']['recall'])} · tokens in {u['input_tokens']:,} / out {u['output_tokens']:,} · "
            f"{cost} · {rep.seconds:.1f} s{warn}"
        )
        self.summary_label.setToolTip(c["assumption"])

    def _on_run_done(self, res: Any) -> None:
        rep, hist, problem = res
        self.show_report(rep)
        self._message(
            ("Cancelled; partial results shown." if rep.cancelled else "Done.")
            + (f" Saved to history ({hist})." if hist else "")
            + (f" Eval {problem}." if problem else ""),
            error=bool(problem),
        )
        self.refresh_history()
        self.finished.emit(rep)

    def _on_improve_done(self, res: Any) -> None:
        self.improve_result = res
        best = res.best_attempt
        if best is not None and best.report is not None:
            self.show_report(best.report)
        if res.proposal_id:
            self.last_proposal_id = res.proposal_id
            self._message(
                f"Improvement loop: {res.exit_reason}. Best: iteration {res.best}. Proposal "
                f"{res.proposal_id} is pending in the Workshop tab (review the diff, then apply)."
            )
            self.proposal_created.emit(res.proposal_id)
        else:
            why = res.proposal_error or "the current description was not beaten on the held-out queries"
            self._message(
                f"Improvement loop: {res.exit_reason}. No proposal: {why}.",
                error=bool(res.proposal_error or res.error),
            )
        self.refresh_history()
        self.improved.emit(res)

    def _on_failed(self, exc: BaseException) -> None:
        log.warning("eval failed", exc_info=exc)
        first = describe(exc)
        self._message(f"Eval failed: {first}", error=True)

    # -- history and export ----------------------------------------------------------------
    def refresh_history(self) -> None:
        self.history_tree.clear()
        skill = self.skill_combo.currentText() if hasattr(self, "skill_combo") else ""
        h = self._history() if skill else None
        if h is None:
            return
        for g in h.by_description(skill):
            top = QTreeWidgetItem(
                [g["description"][:160] or "(empty)", plural(len(g["entries"]), "run"), "", "", "", ""]
            )
            top.setToolTip(0, g["description"])
            for e in g["entries"]:
                s = e.summary
                ch = QTreeWidgetItem(
                    [
                        e.saved_at.replace("T", " ").replace("+00:00", " UTC"),
                        f"{s.get('passed', 0)}/{s.get('total', 0)}",
                        pct(s.get("precision")),
                        pct(s.get("recall")),
                        e.model,
                        e.kind,
                    ]
                )
                top.addChild(ch)
            self.history_tree.addTopLevelItem(top)
        first = self.history_tree.topLevelItem(0)
        if first is not None:
            first.setExpanded(True)

    def export(self, path: str | Path) -> bool:
        """Export the current report (``.csv`` → CSV, else JSON)."""
        if self.report is None:
            self._message("Nothing to export yet: run the eval first.", error=True)
            return False
        from workbench.core.evals.export import export_report

        try:
            export_report(self.report, path)
        except OSError as exc:
            self._message(f"{path}: cannot export: {exc}", error=True)
            return False
        self._message(f"Exported to {path}")
        return True

    def _export_dialog(self, kind: str) -> None:
        flt = "CSV (*.csv)" if kind == "csv" else "JSON (*.json)"
        path, _ = QFileDialog.getSaveFileName(self, "Export eval results", f"eval_results.{kind}", flt)
        if path:
            self.export(path)

    def _message(self, text: str, error: bool = False) -> None:
        self.status.setText(text)
        self.status.setStyleSheet("color: #cf222e;" if error else "")
