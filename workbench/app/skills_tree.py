"""The skills tree: roots in precedence order, every SKILL.md under each with its status.

``SkillsTreeModel`` is a real ``QAbstractItemModel`` (two levels: root rows, skill rows) over one
``Catalog``; it is replaced wholesale with a model reset (one reset for 1,241 skills is far
cheaper than per-row inserts). ``SkillFilterProxy`` filters on name, description, status,
reason and path (every whitespace-separated word must match; a root stays while any of its skills
matches). ``SkillsPanel`` is the widget: filter box, legend, tree; selecting a skill calls
``AppContext.select_skill``.

Roots of more than ``WHOLE_ROOT_MAX`` skills are fetched in chunks (``canFetchMore``/``fetchMore``,
``FETCH_CHUNK`` rows, issue 14): the view lays out and measures only the rows fetched so far, so
a root of 10,000 skills costs the GUI thread what 300 do; after a reset ``SkillsPanel`` gives it
one more chunk per event-loop turn up to ``FIRST_ROWS``; scrolling to the end fetches the next
chunk, and filtering, selecting or ``index_of_path`` fetch what they need first.

Columns: Name (status icon; amber dot when a rule applied to it is unverified), Status, Scope,
Description (the description as the client lists it). Scope and Description are in the model but
hidden in the view (the root row gives the scope; the details pane shows the whole description).
"""

from __future__ import annotations

from functools import partial
from pathlib import Path
from typing import Any

from PySide6.QtCore import (
    QAbstractItemModel,
    QItemSelectionModel,
    QModelIndex,
    QPersistentModelIndex,
    QSortFilterProxyModel,
    Qt,
)
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QTreeView,
    QVBoxLayout,
    QWidget,
)

from workbench.app import icons, tallies
from workbench.app.treefit import Row, fit_columns
from workbench.app.treetext import esc as _esc
from workbench.app.treetext import root_label, root_tooltip, skill_tooltip
from workbench.app.turns import defer
from workbench.core.listing import outcome, outcome_label
from workbench.core.model import Catalog, Root, Skill

#: Custom roles (Qt.UserRole + n).
SkillRole = Qt.ItemDataRole.UserRole + 1  #: the ``Skill`` (skill rows) or ``Root`` (root rows)
PathRole = Qt.ItemDataRole.UserRole + 2  #: str: SKILL.md path or root folder
StatusRole = Qt.ItemDataRole.UserRole + 3  #: str: status (skill rows), "" for roots
FilterRole = Qt.ItemDataRole.UserRole + 4  #: str: lower-case text the filter searches

COLUMNS = ("Name", "Status", "Scope", "Description")
_NCOLS = len(COLUMNS)
_ROOT_ID = 0  # internalId of root rows; skill rows carry (root row + 1)
#: Skill rows of a root the view sees at first and per ``fetchMore`` (issue 14: laying out and
#: measuring 10,000 rows through the Python model held the GUI thread 0.3-1.4 s; the first
#: turn's column fit over 50 rows is half that of 100; 25 in round 8: that turn's GUI CPU,
#: median of 8-9 runs, 50 -> 40 ms; the next chunks come one per turn, ``FIRST_ROWS``).
FETCH_CHUNK = 25
FIRST_ROWS = 300  #: rows of a big root ``SkillsPanel`` fills after a reset, a chunk per turn
#: Roots with up to this many skills are given to the view whole (the corpus' 1,241 in one root).
WHOLE_ROOT_MAX = 2000
# Roles as plain ints (a ``Qt.ItemDataRole.X`` look-up and enum compare cost ~0.5 us each, and
# the view asks ~10 roles per cell: measuring 100 rows' widths took 36 ms of the GUI thread).
_R = Qt.ItemDataRole
_DISPLAY, _DECORATION, _TOOLTIP, _FOREGROUND, _BACKGROUND = (
    int(r) for r in (_R.DisplayRole, _R.DecorationRole, _R.ToolTipRole, _R.ForegroundRole, _R.BackgroundRole)
)
_SKILL, _PATH, _STATUS, _FILTER = (int(r) for r in (SkillRole, PathRole, StatusRole, FilterRole))
#: The roles ``SkillsTreeModel.data`` answers; any other (font, alignment, size hint, check
#: state...) is None at once, before the index is looked at.
_ROLES = frozenset(
    (_DISPLAY, _DECORATION, _TOOLTIP, _FOREGROUND, _BACKGROUND, _SKILL, _PATH, _STATUS, _FILTER)
)
_SKILL_FLAGS = Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable | Qt.ItemFlag.ItemNeverHasChildren
_ROOT_FLAGS = Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable


