"""The shadowing view: every name defined more than once, and who wins it in each client.

Rows: a skill name that at least one client finds in two or more SKILL.md files (skipped files
do not count: they define nothing). Columns: the name, how many files define it (the largest
count over the clients), then one column per client (``CLIENT_IDS`` order) saying what that
client does with it. Cells are short so that all eight clients fit at 1280x800 (issue 13); the
tooltip has the full verdict (``verdict``) and every definition:

* ``<scope>`` (icon: the winner's status) — the single listed winner (``<scope>: <short path>``);
* ``all N`` — the client keeps all N (``all N listed``; Codex dedupes by path only);
* ``none`` — every definition is gated/hidden/... in that client (``none listed (<status>)``);
* ``—`` — the client does not find that name at all.

Decision (spec silent): names are compared as each client spells them (after its namespacing),
so ``plugin:x`` and ``x`` are different names, exactly as the client sees them.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, Qt
from PySide6.QtGui import QBrush
from PySide6.QtWidgets import QAbstractItemView, QHeaderView, QLabel, QTableView, QVBoxLayout, QWidget

from workbench.app import icons
from workbench.app.emptystate import EmptyState
from workbench.core.model import CLIENT_IDS, Catalog, Skill

PathRole = Qt.ItemDataRole.UserRole + 2  #: str path of the winner (client cells) or None


def short_path(p: Path, env) -> str:
    """``p`` relative to the workspace or with ``~`` for home (display only)."""
    for base, prefix in ((env.workspace, ""), (env.home, "~/")):
        try:
            return prefix + str(p.relative_to(base))
        except ValueError:
            continue
    return str(p)


class ShadowRow:
    """One duplicated name: per client the definitions (list of Skill)."""

    __slots__ = ("name", "per_client", "count")

    def __init__(self, name: str) -> None:
        self.name = name
        self.per_client: dict[str, list[Skill]] = {}
        self.count = 0


def shadow_rows(catalogs: dict[str, Catalog]) -> list[ShadowRow]:
    """Rows for every name defined more than once in at least one catalog, sorted by name."""
    per: dict[str, ShadowRow] = {}
    for cid, cat in catalogs.items():
        by_name: dict[str, list[Skill]] = {}
        for s in cat.skills:
            if s.status != "skipped":
                by_name.setdefault(s.name, []).append(s)
        for name, defs in by_name.items():
            row = per.get(name)
            if row is None:
                row = per[name] = ShadowRow(name)
            row.per_client[cid] = defs
    out = []
    for row in per.values():
        row.count = max(len(d) for d in row.per_client.values())
        if row.count > 1:
            out.append(row)
    out.sort(key=lambda r: r.name)
    return out


def verdict(defs: list[Skill] | None, env) -> tuple[str, Skill | None, str]:
    """(cell text, winner or None, tooltip) for one client's definitions of a name."""
    if not defs:
        return "—", None, "this client does not find this name"
    listed = [s for s in defs if s.status == "listed"]
    lines = [
        f"{s.status}: {s.path}" + (f" (shadowed by {s.shadowed_by})" if s.shadowed_by else "") for s in defs
    ]
    tip = "\n".join(lines)
    if len(listed) == 1:
        w = listed[0]
        return f"{w.root.scope}: {short_path(w.path, env)}", w, tip
    if len(listed) > 1:
        return f"all {len(listed)} listed", listed[0], tip
    statuses = sorted({s.status for s in defs})
    # No listed definition: the winner is the one not shadowed (e.g. gated), if any.
    unshadowed = [s for s in defs if s.status != "shadowed"]
    return f"none listed ({', '.join(statuses)})", (unshadowed[0] if unshadowed else None), tip


def cell_text(defs: list[Skill] | None) -> str:
    """The short cell text for one client's definitions of a name (see the module docstring)."""
    if not defs:
        return "—"
    listed = [s for s in defs if s.status == "listed"]
    if len(listed) == 1:
        return listed[0].root.scope
    return f"all {len(listed)}" if listed else "none"


#: Header labels on two lines where the client's name has two words (columns stay narrow).
def _header(cid: str) -> str:
    from workbench.core.clients import DISPLAY_NAMES

    name = DISPLAY_NAMES.get(cid, cid)
    head, _sep, last = name.rpartition(" ")
    return f"{head}\n{last}" if head else name


