"""The Workshop pane's "Listing preview" tab: the client's skill listing now and as if the proposal
were applied (``core.workshop.preview.listing_preview``, which runs discovery: off the GUI thread
on the app's runner, with a stale-token guard)."""

from __future__ import annotations

import logging
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtGui import QFont
from PySide6.QtWidgets import QLabel, QPlainTextEdit, QSplitter, QVBoxLayout, QWidget

from workbench.app.workers import describe, run_in_background
from workbench.app.workshop.render import esc

log = logging.getLogger(__name__)


class ListingPreview(QWidget):
    """The tab's widgets: ``note`` (what client, the skill's state before → after), ``before`` and
    ``after`` (the listing texts, ``mono`` font)."""

    def __init__(self, mono: QFont, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.note = QLabel(self)
        self.note.setWordWrap(True)
        self.before = QPlainTextEdit(self)
        self.after = QPlainTextEdit(self)
        for w in (self.before, self.after):
            w.setReadOnly(True)
            w.setFont(mono)
            w.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
        ps = QSplitter(Qt.Orientation.Horizontal, self)
        for title, w in (("Listing now", self.before), ("As if applied", self.after)):
            box = QWidget(ps)
            bl = QVBoxLayout(box)
            bl.setContentsMargins(0, 0, 0, 0)
            bl.addWidget(QLabel(f"<b>{title}</b>", box))
            bl.addWidget(w)
            ps.addWidget(box)
        pl = QVBoxLayout(self)
        pl.setContentsMargins(0, 0, 0, 0)
        pl.addWidget(self.note)
        pl.addWidget(ps, 1)
        self._token = 0

    def clear(self) -> None:
        """Forget the shown preview; a render still running is dropped when it ends."""
        self._token += 1
        self.before.clear()
        self.after.clear()
        self.note.clear()

    def start(self, proposal: Any, new_skill_md: bytes, env: Any, client: str) -> None:
        """Render the listing of ``client`` in ``env`` now and with ``new_skill_md`` applied."""
        from workbench.core.workshop.preview import listing_preview

        self._token += 1
        token = self._token
        self.note.setText("<i>rendering the listing…</i>")
        # slots go in connect=: they are connected before the job starts (a fast job's result
        # would otherwise be emitted before a connection made after this call returns)
        run_in_background(
            listing_preview,
            proposal,
            new_skill_md,
            env,
            client,
            connect={
                "returned": lambda _t, res, tok=token: self._show(tok, res),
                "errored": lambda _t, exc, tok=token: self._failed(tok, exc),
            },
        )

    def _show(self, token: int, res: Any) -> None:
        if token != self._token:
            return  # a stale result: the selection changed meanwhile
        if not res.available:
            self.note.setText(f"<span style='color:#57606a'>{esc(res.note)}</span>")
            return
        states = ""
        if res.skill_state_before or res.skill_state_after:
            was, now = res.skill_state_before or "not listed", res.skill_state_after or "not listed"
            states = f" — this skill: {was} → {now}"
        self.note.setText(f"{esc(res.client)}{esc(states)}" + (f"<br>{esc(res.note)}" if res.note else ""))
        self.before.setPlainText(res.before)
        self.after.setPlainText(res.after)

    def _failed(self, token: int, exc: BaseException) -> None:
        log.warning("listing preview failed", exc_info=exc)
        if token == self._token:
            self.note.setText(f"<span style='color:#cf222e'>{esc(describe(exc))}</span>")
