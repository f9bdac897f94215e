"""The Workshop pane: review proposed skills and skill changes, then apply, reject, quarantine or
roll back. Thin over ``workbench.core.workshop`` (all rules live there).

Layout: a state filter and the queue (top); for the selected proposal (below) a header, one
button per allowed transition, and tabs: side-by-side diff per file, scanner + lint findings,
the listing preview as if applied, and the event history.

Risky content stands out (issue 12): a banner under the header names the blocking findings and
every new or changed script/executable file, and !`command` lines or hooks (``risk_banner``); script
files are marked and coloured in the diff's file list, listed in the apply confirmation, and a
finding's row opens its file in the diff (double-click).

Every transition asks for confirmation through ``confirm(title, text) -> bool`` and, for reject and
quarantine, a reason through ``ask_reason(title, label) -> str | None``; both default to Qt dialogs
(QMessageBox / QInputDialog) and are injectable (tests pass lambdas; style.md §7 habit 13).
Errors (refused transitions, busy database) are shown in the pane's message line, never raised.

The store is read on the GUI thread (a handful of small SQLite reads); the listing preview, which
runs discovery, runs in the background with a stale-token guard (``workbench.app.workers``).

Viewing creates nothing (issue 13): a workspace without a store shows an empty queue, and the store
is opened only once it exists on disk (a proposal made by chat, evals or the CLI creates it; the
2 s poll notices) or when code asks for ``pane.store``.
"""

from __future__ import annotations

import html
from collections.abc import Callable
from pathlib import Path
from typing import Any

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, Qt, QTimer, Signal
from PySide6.QtGui import QColor, QFont, QFontDatabase
from PySide6.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QHeaderView,
    QInputDialog,
    QLabel,
    QMessageBox,
    QPlainTextEdit,
    QPushButton,
    QSplitter,
    QTableView,
    QTabWidget,
    QTextBrowser,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from workbench.app.emptystate import EmptyState, go_to_tab
from workbench.core.text import plural
from workbench.core.workshop import STATES, Proposal, WorkshopError, WorkshopStore, default_store_dir
from workbench.core.workshop.preview import decode_for_display, side_by_side

_STATE_COLORS = {
    "pending": "#2f81f7",
    "applied": "#2e9d4a",
    "rejected": "#7d8590",
    "quarantined": "#cf222e",
    "stale": "#d97a00",
}
_SEV_COLORS = {"critical": "#cf222e", "error": "#cf222e", "warning": "#d97a00", "info": "#2f81f7"}
_ROW_BG = {"replace": "#fff5b1", "delete": "#ffebe9", "insert": "#dafbe1"}
#: Findings about content that runs by itself (shown in the risk banner besides blocking ones).
_RUNS_CODES = ("WS-BANG", "WS-HOOKS")


def script_files(p: Proposal) -> list[tuple[str, str]]:
    """[(relpath, "new script" | "changed executable" | ...)] of the proposal's new or changed
    script/executable files (the scanner's WS-EXEC findings), in file order."""
    out: dict[str, str] = {}
    for f in p.findings:
        if f.code == "WS-EXEC" and f.file not in out:
            out[f.file] = f.message.split(" file:", 1)[0]
    return sorted(out.items())


def risk_banner_html(p: Proposal) -> str:
    """The banner text for a proposal ("" when nothing needs attention): blocking findings with
    their position, script/executable files, and commands a client runs on its own."""
    parts = []
    block = p.blocking_findings
    if block:
        where = ", ".join(
            f"{_e(f.code)} at {_e(f.file)}:{f.line}:{f.column}" if f.line else f"{_e(f.code)} in {_e(f.file)}"
            for f in block[:4]
        )
        more = f" and {len(block) - 4} more" if len(block) > 4 else ""
        parts.append(f"<b>Apply is blocked</b> by {plural(len(block), 'critical finding')}: {where}{more}.")
    scripts = script_files(p)
    if scripts:
        names = ", ".join(f"<code>{_e(rel)}</code> ({_e(what)})" for rel, what in scripts[:6])
        more = f" and {len(scripts) - 6} more" if len(scripts) > 6 else ""
        parts.append(
            f"<b>{plural(len(scripts), 'script/executable file')}</b> an agent may run: {names}{more}. "
            "Read them in the Diff tab before applying."
        )
    runs = [f for f in p.findings if f.code in _RUNS_CODES]
    if runs:
        parts.append(
            "<b>Runs commands by itself</b>: "
            + ", ".join(f"{_e(f.file)}:{f.line} <code>{_e(f.excerpt[:60])}</code>" for f in runs[:4])
            + "."
        )
    return "<br>".join(parts)


