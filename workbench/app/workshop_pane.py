"""The Workshop pane: review proposed skills and skill changes, then apply, reject, quarantine or
roll back. Thin over ``workbench.core.workshop`` (all rules live there).

Layout: a state filter and the queue (top); for the selected proposal (below) a header, one
button per allowed transition, and tabs: side-by-side diff per file, risk + lint findings,
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

import logging
from collections.abc import Callable
from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtGui import QColor, QFont, QFontDatabase
from PySide6.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
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

from workbench.app.dialogs import default_ask_reason, default_confirm
from workbench.app.emptystate import EmptyState, go_to_tab
from workbench.app.workshop.preview import ListingPreview
from workbench.app.workshop.queue import ProposalTableModel
from workbench.app.workshop.render import (
    SEV_COLORS,
    STATE_COLORS,
    diff_html,
    esc,
    fill_findings,
    risk_banner_html,
    script_files,
)
from workbench.core.text import plural
from workbench.core.workshop import STATES, Proposal, WorkshopError, WorkshopStore, default_store_dir

log = logging.getLogger(__name__)

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
        self.confirm = confirm or default_confirm(self)
        self.ask_reason = ask_reason or default_ask_reason(self)
        self.current: Proposal | None = None
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

    def maybe_close(self) -> bool:
        """Never vetoes closing (proposals are stored as they are made)."""
        return True

    def shutdown(self) -> None:
        """Stop polling the workshop journal."""
        self._poll.stop()

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

        self.listing = ListingPreview(mono, self)  # workshop/preview.py
        self.preview_note, self.preview_before, self.preview_after = (
            self.listing.note,
            self.listing.before,
            self.listing.after,
        )
        self.preview_index = self.tabs.addTab(self.listing, "Listing preview")
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
        path = (
            self._store.log_path
            if self._store is not None
            else default_store_dir(self.workspace) / "events.jsonl"
        )
        try:
            st = path.stat()
        except OSError:  # no journal yet (nothing proposed): nothing to poll
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
        self.listing.clear()
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
            self.risk_banner.setVisible(False)
            return
        color = STATE_COLORS.get(p.state, "#000")
        reason = f" — {esc(p.reason)}" if p.reason else ""
        note = f"<br><i>{esc(p.note)}</i>" if p.note else ""
        self.header.setText(
            f"<b>{esc(p.name)}</b> &nbsp;<span style='color:{color}'><b>{p.state}</b></span>{reason}<br>"
            f"{p.kind} of <code>{esc(p.skill_md)}</code><br>"
            f"proposal {p.id}, generation {p.generation}, from {esc(p.source or '?')}{note}"
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
                self.file_combo.setItemData(i, QColor(SEV_COLORS["critical"]), Qt.ItemDataRole.ForegroundRole)
        self.file_combo.blockSignals(False)
        self._show_diff()
        self._fill_findings(p)
        self._fill_history(p)
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
        total, crit = fill_findings(self.findings_tree, p)
        self.tabs.setTabText(
            self.findings_index, f"Findings ({total}{', ' + str(crit) + ' blocking' if crit else ''})"
        )

    def _fill_history(self, p: Proposal) -> None:
        self.history.clear()
        try:
            events = self.store.events(p.id)
        except WorkshopError as exc:
            log.warning("history of %s not read", p.id, exc_info=exc)
            self._say(f"cannot read the history of {p.id}: {exc}", error=True)
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
        self.listing.start(p, new, env, client)

    # ------------------------------------------------------------------ transitions
    def _say(self, text: str, error: bool = False) -> None:
        color = "#cf222e" if error else "#2e9d4a"
        self.message.setText(f"<span style='color:{color}'>{esc(text)}</span>" if text else "")

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
                + (f"{plural(warn, 'warning')} from the risk checks. " if warn else "")
                + "You can roll this back later."
            )
        if action == "rollback":
            if p.state in ("rejected", "quarantined"):
                return f"Reopen proposal {p.id} ({p.state}) for review?"
            return f"Restore the previous content of {p.target_dir} (undo the apply of {p.id})?"
        return f"{action.capitalize()} proposal {p.id} for {p.name}? You can reopen it later."
