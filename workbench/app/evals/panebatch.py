"""The Evals pane's "Run as batch" and "Resume batch…" (``PaneBatch``): the pane's single-skill
eval through ``batch.BatchFlow``, shown like a direct run and saved to the pane's history."""

from __future__ import annotations

import dataclasses
import logging
from typing import Any

from PySide6.QtCore import QObject

from workbench.app.evals.batch import BatchFlow, batch_status, estimate_text
from workbench.app.evals.collection import CollectionWindow
from workbench.app.workers import describe
from workbench.core.text import agree, plural

log = logging.getLogger(__name__)


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
            close_sdk=True,
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
        sdk = self._sdk(settings, key)
        self.flow.resume(rec, env[2], sdk, BatchStore(p._history()), settings, close_sdk=True)
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