_EMPTY_QUEUE = (
    "No proposals to review. Let the model draft skills in the Chat tab (tick "
    "<i>Drafts</i> under Connection), or use <i>Improve description</i> in the Evals "
    "tab. Nothing reaches a SKILL.md until you apply it here."
)

#: Button titles per action; "rollback" reads "Reopen" for rejected/quarantined proposals.
ACTION_TITLES = {
    "apply": "Apply…",
    "reject": "Reject…",
    "quarantine": "Quarantine…",
    "rollback": "Roll back…",
}


def _e(s: Any) -> str:
    return html.escape(str(s), quote=False)


def _default_confirm(parent: QWidget) -> Callable[[str, str], bool]:
    def confirm(title: str, text: str) -> bool:
        r = QMessageBox.question(
            parent,
            title,
            text,
            QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.Cancel,
            QMessageBox.StandardButton.Cancel,
        )
        return r == QMessageBox.StandardButton.Yes

    return confirm


def _default_ask_reason(parent: QWidget) -> Callable[[str, str], str | None]:
    def ask(title: str, label: str) -> str | None:
        text, ok = QInputDialog.getText(parent, title, label)
        return text if ok else None

    return ask


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
                return QColor(_STATE_COLORS.get(p.state, "#000000"))
            if col == 4 and p.blocking_findings:
                return QColor(_SEV_COLORS["critical"])
        if role == Qt.ItemDataRole.ToolTipRole:
            return f"{p.skill_md}\n{p.reason}" if p.reason else str(p.skill_md)
        if role == Qt.ItemDataRole.UserRole:
            return p.id
        return None


#: Width of each text column of the side-by-side diff: 2 x 50% left no room for the line-number
#: columns, so the table overflowed the view and scrolled sideways. The table itself is 99% wide:
#: at 100% Qt rounds it 1 px wider than the viewport once the vertical scroll bar shows.
_HALF = "47%"


def diff_html(old: bytes | None, new: bytes, rel: str) -> str:
    """Side-by-side diff of one file as an HTML table (old left, new right; changed rows tinted).

    A new file (``old is None``) is one column (line numbers + proposed text): an empty left half
    let Qt's table layout squeeze the header to one character per line. Cells wrap long lines
    (``pre-wrap``) so a 1,000-char description does not push the table wider than the view;
    header cells never wrap (``nowrap``).
    """
    a, b = decode_for_display(old), decode_for_display(new)
    if a is None or b is None:
        return f"<p><i>Binary file {_e(rel)}: {len(old or b''):,} → {len(new):,} bytes</i></p>"
    pre = "<pre style='margin:0; white-space:pre-wrap'>"
    table = "<table width='99%' cellspacing='0' cellpadding='1' style='font-family:monospace'>"
    if old is None:
        out = [table, f"<tr><th colspan='2' align='left' nowrap>{_e(rel)} — new file (proposed)</th></tr>"]
        for no, line in enumerate(b.splitlines() or [""], 1):
            out.append(
                f"<tr><td style='color:#8c959f' align='right'>{no}</td>"
                f"<td width='100%' bgcolor='{_ROW_BG['insert']}'>{pre}{_e(line)}</pre></td></tr>"
            )
        out.append("</table>")
        return "".join(out)
    out = [
        table,
        f"<tr><th colspan='2' align='left' nowrap>{_e(rel)} — live / before</th>"
        "<th colspan='2' align='left' nowrap>proposed</th></tr>",
    ]
    for r in side_by_side(a, b):
        bg = _ROW_BG.get(r.tag, "")
        lbg = "#ffebe9" if r.tag in ("replace", "delete") and r.old_no else bg
        rbg = "#dafbe1" if r.tag in ("replace", "insert") and r.new_no else bg
        out.append(
            "<tr>"
            f"<td style='color:#8c959f' align='right'>{r.old_no or ''}</td>"
            f"<td width='{_HALF}' bgcolor='{lbg or '#ffffff'}'>{pre}{_e(r.old)}</pre></td>"
            f"<td style='color:#8c959f' align='right'>{r.new_no or ''}</td>"
            f"<td width='{_HALF}' bgcolor='{rbg or '#ffffff'}'>{pre}{_e(r.new)}</pre></td>"
            "</tr>"
        )
    out.append("</table>")
    return "".join(out)


