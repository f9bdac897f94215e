"""The problems list: one row per diagnostic of the open file; click to jump to its range."""

from __future__ import annotations

from PySide6.QtCore import QModelIndex, QPersistentModelIndex, QRect, QRectF, QSize, Qt, Signal
from PySide6.QtGui import QIcon, QPainter, QPixmap
from PySide6.QtWidgets import (
    QAbstractItemView,
    QStyledItemDelegate,
    QStyleOptionViewItem,
    QTreeWidget,
    QTreeWidgetItem,
    QWidget,
)

from workbench.app.editor.diagnostics import DiagnosticsLayer, PinnedDiagnostic
from workbench.app.editor.gutter import paint_severity_mark

_icons: dict[str, QIcon] = {}


def severity_icon(severity: str) -> QIcon:
    """The gutter's mark for ``severity`` as a 16 px icon (same shape and colour)."""
    if severity not in _icons:
        pm = QPixmap(16, 16)
        pm.fill(Qt.GlobalColor.transparent)
        p = QPainter(pm)
        paint_severity_mark(p, severity, QRectF(2, 2, 12, 12))
        p.end()
        _icons[severity] = QIcon(pm)
    return _icons[severity]


class _WrapDelegate(QStyledItemDelegate):
    """Row heights for word-wrapped text: QTreeView asks for a size hint without the column width,
    so long messages stayed one line and were cut; this measures at the column's width."""

    def sizeHint(self, option: QStyleOptionViewItem, index: QModelIndex | QPersistentModelIndex) -> QSize:
        base = super().sizeHint(option, index)
        view = self.parent()
        width = view.header().sectionSize(index.column()) - 8 if isinstance(view, QTreeWidget) else 0
        text = index.data(Qt.ItemDataRole.DisplayRole)
        if width <= 0 or not text:
            return base
        br = option.fontMetrics.boundingRect(
            QRect(0, 0, width, 100_000), int(Qt.TextFlag.TextWordWrap), str(text)
        )
        return QSize(base.width(), max(base.height(), br.height() + 4))


class ProblemsList(QTreeWidget):
    """Rows: severity (icon + word), line:column, code, message — from a ``DiagnosticsLayer``.

    Signals:
        activated_item(PinnedDiagnostic): a row was clicked or activated with Enter.
    """

    activated_item = Signal(object)

    def __init__(self, layer: DiagnosticsLayer, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.layer = layer
        self.setColumnCount(4)
        self.setHeaderLabels(["Severity", "Line", "Code", "Message"])
        self.setRootIsDecorated(False)
        # long messages wrap in the Message column instead of being cut (uneven row heights)
        self.setUniformRowHeights(False)
        self.setWordWrap(True)
        self.header().setStretchLastSection(True)
        self.setItemDelegateForColumn(3, _WrapDelegate(self))
        self.header().sectionResized.connect(lambda *_: self.scheduleDelayedItemsLayout())
        self.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.setAlternatingRowColors(True)
        self.itemClicked.connect(self._on_item)
        self.itemActivated.connect(self._on_item)
        layer.changed.connect(self.rebuild)

    def rebuild(self) -> None:
        """Re-read the layer (line numbers are the current, pinned ones)."""
        self.clear()
        for i, it in enumerate(self.layer.items):
            line, col = it.current_line_column()
            row = QTreeWidgetItem([it.severity, f"{line}:{col}", it.code, it.message])
            row.setIcon(0, severity_icon(it.severity))
            row.setData(0, Qt.ItemDataRole.UserRole, i)
            row.setToolTip(3, it.message)
            self.addTopLevelItem(row)
        for c in range(3):
            self.resizeColumnToContents(c)

    def item_for_row(self, row: int) -> PinnedDiagnostic:
        return self.layer.items[row]

    def _on_item(self, row: QTreeWidgetItem, _col: int = 0) -> None:
        i = row.data(0, Qt.ItemDataRole.UserRole)
        if i is not None and 0 <= i < len(self.layer.items):
            self.activated_item.emit(self.layer.items[i])