class SkillsTreeModel(QAbstractItemModel):
    """Two-level model over a ``Catalog``: root rows (``Catalog.roots`` order = precedence),
    each with its skills (``Catalog.skills`` order). Skills whose root is not among the roots go
    under a synthetic "(other)" root. Read-only.
    """

    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self._catalog: Catalog | None = None
        self._roots: list[Root] = []
        self._children: list[list[Skill]] = []
        self._fetched: list[int] = []  # per root: skill rows the view has been given so far
        self._row_of_path: dict[Path, tuple[int, int]] | None = None  # built on first look-up
        self.loaded_names: set[str] = set()
        self.states: dict[str, str] = {}  # SKILL.md path -> listing state (listing.listing_states)

    # -- data in ---------------------------------------------------------------------------
    def set_catalog(self, catalog: Catalog | None) -> None:
        """Show ``catalog``. When it has the same roots and the same files in the same order as
        the one shown (an incremental update), only the rows whose Skill changed are updated
        (``dataChanged``: selection and expansion stay); otherwise one model reset."""
        if self._same_layout(catalog):
            assert catalog is not None
            self._catalog = catalog
            i = 0
            for r, kids in enumerate(self._children):
                parent = None
                for c, old in enumerate(kids):
                    new = catalog.skills[i]
                    i += 1
                    if new is not old:
                        kids[c] = new
                        if c >= self._fetched[r]:
                            continue  # not given to the view yet
                        parent = parent or self.index(r, 0)
                        self.dataChanged.emit(
                            self.index(c, 0, parent), self.index(c, len(COLUMNS) - 1, parent)
                        )
            return
        self.beginResetModel()
        self._catalog = catalog
        self._roots, self._children, self._row_of_path = [], [], None
        if catalog is not None:
            index: dict[int, int] = {}
            by_path: dict[tuple[Path, str], int] = {}
            for root in catalog.roots:
                index[id(root)] = len(self._roots)
                by_path.setdefault((root.path, root.scope), len(self._roots))
                self._roots.append(root)
                self._children.append([])
            other = -1
            for s in catalog.skills:
                row = index.get(id(s.root))
                if row is None:
                    row = by_path.get((s.root.path, s.root.scope))
                if row is None:
                    if other < 0:
                        other = len(self._roots)
                        self._roots.append(
                            Root(
                                path=Path("(other)"),
                                scope="",
                                precedence=999,
                                label="(other roots)",
                                exists=True,
                            )
                        )
                        self._children.append([])
                    row = other
                self._children[row].append(s)
        self._fetched = [len(k) if len(k) <= WHOLE_ROOT_MAX else FETCH_CHUNK for k in self._children]
        self.endResetModel()

    def catalog(self) -> Catalog | None:
        return self._catalog

    def _same_layout(self, catalog: Catalog | None) -> bool:
        old = self._catalog
        if (
            old is None
            or catalog is None
            or old.client != catalog.client
            or len(old.skills) != len(catalog.skills)
        ):
            return False
        if len(old.roots) != len(catalog.roots) or any(a is not b for a, b in zip(old.roots, catalog.roots)):
            return False
        if any(a.path != b.path or a.root is not b.root for a, b in zip(old.skills, catalog.skills)):
            return False
        # the rows are stored in catalog order grouped by root; check that grouping holds
        flat = [s for kids in self._children for s in kids]
        return len(flat) == len(old.skills) and all(a is b for a, b in zip(flat, old.skills))

    def set_listing_states(self, states: dict[str, str]) -> None:
        """Where each listed skill ends up in the current listing (``listing.listing_states``):
        the Status column then reads "listed in full", "omitted by budget", ... (issue 13)."""
        if states is self.states or states == self.states:
            return
        self.states = states  # not changed here (``tallies.states``' dicts are shared)
        for r, n in enumerate(self._fetched):
            if n:
                parent = self.index(r, 0)
                self.dataChanged.emit(self.index(0, 0, parent), self.index(n - 1, 1, parent))

    def set_loaded(self, names: set[str]) -> None:
        self.loaded_names = set(names)
        for r, n in enumerate(self._fetched):
            if n:
                parent = self.index(r, 0)
                self.dataChanged.emit(self.index(0, 0, parent), self.index(n - 1, 0, parent))

    def index_of_path(self, path: Path) -> QModelIndex:
        """The index (column 0) of the skill at ``path`` (its rows are fetched first when the
        view has not been given them yet); invalid when not in the model."""
        if self._row_of_path is None:
            self._row_of_path = {}
            for r, kids in enumerate(self._children):
                for c, s in enumerate(kids):
                    self._row_of_path.setdefault(s.path, (r, c))
        pos = self._row_of_path.get(Path(path))
        if pos is None:
            return QModelIndex()
        self.fetch_to(pos[0], pos[1] + 1)
        return self.index(pos[1], 0, self.index(pos[0], 0))

    def fetch_to(self, root_row: int, rows: int) -> None:
        """Give the view at least the first ``rows`` skill rows of root ``root_row`` (rows
        inserted at the end; no-op when it has them)."""
        have, total = self._fetched[root_row], len(self._children[root_row])
        rows = min(rows, total)
        if rows <= have:
            return
        self.beginInsertRows(self.index(root_row, 0), have, rows - 1)
        self._fetched[root_row] = rows
        self.endInsertRows()

    def fetch_all(self) -> None:
        """Give the view every skill row (the filter searches them all)."""
        for r, kids in enumerate(self._children):
            self.fetch_to(r, len(kids))

    def fill_step(self, upto: int) -> bool:
        """Give the view the next ``FETCH_CHUNK`` rows of every big root that has fewer than
        ``upto`` fetched; True while one still has fewer (call again on a later turn)."""
        more = False
        for r, kids in enumerate(self._children):
            have = self._fetched[r]
            if have < min(upto, len(kids)):
                self.fetch_to(r, min(have + FETCH_CHUNK, upto))
                more = more or self._fetched[r] < min(upto, len(kids))
        return more

    def skill_count(self) -> int:
        """Skills in the model, fetched by the view or not."""
        return sum(len(k) for k in self._children)

    def skills(self) -> list[Skill]:
        """Every skill in the model (fetched by the view or not), in row order."""
        return [s for kids in self._children for s in kids]

    # -- Qt overrides ----------------------------------------------------------------------
    def index(
        self,
        row: int,
        column: int,
        parent: QModelIndex | QPersistentModelIndex = QModelIndex(),  # noqa: B008
    ) -> QModelIndex:
        """Override QAbstractItemModel::index (the view and the proxy call it thousands of times
        per layout: few calls into Qt)."""
        if not 0 <= column < _NCOLS or row < 0:
            return QModelIndex()
        if not parent.isValid():
            return self.createIndex(row, column, _ROOT_ID) if row < len(self._roots) else QModelIndex()
        if parent.internalId() != _ROOT_ID or parent.column():
            return QModelIndex()
        r = parent.row()
        if r < len(self._fetched) and row < self._fetched[r]:
            return self.createIndex(row, column, r + 1)
        return QModelIndex()

    def parent(self, index: QModelIndex | QPersistentModelIndex = QModelIndex()) -> QModelIndex:  # type: ignore[override]  # noqa: B008
        """Override QAbstractItemModel::parent."""
        if not index.isValid() or index.internalId() == _ROOT_ID:
            return QModelIndex()
        return self.createIndex(index.internalId() - 1, 0, _ROOT_ID)

    def rowCount(self, parent: QModelIndex | QPersistentModelIndex = QModelIndex()) -> int:  # noqa: B008
        """Override QAbstractItemModel::rowCount."""
        if not parent.isValid():
            return len(self._roots)
        if parent.internalId() == _ROOT_ID and parent.column() == 0:
            return self._fetched[parent.row()] if parent.row() < len(self._fetched) else 0
        return 0

    def canFetchMore(self, parent: QModelIndex | QPersistentModelIndex) -> bool:
        """Override QAbstractItemModel::canFetchMore: a root has skill rows not given yet."""
        if not parent.isValid() or parent.internalId() != _ROOT_ID or parent.column() != 0:
            return False
        r = parent.row()
        return r < len(self._fetched) and self._fetched[r] < len(self._children[r])

    def fetchMore(self, parent: QModelIndex | QPersistentModelIndex) -> None:
        """Override QAbstractItemModel::fetchMore: the next ``FETCH_CHUNK`` skill rows."""
        if self.canFetchMore(parent):
            self.fetch_to(parent.row(), self._fetched[parent.row()] + FETCH_CHUNK)

    def columnCount(self, parent: QModelIndex | QPersistentModelIndex = QModelIndex()) -> int:  # noqa: B008
        """Override QAbstractItemModel::columnCount."""
        return len(COLUMNS)

    def hasChildren(self, parent: QModelIndex | QPersistentModelIndex = QModelIndex()) -> bool:  # noqa: B008
        """Override QAbstractItemModel::hasChildren."""
        return self.rowCount(parent) > 0

    def headerData(
        self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole
    ) -> Any:
        """Override QAbstractItemModel::headerData."""
        if (
            orientation == Qt.Orientation.Horizontal
            and role == Qt.ItemDataRole.DisplayRole
            and 0 <= section < len(COLUMNS)
        ):
            return COLUMNS[section]
        return None

    def flags(self, index: QModelIndex | QPersistentModelIndex) -> Qt.ItemFlag:
        """Override QAbstractItemModel::flags (read-only, selectable)."""
        if not index.isValid():
            return Qt.ItemFlag.NoItemFlags
        return _ROOT_FLAGS if index.internalId() == _ROOT_ID else _SKILL_FLAGS

    def data(self, index: QModelIndex | QPersistentModelIndex, role: int = _DISPLAY) -> Any:
        """Override QAbstractItemModel::data (roles it does not answer return at once: the
        view asks a dozen per cell)."""
        if role not in _ROLES or not index.isValid():
            return None
        iid = index.internalId()
        if iid == _ROOT_ID:
            return self._root_data(index.row(), index.column(), role)
        kids = self._children[iid - 1] if iid <= len(self._children) else ()
        row = index.row()
        if row >= len(kids):
            return None
        return self._skill_data(kids[row], index.column(), role)

    def _root_data(self, row: int, col: int, role: int) -> Any:
        if row >= len(self._roots):
            return None
        r = self._roots[row]
        if role == _DISPLAY:
            if col == 0:
                return root_label(r)
            if col == 1:
                n = len(self._children[row])
                return f"{n} skill{'s' if n != 1 else ''}" if r.exists else "missing"
            if col == 2:
                return r.scope
            if col == 3:
                bits = [str(r.path)]
                if r.condition:
                    bits.append(r.condition)
                return " — ".join(bits)
            return None
        if role == _DECORATION:
            return icons.root_icon(r.exists) if col == 0 else None
        if role == _TOOLTIP:
            return root_tooltip(r)
        if role == _FOREGROUND:
            return None if r.exists else icons.brush("hex", "#8c959f")
        if role == _SKILL:
            return r
        if role == _PATH:
            return str(r.path)
        if role == _STATUS or role == _FILTER:
            return ""
        return None

    def _skill_data(self, s: Skill, col: int, role: int) -> Any:
        if role == _DISPLAY:
            if col == 0:
                return s.name + "  (?)" if s.unverified else s.name
            if col == 1:
                return outcome_label(s, self.states)
            if col == 2:
                return s.root.scope
            if col == 3:
                return s.description.replace("\n", " ")[:300]
            return None
        if role == _DECORATION:
            return icons.status_icon(s.status, bool(s.unverified)) if col == 0 else None
        if role == _FOREGROUND:
            if col != 1:
                return None
            # a listed skill in its listing state's colour (as the listing table's State column:
            # omitted red, truncated amber, name-only purple), else its status colour
            got = icons.state_brush(outcome(s, self.states)) if self.states else None
            return got if got is not None else icons.brush("status", s.status)
        if role == _BACKGROUND:
            return icons.brush("color", "listing", "loaded_bg") if s.name in self.loaded_names else None
        if role == _TOOLTIP:
            return skill_tooltip(s)
        if role == _SKILL:
            return s
        if role == _PATH:
            return str(s.path)
        if role == _STATUS:
            return s.status
        if role == _FILTER:  # after NUL: the listing outcome, for status:omitted / is:truncated
            return (
                " ".join((s.name, s.description, s.status, s.reason, str(s.path))).lower()
                + "\0"
                + outcome(s, self.states)
            )
        return None


