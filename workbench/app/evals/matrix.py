"""The confusion-matrix heat-map of a collection eval.

``MatrixView(parent)``: ``set_matrix(ConfusionMatrix)``; a ``QTableView`` over ``MatrixModel``
(cells coloured by ``collection.cell_color``: green diagonal, red steals), per-skill precision /
recall and the top steals below; ``export_png(path)`` (``QWidget.grab`` of the table and the
summary) and ``export_html(path)`` (``ConfusionMatrix.to_html``, self-contained).
"""

from __future__ import annotations

import html
import logging
from pathlib import Path
from typing import Any

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QObject, QPersistentModelIndex, Qt
from PySide6.QtGui import QColor, QPainter, QPixmap
from PySide6.QtWidgets import (
    QHeaderView,
    QLabel,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from workbench.core.evals.collection import ConfusionMatrix, cell_color
from workbench.core.evals.metrics import pct

log = logging.getLogger(__name__)


_Index = QModelIndex | QPersistentModelIndex


class MatrixModel(QAbstractTableModel):
    """A ``ConfusionMatrix`` as a table: rows/columns = labels, plus an "errors" column."""

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.m: ConfusionMatrix | None = None

    def set_matrix(self, m: ConfusionMatrix | None) -> None:
        self.beginResetModel()
        self.m = m
        self.endResetModel()

    def rowCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: N802, B008 - Qt API
        return 0 if self.m is None or parent.isValid() else len(self.m.labels)

    def columnCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: N802, B008 - Qt API
        return 0 if self.m is None or parent.isValid() else len(self.m.labels) + 1

    def headerData(
        self,
        section: int,
        orientation: Qt.Orientation,  # noqa: N802 - Qt API
        role: int = Qt.ItemDataRole.DisplayRole,
    ) -> Any:
        if self.m is None or role not in (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.ToolTipRole):
            return None
        labels = self.m.labels
        if orientation == Qt.Orientation.Horizontal:
            if section == len(labels):
                return "errors"
            return labels[section] if role == Qt.ItemDataRole.ToolTipRole else _short(labels[section])
        return labels[section]

    def data(self, index: _Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if self.m is None or not index.isValid():
            return None
        labels = self.m.labels
        row = labels[index.row()]
        if index.column() == len(labels):
            n = self.m.errors[row]
            if role == Qt.ItemDataRole.DisplayRole:
                return str(n) if n else ""
            if role == Qt.ItemDataRole.TextAlignmentRole:
                return int(Qt.AlignmentFlag.AlignCenter)
            return None
        col = labels[index.column()]
        n = self.m.cells[row][col]
        tot = self.m.row_total(row)
        if role == Qt.ItemDataRole.DisplayRole:
            return str(n) if n else ""
        if role == Qt.ItemDataRole.BackgroundRole:
            return QColor(cell_color(row, col, n, tot))
        if role == Qt.ItemDataRole.TextAlignmentRole:
            return int(Qt.AlignmentFlag.AlignCenter)
        if role == Qt.ItemDataRole.ToolTipRole:
            who = "should-not-trigger queries" if row == "none" else f"queries written for {row}"
            what = "loaded no skill" if col == "none" else f"loaded {col}"
            return f"{n} of {tot} runs of {who} {what}"
        return None


def _short(label: str, n: int = 14) -> str:
    return label if len(label) <= n else label[: n - 1] + "…"


class MatrixView(QWidget):
    """The heat-map and its summary (module docstring)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.matrix: ConfusionMatrix | None = None
        self.model = MatrixModel(self)
        self.table = QTableView(self)
        self.table.setModel(self.model)
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        self.table.verticalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        self.table.setWordWrap(False)
        self.summary = QLabel("No collection eval yet.", self)
        self.summary.setWordWrap(True)
        self.summary.setTextFormat(Qt.TextFormat.RichText)
        self.summary.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addWidget(self.table, 1)
        lay.addWidget(self.summary)

    def set_matrix(self, m: ConfusionMatrix | None) -> None:
        self.matrix = m
        self.model.set_matrix(m)
        if m is None:
            self.summary.setText("No collection eval yet.")
            return
        e = html.escape
        low = sorted(m.per_skill().items(), key=lambda kv: (kv[1]["recall"] is None, kv[1]["recall"] or 0))
        ps = " · ".join(f"{e(s)}: P {pct(v['precision'])} / R {pct(v['recall'])}" for s, v in low[:12])
        steals = (
            "; ".join(
                f"<b>{e(x['thief'])}</b> took {x['runs']} of {e(x['victim'])}'s runs "
                f"({x['share'] * 100:.0f} %)"
                for x in m.steals(5)
            )
            or "none"
        )
        self.summary.setText(
            f"<b>Rows</b>: the skill a query was written for (none = should-not-trigger); "
            f"<b>columns</b>: the skill loaded; cells = runs ({e(m.mode)}, "
            f"{e(m.model)}).<br>"
            f"<b>Top steals</b>: {steals}<br><b>Lowest recall first</b>: {ps}"
        )

    def export_html(self, path: str | Path) -> None:
        """Write the self-contained HTML page. Raises OSError / ValueError (no matrix)."""
        from workbench.core.safefile import atomic_write

        if self.matrix is None:
            raise ValueError("no matrix yet")
        atomic_write(path, self.matrix.to_html().encode("utf-8"))

    def export_png(self, path: str | Path) -> None:
        """Write a PNG of the table (grown to show every cell) and the summary. Raises OSError /
        ValueError (no matrix)."""
        if self.matrix is None:
            raise ValueError("no matrix yet")
        t = self.table
        w = t.verticalHeader().width() + t.horizontalHeader().length() + 4
        h = t.horizontalHeader().height() + t.verticalHeader().length() + 4
        old = t.size()
        t.resize(max(w, 200), max(h, 100))
        table_px = t.grab()
        t.resize(old)
        self.summary.setFixedWidth(max(w, 400))
        sum_px = self.summary.grab()
        self.summary.setMinimumWidth(0)
        self.summary.setMaximumWidth(16777215)
        img = QPixmap(max(table_px.width(), sum_px.width()), table_px.height() + sum_px.height() + 6)
        img.fill(QColor("#ffffff"))
        p = QPainter(img)
        p.drawPixmap(0, 0, table_px)
        p.drawPixmap(0, table_px.height() + 6, sum_px)
        p.end()
        from workbench.app.icons import png_bytes
        from workbench.core.safefile import atomic_write

        atomic_write(path, png_bytes(img))
