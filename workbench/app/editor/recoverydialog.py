"""The start-up dialog that offers unsaved buffers back after a crash.

``RecoveryDialog(entries)`` lists ``workbench.core.recovery.RecoveryEntry``s with a checkbox each;
``Restore selected`` / ``Discard selected`` / ``Later``. ``choices()`` after ``exec()`` gives
``[(entry, "restore" | "discard" | "keep")]``. The main window then opens a pane per restored entry
and calls ``EditorPane.restore(entry)``; discarded entries are deleted from the store.
"""

from __future__ import annotations

import datetime as _dt

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from workbench.core.recovery import RecoveryEntry

RESTORE, DISCARD, KEEP = "restore", "discard", "keep"


class RecoveryDialog(QDialog):
    """Offer recovery entries back. Attributes: ``list`` (QListWidget), ``action`` (str)."""

    def __init__(self, entries: list[RecoveryEntry], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Recover unsaved changes")
        self.entries = list(entries)
        self.action = KEEP
        lay = QVBoxLayout(self)
        lay.addWidget(QLabel("These files had unsaved changes when Skill Workbench last stopped:", self))
        self.list = QListWidget(self)
        for e in self.entries:
            when = _dt.datetime.fromtimestamp(e.saved_at).strftime("%Y-%m-%d %H:%M") if e.saved_at else "?"
            label = f"{e.path or '(untitled)'} — {when}" if e.ok else f"{e.file.name}: {e.error}"
            item = QListWidgetItem(label)
            item.setFlags(item.flags() | Qt.ItemFlag.ItemIsUserCheckable)
            item.setCheckState(Qt.CheckState.Checked if e.ok else Qt.CheckState.Unchecked)
            self.list.addItem(item)
        lay.addWidget(self.list)
        bb = QDialogButtonBox(self)
        self.restore_button = QPushButton("Restore selected", self)
        self.discard_button = QPushButton("Discard selected", self)
        self.later_button = QPushButton("Later", self)
        bb.addButton(self.restore_button, QDialogButtonBox.ButtonRole.AcceptRole)
        bb.addButton(self.discard_button, QDialogButtonBox.ButtonRole.DestructiveRole)
        bb.addButton(self.later_button, QDialogButtonBox.ButtonRole.RejectRole)
        self.restore_button.clicked.connect(lambda: self._done(RESTORE))
        self.discard_button.clicked.connect(lambda: self._done(DISCARD))
        self.later_button.clicked.connect(lambda: self._done(KEEP))
        lay.addWidget(bb)

    def _done(self, action: str) -> None:
        self.action = action
        self.accept() if action != KEEP else self.reject()

    def choices(self) -> list[tuple[RecoveryEntry, str]]:
        """Per entry: the dialog's action if its box is checked, else "keep"."""
        out = []
        for i, e in enumerate(self.entries):
            checked = self.list.item(i).checkState() == Qt.CheckState.Checked
            out.append((e, self.action if checked and (e.ok or self.action == DISCARD) else KEEP))
        return out
