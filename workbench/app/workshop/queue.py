"""The Workshop pane's queue: proposals as a table model (name, state, kind, target, ...)."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, Qt
from PySide6.QtGui import QColor
from PySide6.QtWidgets import QWidget

from workbench.app.workshop.render import SEV_COLORS, STATE_COLORS
from workbench.core.workshop import Proposal


class ProposalTableModel(QAbstractTableModel):
    """The queue: one row per ``Proposal`` (id, state, kind, name, findings, source, updated)."""

    HEADERS = ("ID", "State", "Kind", "Skill", "Findings", "Source", "Updated")

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.rows: list[Proposal] = []

    def set_rows(self, rows: list[Proposal]) -> None:
        self.beginResetModel()
        self.rows = list(rows)
        self.endResetModel()

    def rowCount(self, parent: QModelIndex | QPersistentModelIndex = QModelIndex()) -> int:  # noqa: B008
        """Override QAbstractTableModel::rowCount."""
        return 0 if parent.isValid() else len(self.rows)

    def columnCount(self, parent: QModelIndex | QPersistentModelIndex = QModelIndex()) -> int:  # noqa: B008
        """Override QAbstractTableModel::columnCount."""
        return 0 if parent.isValid() else len(self.HEADERS)

    def headerData(
        self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole
    ) -> Any:
        """Override QAbstractTableModel::headerData."""
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.DisplayRole:
            return self.HEADERS[section]
        return None

    def data(
        self, index: QModelIndex | QPersistentModelIndex, role: int = Qt.ItemDataRole.DisplayRole
    ) -> Any:
        """Override QAbstractTableModel::data."""
        if not index.isValid() or index.row() >= len(self.rows):
            return None
        p = self.rows[index.row()]
        col = index.column()
        if role == Qt.ItemDataRole.DisplayRole:
            if col == 4:
                crit = sum(1 for f in p.findings if f.severity == "critical")
                warn = sum(1 for f in p.findings if f.severity == "warning")
                return f"{crit} critical, {warn} warn" if (crit or warn) else "—"
            return (p.id, p.state, p.kind, p.name, "", p.source, p.updated_at[:19].replace("T", " "))[col]
        if role == Qt.ItemDataRole.ForegroundRole:
            if col == 1:
                return QColor(STATE_COLORS.get(p.state, "#000000"))
            if col == 4 and p.blocking_findings:
                return QColor(SEV_COLORS["critical"])
        if role == Qt.ItemDataRole.ToolTipRole:
            return f"{p.skill_md}\n{p.reason}" if p.reason else str(p.skill_md)
        if role == Qt.ItemDataRole.UserRole:
            return p.id
        return None
