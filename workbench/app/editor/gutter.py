"""The editor gutter: line numbers plus one severity mark per line with diagnostics.

Painted from ``firstVisibleBlock()`` / ``blockBoundingGeometry`` (git-cola ``widgets/text.py::
LineNumbers``) and from the same ``DiagnosticsLayer`` list as the squiggles and the problems list
(style.md §7.9). Marks differ in shape as well as colour: error = filled circle with a white
cross, warning = triangle, info = diamond.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QPointF, QRectF, QSize, Qt
from PySide6.QtGui import QColor, QPainter, QPainterPath, QPen, QPolygonF
from PySide6.QtWidgets import QWidget

from workbench.app.editor.theme import color, severity_color

if TYPE_CHECKING:
    from workbench.app.editor.codeeditor import CodeEditor


def paint_severity_mark(p: QPainter, severity: str, r: QRectF) -> None:
    """Draw the mark for ``severity`` inside ``r`` (shape + colour)."""
    c = severity_color(severity)
    p.save()
    p.setRenderHint(QPainter.RenderHint.Antialiasing)
    p.setPen(Qt.PenStyle.NoPen)
    p.setBrush(c)
    if severity == "error":
        p.drawEllipse(r)
        pen = QPen(QColor("#ffffff"), max(1.2, r.width() / 7))
        pen.setCapStyle(Qt.PenCapStyle.RoundCap)
        p.setPen(pen)
        m = r.width() * 0.3
        p.drawLine(QPointF(r.left() + m, r.top() + m), QPointF(r.right() - m, r.bottom() - m))
        p.drawLine(QPointF(r.right() - m, r.top() + m), QPointF(r.left() + m, r.bottom() - m))
    elif severity == "warning":
        poly = QPolygonF(
            [QPointF(r.center().x(), r.top()), QPointF(r.right(), r.bottom()), QPointF(r.left(), r.bottom())]
        )
        path = QPainterPath()
        path.addPolygon(poly)
        p.drawPath(path)
    else:
        poly = QPolygonF(
            [
                QPointF(r.center().x(), r.top()),
                QPointF(r.right(), r.center().y()),
                QPointF(r.center().x(), r.bottom()),
                QPointF(r.left(), r.center().y()),
            ]
        )
        p.drawPolygon(poly)
    p.restore()


class Gutter(QWidget):
    """Line numbers and severity marks at the left of a ``CodeEditor``.

    Clicking a mark moves the caret to the first diagnostic on that line.
    """

    PAD = 4

    def __init__(self, editor: CodeEditor) -> None:
        super().__init__(editor)
        self.editor = editor
        self.setCursor(Qt.CursorShape.ArrowCursor)

    def mark_size(self) -> int:
        return max(8, self.editor.fontMetrics().height() - 4)

    def width_hint(self) -> int:
        digits = max(3, len(str(max(1, self.editor.blockCount()))))
        fm = self.editor.fontMetrics()
        return self.PAD * 3 + self.mark_size() + fm.horizontalAdvance("9") * digits

    # Override QWidget::sizeHint
    def sizeHint(self) -> QSize:  # noqa: N802
        return QSize(self.width_hint(), 0)

    # Override QWidget::paintEvent
    def paintEvent(self, event) -> None:  # noqa: N802
        ed = self.editor
        p = QPainter(self)
        p.fillRect(event.rect(), color("gutter_bg"))
        sev = ed.diagnostics.severity_by_block()
        current = ed.textCursor().blockNumber()
        fm = ed.fontMetrics()
        ms = self.mark_size()
        block = ed.firstVisibleBlock()
        offset = ed.contentOffset()
        top = ed.blockBoundingGeometry(block).translated(offset).top()
        bottom = top + ed.blockBoundingRect(block).height()
        num_right = self.width() - self.PAD
        while block.isValid() and top <= event.rect().bottom():
            if block.isVisible() and bottom >= event.rect().top():
                n = block.blockNumber()
                p.setPen(color("gutter_current_fg") if n == current else color("gutter_fg"))
                p.drawText(
                    QRectF(self.PAD * 2 + ms, top, num_right - self.PAD * 2 - ms, fm.height()),
                    int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter),
                    str(n + 1),
                )
                if n in sev:
                    y = top + (fm.height() - ms) / 2
                    paint_severity_mark(p, sev[n], QRectF(self.PAD, y, ms, ms))
            block = block.next()
            top = bottom
            bottom = top + ed.blockBoundingRect(block).height()
        p.end()

    # Override QWidget::mousePressEvent
    def mousePressEvent(self, event) -> None:  # noqa: N802
        cur = self.editor.cursorForPosition(QPointF(0, event.position().y()).toPoint())
        items = self.editor.diagnostics.on_block(cur.blockNumber())
        if items:
            self.editor.jump_to(items[0])
        else:
            self.editor.setTextCursor(cur)