class ShadowingModel(QAbstractTableModel):
    """Table model over ``shadow_rows(catalogs)``. Read-only; reset on every change."""

    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self._rows: list[ShadowRow] = []
        self._env = None
        self._clients: tuple[str, ...] = CLIENT_IDS

    def set_catalogs(self, catalogs: dict[str, Catalog], env) -> None:
        self.beginResetModel()
        self._rows = shadow_rows(catalogs)
        self._env = env
        self.endResetModel()

    def row(self, i: int) -> ShadowRow:
        return self._rows[i]

    def rowCount(self, parent: QModelIndex | QPersistentModelIndex = QModelIndex()) -> int:  # noqa: B008
        """Override QAbstractTableModel::rowCount."""
        return 0 if parent.isValid() else len(self._rows)

    def columnCount(self, parent: QModelIndex | QPersistentModelIndex = QModelIndex()) -> int:  # noqa: B008
        """Override QAbstractTableModel::columnCount."""
        return 0 if parent.isValid() else 2 + len(self._clients)

    def headerData(
        self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole
    ) -> Any:
        """Override QAbstractTableModel::headerData."""
        if orientation != Qt.Orientation.Horizontal:
            return None
        if role == Qt.ItemDataRole.ToolTipRole and 2 <= section < 2 + len(self._clients):
            from workbench.core.clients import DISPLAY_NAMES

            return DISPLAY_NAMES.get(self._clients[section - 2], self._clients[section - 2])
        if role != Qt.ItemDataRole.DisplayRole:
            return None
        if section == 0:
            return "Name"
        if section == 1:
            return "Files"
        if 2 <= section < 2 + len(self._clients):
            return _header(self._clients[section - 2])
        return None

    def data(
        self, index: QModelIndex | QPersistentModelIndex, role: int = Qt.ItemDataRole.DisplayRole
    ) -> Any:
        """Override QAbstractTableModel::data."""
        if not index.isValid() or index.row() >= len(self._rows):
            return None
        r = self._rows[index.row()]
        col = index.column()
        if col == 0:
            return r.name if role in (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.ToolTipRole) else None
        if col == 1:
            return r.count if role == Qt.ItemDataRole.DisplayRole else None
        if col >= 2 + len(self._clients):
            return None
        defs = r.per_client.get(self._clients[col - 2])
        text, winner, tip = verdict(defs, self._env)
        if role == Qt.ItemDataRole.DisplayRole:
            return cell_text(defs)
        if role == Qt.ItemDataRole.ToolTipRole:
            return f"{text}\n{tip}" if defs else tip
        if role == Qt.ItemDataRole.DecorationRole and winner is not None:
            return icons.status_icon(winner.status)
        if role == Qt.ItemDataRole.ForegroundRole and winner is None:
            return QBrush(Qt.GlobalColor.gray)
        if role == PathRole:
            return str(winner.path) if winner is not None else None
        return None


class ShadowingView(QWidget):
    """Table of duplicated names; double-click a client cell to select its winner."""

    def __init__(self, ctx, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.ctx = ctx
        self.model = ShadowingModel(self)
        self.table = QTableView(self)
        self.table.setModel(self.model)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectItems)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.verticalHeader().setVisible(False)
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        self.table.horizontalHeader().setStretchLastSection(True)
        self.table.setWordWrap(True)  # long names wrap (at hyphens) in a bounded Name column
        self.table.doubleClicked.connect(self._on_double)
        self.summary = QLabel(self)
        self.summary.setWordWrap(True)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(4, 4, 4, 4)
        lay.addWidget(self.summary)
        lay.addWidget(self.table)
        self.empty = EmptyState(
            self.table,
            "No skill name is defined more than once for any client, so "
            "nothing is shadowed here. Shadowing shows when a personal, project "
            "or extra root holds a skill of the same name.",
            [("Rescan", ctx.rescan)],
        )
        self._dirty = True
        ctx.catalog_changed.connect(self.mark_dirty)
        self.refresh()

    def mark_dirty(self) -> None:
        """Catalogs changed: refresh now if visible, else on the next show (saves startup time)."""
        self._dirty = True
        if self.isVisible():
            self.refresh()

    def showEvent(self, ev) -> None:  # Override QWidget::showEvent
        super().showEvent(ev)
        if self._dirty:
            self.refresh()

    def refresh(self) -> None:
        self._dirty = False
        self.model.set_catalogs(self.ctx.catalogs, self.ctx.env)
        n = self.model.rowCount()
        self.summary.setText(
            f"{n} name{'s' if n != 1 else ''} defined more than once. Each client column shows the "
            "definition that client lists (double-click to select it; hover for every definition)."
            if n
            else "No skill name is defined more than once in any client."
        )
        for c in range(1, self.model.columnCount()):
            self.table.resizeColumnToContents(c)
        self.table.resizeColumnToContents(0)
        self.table.setColumnWidth(0, min(self.table.columnWidth(0), 200))
        self.table.resizeRowsToContents()

    def _on_double(self, index: QModelIndex) -> None:
        p = self.model.data(index, PathRole)
        if p:
            self.ctx.select_skill(Path(p))
