"""Find / replace bar for the editor (Ctrl+F find, Ctrl+H replace, Esc closes).

Searches plain text (not regex) with ``QTextDocument.find``; "Aa" toggles case sensitivity. All
matches are shown in the ``search`` decoration layer (at most ``MAX_MARKS``); Next/Previous wrap
around; Replace replaces the current match and moves on; Replace all is one undo step.
"""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QKeySequence, QShortcut, QTextCursor, QTextDocument
from PySide6.QtWidgets import (
    QCheckBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QTextEdit,
    QToolButton,
    QWidget,
)

from workbench.app.editor.codeeditor import CodeEditor
from workbench.app.editor.theme import color

MAX_MARKS = 2000


class FindReplaceBar(QWidget):
    """Find / replace over one ``CodeEditor``.

    Signals:
        closed(): the bar was hidden (Esc or the close button).

    Attributes:
        find_edit, replace_edit (QLineEdit), case_box (QCheckBox), status (QLabel).
    """

    closed = Signal()
    LAYER = "search"

    def __init__(self, editor: CodeEditor, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.editor = editor
        lay = QHBoxLayout(self)
        lay.setContentsMargins(4, 2, 4, 2)
        self.find_edit = QLineEdit(self)
        self.find_edit.setPlaceholderText("Find")
        self.find_edit.setClearButtonEnabled(True)
        self.replace_edit = QLineEdit(self)
        self.replace_edit.setPlaceholderText("Replace with")
        self.case_box = QCheckBox("Aa", self)
        self.case_box.setToolTip("Match case")
        self.prev_btn = QPushButton("Previous", self)
        self.next_btn = QPushButton("Next", self)
        self.replace_btn = QPushButton("Replace", self)
        self.replace_all_btn = QPushButton("Replace all", self)
        self.status = QLabel(self)
        close = QToolButton(self)
        close.setText("✕")
        close.setToolTip("Close (Esc)")
        for w in (
            self.find_edit,
            self.case_box,
            self.prev_btn,
            self.next_btn,
            self.replace_edit,
            self.replace_btn,
            self.replace_all_btn,
            self.status,
        ):
            lay.addWidget(w)
        lay.addStretch(1)
        lay.addWidget(close)
        self.find_edit.textChanged.connect(self._on_query_changed)
        self.find_edit.returnPressed.connect(self.find_next)
        self.replace_edit.returnPressed.connect(self.replace_one)
        self.case_box.toggled.connect(self._on_query_changed)
        self.next_btn.clicked.connect(self.find_next)
        self.prev_btn.clicked.connect(self.find_previous)
        self.replace_btn.clicked.connect(self.replace_one)
        self.replace_all_btn.clicked.connect(self.replace_all)
        close.clicked.connect(self.close_bar)
        esc = QShortcut(QKeySequence(Qt.Key.Key_Escape), self)
        esc.setContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
        esc.activated.connect(self.close_bar)
        self.editor.document().contentsChanged.connect(self._refresh_marks_if_visible)
        self.hide()

    # -- opening ----------------------------------------------------------------------
    def open_find(self, replace: bool = False) -> None:
        """Show the bar (with the replace field when ``replace``), seeded with the selection."""
        sel = self.editor.textCursor().selectedText()
        if sel and "\u2029" not in sel:
            self.find_edit.setText(sel)
        for w in (self.replace_edit, self.replace_btn, self.replace_all_btn):
            w.setVisible(replace)
        self.show()
        (self.replace_edit if replace and self.find_edit.text() else self.find_edit).setFocus()
        self.find_edit.selectAll()
        self._refresh_marks()

    def close_bar(self) -> None:
        self.hide()
        self.editor.layers.clear(self.LAYER)
        self.editor.setFocus()
        self.closed.emit()

    # -- searching --------------------------------------------------------------------
    def _flags(self, backward: bool = False) -> QTextDocument.FindFlag:
        f = QTextDocument.FindFlag(0)
        if self.case_box.isChecked():
            f |= QTextDocument.FindFlag.FindCaseSensitively
        if backward:
            f |= QTextDocument.FindFlag.FindBackward
        return f

    def _find(self, backward: bool) -> bool:
        q = self.find_edit.text()
        if not q:
            return False
        doc = self.editor.document()
        cur = self.editor.textCursor()
        if backward:
            start = QTextCursor(cur)
            start.setPosition(cur.selectionStart())
        else:
            start = QTextCursor(cur)
            start.setPosition(cur.selectionEnd())
        found = doc.find(q, start, self._flags(backward))
        if found.isNull():  # wrap around
            edge = QTextCursor(doc)
            edge.movePosition(QTextCursor.MoveOperation.End if backward else QTextCursor.MoveOperation.Start)
            found = doc.find(q, edge, self._flags(backward))
        if found.isNull():
            self.status.setText("no match")
            return False
        self.editor.setTextCursor(found)
        self._refresh_marks()
        return True

    def find_next(self) -> bool:
        """Select the next match (wrapping); False when there is none."""
        return self._find(False)

    def find_previous(self) -> bool:
        """Select the previous match (wrapping); False when there is none."""
        return self._find(True)

    def _matches(self) -> list[QTextCursor]:
        q = self.find_edit.text()
        out: list[QTextCursor] = []
        if not q:
            return out
        doc = self.editor.document()
        cur = QTextCursor(doc)
        while len(out) < MAX_MARKS:
            cur = doc.find(q, cur, self._flags())
            if cur.isNull():
                break
            out.append(QTextCursor(cur))
        return out

    def _is_match(self, cur: QTextCursor) -> bool:
        q = self.find_edit.text()
        sel = cur.selectedText()
        return bool(q) and (sel == q if self.case_box.isChecked() else sel.lower() == q.lower())

    # -- replacing --------------------------------------------------------------------
    def replace_one(self) -> bool:
        """Replace the selected match (or find the next one first); then select the next."""
        cur = self.editor.textCursor()
        if not self._is_match(cur):
            return self.find_next()
        cur.insertText(self.replace_edit.text())
        self.find_next()
        return True

    def replace_all(self) -> int:
        """Replace every match in one undoable edit; returns how many were replaced."""
        matches = self._matches()
        if not matches:
            self.status.setText("no match")
            return 0
        edit = QTextCursor(self.editor.document())
        edit.beginEditBlock()
        for m in reversed(matches):
            m.insertText(self.replace_edit.text())
        edit.endEditBlock()
        self.status.setText(f"{len(matches)} replaced")
        self._refresh_marks()
        return len(matches)

    # -- marks ------------------------------------------------------------------------
    def _on_query_changed(self, *_args) -> None:
        self._refresh_marks()
        if self.find_edit.text():
            cur = self.editor.textCursor()
            cur.setPosition(cur.selectionStart())
            self.editor.setTextCursor(cur)
            self.find_next()

    def _refresh_marks_if_visible(self) -> None:
        if self.isVisible():
            self._refresh_marks()

    def _refresh_marks(self) -> None:
        matches = self._matches()
        sels = []
        for m in matches:
            sel = QTextEdit.ExtraSelection()
            sel.format.setBackground(color("search_match"))
            sel.cursor = m
            sels.append(sel)
        self.editor.layers.set(self.LAYER, sels, 20)
        if self.find_edit.text():
            more = "+" if len(matches) >= MAX_MARKS else ""
            self.status.setText(f"{len(matches)}{more} match{'es' if len(matches) != 1 else ''}")
        else:
            self.status.setText("")