class SkillFilterProxy(QSortFilterProxyModel):
    """Filters skill rows on ``FilterRole`` text; every word of the filter must occur.

    A word ``status:X`` (or ``is:X``) matches the status exactly. Root rows are kept when any
    of their skills match (recursive filtering) and always when the filter is empty.
    """

    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self.setRecursiveFilteringEnabled(True)
        self._words: list[str] = []

    def set_filter_text(self, text: str) -> None:
        """Show only the skills matching every word of ``text`` (all rows are fetched first)."""
        words = text.lower().split()
        src = self.sourceModel()
        if words and isinstance(src, SkillsTreeModel):
            src.fetch_all()
        self.beginFilterChange() if hasattr(self, "beginFilterChange") else None
        self._words = words
        if hasattr(self, "endFilterChange"):
            self.endFilterChange()
        else:  # pragma: no cover - older Qt
            self.invalidateFilter()

    def filterAcceptsRow(self, source_row: int, source_parent: QModelIndex | QPersistentModelIndex) -> bool:
        """Override QSortFilterProxyModel::filterAcceptsRow."""
        if not self._words:
            return True
        if not source_parent.isValid():
            return False  # a root shows only through its matching children (recursive filter)
        m = self.sourceModel()
        idx = m.index(source_row, 0, source_parent)
        hay = m.data(idx, FilterRole) or ""
        status = m.data(idx, StatusRole) or ""
        for w in self._words:
            if w.startswith(("status:", "is:")):
                want = w.split(":", 1)[1]
                if status != want and f" {want} " not in f" {hay.rsplit(chr(0), 1)[-1]} ":
                    return False
            elif w not in hay:
                return False
        return True