class WorkshopPane(QWidget):
    """Review queue widget.

    Args:
        source: a ``WorkshopStore``, a workspace path, or an object with ``.env.workspace``
            (the app's ``AppContext``; its ``env``, ``client_id`` and ``context_tokens`` then drive
            the listing preview).
        parent: the parent widget.
        confirm: ``(title, text) -> bool``; default a QMessageBox question.
        ask_reason: ``(title, label) -> str | None`` (None = cancelled); default QInputDialog.

    Signals:
        applied(object): the live SKILL.md ``Path`` after a successful apply (rescan it).
        rolled_back(object): the SKILL.md ``Path`` after a rollback restored files.
        files_changed(object): either of the two (one connection is enough for a rescan).
        proposals_changed(): the queue changed (any transition or refresh that found changes).

    Attributes:
        store: the ``WorkshopStore`` (opened, and created if missing, on first access; the pane
        itself only opens a store that exists); workspace: its workspace ``Path``;
        model: the ``ProposalTableModel``; current: the selected
        ``Proposal`` or None; buttons: {action: QPushButton}; message: the status QLabel.
    """

    applied = Signal(object)
    rolled_back = Signal(object)
    files_changed = Signal(object)
    proposals_changed = Signal()

    def __init__(
        self,
        source: Any,
        parent: QWidget | None = None,
        *,
        confirm: Callable[[str, str], bool] | None = None,
        ask_reason: Callable[[str, str], str | None] | None = None,
    ) -> None:
        super().__init__(parent)
        self.ctx = None
        self._store: WorkshopStore | None = None
        if isinstance(source, WorkshopStore):
            self._store = source
            self.workspace = Path(source.workspace)
        elif hasattr(source, "env") and hasattr(source.env, "workspace"):
            self.ctx = source
            self.workspace = Path(source.env.workspace)
        else:
            self.workspace = Path(source)
        self.confirm = confirm or _default_confirm(self)
        self.ask_reason = ask_reason or _default_ask_reason(self)
        self.current: Proposal | None = None
        self._preview_token = 0
        self._log_sig: tuple[int, int] | None = None
        self._build()
        self.refresh()
        if self.ctx is not None:
            # File > Open folder (workspace_changed) and the demo replacing an empty workspace
            # (the env changes with the scan result) both move the store to the new workspace.
            for sig in ("workspace_changed", "catalog_changed"):
                if hasattr(self.ctx, sig):
                    getattr(self.ctx, sig).connect(self.follow_workspace)
        self._poll = QTimer(self)
        self._poll.setInterval(2000)
        self._poll.timeout.connect(self._poll_log)
        self._poll.start()

    # ------------------------------------------------------------------ construction
    def _build(self) -> None:
        mono = QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont)
        self.filter = QComboBox(self)
        self.filter.addItem("All states", None)
        for s in STATES:
            self.filter.addItem(s.capitalize(), s)
        self.filter.setCurrentIndex(1)  # pending first: it is a review queue
        self.filter.currentIndexChanged.connect(lambda _i: self.refresh())
        self.refresh_button = QPushButton("Refresh", self)
        self.refresh_button.clicked.connect(self.refresh)
        self.count_label = QLabel(self)
        top = QHBoxLayout()
        top.addWidget(QLabel("Show:", self))
        top.addWidget(self.filter)
        top.addWidget(self.refresh_button)
        top.addStretch(1)
        top.addWidget(self.count_label)

        self.model = ProposalTableModel(self)
        self.table = QTableView(self)
        self.table.setModel(self.model)
        self.table.setSelectionBehavior(QTableView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QTableView.SelectionMode.SingleSelection)
        self.table.verticalHeader().setVisible(False)
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        self.table.horizontalHeader().setStretchLastSection(True)
        self.table.selectionModel().currentRowChanged.connect(lambda cur, _prev: self._select_row(cur.row()))
        self.empty = EmptyState(
            self.table,
            _EMPTY_QUEUE,
            [
                ("Open Chat", lambda: go_to_tab(self, "chat")),
                ("Open Evals", lambda: go_to_tab(self, "evals")),
            ],
        )

        self.header = QLabel(self)
        self.header.setTextFormat(Qt.TextFormat.RichText)
        self.header.setWordWrap(True)
        self.header.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.risk_banner = QLabel(self)
        self.risk_banner.setObjectName("workshop_risk_banner")
        self.risk_banner.setTextFormat(Qt.TextFormat.RichText)
        self.risk_banner.setWordWrap(True)
        self.risk_banner.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.risk_banner.setVisible(False)
        self.buttons: dict[str, QPushButton] = {}
        brow = QHBoxLayout()
        for action, title in ACTION_TITLES.items():
            b = QPushButton(title, self)
            b.setObjectName(f"workshop_{action}")
            b.clicked.connect(lambda _c=False, a=action: self.trigger(a))
            self.buttons[action] = b
            brow.addWidget(b)
        brow.addStretch(1)
        self.message = QLabel(self)
        self.message.setWordWrap(True)
        self.message.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)

        self.tabs = QTabWidget(self)
        diff_page = QWidget(self)
        self.file_combo = QComboBox(diff_page)
        self.file_combo.currentIndexChanged.connect(lambda _i: self._show_diff())
        self.diff_view = QTextBrowser(diff_page)
        self.diff_view.setFont(mono)
        dl = QVBoxLayout(diff_page)
        dl.setContentsMargins(0, 0, 0, 0)
        dl.addWidget(self.file_combo)
        dl.addWidget(self.diff_view)
        self.diff_empty = EmptyState(
            self.diff_view,
            "Select a proposal in the queue to see, file by file, what it would change.",
            [("Refresh the queue", self.refresh)],
            is_empty=lambda: self.current is None,
        )
        self.tabs.addTab(diff_page, "Diff")

        self.findings_tree = QTreeWidget(self)
        self.findings_tree.setHeaderLabels(["Severity", "Code", "Where", "Message"])
        self.findings_tree.setRootIsDecorated(True)
        self.findings_tree.itemActivated.connect(
            lambda it, _c: self.show_file(it.data(2, Qt.ItemDataRole.UserRole))
        )
        self.tabs.addTab(self.findings_tree, "Findings")

        prev_page = QWidget(self)
        self.preview_note = QLabel(prev_page)
        self.preview_note.setWordWrap(True)
        self.preview_before = QPlainTextEdit(prev_page)
        self.preview_after = QPlainTextEdit(prev_page)
        for w in (self.preview_before, self.preview_after):
            w.setReadOnly(True)
            w.setFont(mono)
            w.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
        ps = QSplitter(Qt.Orientation.Horizontal, prev_page)
        for title, w in (("Listing now", self.preview_before), ("As if applied", self.preview_after)):
            box = QWidget(ps)
            bl = QVBoxLayout(box)
            bl.setContentsMargins(0, 0, 0, 0)
            bl.addWidget(QLabel(f"<b>{title}</b>", box))
            bl.addWidget(w)
            ps.addWidget(box)
        pl = QVBoxLayout(prev_page)
        pl.setContentsMargins(0, 0, 0, 0)
        pl.addWidget(self.preview_note)
        pl.addWidget(ps, 1)
        self.preview_index = self.tabs.addTab(prev_page, "Listing preview")
        self.history = QTreeWidget(self)
        self.history.setHeaderLabels(["When", "Event", "Detail"])
        self.history.setRootIsDecorated(False)
        self.tabs.addTab(self.history, "History")
        self.tabs.currentChanged.connect(lambda i: self._start_preview() if i == self.preview_index else None)

        right = QWidget(self)
        rl = QVBoxLayout(right)
        rl.setContentsMargins(0, 0, 0, 0)
        rl.addWidget(self.header)
        rl.addWidget(self.risk_banner)
        rl.addLayout(brow)
        rl.addWidget(self.message)
        rl.addWidget(self.tabs, 1)
        # the queue above the details: side by side, a 780 px tab cut the queue's columns
        split = QSplitter(Qt.Orientation.Vertical, self)
        split.addWidget(self.table)
        split.addWidget(right)
        split.setStretchFactor(0, 1)
        split.setStretchFactor(1, 3)
        split.setSizes([160, 560])
        self.findings_index = self.tabs.indexOf(self.findings_tree)
        lay = QVBoxLayout(self)
        lay.addLayout(top)
        lay.addWidget(split, 1)
        bold = QFont(self.header.font())
        bold.setPointSizeF(bold.pointSizeF() * 1.05)
        self.header.setFont(bold)

    # ------------------------------------------------------------------ store
    @property
    def store(self) -> WorkshopStore:
        """The workspace's ``WorkshopStore``, opened (created when missing) on first access.
        Raises ``WorkshopError``/``OSError`` when it cannot be opened."""
        if self._store is None:
            self._store = WorkshopStore(self.workspace)
            for n in self._store.notices:
                self._say(n, error=True)
        return self._store

    def _existing_store(self) -> WorkshopStore | None:
        """The store if it exists on disk (then opened), else None: viewing creates nothing."""
        if self._store is None and (default_store_dir(self.workspace) / "workshop.db").is_file():
            return self.store
        return self._store

    # ------------------------------------------------------------------ queue
    def follow_workspace(self) -> bool:
        """Open the store of ``ctx.env.workspace`` when it differs from the current one.

        Returns True when the store changed (the queue is then reloaded, the selection cleared).
        A store that cannot be opened keeps the old one and says why in the message line.
        """
        ws = getattr(getattr(self.ctx, "env", None), "workspace", None)
        if ws is None:
            return False
        if Path(ws).resolve() == self.workspace.resolve():
            return False
        self.workspace, self._store = Path(ws), None
        self.current = None
        self._show(None)
        self.refresh()
        return True

    def refresh(self) -> None:
        """Reload the queue (staleness recomputed) and keep the selection when possible."""
        keep = self.current.id if self.current else None
        state = self.filter.currentData()
        try:
            store = self._existing_store()
            rows = store.proposals(state=state) if store is not None else []
        except (OSError, WorkshopError) as exc:
            self._say(f"cannot open the workshop of {self.workspace}: {exc}", error=True)
            return
        self.model.set_rows(rows)
        self.count_label.setText(f"{len(rows)} proposal{'s' if len(rows) != 1 else ''}")
        self._log_sig = self._log_signature()
        row = next((i for i, p in enumerate(rows) if p.id == keep), 0 if rows else -1)
        if row >= 0:
            self.table.selectRow(row)
            self._select_row(row)
        else:
            self._show(None)

    def select(self, proposal_id: str) -> bool:
        """Select a proposal by id (switching the filter to "All states" if needed)."""
        for _ in range(2):
            for i, p in enumerate(self.model.rows):
                if p.id == proposal_id:
                    self.table.selectRow(i)
                    self._select_row(i)
                    return True
            self.filter.setCurrentIndex(0)
        return False

    def _log_signature(self) -> tuple[int, int] | None:
        log = (
            self._store.log_path
            if self._store is not None
            else default_store_dir(self.workspace) / "events.jsonl"
        )
        try:
            st = log.stat()
        except OSError:
            return None
        return (st.st_size, st.st_mtime_ns)

    def _poll_log(self) -> None:
        if self._log_signature() != self._log_sig:
            self.refresh()
            self.proposals_changed.emit()

    def _select_row(self, row: int) -> None:
        if row < 0 or row >= len(self.model.rows):
            self._show(None)
            return
        try:
            self._show(self.store.get(self.model.rows[row].id))
        except WorkshopError as exc:
            self._say(str(exc), error=True)

    # ------------------------------------------------------------------ details
    def _show(self, p: Proposal | None) -> None:
        if p is None or self.current is None or p.id != self.current.id:
            self._say("")  # a message belongs to the proposal it was about
        self.current = p
        self.diff_empty.refresh()
        self._preview_token += 1
        if p is None:
            self.header.setText(
                "<i>No proposal selected.</i>"
                if self.model.rows
                else "<i>No proposals yet in this workspace's queue (also fed by "
                "<code>workbench workshop propose-…</code>).</i>"
            )
            for b in self.buttons.values():
                b.setEnabled(False)
            self.file_combo.clear()
            self.diff_view.clear()
            self.findings_tree.clear()
            self.history.clear()
            self.preview_before.clear()
            self.preview_after.clear()
            self.preview_note.clear()
            self.risk_banner.setVisible(False)
            return
        color = _STATE_COLORS.get(p.state, "#000")
        reason = f" — {_e(p.reason)}" if p.reason else ""
        note = f"<br><i>{_e(p.note)}</i>" if p.note else ""
        self.header.setText(
            f"<b>{_e(p.name)}</b> &nbsp;<span style='color:{color}'><b>{p.state}</b></span>{reason}<br>"
            f"{p.kind} of <code>{_e(p.skill_md)}</code><br>"
            f"proposal {p.id}, generation {p.generation}, from {_e(p.source or '?')}{note}"
        )
        allowed = p.allowed_actions()
        for action, b in self.buttons.items():
            b.setEnabled(action in allowed)
        self.buttons["rollback"].setText(
            "Reopen…" if p.state in ("rejected", "quarantined") else "Roll back…"
        )
        blocked = p.blocking_findings
        self.buttons["apply"].setToolTip(
            f"blocked by {plural(len(blocked), 'critical finding')}" if blocked else ""
        )
        banner = risk_banner_html(p)
        bg, border = ("#ffebe9", "#cf222e") if blocked else ("#fff8c5", "#d97a00")
        self.risk_banner.setStyleSheet(
            f"QLabel {{ background: {bg}; color: #1f2328; border: 1px solid "
            f"{border}; border-radius: 4px; padding: 6px; }}"
        )
        self.risk_banner.setText(banner)
        self.risk_banner.setVisible(bool(banner))
        try:
            self._changes = self.store.changes(p.id)
        except WorkshopError as exc:
            self._changes = []
            self._say(str(exc), error=True)
        self.file_combo.blockSignals(True)
        self.file_combo.clear()
        scripts = dict(script_files(p))
        for c in self._changes:
            mark = "new" if c.old is None else ("changed" if c.changed else "unchanged")
            if c.rel in scripts:
                mark += ", ⚠ " + ("executable" if "executable" in scripts[c.rel] else "script")
            self.file_combo.addItem(f"{c.rel} ({mark})", c.rel)
            if c.rel in scripts:
                i = self.file_combo.count() - 1
                self.file_combo.setItemData(
                    i, QColor(_SEV_COLORS["critical"]), Qt.ItemDataRole.ForegroundRole
                )
        self.file_combo.blockSignals(False)
        self._show_diff()
        self._fill_findings(p)
        self._fill_history(p)
        self.preview_before.clear()
        self.preview_after.clear()
        self.preview_note.setText("")
        if self.tabs.currentIndex() == self.preview_index:
            self._start_preview()

    def show_file(self, rel: str | None) -> bool:
        """Show ``rel``'s diff (the Diff tab); False when the proposal has no such file."""
        i = self.file_combo.findData(rel) if rel else -1
        if i < 0:
            return False
        self.file_combo.setCurrentIndex(i)
        self.tabs.setCurrentIndex(0)
        return True

    def _show_diff(self) -> None:
        i = self.file_combo.currentIndex()
        if i < 0 or i >= len(getattr(self, "_changes", [])):
            self.diff_view.clear()
            return
        c = self._changes[i]
        self.diff_view.setHtml(diff_html(c.old, c.new, c.rel))

    def _fill_findings(self, p: Proposal) -> None:
        t = self.findings_tree
        t.clear()
        scan = QTreeWidgetItem(
            t,
            [
                f"Scanner ({len(p.findings)})",
                "",
                "",
                f"{len(p.blocking_findings)} blocking apply" if p.findings else "no risks found",
            ],
        )
        for f in p.findings:
            msg = f.message + (" (already in the live file: does not block)" if f.preexisting else "")
            it = QTreeWidgetItem(
                scan, [f.severity, f.code, f"{f.file}:{f.line}:{f.column}" if f.line else f.file, msg]
            )
            it.setData(2, Qt.ItemDataRole.UserRole, f.file)
            it.setForeground(0, QColor(_SEV_COLORS.get(f.severity, "#000")))
            if f.excerpt:
                it.setToolTip(3, f.excerpt)
        lint = QTreeWidgetItem(
            t,
            [
                f"Lint ({len(p.lint.diagnostics)})" if p.lint.available else "Lint",
                "",
                "",
                ""
                if p.lint.available and p.lint.diagnostics
                else ("clean (lint findings never block apply)" if p.lint.available else p.lint.note),
            ],
        )
        for d in p.lint.diagnostics:
            it = QTreeWidgetItem(
                lint,
                [
                    d.get("severity", ""),
                    d.get("code", ""),
                    f"SKILL.md:{d.get('line', 0)}:{d.get('column', 0)}",
                    d.get("message", ""),
                ],
            )
            it.setData(2, Qt.ItemDataRole.UserRole, "SKILL.md")
            it.setForeground(0, QColor(_SEV_COLORS.get(d.get("severity", ""), "#000")))
        crit = len(p.blocking_findings)
        total = len(p.findings) + len(p.lint.diagnostics)
        self.tabs.setTabText(
            self.findings_index, f"Findings ({total}{', ' + str(crit) + ' blocking' if crit else ''})"
        )
        t.expandAll()
        for col in range(3):
            t.resizeColumnToContents(col)

    def _fill_history(self, p: Proposal) -> None:
        self.history.clear()
        try:
            events = self.store.events(p.id)
        except WorkshopError:
            return
        for e in events:
            d = e.detail
            txt = d.get("reason") or d.get("error") or d.get("note") or ""
            if e.kind == "applied":
                txt = f"{len(d.get('plan', {}).get('entries', []))} file(s) written"
            elif e.kind in ("proposed", "revised"):
                txt = f"generation {d.get('generation')}" + (f": {d.get('note')}" if d.get("note") else "")
            QTreeWidgetItem(self.history, [e.at[:19].replace("T", " "), e.kind, str(txt)])

    # ------------------------------------------------------------------ listing preview
    def _start_preview(self) -> None:
        p = self.current
        if p is None:
            return
        self._preview_token += 1
        token = self._preview_token
        env = getattr(self.ctx, "env", None)
        client = getattr(self.ctx, "client_id", None) or "claude-code"
        if env is None:
            from workbench.core.model import Environment

            env = Environment(workspace=self.workspace)
        ctx_tokens = getattr(self.ctx, "context_tokens", None)
        if ctx_tokens:
            env.context_tokens = ctx_tokens
        new = next((c.new for c in getattr(self, "_changes", []) if c.rel == "SKILL.md"), None)
        if new is None:
            return
        self.preview_note.setText("<i>rendering the listing…</i>")
        from workbench.core.workshop.preview import listing_preview

        try:
            from workbench.app.workers import run_in_background
        except ImportError:  # pragma: no cover - workers is part of the app
            self._show_preview(token, listing_preview(p, new, env, client))
            return
        # slots go in connect=: they are connected before the job starts (a fast job's result
        # would otherwise be emitted before a connection made after this call returns)
        run_in_background(
            listing_preview,
            p,
            new,
            env,
            client,
            connect={
                "returned": lambda _t, res, tok=token: self._show_preview(tok, res),
                "errored": lambda _t, msg, tok=token: self._preview_failed(tok, msg),
            },
        )

    def _show_preview(self, token: int, res: Any) -> None:
        if token != self._preview_token:
            return  # a stale result: the selection changed meanwhile
        if not res.available:
            self.preview_note.setText(f"<span style='color:#57606a'>{_e(res.note)}</span>")
            return
        states = ""
        if res.skill_state_before or res.skill_state_after:
            states = f" — this skill: {res.skill_state_before or 'not listed'} → {res.skill_state_after or 'not listed'}"
        self.preview_note.setText(
            f"{_e(res.client)}{_e(states)}" + (f"<br>{_e(res.note)}" if res.note else "")
        )
        self.preview_before.setPlainText(res.before)
        self.preview_after.setPlainText(res.after)

    def _preview_failed(self, token: int, msg: str) -> None:
        if token == self._preview_token:
            self.preview_note.setText(
                f"<span style='color:#cf222e'>{_e(msg.splitlines()[0] if msg else 'failed')}</span>"
            )

    # ------------------------------------------------------------------ transitions
    def _say(self, text: str, error: bool = False) -> None:
        color = "#cf222e" if error else "#2e9d4a"
        self.message.setText(f"<span style='color:{color}'>{_e(text)}</span>" if text else "")

    def trigger(self, action: str) -> bool:
        """Run ``action`` (apply | reject | quarantine | rollback) on the selected proposal after
        confirmation. Returns True when it was done. Never raises for workshop errors."""
        p = self.current
        if p is None or action not in p.allowed_actions():
            return False
        reason = ""
        if action in ("reject", "quarantine"):
            r = self.ask_reason(
                f"{action.capitalize()} proposal {p.id}", f"Why {action} '{p.name}'? (optional)"
            )
            if r is None:
                return False
            reason = r
        text = self._confirm_text(p, action)
        if not self.confirm(f"{ACTION_TITLES[action].rstrip('…')} {p.name}", text):
            return False
        try:
            if action == "apply":
                q = self.store.apply(p.id)
            elif action == "reject":
                q = self.store.reject(p.id, reason)
            elif action == "quarantine":
                q = self.store.quarantine(p.id, reason)
            else:
                try:
                    q = self.store.rollback(p.id)
                except WorkshopError as exc:
                    if "changed since the apply" not in str(exc):
                        raise
                    if not self.confirm(
                        "Force rollback?",
                        f"{exc}\n\nRestore the previous content anyway? "
                        "The current content is kept in the workshop store.",
                    ):
                        self._say(str(exc), error=True)
                        return False
                    q = self.store.rollback(p.id, force=True)
        except WorkshopError as exc:
            self._say(str(exc), error=True)
            self.refresh()
            return False
        verb = {
            "apply": "applied",
            "reject": "rejected",
            "quarantine": "quarantined",
            "rollback": "rolled back",
        }[action]
        if action == "rollback" and p.state in ("rejected", "quarantined"):
            verb = "reopened"
        self._say(f"{p.name}: {verb}" + (f" ({q.skill_md})" if action in ("apply", "rollback") else ""))
        for n in self.store.notices:
            self._say(n, error=True)
        self.current = q
        self.refresh()
        self.select(q.id)
        if action == "apply":
            self.applied.emit(q.skill_md)
            self.files_changed.emit(q.skill_md)
        elif action == "rollback" and p.state == "applied":
            self.rolled_back.emit(q.skill_md)
            self.files_changed.emit(q.skill_md)
        self.proposals_changed.emit()
        return True

    @staticmethod
    def _confirm_text(p: Proposal, action: str) -> str:
        n = len(p.files)
        if action == "apply":
            warn = sum(1 for f in p.findings if f.severity == "warning")
            scripts = script_files(p)
            listed = "".join(f"\n  • {rel} ({what})" for rel, what in scripts[:10])
            return (
                f"Write {plural(n, 'file')} of proposal {p.id} into\n{p.target_dir}?\n\n"
                + (
                    f"It adds or changes {plural(len(scripts), 'script/executable file')} an agent may run:"
                    f"{listed}\n\n"
                    if scripts
                    else ""
                )
                + (f"{plural(warn, 'warning')} from the scanner. " if warn else "")
                + "You can roll this back later."
            )
        if action == "rollback":
            if p.state in ("rejected", "quarantined"):
                return f"Reopen proposal {p.id} ({p.state}) for review?"
            return f"Restore the previous content of {p.target_dir} (undo the apply of {p.id})?"
        return f"{action.capitalize()} proposal {p.id} for {p.name}? You can reopen it later."
