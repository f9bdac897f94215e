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

Parts (``workbench/app/evals/``): ``controls`` (the rows of fields and buttons), ``queries`` (the
query-set editor), ``results`` (results table, chart, summary, history), ``chart``. "Run as batch"
and "Resume batch…" are ``panebatch.PaneBatch``; "Collection…" (the confusion-matrix window) is
``collection.CollectionWindow``; the pane keeps only the hooks.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QFileDialog,
    QHBoxLayout,
    QLabel,
    QProgressBar,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from workbench.app.credentials import Credentials
from workbench.app.emptystate import EmptyState
from workbench.app.evals.chart import TriggerChart
from workbench.app.evals.controls import EvalControls
from workbench.app.evals.queries import QueryEditor
from workbench.app.evals.results import HistoryBox, RunResults, fill_history, progress_line
from workbench.app.workers import Job, describe, run_in_background
from workbench.core.evals.queryset import Query
from workbench.core.evals.runner import EvalOptions

log = logging.getLogger(__name__)


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
        self.controls = c = EvalControls(self)  # evals/controls.py
        self.skill_combo, self.model_edit, self.comp_check = c.skill_combo, c.model_edit, c.comp_check
        self.runs_spin, self.conc_spin, self.thr_spin = c.runs_spin, c.conc_spin, c.thr_spin
        self.iter_spin, self.batch_check, self.resume_btn = c.iter_spin, c.batch_check, c.resume_btn
        self.collection_btn, self.run_btn, self.cancel_btn = c.collection_btn, c.run_btn, c.cancel_btn
        self.improve_btn, self.export_json_btn, self.export_csv_btn = (
            c.improve_btn,
            c.export_json_btn,
            c.export_csv_btn,
        )

        def on_skill_changed(*_: object) -> None:
            self.refresh_history()
            self.suggest_queries()

        self.skill_combo.currentTextChanged.connect(on_skill_changed)
        self.thr_spin.valueChanged.connect(lambda v: self.chart.set_threshold(v))
        self.resume_btn.clicked.connect(lambda: self.batches().resume())
        self.collection_btn.clicked.connect(self.open_collection)
        self.run_btn.clicked.connect(self.start_run)
        self.cancel_btn.clicked.connect(self.cancel)
        self.improve_btn.clicked.connect(self.start_improve)
        self.export_json_btn.clicked.connect(lambda: self._export_dialog("json"))
        self.export_csv_btn.clicked.connect(lambda: self._export_dialog("csv"))

        # query editor (evals/queries.py)
        self.query_editor = qbox = QueryEditor(self._workspace, self)
        qbox.message.connect(self._message)
        self.query_table, self.queries_label = qbox.table, qbox.counts_label
        self.add_btn, self.remove_btn = qbox.add_btn, qbox.remove_btn
        self.load_btn, self.save_btn = qbox.load_btn, qbox.save_btn

        # results (evals/results.py)
        self.results = RunResults(self)
        self.results_table, self.summary_label = self.results.table, self.results.summary
        self.chart: TriggerChart = self.results.chart
        hbox = HistoryBox(self)
        self.history_tree = hbox.tree

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
            qbox.empty_state,
            EmptyState(
                self.results_table,
                "No run yet. <i>Run</i> sends every query to the model "
                "several times and shows how often it loads the skill.",
                [("Run", self.start_run)],
            ),
            EmptyState(hbox.tree, HistoryBox.EMPTY, [("Run", self.start_run)]),
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
        lay.addWidget(self.controls)
        lay.addWidget(split, 1)
        lay.addWidget(self.summary_label)
        lay.addLayout(foot)

    # -- the query set (evals/queries.py) -----------------------------------------------------
    def add_query(self, text: str, should_trigger: bool, edit: bool = False) -> int:
        """Append a row to the query set; returns its index."""
        return self.query_editor.add_query(text, should_trigger, edit)

    def set_queries(self, queries: list[Query]) -> None:
        self.query_editor.set_queries(queries)

    def queries(self) -> list[Query]:
        """The query set (rows with an empty query are skipped)."""
        return self.query_editor.queries()

    def remove_selected(self) -> None:
        self.query_editor.remove_selected()

    def load_queries_file(self, path: str | Path) -> bool:
        """Load a query set (JSON or YAML); errors go to the status line."""
        return self.query_editor.load_file(path)

    def save_queries_file(self, path: str | Path) -> bool:
        return self.query_editor.save_file(path)

    def _workspace(self) -> Path | None:
        env = self._env()
        return Path(env[0].workspace) if env is not None and env[0] is not None else None

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
        """The pane's ``evals.panebatch.PaneBatch`` (built on first use)."""
        if getattr(self, "_batches", None) is None:
            from workbench.app.evals.panebatch import PaneBatch

            self._batches = PaneBatch(self)
        return self._batches

    def open_collection(self) -> Any:
        """Open the collection-eval window (``evals.collection.CollectionWindow``)."""
        from workbench.app.evals.collection import CollectionWindow

        self.collection_window = CollectionWindow(self)
        self.collection_window.show()
        return self.collection_window

    def _reset_results(self, qs: list[Query], runs: int) -> None:
        self.results.reset(qs, runs, self.thr_spin.value())
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

    def maybe_close(self) -> bool:
        """Never vetoes closing (a run is cancelled by ``shutdown``; a batch eval stays on the
        server and "Resume batch…" collects it after a restart)."""
        return True

    def shutdown(self, timeout: float = 10.0) -> None:
        """Cancel a direct run or improvement loop and wait for it (runs in flight are closed);
        detach a running batch eval (pane or collection window): polling stops, the batches stay
        on the server for "Resume batch…", the flow's SDK client is closed."""
        flows = [getattr(getattr(self, "_batches", None), "flow", None)]
        flows.append(getattr(getattr(self, "collection_window", None), "flow", None))
        for flow in flows:
            if flow is not None:
                flow.detach(timeout)
        job = self._job
        if isinstance(job, Job) and not job.done.is_set():
            job.cancel()
            job.wait(timeout)

    @property
    def running(self) -> bool:
        return self._job is not None

    def _job_finished(self) -> None:
        self._job = None
        self._set_running(False)

    def _set_running(self, on: bool) -> None:
        self.controls.set_running(on, has_report=self.report is not None)
        for w in (self.add_btn, self.remove_btn, self.load_btn):
            w.setEnabled(not on)

    def _on_event(self, ev: dict) -> None:
        t = ev.get("type")
        if t == "run":
            self.progress.setRange(0, ev["total"])
            self.progress.setValue(ev["done"])
            self.progress_seen.append((ev["done"], ev["total"]))
            self.results.update_row(ev["index"], ev["result"])
            self.status.setText(progress_line(ev))
        elif t == "throttle":
            self.status.setText(progress_line(ev))
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

    def show_report(self, rep: Any) -> None:
        """Show a finished report (table, chart, summary)."""
        self.report = rep
        self.results.show_report(rep)

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
        """Fill the history tree with the selected skill's runs, per description."""
        skill = self.skill_combo.currentText() if hasattr(self, "skill_combo") else ""
        h = self._history() if skill else None
        if h is None:
            self.history_tree.clear()
            return
        fill_history(self.history_tree, h.by_description(skill))

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
