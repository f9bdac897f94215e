"""Find text the window cuts off: headers, cells, tabs and line edits narrower than their text.

``truncations(window) -> list[str]`` inspects every *visible* widget of the window as it is laid
out now and returns one message per problem (empty = nothing cut):

* item-view headers: a visible section narrower than ``sectionSizeFromContents`` (or cut by
  the viewport's right edge);
* item-view cells in the visible rows: the display text does not fit the style's text rectangle
  (``SE_ItemViewItemText``: icon and margins taken off) — word-wrapped when the view wraps, line
  by line otherwise — or the cell is cut by the viewport's right edge;
* item views and text views that scroll sideways at all (columns or text hidden to the right);
* tab bars whose tabs are narrower than their size hint (Qt elides the title);
* line edits (and editable combo boxes) whose text is wider than the field.
"""

from __future__ import annotations

from PySide6.QtCore import QModelIndex, QPoint, QRect, Qt
from PySide6.QtGui import QFontMetrics
from PySide6.QtWidgets import (
    QAbstractItemView,
    QAbstractScrollArea,
    QHeaderView,
    QLineEdit,
    QPlainTextEdit,
    QStyle,
    QStyleOptionViewItem,
    QTabBar,
    QTableView,
    QTextEdit,
    QTreeView,
    QWidget,
)


def _name(w: QWidget) -> str:
    chain = []
    while w is not None and len(chain) < 4:
        chain.append(w.objectName() or type(w).__name__)
        w = w.parentWidget()
    return "/".join(reversed(chain))


def _headers(view: QAbstractItemView) -> list[QHeaderView]:
    if isinstance(view, QTreeView):
        return [view.header()]
    if isinstance(view, QTableView):
        return [view.horizontalHeader()]
    return []


def _header_problems(view: QAbstractItemView) -> list[str]:
    out = []
    vp_width = view.viewport().width()
    for h in _headers(view):
        if h.isHidden() or h.orientation() != Qt.Orientation.Horizontal:
            continue
        for logical in range(h.count()):
            if h.isSectionHidden(logical):
                continue
            x = h.sectionViewportPosition(logical)
            size = h.sectionSize(logical)
            if x >= vp_width or x + size <= 0:
                continue
            shown = min(x + size, vp_width) - max(x, 0)
            need = h.sectionSizeFromContents(logical).width()
            text = view.model().headerData(logical, Qt.Orientation.Horizontal)
            if text and shown + 1 < need:
                out.append(f"{_name(view)}: header {text!r} shows {shown}px of {need}px")
    return out


def _visible_rows(view: QAbstractItemView) -> list[QModelIndex]:
    vp = view.viewport().rect()
    idx = view.indexAt(QPoint(1, 1))
    rows = []
    while idx.isValid() and len(rows) < 200:
        rect = view.visualRect(idx)
        if rect.top() > vp.bottom():
            break
        rows.append(idx.siblingAtColumn(0))
        if isinstance(view, QTreeView):
            idx = view.indexBelow(idx)
        else:
            nxt = idx.row() + 1
            idx = idx.sibling(nxt, 0) if nxt < view.model().rowCount(idx.parent()) else QModelIndex()
    return rows


def _cell_problems(view: QAbstractItemView) -> list[str]:
    out = []
    model = view.model()
    vp = view.viewport().rect()
    style = view.style()
    wrap = view.wordWrap() if hasattr(view, "wordWrap") else False
    for row in _visible_rows(view):
        for col in range(model.columnCount(row.parent())):
            if isinstance(view, (QTreeView, QTableView)) and view.isColumnHidden(col):
                continue
            idx = row.siblingAtColumn(col)
            text = idx.data(Qt.ItemDataRole.DisplayRole)
            if text is None or str(text) == "":
                continue
            text = str(text)
            rect = view.visualRect(idx)
            if rect.isEmpty() or rect.left() >= vp.right():
                continue
            opt = QStyleOptionViewItem()
            view.initViewItemOption(opt)
            opt.rect = rect
            view.itemDelegateForIndex(idx).initStyleOption(opt, idx)
            text_rect = style.subElementRect(QStyle.SubElement.SE_ItemViewItemText, opt, view)
            text_rect = text_rect.adjusted(3, 0, -3, 0)  # the delegate's text margins
            fm = QFontMetrics(opt.font)
            if wrap:
                br = fm.boundingRect(
                    QRect(0, 0, max(1, text_rect.width()), 100_000), int(Qt.TextFlag.TextWordWrap), text
                )
                need_w, need_h = br.width(), br.height()
            else:
                lines = text.split("\n")
                need_w = max(fm.horizontalAdvance(line) for line in lines)
                need_h = fm.lineSpacing() * len(lines)
            have_w = min(text_rect.right(), vp.right()) - text_rect.left() + 1
            if need_w > have_w + 1 or need_h > text_rect.height() + 2:
                out.append(
                    f"{_name(view)}: cell ({idx.row()}, {col}) {text[:40]!r} needs "
                    f"{need_w}x{need_h}px, has {have_w}x{text_rect.height()}px"
                )
    return out


def _tab_problems(bar: QTabBar) -> list[str]:
    out = []
    for i in range(bar.count()):
        rect = bar.tabRect(i)
        if rect.width() + 1 < bar.tabSizeHint(i).width() or not bar.rect().contains(rect):
            out.append(f"{_name(bar)}: tab {bar.tabText(i)!r} is cut")
    return out


def _line_edit_problems(edit: QLineEdit) -> list[str]:
    text = edit.text()
    if not text:
        return []
    room = edit.contentsRect().width() - 8  # frame and text margins
    need = edit.fontMetrics().horizontalAdvance(text)
    return [f"{_name(edit)}: line edit {text[:40]!r} needs {need}px, has {room}px"] if need > room else []


def truncations(win: QWidget) -> list[str]:
    """Every cut-off text in ``win``'s visible widgets (see the module docstring)."""
    out: list[str] = []

    def every(kind):
        return ([win] if isinstance(win, kind) else []) + win.findChildren(kind)

    for view in every(QAbstractItemView):
        if not view.isVisible() or view.model() is None or view.viewport().width() < 2:
            continue
        out += _header_problems(view)
        out += _cell_problems(view)
    for area in every(QAbstractScrollArea):
        if not isinstance(area, (QAbstractItemView, QTextEdit, QPlainTextEdit)) or not area.isVisible():
            continue
        hidden = area.horizontalScrollBar().maximum()
        if hidden > 0:
            out.append(f"{_name(area)}: scrolls sideways ({hidden}px hidden)")
    for bar in every(QTabBar):
        if bar.isVisible():
            out += _tab_problems(bar)
    for edit in every(QLineEdit):
        if edit.isVisible():
            out += _line_edit_problems(edit)
    return out