class SkillsPanel(QWidget):
    """Filter box + legend + tree over ``ctx.catalog()``; follows the context's client and
    selection both ways."""

    def __init__(self, ctx, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.ctx = ctx
        self.model = SkillsTreeModel(self)
        self.proxy = SkillFilterProxy(self)
        self.proxy.setSourceModel(self.model)
        self.filter = QLineEdit(self)
        self.filter.setPlaceholderText("Filter: name, description, status (e.g. status:shadowed)")
        self.filter.setClearButtonEnabled(True)
        self.filter.textChanged.connect(self._on_filter)
        self.legend = QLabel(self)
        self.legend.setTextFormat(Qt.TextFormat.RichText)
        self.legend.setText(icons.status_legend_html())
        self.legend.setToolTip(
            "<br>".join(f"<b>{s}</b>: {_esc(t)}" for s, t in icons.status_legend())
            + "<br><b>(?)</b>: a rule applied here is unverified in the reference"
        )
        self.tree = QTreeView(self)
        self.tree.setModel(self.proxy)
        self.tree.setUniformRowHeights(True)
        self.tree.setAlternatingRowColors(True)
        self.tree.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.tree.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.tree.setAllColumnsShowFocus(True)
        h = self.tree.header()
        h.setStretchLastSection(True)
        # Name and Status as wide as their text (``_fit_columns`` after each full reload; not
        # ResizeToContents, which re-measured 1,000 rows on every incremental update). Scope and
        # Description stay in the model (filter, tooltip) but are hidden: a skill's scope is its
        # root row's, and the details pane shows the whole description (issue 13).
        h.setResizeContentsPrecision(100)
        self.tree.setColumnHidden(2, True)
        self.tree.setColumnHidden(3, True)
        self.tree.selectionModel().currentRowChanged.connect(self._on_current)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        top = QHBoxLayout()
        top.addWidget(self.filter)
        lay.addLayout(top)
        lay.addWidget(self.legend)
        lay.addWidget(self.tree)
        self._fill_token = 0
        defer(self, icons.warm_tree_icons)  # before the first scan result (its turn: issue 14)
        ctx.catalog_changed.connect(self.reload)
        ctx.listing_changed.connect(self.reload)  # the Status column's listing outcomes
        ctx.client_changed.connect(lambda _c: self.reload())
        ctx.skill_selected.connect(self._follow_selection)
        ctx.loaded_changed.connect(lambda: self.model.set_loaded(ctx.loaded_names))
        self.reload()

    def reload(self) -> None:
        """Re-read the current client's catalog (keeps the filter and the selection). A catalog
        already shown is not reset again (a full scan re-delivers the partial one)."""
        cat = self.ctx.catalog()
        self.model.set_listing_states(tallies.states(self.ctx.listing()))
        if cat is self.model.catalog() and cat is not None:
            return
        if self.model._same_layout(cat):
            self.model.set_catalog(cat)  # incremental: rows updated in place, no re-expand
            return
        self.model.set_catalog(cat)
        self.model.loaded_names = set(self.ctx.loaded_names)
        self._expand_roots()
        fit_columns(self.tree, self._view_rows, (0, 1))  # Name and Status as wide as their text
        if self.ctx.selected_path is not None:
            self._follow_selection(self.ctx.selected_path)
        self._fill_token += 1
        token = self._fill_token
        defer(self, lambda: self._fill_more(token))

    def _view_rows(self, limit: int | None) -> list[Row] | None:
        """The rows the view shows with their Name and Status texts (``treefit.fit_columns``);
        None while a filter is on or when there are more than ``limit``."""
        m, rows = self.model, list[Row]()
        for r, kids in enumerate(m._children):
            n = m._fetched[r] if self.tree.isExpanded(self.proxy.index(r, 0)) else 0
            if self.proxy._words or (limit is not None and len(rows) + 1 + n > limit):
                return None
            rows.append(
                (0, partial(self._view_index, r, -1), {c: m._root_data(r, c, _DISPLAY) for c in (0, 1)})
            )
            for i, s in enumerate(kids[:n]):
                rows.append(
                    (1, partial(self._view_index, r, i), {c: m._skill_data(s, c, _DISPLAY) for c in (0, 1)})
                )
        return rows

    def _view_index(self, root: int, row: int, col: int) -> QModelIndex:
        """The view's index of root row ``root`` (``row`` -1) or of its skill row ``row``."""
        m = self.model
        src = m.index(root, col) if row < 0 else m.index(row, col, m.index(root, 0))
        return self.proxy.mapFromSource(src)

    def _fill_more(self, token: int) -> None:
        """One more chunk of the big roots' rows per event-loop turn (``FIRST_ROWS``), until a
        newer reload starts its own fill."""
        if token == self._fill_token and self.model.fill_step(FIRST_ROWS):
            defer(self, lambda: self._fill_more(token))

    def focus_filter(self) -> None:
        self.filter.setFocus(Qt.FocusReason.ShortcutFocusReason)
        self.filter.selectAll()

    def _on_filter(self, text: str) -> None:
        self.proxy.set_filter_text(text)
        self._expand_roots()

    def _expand_roots(self) -> None:
        """Expand every root row (skills are leaves): ``expandAll`` would visit all 10,000
        skill rows through the Python model and proxy (~0.3 s on the GUI thread), this only
        the few roots."""
        for r in range(self.proxy.rowCount()):
            self.tree.expand(self.proxy.index(r, 0))

    def _on_current(self, cur: QModelIndex, _prev: QModelIndex) -> None:
        if not cur.isValid():
            return
        src = self.proxy.mapToSource(cur)
        obj = self.model.data(src, SkillRole)
        if isinstance(obj, Skill):
            self.ctx.select_skill(obj.path)

    def _follow_selection(self, path: Path | None) -> None:
        if path is None:
            return
        src = self.model.index_of_path(path)
        if not src.isValid():
            return
        idx = self.proxy.mapFromSource(src)
        if not idx.isValid():
            return
        if self.tree.currentIndex() != idx:
            self.tree.selectionModel().setCurrentIndex(
                idx, QItemSelectionModel.SelectionFlag.ClearAndSelect | QItemSelectionModel.SelectionFlag.Rows
            )
        self.tree.scrollTo(idx)
