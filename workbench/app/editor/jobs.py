"""The editor's background work: lint and preview renders of buffer snapshots, on the app's runner
(``workers.run_in_background``, lane "editor": two threads of its own, so a long scan on the global
pool never delays a keystroke's diagnostics).

``BufferJobs.lint(token, fn, text, path, profile)`` and ``render(token, text)`` return at once;
the result comes back on the GUI thread as ``linted(token, diagnostics)`` /
``rendered(token, html)`` with the caller's token (the pane drops stale ones). A lint function that
raises becomes one "LINT-CRASH" diagnostic; a render that raises, a "cannot render" page — both
logged with the traceback, never raised.
"""

from __future__ import annotations

import html
import logging
from collections.abc import Callable
from pathlib import Path
from typing import Any

from PySide6.QtCore import QObject, Signal

from workbench.app import workers
from workbench.app.editor.preview import render_html

log = logging.getLogger(__name__)

LintFn = Callable[[str, Any, str], list]

#: The runner lane of lint and preview jobs (``workers.LANE_THREADS``).
EDITOR_LANE = "editor"


def lint_crash(exc: BaseException) -> list:
    """The diagnostic shown when the lint function raised."""
    from workbench.app.editor.lintbridge import Diagnostic

    return [Diagnostic(1, 1, 1, 2, "error", "LINT-CRASH", f"lint failed: {exc}")]


class BufferJobs(QObject):
    """Lint and preview jobs of one editor pane (module docstring).

    Signals:
        linted(int, object): caller's token, list of diagnostics.
        rendered(int, str): caller's token, the preview HTML.
    """

    linted = Signal(int, object)
    rendered = Signal(int, str)

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._kinds: dict[int, tuple[str, int]] = {}  # job token -> ("lint" | "preview", token)
        self._jobs: set[workers.Job] = set()

    def lint(self, token: int, fn: LintFn, text: str, path: Path | None, profile: str) -> None:
        """Lint ``text`` with ``fn(text, path, profile)`` off the GUI thread."""
        self._start("lint", token, fn, text, path, profile)

    def render(self, token: int, text: str) -> None:
        """Render the preview HTML of ``text`` (markdown-it + YAML: ~70 ms on 500 lines)."""
        self._start("preview", token, render_html, text)

    def _start(self, kind: str, token: int, fn: Callable[..., Any], *args: Any) -> None:
        job = workers.run_in_background(
            fn,
            *args,
            lane=EDITOR_LANE,
            connect={"returned": self._returned, "errored": self._errored, "finished": self._finished},
        )
        self._kinds[job.token] = (kind, token)
        self._jobs.add(job)

    def _returned(self, job_token: int, result: Any) -> None:
        kind, token = self._kinds.get(job_token, ("", 0))
        if kind == "lint":
            self.linted.emit(token, list(result))
        elif kind == "preview":
            self.rendered.emit(token, result)

    def _errored(self, job_token: int, exc: BaseException) -> None:
        kind, token = self._kinds.get(job_token, ("", 0))
        log.warning("editor %s job failed", kind, exc_info=exc)
        if kind == "lint":
            self.linted.emit(token, lint_crash(exc))
        elif kind == "preview":
            self.rendered.emit(token, f"<p>cannot render: {html.escape(str(exc))}</p>")

    def _finished(self, job_token: int) -> None:
        self._kinds.pop(job_token, None)
        self._jobs = {j for j in self._jobs if j.token != job_token}

    def wait(self, timeout_ms: int = 10_000) -> bool:
        """Block until the running jobs ended (their results are still queued)."""
        return workers.wait_jobs(self._jobs, timeout_ms)
