"""``CodeEditor``: the SKILL.md text widget (QPlainTextEdit + gutter + decoration layers).

What it adds to ``QPlainTextEdit``:
  * a ``Gutter`` (line numbers, severity marks) and named ``SelectionLayers`` (current line,
    search matches, diagnostics);
  * hover tooltips with the message and code of the diagnostics under the mouse;
  * quick fixes: the context menu (and Ctrl+.) lists the fixes of the diagnostics at the click /
    caret; a fix's edits are applied as **one** undoable edit block, at their pinned positions.

Undo/redo are QPlainTextEdit's own (Ctrl+Z, Ctrl+Shift+Z / Ctrl+Y).
"""

from __future__ import annotations

from typing import cast

from PySide6.QtCore import QEvent, QRect, Qt, Signal
from PySide6.QtGui import QAction, QFontDatabase, QHelpEvent, QKeySequence, QPalette, QTextCursor, QTextFormat
from PySide6.QtWidgets import QMenu, QPlainTextEdit, QTextEdit, QToolTip, QWidget

from workbench.app.editor.diagnostics import DiagnosticsLayer, PinnedDiagnostic, SelectionLayers
from workbench.app.editor.gutter import Gutter
from workbench.app.editor.theme import color


class CodeEditor(QPlainTextEdit):
    """The text widget of the editor pane.

    Signals:
        fix_applied(str): a quick fix was applied (its title).
        bom_removal_requested(): a fix removes the UTF-8 BOM (not part of the text; the pane
            owns the BOM flag).

    Attributes:
        layers: ``SelectionLayers`` (current line = 0, search = 20, diagnostics = 30).
        diagnostics: ``DiagnosticsLayer`` (pinned diagnostics of the last accepted lint).
        gutter: the ``Gutter`` widget.
    """

    fix_applied = Signal(str)
    bom_removal_requested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        font = QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont)
        self.setFont(font)
        # Wrapped: a SKILL.md's description is one long line, cut at the pane's edge unwrapped
        # (issue 13). The gutter numbers blocks (file lines), so a wrapped line keeps one number.
        self.setLineWrapMode(QPlainTextEdit.LineWrapMode.WidgetWidth)
        self.setTabStopDistance(self.fontMetrics().horizontalAdvance(" ") * 4)
        pal = self.palette()
        pal.setColor(QPalette.ColorRole.Base, color("background"))
        pal.setColor(QPalette.ColorRole.Text, color("foreground"))
        self.setPalette(pal)
        self.layers = SelectionLayers(self)
        self.diagnostics = DiagnosticsLayer(self, self.layers)
        self.gutter = Gutter(self)
        self.blockCountChanged.connect(self._update_margins)
        self.updateRequest.connect(self._on_update_request)
        self.cursorPositionChanged.connect(self._highlight_current_line)
        self.diagnostics.changed.connect(self.gutter.update)
        self._update_margins()
        self._highlight_current_line()
        self.quick_fix_action = QAction("Quick Fix…", self)
        self.quick_fix_action.setShortcut(QKeySequence("Ctrl+."))
        self.quick_fix_action.setShortcutContext(Qt.ShortcutContext.WidgetShortcut)
        self.quick_fix_action.triggered.connect(self.show_quick_fix_menu)
        self.addAction(self.quick_fix_action)

    # -- gutter -----------------------------------------------------------------------
    def _update_margins(self, *_args) -> None:
        self.setViewportMargins(self.gutter.width_hint(), 0, 0, 0)

    def _on_update_request(self, rect: QRect, dy: int) -> None:
        if dy:
            self.gutter.scroll(0, dy)
        else:
            self.gutter.update(0, rect.y(), self.gutter.width(), rect.height())

    # Override QWidget::resizeEvent
    def resizeEvent(self, event) -> None:  # noqa: N802
        super().resizeEvent(event)
        cr = self.contentsRect()
        self.gutter.setGeometry(QRect(cr.left(), cr.top(), self.gutter.width_hint(), cr.height()))

    def _highlight_current_line(self) -> None:
        sel = QTextEdit.ExtraSelection()
        sel.format.setBackground(color("current_line"))
        sel.format.setProperty(QTextFormat.Property.FullWidthSelection, True)
        cur = self.textCursor()
        cur.clearSelection()
        sel.cursor = cur
        self.layers.set("current-line", [sel], 0)
        self.gutter.update()

    # -- navigation -------------------------------------------------------------------
    def jump_to(self, item: PinnedDiagnostic) -> None:
        """Select the diagnostic's current range and give the editor focus."""
        cur = QTextCursor(self.document())
        cur.setPosition(item.start())
        cur.setPosition(item.end(), QTextCursor.MoveMode.KeepAnchor)
        self.setTextCursor(cur)
        self.centerCursor()
        self.setFocus(Qt.FocusReason.OtherFocusReason)

    def goto_line(self, line: int, column: int = 1) -> None:
        """Move the caret to 1-based (line, column in code points)."""
        from workbench.app.editor.diagnostics import doc_position

        cur = QTextCursor(self.document())
        cur.setPosition(doc_position(self.document(), line, column))
        self.setTextCursor(cur)
        self.centerCursor()

    # -- hover ------------------------------------------------------------------------
    # Override QAbstractScrollArea::viewportEvent
    def viewportEvent(self, event: QEvent) -> bool:  # noqa: N802
        if event.type() == QEvent.Type.ToolTip:
            help_event = cast(QHelpEvent, event)  # a ToolTip event is a QHelpEvent
            text = self.tooltip_at(help_event.pos())
            if text:
                QToolTip.showText(help_event.globalPos(), text, self.viewport())
            else:
                QToolTip.hideText()
                event.ignore()
            return True
        return super().viewportEvent(event)

    def tooltip_at(self, viewport_pos) -> str:
        """Tooltip text for a point in viewport coordinates ("" when no diagnostic is there)."""
        cur = self.cursorForPosition(viewport_pos)
        pos = cur.position()
        # cursorForPosition snaps to the nearest gap: only count it when the point lies on text.
        rect = self.cursorRect(cur)
        if abs(rect.center().y() - viewport_pos.y()) > self.fontMetrics().height():
            return ""
        items = self.diagnostics.at_position(pos)
        return "\n".join(it.tooltip() for it in items)

    # -- quick fixes ------------------------------------------------------------------
    def fixes_at(self, pos: int) -> list[PinnedDiagnostic]:
        """Diagnostics with a fix at ``pos``, else those with a fix on the same line."""
        items = [it for it in self.diagnostics.at_position(pos) if it.fix is not None]
        if not items:
            block = self.document().findBlock(pos).blockNumber()
            items = [it for it in self.diagnostics.on_block(block) if it.fix is not None]
        return items

    def _add_fix_actions(self, menu: QMenu, pos: int) -> int:
        items = self.fixes_at(pos)
        for it in items:
            act = menu.addAction(f"Fix: {it.fix.title}  [{it.code}]")
            act.triggered.connect(lambda _checked=False, it=it: self.apply_fix(it))
        return len(items)

    def show_quick_fix_menu(self) -> QMenu:
        """Ctrl+.: a menu of the fixes at the caret, shown below it. Returns the menu."""
        menu = QMenu(self)
        if not self._add_fix_actions(menu, self.textCursor().position()):
            act = menu.addAction("No quick fixes here")
            act.setEnabled(False)
        menu.popup(self.viewport().mapToGlobal(self.cursorRect().bottomLeft()))
        return menu

    # Override QPlainTextEdit::contextMenuEvent
    def contextMenuEvent(self, event) -> None:  # noqa: N802
        menu = self.build_context_menu(self.cursorForPosition(event.pos()).position())
        menu.exec(event.globalPos())
        menu.deleteLater()

    def build_context_menu(self, pos: int) -> QMenu:
        """The standard edit menu with the quick fixes at ``pos`` on top."""
        menu = self.createStandardContextMenu()
        first = menu.actions()[0] if menu.actions() else None
        fix_menu = QMenu(menu)
        if self._add_fix_actions(fix_menu, pos):
            for act in fix_menu.actions():
                act.setParent(menu)
                if first is not None:
                    menu.insertAction(first, act)
                else:  # insertAction(nullptr, act) appends
                    menu.addAction(act)
            if first is not None:
                menu.insertSeparator(first)
        return menu

    def apply_fix(self, item: PinnedDiagnostic) -> bool:
        """Apply a diagnostic's fix as one undoable edit block; False if it has no edits.

        Edits are applied from the end of the document backwards, at their pinned (live) ranges,
        so earlier edits do not shift later ones. A BOM-removal edit emits
        ``bom_removal_requested`` instead of touching the text.
        """
        fix = item.fix
        if fix is None or not item.fix_edits:
            return False
        edits = sorted(item.fix_edits, key=lambda e: e.cursor.selectionStart(), reverse=True)
        cur = QTextCursor(self.document())
        cur.beginEditBlock()
        try:
            for e in edits:
                if e.remove_bom:
                    self.bom_removal_requested.emit()
                    continue
                c = QTextCursor(self.document())
                c.setPosition(e.cursor.selectionStart())
                c.setPosition(e.cursor.selectionEnd(), QTextCursor.MoveMode.KeepAnchor)
                c.insertText(e.new_text)
        finally:
            cur.endEditBlock()
        self.fix_applied.emit(getattr(fix, "title", ""))
        return True

    # -- text -------------------------------------------------------------------------
    def buffer_text(self) -> str:
        """The text exactly as typed: "\\n" line breaks, non-breaking spaces kept.

        (``toPlainText`` would turn U+00A0 into spaces; ``toRawText`` keeps them and joins
        blocks with U+2029.)
        """
        return self.document().toRawText().replace("\u2029", "\n")

    def replace_all_text(self, new: str) -> None:
        """Replace the text by editing only the changed middle (one undo step).

        Keeps the caret and the pinned diagnostics outside the changed region where they were.
        """
        old = self.buffer_text()
        if old == new:
            return
        p = 0
        n = min(len(old), len(new))
        while p < n and old[p] == new[p]:
            p += 1
        s = 0
        while s < n - p and old[len(old) - 1 - s] == new[len(new) - 1 - s]:
            s += 1
        from workbench.app.editor.diagnostics import utf16_len

        start16 = utf16_len(old[:p])
        end16 = start16 + utf16_len(old[p : len(old) - s])
        cur = QTextCursor(self.document())
        cur.beginEditBlock()
        cur.setPosition(start16)
        cur.setPosition(end16, QTextCursor.MoveMode.KeepAnchor)
        cur.insertText(new[p : len(new) - s])
        cur.endEditBlock()
