"""Decoration layers and cursor-pinned diagnostics for a ``QPlainTextEdit``.

* ``SelectionLayers`` keeps named, prioritised lists of ``QTextEdit.ExtraSelection`` and pushes
  their union to the editor (Frescobaldi ``gadgets/arbitraryhighlighter.py``, Spyder
  ``TextDecorationsManager``): current line, search matches and diagnostics never overwrite each
  other, and none of them touches the syntax highlighter.
* ``DiagnosticsLayer`` turns lint results (1-based line/column in code points) into
  ``PinnedDiagnostic``s whose range is a ``QTextCursor`` (Frescobaldi ``logtool/errors.py``), so a
  squiggle, its gutter mark, its problems-list entry and its quick-fix edits move with the user's
  edits until the next lint result replaces them. The gutter and problems list read the same list.

Positions: lint columns count code points; Qt positions count UTF-16 units. ``doc_position``
converts. A column past the end of a line is clamped to the line end; a line past the end of the
document to the document end. Column 0 on line 1 (the lint engine's address of the BOM) maps to
the start of the document.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from PySide6.QtCore import QObject, Signal
from PySide6.QtGui import QTextCharFormat, QTextCursor, QTextDocument
from PySide6.QtWidgets import QPlainTextEdit, QTextEdit

from workbench.app.editor.theme import severity_color

SEVERITY_RANK = {"error": 0, "warning": 1, "info": 2}


def utf16_len(s: str) -> int:
    """Length of ``s`` in UTF-16 code units (Qt's unit for positions)."""
    return len(s.encode("utf-16-le")) // 2


def doc_position(doc: QTextDocument, line: int, column: int) -> int:
    """Qt position of 1-based (line, column in code points), clamped into the document."""
    if line < 1:
        return 0
    block = doc.findBlockByNumber(line - 1)
    if not block.isValid():
        return max(0, doc.characterCount() - 1)
    text = block.text()
    col = max(1, column) - 1
    if col >= len(text):
        return block.position() + utf16_len(text)
    return block.position() + utf16_len(text[:col])


def line_column(doc: QTextDocument, pos: int) -> tuple[int, int]:
    """1-based (line, column in code points) of a Qt position."""
    block = doc.findBlock(pos)
    off16 = pos - block.position()
    text = block.text()
    if len(text) == utf16_len(text):
        return block.blockNumber() + 1, off16 + 1
    n = 0
    for i, ch in enumerate(text):
        if n >= off16:
            return block.blockNumber() + 1, i + 1
        n += 2 if ord(ch) > 0xFFFF else 1
    return block.blockNumber() + 1, len(text) + 1


class SelectionLayers:
    """Named layers of ExtraSelections on one editor, drawn lowest priority first.

    ``set(name, selections, priority)`` replaces a layer; ``clear(name)`` empties it. Each change
    re-applies the union with ``QPlainTextEdit.setExtraSelections``.
    """

    def __init__(self, editor: QPlainTextEdit) -> None:
        self.editor = editor
        self._layers: dict[str, tuple[int, list[QTextEdit.ExtraSelection]]] = {}

    def set(self, name: str, selections: list[QTextEdit.ExtraSelection], priority: int = 0) -> None:
        self._layers[name] = (priority, list(selections))
        self.apply()

    def clear(self, name: str) -> None:
        if name in self._layers:
            self._layers[name] = (self._layers[name][0], [])
            self.apply()

    def get(self, name: str) -> list[QTextEdit.ExtraSelection]:
        return list(self._layers.get(name, (0, []))[1])

    def apply(self) -> None:
        out: list[QTextEdit.ExtraSelection] = []
        for _prio, sels in sorted(self._layers.values(), key=lambda t: t[0]):
            out.extend(sels)
        self.editor.setExtraSelections(out)


@dataclass
class PinnedEdit:
    """A quick-fix edit whose range is a live QTextCursor (anchor = start, position = end)."""

    cursor: QTextCursor
    new_text: str
    remove_bom: bool = False


@dataclass
class PinnedDiagnostic:
    """A lint result pinned to the document.

    Attributes:
        diag: the engine's Diagnostic (line/column as linted; may be stale after edits).
        cursor: live range (selectionStart..selectionEnd) used for squiggle, jump and hover.
        fix_edits: the fix's edits as live ranges (empty when the diagnostic has no fix).
    """

    diag: Any
    cursor: QTextCursor
    fix_edits: list[PinnedEdit] = field(default_factory=list)

    @property
    def severity(self) -> str:
        return getattr(self.diag, "severity", "info")

    @property
    def code(self) -> str:
        return getattr(self.diag, "code", "")

    @property
    def message(self) -> str:
        return getattr(self.diag, "message", "")

    @property
    def fix(self) -> Any:
        return getattr(self.diag, "fix", None)

    def start(self) -> int:
        return self.cursor.selectionStart()

    def end(self) -> int:
        return self.cursor.selectionEnd()

    def block_number(self) -> int:
        """Current 0-based block (line) of the start, following edits."""
        return self.cursor.document().findBlock(self.start()).blockNumber()

    def current_line_column(self) -> tuple[int, int]:
        return line_column(self.cursor.document(), self.start())

    def tooltip(self) -> str:
        return f"{self.severity}: {self.message} [{self.code}]"


class DiagnosticsLayer(QObject):
    """Diagnostics of one editor: pinned ranges, squiggles, per-line severities.

    Signals:
        changed(): the list was replaced (gutter, problems list and counts should refresh).
    """

    changed = Signal()
    LAYER = "diagnostics"
    PRIORITY = 30

    def __init__(self, editor: QPlainTextEdit, layers: SelectionLayers) -> None:
        super().__init__(editor)
        self.editor = editor
        self.layers = layers
        self.items: list[PinnedDiagnostic] = []

    # -- building ---------------------------------------------------------------------
    def set_diagnostics(self, diags: list[Any]) -> None:
        """Replace the diagnostics (positions relative to the current document text)."""
        doc = self.editor.document()
        items = []
        for d in sorted(diags, key=lambda d: (d.line, d.column, SEVERITY_RANK.get(d.severity, 9))):
            start = doc_position(doc, d.line, d.column)
            end = doc_position(doc, d.end_line, d.end_column)
            if end < start:
                end = start
            if end == start:  # make an empty range visible: one character
                block = doc.findBlock(start)
                block_end = block.position() + block.length() - 1
                if start < block_end:
                    end = start + 1
                elif start > block.position():
                    start -= 1
            cur = QTextCursor(doc)
            cur.setPosition(start)
            cur.setPosition(end, QTextCursor.MoveMode.KeepAnchor)
            edits = []
            fix = getattr(d, "fix", None)
            for e in getattr(fix, "edits", None) or []:
                bom = (
                    e.line == 1 and e.column == 0 and e.end_line == 1 and e.end_column <= 1 and not e.new_text
                )
                ec = QTextCursor(doc)
                ec.setPosition(doc_position(doc, e.line, e.column))
                ec.setPosition(
                    max(doc_position(doc, e.end_line, e.end_column), ec.position()),
                    QTextCursor.MoveMode.KeepAnchor,
                )
                edits.append(PinnedEdit(ec, e.new_text.replace("\r\n", "\n"), remove_bom=bom))
            items.append(PinnedDiagnostic(d, cur, edits))
        self.items = items
        self.refresh()
        self.changed.emit()

    def clear(self) -> None:
        self.items = []
        self.refresh()
        self.changed.emit()

    def refresh(self) -> None:
        """Re-build the squiggle layer from the pinned ranges (after edits moved them)."""
        sels = []
        for it in self.items:
            sel = QTextEdit.ExtraSelection()
            fmt = QTextCharFormat()
            fmt.setUnderlineStyle(QTextCharFormat.UnderlineStyle.WaveUnderline)
            fmt.setUnderlineColor(severity_color(it.severity))
            fmt.setToolTip(it.tooltip())
            sel.format = fmt
            sel.cursor = QTextCursor(it.cursor)
            sels.append(sel)
        self.layers.set(self.LAYER, sels, self.PRIORITY)

    # -- queries ----------------------------------------------------------------------
    def at_position(self, pos: int) -> list[PinnedDiagnostic]:
        """Diagnostics whose range contains ``pos`` (end inclusive, so a caret after counts)."""
        return [it for it in self.items if it.start() <= pos <= it.end()]

    def on_block(self, block_number: int) -> list[PinnedDiagnostic]:
        return [it for it in self.items if it.block_number() == block_number]

    def severity_by_block(self) -> dict[int, str]:
        """0-based block number -> the most severe severity on that line."""
        out: dict[int, str] = {}
        for it in self.items:
            b = it.block_number()
            cur = out.get(b)
            if cur is None or SEVERITY_RANK.get(it.severity, 9) < SEVERITY_RANK.get(cur, 9):
                out[b] = it.severity
        return out

    def counts(self) -> tuple[int, int, int]:
        """(errors, warnings, infos)."""
        sev = [it.severity for it in self.items]
        return sev.count("error"), sev.count("warning"), sev.count("info")
