"""The listing preview: exactly what the model receives, the budget, and what happened to each
skill, for the current client at the current context size.

Parts (top to bottom):
* ``ContextSizeCombo`` lives in the toolbar only (one context-size box per window, issue 13):
  presets 8k … 1M and free entry ("64k", "1.5M", "100000"); it follows ``context_changed``.
* the budget bar: used / limit in the client's own unit (chars or tokens), the token estimate of
  the whole text, and the assumptions behind both (e.g. "1 token ≈ 4 chars (assumption)").
* the listing text (monospace, read-only); the selected skill's entry is highlighted and scrolled
  to, skills the chat loaded are tinted.
* tabs: per-skill table (``ListingTableModel``), the selected skill in every client
  (``AllClientsModel``), warnings / assumptions / notes.

Units: ``description_chars`` / ``shown_chars`` are code points (see ``workbench.core.listing``).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from PySide6.QtCore import QModelIndex, Qt, QTimer, Signal
from PySide6.QtGui import QFont, QFontDatabase, QTextCharFormat, QTextCursor
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPlainTextEdit,
    QProgressBar,
    QSplitter,
    QTableView,
    QTabWidget,
    QTextEdit,
    QVBoxLayout,
    QWidget,
)

from workbench.app import icons, tallies
from workbench.app.listing_models import AllClientsModel, ListingTableModel, PathRole  # re-exported
from workbench.app.scanpass import TextlessReport
from workbench.app.settings import CONTEXT_PRESETS
from workbench.app.turns import DEFER_MS, defer
from workbench.core.clients import DISPLAY_NAMES

#: Shown next to every token figure that is an estimate (listing.estimate_tokens).
TOKEN_ASSUMPTION = "1 token ≈ 4 chars (assumption)"


# -- context size --------------------------------------------------------------------------


def format_tokens(n: int) -> str:
    """8000 -> "8k", 1000000 -> "1M", 131072 -> "131,072"."""
    if n % 1_000_000 == 0:
        return f"{n // 1_000_000}M"
    if n % 1000 == 0:
        return f"{n // 1000}k"
    return f"{n:,}"


def parse_tokens(text: str) -> int | None:
    """Parse "8k", "1.5M", "200,000", "128000 tokens" -> tokens; None when not a positive number."""
    t = text.strip().lower().replace(",", "").replace("_", "").replace("tokens", "").strip()
    m = re.fullmatch(r"(\d+(?:\.\d+)?)\s*([km]?)", t)
    if not m:
        return None
    v = float(m.group(1)) * {"": 1, "k": 1000, "m": 1_000_000}[m.group(2)]
    n = int(round(v))
    return n if n > 0 else None


class ContextSizeCombo(QComboBox):
    """Editable combo bound to ``ctx.context_tokens`` (presets + free entry).

    Signals:
        invalid(str): the typed text is not a token count (the combo reverts).
    """

    invalid = Signal(str)

    def __init__(self, ctx, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.ctx = ctx
        self.setEditable(True)
        self.setInsertPolicy(QComboBox.InsertPolicy.NoInsert)
        self.setToolTip("Context window of the model in tokens (presets or type e.g. 64k, 1.5M)")
        for n in CONTEXT_PRESETS:
            self.addItem(format_tokens(n), n)
        self.setMinimumContentsLength(6)
        self.activated.connect(self._on_activated)
        edit = self.lineEdit()  # the combo is editable: always there
        if edit is not None:
            edit.editingFinished.connect(self._on_edited)
        ctx.context_changed.connect(self._show)
        self._show(ctx.context_tokens)

    def _show(self, tokens: int) -> None:
        i = self.findData(int(tokens))
        self.blockSignals(True)
        if i >= 0:
            self.setCurrentIndex(i)
        else:
            self.setEditText(format_tokens(int(tokens)))
        self.blockSignals(False)

    def _on_activated(self, i: int) -> None:
        n = self.itemData(i)
        if n:
            self.ctx.set_context_tokens(int(n))

    def _on_edited(self) -> None:
        n = parse_tokens(self.currentText())
        if n is None:
            self.invalid.emit(self.currentText())
            self._show(self.ctx.context_tokens)
            return
        self.ctx.set_context_tokens(n)
        self._show(n)


# -- entry location in the text --------------------------------------------------------------


def entry_range(text: str, name: str, path: str | None) -> tuple[int, int] | None:
    """(start, end) character offsets of one skill's entry in a listing text, or None.

    The listing reports do not carry offsets, so the entry is located the way a reader would:
    by its path (Codex, OpenCode, VS Code, the spec put it in the entry), else by ``<name>NAME``
    or a ``- NAME:`` / ``- **NAME**`` line. An XML entry spans ``<skill>`` … ``</skill>``; a line
    entry is its line.
    """
    i = -1
    if path:
        i = text.find(path)
    if i < 0:
        i = text.find(f"<name>{name}</name>")
    if i < 0:
        for pat in (f"\n- {name}:", f"\n- **{name}**", f"\n- {name}\n"):
            j = text.find(pat)
            if j >= 0:
                i = j + 1
                break
        if i < 0 and text.startswith(f"- {name}:"):
            i = 0
    if i < 0:
        return None
    open_tag = text.rfind("<skill>", 0, i)
    prev_close = text.rfind("</skill>", 0, i)
    if open_tag >= 0 and open_tag > prev_close:
        close = text.find("</skill>", i)
        if close >= 0:
            return open_tag, close + len("</skill>")
    start = text.rfind("\n", 0, i) + 1
    end = text.find("\n", i)
    return start, (len(text) if end < 0 else end)


# -- widget --------------------------------------------------------------------------------


#: A listing text is set in pieces of about this many chars, one per event-loop turn (100,000:
#: the first turns after a partial result took 16-29 ms of the GUI thread; 25,000: 7-19, issue 14).
TEXT_PIECE = 25_000


def _pieces(text: str) -> list[str]:
    """``text`` cut at the first newline after every ``TEXT_PIECE`` chars (each cut newline
    dropped: ``appendPlainText`` adds it back), so that ``"\\n".join(pieces) == text``."""
    out: list[str] = []
    start = 0
    while len(text) - start > TEXT_PIECE:
        cut = text.find("\n", start + TEXT_PIECE)
        if cut < 0:
            break
        out.append(text[start:cut])
        start = cut + 1
    out.append(text[start:])
    return out


#: Listings of more skills than this fill their table an event-loop turn after their text
#: (issue 14: text and table of 10,000 skills in one turn blocked the GUI thread ~80-100 ms).
TABLE_LATER = 2000


def _fit_columns(table: QTableView, few_rows: bool = False) -> None:
    """Every column as wide as its header and cells; the last one (notes, reasons) takes the rest
    and wraps (issue 13: fixed widths cut "Description chars" and long names). Rows are as high
    as their text when ``few_rows`` (one per client), else fixed (``_set_row_lines``): measuring
    1,000+ rows to contents took seconds on every listing update."""
    h = table.horizontalHeader()
    h.setResizeContentsPrecision(30)  # rows measured per column (the visible ones first)
    h.setStretchLastSection(True)

    def fit() -> None:  # once per model reset (ResizeToContents re-measured on every selection)
        for col in range(table.model().columnCount() - 1):  # the last one stretches
            table.resizeColumnToContents(col)

    table.model().modelReset.connect(fit)
    table.setWordWrap(True)
    if few_rows:
        table.verticalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
    else:
        table.verticalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Fixed)
        _set_row_lines(table, 2)


def _set_row_lines(table: QTableView, lines: int) -> None:
    """Make every row ``lines`` text lines high."""
    table.verticalHeader().setDefaultSectionSize(table.fontMetrics().lineSpacing() * lines + 6)


class ListingPane(QWidget):
    """The listing preview of ``ctx.listing()`` (see module docstring)."""

    def __init__(self, ctx, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.ctx = ctx
        self._text: str | None = None
        self._pieces: tuple[list[str], int] = ([""], 1)  # pieces of ``_text``, how many are set
        self._shown: tuple | None = None
        self._bar_style: str | None = None
        self.header = QLabel(self)
        self.header.setWordWrap(True)
        self.bar = QProgressBar(self)
        self.bar.setTextVisible(True)
        self.bar.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.bar.setMinimumWidth(220)
        self.estimate = QLabel(self)
        self.estimate.setWordWrap(True)
        self.text = QPlainTextEdit(self)
        self.text.setReadOnly(True)
        self.text.setLineWrapMode(QPlainTextEdit.LineWrapMode.WidgetWidth)
        f = QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont)
        f.setStyleHint(QFont.StyleHint.Monospace)
        self.text.setFont(f)
        self.table_model = ListingTableModel(self)
        self.table = QTableView(self)
        self.table.setModel(self.table_model)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.verticalHeader().setVisible(False)
        _fit_columns(self.table)
        self.table.clicked.connect(self._on_table_click)
        self.clients_model = AllClientsModel(self)
        self.clients_table = QTableView(self)
        self.clients_table.setModel(self.clients_model)
        self.clients_table.verticalHeader().setVisible(False)
        self.clients_table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        _fit_columns(self.clients_table, few_rows=True)
        self.notes = QPlainTextEdit(self)
        self.notes.setReadOnly(True)
        self.tabs = QTabWidget(self)
        self.tabs.addTab(self.table, "Skills")
        self.tabs.addTab(self.clients_table, "Selected skill in every client")
        self.tabs.addTab(self.notes, "Warnings")
        top = QHBoxLayout()
        budget = QLabel("Budget:", self)
        budget.setToolTip("The client's listing budget at the context size chosen in the toolbar")
        top.addWidget(budget)
        top.addWidget(self.bar, 1)
        split = QSplitter(Qt.Orientation.Vertical, self)
        split.addWidget(self.text)
        split.addWidget(self.tabs)
        split.setStretchFactor(0, 3)
        split.setStretchFactor(1, 2)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(4, 4, 4, 4)
        lay.addLayout(top)
        lay.addWidget(self.estimate)
        lay.addWidget(self.header)
        lay.addWidget(split, 1)
        ctx.catalog_changed.connect(self._on_catalog)
        ctx.listing_changed.connect(self.refresh)
        ctx.client_changed.connect(lambda _c: self.refresh())
        ctx.skill_selected.connect(lambda _p: self._on_selection())
        ctx.loaded_changed.connect(self.refresh)
        self.refresh()

    # -- updates ---------------------------------------------------------------------------
    def _on_catalog(self) -> None:
        """A new catalog: refreshed now, or on the next event-loop turn while a scan still runs
        (the first client's partial result): the tree fills in one turn and the listing text
        and table in the next, two short GUI-thread blocks instead of one long one (issue 14)."""
        if self.ctx.scanning:
            defer(self, self.refresh)  # dropped with the pane
        else:
            self.refresh()

    def refresh(self) -> None:
        """Re-read the report of the current client (cheap: nothing is redone when the report
        and the loaded names are the ones already shown)."""
        rep = self.ctx.listing()
        rendering = isinstance(rep, TextlessReport)  # its text is being rendered (AppContext)
        if rendering:
            rep = None
        key = (
            id(rep),
            self.ctx.client_id,
            frozenset(self.ctx.loaded_names),
            rep is None and (self.ctx.scanning or rendering),
        )
        if rep is not None and key == self._shown:
            self._on_selection()
            return
        self._shown = key
        # QProgressBar.setValue repaints at once (synchronously: the whole window, the tree's
        # rows through its Python model, issue 14); with updates off it is painted a turn later
        self.bar.setUpdatesEnabled(False)
        try:
            self._show(rep, rendering)
        finally:
            self.bar.setUpdatesEnabled(True)
        self._on_selection()

    def _show(self, rep: Any | None, rendering: bool) -> None:
        name = DISPLAY_NAMES.get(self.ctx.client_id, self.ctx.client_id)
        if rep is None:
            self._set_text("")
            why = self.ctx.errors.get(self.ctx.client_id, "") or (
                "scanning…" if self.ctx.scanning else "rendering…" if rendering else "no listing"
            )
            self.header.setText(f"<b>{name}</b>: no listing — {_esc(why)}")
            self.bar.setRange(0, 1)
            self.bar.setValue(0)
            self.bar.setFormat("no listing")
            self.estimate.setText("")
            self.table_model.set_report(None, set())
            self.notes.setPlainText("")
        else:
            self._show_report(rep, name)

    def _show_report(self, rep: Any, name: str) -> None:
        counts = tallies.listing_counts(rep)
        states = ", ".join(f"{n} {st}" for st, n in counts.items() if n)
        # placement texts name tags ("a <system-reminder> attachment"): escape, or Qt drops them
        self.header.setText(
            f"<b>{name}</b> — {len(rep.skills)} skill{'' if len(rep.skills) == 1 else 's'} offered"
            + (f": {states}" if states else "")
            + f". <small>Placement: {_esc(rep.placement)}"
            + ("" if rep.verified else " · <span style='color:#b08800'>template unverified</span>")
            + (f" · {_esc(rep.model)}" if rep.model else "")
            + "</small>"
        )
        if rep.budget_unit and rep.budget_limit:
            used, limit = int(rep.budget_used or 0), int(rep.budget_limit)
            self.bar.setRange(0, max(limit, 1))
            self.bar.setValue(min(used, limit))
            pct = 100.0 * used / limit if limit else 0
            self.bar.setFormat(f"{used:,} / {limit:,} {rep.budget_unit} ({pct:.0f}%)")
            c = icons.color("listing", "budget_over" if rep.over_budget else "budget_ok").name()
            self._set_bar_style(f"QProgressBar::chunk {{ background: {c}; }}")
            self.bar.setToolTip(
                f"Budget of {name}: {limit:,} {rep.budget_unit}; the client counts {used:,} against it"
            )
        else:
            self.bar.setRange(0, 1)
            self.bar.setValue(0)
            self.bar.setFormat(
                f"no budget: {name} has no listing cap" if rep.budget_unit is None else "budget unknown"
            )
            self._set_bar_style("")
        text_chars = len(rep.text)
        assumptions = list(rep.assumptions)
        est = (
            f"Listing: {text_chars:,} chars ≈ {rep.token_estimate:,} tokens "
            f"<span style='color:#b08800'>({TOKEN_ASSUMPTION})</span>"
        )
        if assumptions:
            first = assumptions[0] if len(assumptions[0]) <= 110 else assumptions[0][:108] + "…"
            more = f" (+{len(assumptions) - 1} more, see Warnings)" if len(assumptions) > 1 else ""
            est += f"<br><small style='color:#b08800'>Assumed: {_esc(first)}{more}</small>"
        self.estimate.setText(est)
        self.estimate.setToolTip("\n".join(assumptions))
        self._set_text(rep.text)
        if len(rep.skills) > TABLE_LATER:  # the table a turn later: two short GUI blocks, not one
            shown = self._shown
            defer(self, lambda: self._fill_table(rep) if self._shown == shown else None)
        else:
            self._fill_table(rep, select=False)

    def _fill_table(self, rep: Any, select: bool = True) -> None:
        """The per-skill table, warnings and notes of ``rep``."""
        self.table_model.set_report(rep, self.ctx.loaded_names)
        # two-line rows only when a note may need them (OpenCode and Gemini CLI write none)
        _set_row_lines(self.table, 2 if any(r.note for r in rep.skills) else 1)
        lines = []
        for title, items in (
            ("Warnings", rep.warnings),
            ("Assumptions", list(rep.assumptions)),
            ("Notes", rep.info),
        ):
            if items:
                lines.append(f"{title}:")
                lines.extend(f"  • {w}" for w in items)
        lines.append(f"Token figures are estimates: {TOKEN_ASSUMPTION}.")
        self.notes.setPlainText("\n".join(lines))
        n_warn = len(rep.warnings)
        self.tabs.setTabText(2, f"Warnings ({n_warn})" if n_warn else "Warnings")
        if select:
            self._on_selection()

    def _set_bar_style(self, css: str) -> None:
        if css != self._bar_style:  # restyling is slow; only when the colour changes
            self._bar_style = css
            self.bar.setStyleSheet(css)

    def _set_text(self, text: str) -> None:
        """Show ``text``; one of over ``TEXT_PIECE`` chars is set in pieces, one per event-loop
        turn (issue 14: ``setPlainText`` of a 2.5M-char listing held the GUI thread 0.2-0.6 s),
        and highlighted once whole (``text_complete``)."""
        if text != self._text:
            self._text = text
            pieces = _pieces(text)
            self._pieces = (pieces, 1)
            self.text.setPlainText(pieces[0])
            self.text.setPlaceholderText("(the client sends no listing)")
            if len(pieces) > 1:
                QTimer.singleShot(DEFER_MS, self, self._next_piece)  # its own turn (``turns.defer``)

    def _next_piece(self) -> None:
        pieces, i = self._pieces
        if i >= len(pieces):
            return  # another text was set meanwhile
        self.text.appendPlainText(pieces[i])  # a new line, then the piece (split at a newline)
        self._pieces = (pieces, i + 1)
        if i + 1 < len(pieces):
            QTimer.singleShot(DEFER_MS, self, self._next_piece)  # its own turn (``turns.defer``)
        else:
            self._highlight()

    @property
    def text_complete(self) -> bool:
        """The whole listing text is in the text view (see ``_set_text``)."""
        pieces, i = self._pieces
        return i >= len(pieces)

    def _on_selection(self) -> None:
        path = self.ctx.selected_path
        self.clients_model.set_skill(self.ctx, path)
        self._highlight()
        if path is not None:
            row = self.table_model.row_of_path(str(path))
            if row >= 0:
                self.table.selectRow(row)
                self.table.scrollTo(self.table_model.index(row, 0))

    def _highlight(self) -> None:
        if not self.text_complete:
            return  # positions past the pieces set so far: once the text is whole
        rep = self.ctx.listing()
        text = self._text or ""
        sels = []
        if rep is not None and text:
            for entry in rep.skills:
                if entry.name in self.ctx.loaded_names:
                    rng = entry_range(text, entry.name, entry.path)
                    if rng:
                        sels.append(self._selection(rng, icons.color("listing", "loaded_bg")))
            s = self.ctx.skill()
            target = None
            if s is not None:
                entry = rep.state_of(str(s.path))
                if entry is not None and entry.state != "omitted":
                    target = entry_range(text, entry.name, entry.path)
            if target:
                sels.append(self._selection(target, icons.color("listing", "highlight_bg")))
                cur = QTextCursor(self.text.document())
                cur.setPosition(target[0])
                self.text.setTextCursor(cur)
                self.text.centerCursor()
        self.text.setExtraSelections(sels)

    def _selection(self, rng: tuple[int, int], color) -> QTextEdit.ExtraSelection:
        sel = QTextEdit.ExtraSelection()
        fmt = QTextCharFormat()
        fmt.setBackground(color)
        sel.format = fmt
        cur = QTextCursor(self.text.document())
        cur.setPosition(rng[0])
        cur.setPosition(rng[1], QTextCursor.MoveMode.KeepAnchor)
        sel.cursor = cur
        return sel

    def highlighted_range(self) -> tuple[int, int] | None:
        """(start, end) of the highlighted selected entry (tests)."""
        for sel in self.text.extraSelections():
            if sel.format.background().color() == icons.color("listing", "highlight_bg"):
                return sel.cursor.selectionStart(), sel.cursor.selectionEnd()
        return None

    def _on_table_click(self, index: QModelIndex) -> None:
        p = self.table_model.data(index, PathRole)
        if p:
            self.ctx.select_skill(Path(p))


def _esc(s: str) -> str:
    return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
