"""The Listing pane's table models: ``ListingTableModel`` (one row per skill of a listing report)
and ``AllClientsModel`` (the selected skill in every client). Apart from ``listing_pane`` (which
re-exports them) to keep each module under 600 lines."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, Qt
from PySide6.QtGui import QBrush

from workbench.app import icons
from workbench.core.clients import DISPLAY_NAMES
from workbench.core.model import CLIENT_IDS

PathRole = Qt.ItemDataRole.UserRole + 2


# -- models --------------------------------------------------------------------------------


class _RowsModel(QAbstractTableModel):
    """A flat table over ``self._rows`` with column titles ``HEADERS`` (subclasses add ``data``)."""

    HEADERS: tuple[str, ...] = ()
    #: header tooltips, one per column (may be shorter than ``HEADERS``)
    HEADER_TIPS: tuple[str, ...] = ()
    _rows: list

    def rowCount(self, parent: QModelIndex | QPersistentModelIndex = QModelIndex()) -> int:  # noqa: B008
        """Override QAbstractTableModel::rowCount."""
        return 0 if parent.isValid() else len(self._rows)

    def columnCount(self, parent: QModelIndex | QPersistentModelIndex = QModelIndex()) -> int:  # noqa: B008
        """Override QAbstractTableModel::columnCount."""
        return 0 if parent.isValid() else len(self.HEADERS)

    def headerData(
        self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole
    ) -> Any:
        """Override QAbstractTableModel::headerData."""
        if orientation != Qt.Orientation.Horizontal or section >= len(self.HEADERS):
            return None
        if role == Qt.ItemDataRole.DisplayRole:
            return self.HEADERS[section]
        if role == Qt.ItemDataRole.ToolTipRole and section < len(self.HEADER_TIPS):
            return self.HEADER_TIPS[section]
        return None


class ListingTableModel(_RowsModel):
    """One row per skill in a ``ListingReport``: name, state, description chars, shown chars,
    chars lost, note. Loaded skills (chat) are tinted. Read-only."""

    HEADERS = ("Name", "State", "Chars", "Shown", "Lost", "Note")
    #: header tooltips (short headers keep every column in a 780 px tab)
    HEADER_TIPS = (
        "Skill name",
        "full | truncated | name-only | omitted",
        "Description length (code points)",
        "Description chars shown in the listing",
        "Description chars cut from the listing",
        "Why, when the client cut or dropped it",
    )

    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self._rows: list[Any] = []
        self.loaded: set[str] = set()

    def set_report(self, report: Any | None, loaded: set[str]) -> None:
        self.beginResetModel()
        self._rows = list(report.skills) if report is not None else []
        self.loaded = set(loaded)
        self.endResetModel()

    def row_of_path(self, path: str) -> int:
        for i, r in enumerate(self._rows):
            if r.path == path:
                return i
        return -1

    def data(
        self, index: QModelIndex | QPersistentModelIndex, role: int = Qt.ItemDataRole.DisplayRole
    ) -> Any:
        """Override QAbstractTableModel::data."""
        if not index.isValid() or index.row() >= len(self._rows):
            return None
        r = self._rows[index.row()]
        col = index.column()
        if role == Qt.ItemDataRole.DisplayRole:
            lost = max(0, r.description_chars - r.shown_chars)
            vals = (
                r.name + ("  ⟵ loaded" if r.name in self.loaded else ""),
                r.state,
                r.description_chars,
                r.shown_chars,
                lost,
                r.note,
            )
            return vals[col] if col < len(vals) else None
        if role == Qt.ItemDataRole.TextAlignmentRole and col in (2, 3, 4):
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        if role == Qt.ItemDataRole.ForegroundRole and col == 1:
            got = icons.state_brush(r.state)
            if got is not None:
                return got
        if role == Qt.ItemDataRole.BackgroundRole and r.name in self.loaded:
            return QBrush(icons.color("listing", "loaded_bg"))
        if role == Qt.ItemDataRole.ToolTipRole:
            return r.path
        if role == PathRole:
            return r.path
        return None


class AllClientsModel(_RowsModel):
    """The selected skill in every client: status, state in that client's listing, shown/total
    chars, reason. One row per ``CLIENT_IDS`` entry."""

    HEADERS = ("Client", "Status", "In listing", "Shown / total chars", "Reason")

    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self._rows: list[tuple[str, Any, Any]] = []

    def set_skill(self, ctx, path: Path | None) -> None:
        self.beginResetModel()
        self._rows = []
        if path is not None:
            for cid in CLIENT_IDS:
                s = ctx.skill(path, cid)
                rep = ctx.listings.get(cid)
                entry = rep.state_of(str(path)) if (rep is not None and s is not None and s.listed) else None
                self._rows.append((cid, s, entry))
        self.endResetModel()

    def data(
        self, index: QModelIndex | QPersistentModelIndex, role: int = Qt.ItemDataRole.DisplayRole
    ) -> Any:
        """Override QAbstractTableModel::data."""
        if not index.isValid() or index.row() >= len(self._rows):
            return None
        cid, s, entry = self._rows[index.row()]
        col = index.column()
        if role == Qt.ItemDataRole.DisplayRole:
            if col == 0:
                return DISPLAY_NAMES.get(cid, cid)
            if col == 1:
                return s.status if s is not None else "not found"
            if col == 2:
                if s is None or not s.listed:
                    return "—"
                return entry.state if entry is not None else "(no listing)"
            if col == 3:
                if entry is None:
                    return "—"
                return f"{entry.shown_chars:,} / {entry.description_chars:,}"
            if col == 4:
                return s.reason if s is not None else "no root of this client contains this file"
        if role == Qt.ItemDataRole.DecorationRole and col == 1 and s is not None:
            return icons.status_icon(s.status, bool(s.unverified))
        if role == Qt.ItemDataRole.ToolTipRole and col == 4 and s is not None:
            return s.reason
        return None
