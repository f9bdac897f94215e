"""The "Real client" tab: run the user's installed client once, offline, and show the listing it
really sends beside the workbench's simulation, with the differences highlighted.

Thin over ``workbench.core.capture.capture.capture`` (run in the background with
``workers.run_in_background``; Cancel stops the client's process group at once). A banner says
when the installed version differs from the modelled one; lines that differ are shaded in both
panes (red: only in the real listing, green: only in the simulation).
"""

from __future__ import annotations

import difflib
import logging
from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QColor, QTextCharFormat, QTextCursor
from PySide6.QtWidgets import (
    QComboBox,
    QFileDialog,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QProgressBar,
    QPushButton,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from workbench.app import workers
from workbench.core.capture import RUNNABLE_CLIENTS
from workbench.core.text import agree, plural

log = logging.getLogger(__name__)

REAL_ONLY = QColor(255, 220, 220)
SIM_ONLY = QColor(210, 245, 210)


def changed_lines(real: str, sim: str) -> tuple[set[int], set[int]]:
    """0-based line numbers that differ: (in ``real``, in ``sim``), from difflib opcodes."""
    a, b = real.split("\n"), sim.split("\n")
    ra: set[int] = set()
    sb: set[int] = set()
    for op, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if op != "equal":
            ra.update(range(i1, i2))
            sb.update(range(j1, j2))
    return ra, sb


def _shade(edit: QPlainTextEdit, lines: set[int], color: QColor) -> None:
    fmt = QTextCharFormat()
    fmt.setBackground(color)
    doc = edit.document()
    for n in sorted(lines):
        block = doc.findBlockByNumber(n)
        if not block.isValid():
            continue
        cur = QTextCursor(block)
        cur.movePosition(QTextCursor.MoveOperation.EndOfBlock, QTextCursor.MoveMode.KeepAnchor)
        cur.mergeCharFormat(fmt)


class CapturePane(QWidget):
    """Capture controls, the two listings side by side, and a status line.

    Signals: ``captured(object)`` with the ``CaptureReport`` (also on errors).
    Public for tests: ``show_report(report)`` fills the view from a report.
    """

    captured = Signal(object)

    def __init__(self, ctx: Any, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.ctx = ctx
        self._job: workers.Job | None = None
        self.report: Any = None
        lay = QVBoxLayout(self)
        intro = QLabel(
            "Run your installed client once, offline (a local recorder answers; no key, no "
            "network), and compare the listing it really sends with the simulation.",
            self,
        )
        intro.setWordWrap(True)
        lay.addWidget(intro)
        row = QHBoxLayout()
        self.client = QComboBox(self)
        self.client.addItems(list(RUNNABLE_CLIENTS))
        cur = getattr(ctx, "client_id", None)
        if cur in RUNNABLE_CLIENTS:
            self.client.setCurrentText(cur)
        self.exe = QLineEdit(self)
        self.exe.setPlaceholderText("client executable (default: found on PATH)")
        browse = QPushButton("…", self)
        browse.setToolTip("Choose the client's executable")
        browse.clicked.connect(self._browse)
        self.capture_btn = QPushButton("Capture", self)
        self.capture_btn.setToolTip("Run the client once against the recorder and compare")
        self.capture_btn.clicked.connect(self.start)
        self.cancel_btn = QPushButton("Cancel", self)
        self.cancel_btn.setEnabled(False)
        self.cancel_btn.clicked.connect(self.cancel)
        for w in (QLabel("Client:", self), self.client, self.exe, browse, self.capture_btn, self.cancel_btn):
            row.addWidget(w)
        row.setStretch(2, 1)
        lay.addLayout(row)
        self.progress = QProgressBar(self)
        self.progress.setRange(0, 0)
        self.progress.setVisible(False)
        lay.addWidget(self.progress)
        self.banner = QLabel(self)
        self.banner.setWordWrap(True)
        self.banner.setVisible(False)
        self.banner.setStyleSheet("background: #fff3cd; padding: 4px;")
        lay.addWidget(self.banner)
        self.facts = QLabel("No capture yet: choose a client and press Capture.", self)
        self.facts.setWordWrap(True)
        self.facts.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        lay.addWidget(self.facts)
        split = QSplitter(Qt.Orientation.Horizontal, self)
        self.real = self._pane(split, "Real client (captured)")
        self.sim = self._pane(split, "Workbench simulation")
        lay.addWidget(split, 1)
        if hasattr(ctx, "client_changed"):
            ctx.client_changed.connect(self._client_changed)

    def _pane(self, split: QSplitter, title: str) -> QPlainTextEdit:
        box = QWidget(split)
        v = QVBoxLayout(box)
        v.setContentsMargins(0, 0, 0, 0)
        v.addWidget(QLabel(f"<b>{title}</b>", box))
        edit = QPlainTextEdit(box)
        edit.setReadOnly(True)
        edit.setLineWrapMode(QPlainTextEdit.LineWrapMode.WidgetWidth)
        v.addWidget(edit)
        split.addWidget(box)
        return edit

    def _client_changed(self, cid: str) -> None:
        if cid in RUNNABLE_CLIENTS and self._job is None:
            self.client.setCurrentText(cid)

    def _browse(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, "Client executable")
        if path:
            self.exe.setText(path)

    # -- running ------------------------------------------------------------------------------
    def start(self) -> None:
        """Capture in the background (Cancel stops the client)."""
        from workbench.core.capture.capture import capture

        if self._job is not None:
            return
        env = self.ctx.env
        exe = Path(self.exe.text()) if self.exe.text().strip() else None
        self.capture_btn.setEnabled(False)
        self.cancel_btn.setEnabled(True)
        self.progress.setVisible(True)
        self.facts.setText(f"Running {self.client.currentText()} against the recorder…")
        client = self.client.currentText()
        self._job = workers.run_in_background(
            lambda cancel_event: capture(env, client, exe=exe, cancel=cancel_event),
            cancel_event=True,
            connect={"returned": self._done, "errored": self._failed, "cancelled": self._cancelled},
        )

    def cancel(self) -> None:
        """Stop the running capture (the client's process group is stopped at once)."""
        if self._job is not None:
            self._job.cancel()
        self.facts.setText("Cancelling…")

    def is_busy(self) -> bool:
        return self._job is not None

    def _finish(self) -> None:
        self._job = None
        self.capture_btn.setEnabled(True)
        self.cancel_btn.setEnabled(False)
        self.progress.setVisible(False)

    def _failed(self, _token: int, exc: BaseException) -> None:
        log.warning("capture failed", exc_info=exc)
        self._finish()
        self.facts.setText(f"Capture failed: {workers.describe(exc)}")

    def _cancelled(self, _token: int) -> None:
        self._finish()
        self.facts.setText("Capture cancelled.")

    def _done(self, _token: int, report: Any) -> None:
        self._finish()
        self.show_report(report)
        self.captured.emit(report)

    def show_report(self, rep: Any) -> None:
        """Fill the view from a ``CaptureReport``: texts, highlighted differences, facts, banner."""
        self.report = rep
        if rep.version_differs:
            self.banner.setText(
                f"Your installed {rep.client} is {rep.version}; the workbench models "
                f"{rep.modelled_version}. The left pane shows what yours really sends."
            )
            self.banner.setVisible(True)
        else:
            self.banner.setVisible(False)
        if rep.error:
            self.facts.setText(f"{rep.client}: {rep.error}")
            self.real.setPlainText("")
            self.sim.setPlainText("")
            return
        pl = rep.placement or {}
        where = (
            pl.get("location", "?")
            + (f", message {pl['message_index']}" if pl.get("message_index") is not None else "")
            + (f", block {pl['block_index']}" if pl.get("block_index") is not None else "")
        )
        tool = (rep.tool or {}).get("name") or "none (the model reads SKILL.md)"
        ra, sb = changed_lines(rep.listing or "", rep.simulated or "")
        n = max(len(ra), len(sb))
        diff = "identical" if not rep.diff else f"{plural(n, 'line')} {agree(n, 'differs', 'differ')}"
        self.facts.setText(
            f"{rep.client} {rep.version} · placement: {where} · load tool: {tool} · "
            f"{len(rep.skills)} skills ({len(rep.builtins)} built-in) · {diff} · "
            f"{rep.seconds:.1f}s"
        )
        self.real.setPlainText(rep.listing or "")
        self.sim.setPlainText(rep.simulated or "")
        _shade(self.real, ra, REAL_ONLY)
        _shade(self.sim, sb, SIM_ONLY)

    def maybe_close(self) -> bool:
        """Never vetoes closing (a running capture is cancelled by ``shutdown``)."""
        return True

    def shutdown(self) -> None:
        """Cancel a running capture (its client's process group is stopped) and wait for it."""
        job = self._job
        self.cancel()
        if job is not None:
            job.wait(10)
