"""The "file changed on disk" prompt and the diff viewer.

``ask_conflict(parent, path, mine, theirs)`` is the default prompt of ``EditorPane``; it returns
one of ``RELOAD``, ``KEEP_MINE``, ``CANCEL``. "Show diff" opens ``DiffDialog`` (a difflib unified
diff, disk version -> buffer) and returns to the choice. ``theirs`` is None when the file was
deleted on disk (then "Reload" is disabled: there is nothing to reload).

The pane takes any callable with this signature (``EditorPane.conflict_prompt``), so tests and
headless callers can answer without a dialog.
"""

from __future__ import annotations

import difflib

from PySide6.QtGui import QColor, QFontDatabase, QTextCharFormat, QTextCursor
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

RELOAD, KEEP_MINE, CANCEL = "reload", "keep-mine", "cancel"


def unified_diff(theirs: str, mine: str, path: str) -> str:
    """Unified diff from the disk version (``a/``) to the buffer (``b/``); "" when equal."""
    return "".join(
        difflib.unified_diff(
            theirs.splitlines(keepends=True),
            mine.splitlines(keepends=True),
            fromfile=f"{path} (on disk)",
            tofile=f"{path} (your buffer)",
        )
    )


class DiffDialog(QDialog):
    """Read-only unified diff with added/removed lines coloured."""

    def __init__(self, diff_text: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Changes: disk → your buffer")
        self.resize(800, 560)
        lay = QVBoxLayout(self)
        self.view = QPlainTextEdit(self)
        self.view.setReadOnly(True)
        self.view.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        self.view.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
        lay.addWidget(self.view)
        cur = QTextCursor(self.view.document())
        colours = {"+": QColor("#dafbe1"), "-": QColor("#ffebe9"), "@": QColor("#ddf4ff")}
        for line in (diff_text or "(no differences)\n").splitlines():
            fmt = QTextCharFormat()
            c = colours.get(line[:1]) if not line.startswith(("+++", "---")) else None
            if c is not None:
                fmt.setBackground(c)
            cur.insertText(line + "\n", fmt)
        bb = QDialogButtonBox(QDialogButtonBox.StandardButton.Close, self)
        bb.rejected.connect(self.reject)
        bb.accepted.connect(self.accept)
        lay.addWidget(bb)


class ConflictDialog(QDialog):
    """Ask what to do about a file that changed on disk while the buffer has changes.

    Attributes:
        choice: RELOAD | KEEP_MINE | CANCEL after ``exec()``.
        reload_button, keep_button, diff_button, cancel_button: the buttons (tests click them).
    """

    def __init__(
        self, path: str, mine: str, theirs: str | None, parent: QWidget | None = None, saving: bool = False
    ) -> None:
        super().__init__(parent)
        self.setWindowTitle("File changed on disk")
        self.path, self.mine, self.theirs = path, mine, theirs
        self.choice = CANCEL
        lay = QVBoxLayout(self)
        what = "was deleted" if theirs is None else "was changed by another program"
        action = (
            "Saving now would overwrite that change."
            if saving and theirs is not None
            else "Your buffer has unsaved changes."
        )
        msg = QLabel(
            f"<b>{path}</b> {what} since you opened it.<br>{action}<br><br>"
            "<b>Reload</b> discards your changes and loads the disk version. "
            "<b>Keep mine</b> keeps your text and overwrites the disk version when "
            "you save.",
            self,
        )
        msg.setWordWrap(True)
        lay.addWidget(msg)
        bb = QDialogButtonBox(self)
        self.reload_button = QPushButton("Reload", self)
        self.keep_button = QPushButton("Keep mine", self)
        self.diff_button = QPushButton("Show diff", self)
        self.cancel_button = QPushButton("Cancel", self)
        self.reload_button.setEnabled(theirs is not None)
        for b, role in (
            (self.reload_button, QDialogButtonBox.ButtonRole.DestructiveRole),
            (self.keep_button, QDialogButtonBox.ButtonRole.AcceptRole),
            (self.diff_button, QDialogButtonBox.ButtonRole.ActionRole),
            (self.cancel_button, QDialogButtonBox.ButtonRole.RejectRole),
        ):
            bb.addButton(b, role)
        self.cancel_button.setDefault(True)
        self.reload_button.clicked.connect(lambda: self._done(RELOAD))
        self.keep_button.clicked.connect(lambda: self._done(KEEP_MINE))
        self.cancel_button.clicked.connect(lambda: self._done(CANCEL))
        self.diff_button.clicked.connect(self.show_diff)
        lay.addWidget(bb)
        self.diff_dialog: DiffDialog | None = None

    def _done(self, choice: str) -> None:
        self.choice = choice
        self.accept() if choice != CANCEL else self.reject()

    def show_diff(self) -> DiffDialog:
        """Open the diff (non-modal, so the choice stays available)."""
        self.diff_dialog = DiffDialog(unified_diff(self.theirs or "", self.mine, self.path), self)
        self.diff_dialog.show()
        return self.diff_dialog


def ask_conflict(
    parent: QWidget | None, path: str, mine: str, theirs: str | None, saving: bool = False
) -> str:
    """Modal prompt; returns RELOAD, KEEP_MINE or CANCEL. The default ``conflict_prompt``."""
    dlg = ConflictDialog(path, mine, theirs, parent, saving=saving)
    dlg.exec()
    choice = dlg.choice
    dlg.deleteLater()
    return choice
