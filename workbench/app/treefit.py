"""The skills tree's column fit: ``resizeColumnToContents``'s widths, asking the delegate for
a few rows instead of every row (issue 14).

``QTreeView.resizeColumnToContents(col)`` sets the column to the widest of the delegate's size
hints (plus the row's indentation in the tree column) over the first
``resizeContentsPrecision`` rows, and at least the header's hint. Each hint goes through the
filter proxy and the Python model (about ten roles per cell): on a 10,000-skill tree, the two
columns took 8-13 ms of the GUI thread in the first partial scan result's turn, its longest
block. A hint is the text's advance plus the same margins and icon for every row of one depth,
so the widest hint of a depth is that of its widest text: ``fit_columns`` measures every text
with ``QFontMetricsF`` (about a microsecond each) and asks the delegate only for the rows whose
text is within ``_NEAR_PX`` of the widest of their depth.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from PySide6.QtCore import QModelIndex
from PySide6.QtGui import QFontMetricsF
from PySide6.QtWidgets import QTreeView

#: Rows whose text is this close (px) to the widest of their depth are measured by the delegate
#: too (``QFontMetricsF`` and the style's text layout could round a near tie differently).
_NEAR_PX = 2.0

#: ``rows`` entry: (depth, its row in the view's model and parent there, {column: display text}).
Row = tuple[int, Callable[[int], QModelIndex], dict[int, str]]


def fit_columns(
    tree: QTreeView, list_rows: Callable[[int | None], Sequence[Row] | None], columns: Sequence[int]
) -> None:
    """Resize ``columns`` of ``tree`` to what ``tree.resizeColumnToContents`` would give.

    ``list_rows(limit)`` (called once the view's pending layout is done: it may fetch rows):
    every row the view shows, top to bottom (depth 0 or 1; ``index_of(col)`` gives the row's
    index in the view's model for a column; the texts are what the model displays), or None
    when there are more than ``limit`` (None: no limit) or the caller cannot list them (a
    filter is on): then ``resizeColumnToContents`` itself (with more rows than the header's
    ``resizeContentsPrecision``, Qt measures those around the visible ones). A text that is
    not one printable line (a line break, a tab: the style lays it out otherwise) makes its
    column fall back too."""
    header = tree.header()
    precision = header.resizeContentsPrecision()
    # the pending layout, as ``resizeColumnToContents`` runs it first (Qt returns right after it
    # for a column out of range); a layout can fetch rows, so they are listed after it
    tree.resizeColumnToContents(-1)
    rows = list_rows(precision if precision >= 0 else None)
    if rows is None:
        for col in columns:
            tree.resizeColumnToContents(col)
        return
    fm = QFontMetricsF(tree.font())
    indent = tree.indentation()
    decorated = 1 if tree.rootIsDecorated() else 0
    tree_col = header.logicalIndex(0)
    for col in columns:
        # per depth, each distinct text once: (advance, the first row showing it)
        texts: dict[tuple[int, str], tuple[float, Callable[[int], QModelIndex]]] = {}
        for depth, index_of, row_texts in rows:
            text = row_texts.get(col, "")
            if (depth, text) not in texts:
                if not text.isprintable():
                    break
                texts[depth, text] = (fm.horizontalAdvance(text), index_of)
        else:
            widest: dict[int, float] = {}
            for (depth, _text), (adv, _) in texts.items():
                widest[depth] = max(widest.get(depth, adv), adv)
            contents = -1
            for (depth, _text), (adv, index_of) in texts.items():
                if adv >= widest[depth] - _NEAR_PX:
                    hint = tree.sizeHintForIndex(index_of(col)).width()
                    contents = max(contents, hint + (indent * (depth + decorated) if col == tree_col else 0))
            head = 0 if header.isHidden() else header.sectionSizeHint(col)
            header.resizeSection(col, max(contents, head))
            continue
        tree.resizeColumnToContents(col)  # a text that is not one printable line
