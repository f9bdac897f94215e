"""The main window: composition only (no god widget).

Layout: a toolbar (open folder, rescan, client selector, context size); a banner for notes
(workspace used as an extra root, demo shown, module missing) with at most one action button
(``extra_root_action``); on the left the skills tree
(``SkillsPanel``) above the details (``DetailsPane``); on the right tabs: Listing, Explain,
Shadowing, Editor, Chat, Workshop. The status bar shows counts per status (with the status
icons), the scan time and a progress bar while scanning.

The editor, chat, evals, workshop and real-client tabs are hosted panes (``app/hosting.py``:
one factory each, built the first time the tab is shown). Failures are logged
(``logging.getLogger(__name__)``) and shown: in the status bar or the notes banner.
"""

from __future__ import annotations

import dataclasses
import html
import logging
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QByteArray, QCoreApplication, Qt
from PySide6.QtGui import QAction, QCloseEvent
from PySide6.QtWidgets import (
    QComboBox,
    QFileDialog,
    QFrame,
    QHBoxLayout,
    QLabel,
    QMainWindow,
    QMessageBox,
    QProgressBar,
    QPushButton,
    QSplitter,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from workbench import __version__
from workbench.app import icons, tallies
from workbench.app.actions import ACTIONS, MENUS, ShortcutsDialog, build_actions
from workbench.app.context import AppContext
from workbench.app.details_pane import DetailsPane
from workbench.app.explain_pane import ExplainPane
from workbench.app.hosting import HOSTED_PANES, LazyPane
from workbench.app.listing_pane import ContextSizeCombo, ListingPane
from workbench.app.panes import HostedPane
from workbench.app.shadowing_view import ShadowingView
from workbench.app.skills_tree import SkillsPanel
from workbench.app.views import TAB_KEYS  # tab keys in display order (``--view`` accepts these)
from workbench.app.workers import wait_all
from workbench.core.clients import DISPLAY_NAMES
from workbench.core.discovery import workspace_root_candidate
from workbench.core.hints import empty_hint, nothing_found_hint
from workbench.core.listing import format_outcome_counts
from workbench.core.model import CLIENT_IDS, STATUSES, Environment

if TYPE_CHECKING:
    from workbench.app.editor import EditorPane

log = logging.getLogger(__name__)


def extra_root_action(ctx: AppContext) -> tuple[str, Callable[[], object]] | None:
    """The banner's one-click action that switches how the workspace is shown (issue 13): as a
    project (each client's own roots) or as a collection (its skills as if installed, an extra
    root). ``(button title, callback)`` from ``ctx.treatment`` (``discovery.WorkspaceTreatment``:
    ``toggle_label``, ``other``), or None when there is nothing to switch (demo, no banner)."""
    t = ctx.treatment
    if t is None or ctx.demo or not t.banner:
        return None
    if t.mode == "project":  # offer "as a collection" only where it shows more: skills no root holds
        env = ctx.env
        if workspace_root_candidate(env) is None and not env.collection:
            return None
    other = t.other
    return t.toggle_label, lambda: ctx.set_workspace_mode(other)


class StatusCounts(QWidget):
    """Status-bar widget: one icon + count per status, then the scan time."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        lay = QHBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.setSpacing(6)
        self.labels: dict[str, QLabel] = {}
        legend = dict(icons.status_legend())
        for st in STATUSES:
            ic = QLabel(self)
            ic.setPixmap(icons.status_icon(st).pixmap(14, 14))
            ic.setToolTip(legend.get(st, st))
            lab = QLabel(f"0 {st}", self)
            lab.setToolTip(legend.get(st, st))
            lay.addWidget(ic)
            lay.addWidget(lab)
            self.labels[st] = lab
        self.time = QLabel("", self)
        lay.addSpacing(10)
        lay.addWidget(self.time)

    def set_counts(
        self,
        counts: dict[str, int],
        seconds: float | None,
        update_ms: float | None,
        listing: dict[str, int] | None = None,
    ) -> None:
        """``counts``: skills per status; ``listing``: listed skills per listing state
        (``ListingReport.counts()``), shown after the listed count ("12 listed: 3 in full,
        9 omitted by budget") so that "listed" never hides where a skill ends up."""
        for st, lab in self.labels.items():
            text = f"{counts.get(st, 0):,} {st}"
            if st == "listed" and listing and any(listing.values()):
                text += ": " + format_outcome_counts(listing)
            lab.setText(text)
        bits = []
        if seconds is not None:
            bits.append(f"scan {seconds:.2f} s (all clients)")
        if update_ms:
            bits.append(f"last update {update_ms:.0f} ms")
        self.time.setText(" · ".join(bits))


class MainWindow(QMainWindow):
    """The Skill Workbench window over one ``AppContext``.

    Attributes:
        ctx: the context. skills: SkillsPanel. details: DetailsPane. listing: ListingPane.
        explain: ExplainPane. shadowing: ShadowingView. tabs: the right-hand QTabWidget.
        panes: tab key -> widget. actions: action id -> QAction (from ``ACTIONS``).
    """

    #: Shadows ``QWidget.actions()`` (kept: tests and callers index ``win.actions[...]``).
    actions: dict[str, QAction]  # type: ignore[assignment]  # deliberately replaces the Qt method

    def __init__(self, ctx: AppContext, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.ctx = ctx
        #: ``(path) -> "save" | "discard" | "cancel"``: asked on close when the editor holds
        #: unsaved changes (default: a Save / Discard / Cancel message box; tests replace it).
        self.unsaved_prompt = self._ask_unsaved
        self.setWindowTitle("Skill Workbench")
        self.setWindowIcon(icons.app_icon())
        self.skills = SkillsPanel(ctx, self)
        self.details = DetailsPane(ctx, self)
        self.listing = ListingPane(ctx, self)
        self.explain = ExplainPane(ctx, self)
        self.shadowing = ShadowingView(ctx, self)
        self.tabs = QTabWidget(self)
        self.tabs.setDocumentMode(True)
        self.panes: dict[str, QWidget] = {
            "listing": self.listing,
            "explain": self.explain,
            "shadowing": self.shadowing,
        }
        titles = {"listing": "Listing", "explain": "Explain", "shadowing": "Shadowing"}
        for key, title, factory in HOSTED_PANES:
            self.panes[key] = LazyPane(ctx, title, factory, self)
            titles[key] = title
        for key in TAB_KEYS:
            self.tabs.addTab(self.panes[key], titles[key])
        # Left: tree over details.
        self.left = QSplitter(Qt.Orientation.Vertical, self)
        self.left.addWidget(self.skills)
        self.left.addWidget(self.details)
        self.left.setStretchFactor(0, 3)
        self.left.setStretchFactor(1, 2)
        self.split = QSplitter(Qt.Orientation.Horizontal, self)
        self.split.addWidget(self.left)
        self.split.addWidget(self.tabs)
        self.split.setStretchFactor(0, 2)
        self.split.setStretchFactor(1, 3)
        # The banner: notes (label) and at most one action (button, e.g. the extra-root toggle);
        # ``banner_bar`` is shown or hidden as a whole.
        self.banner_bar = QFrame(self)
        self.banner_bar.setObjectName("banner")
        self.banner_bar.setStyleSheet(
            f"QFrame#banner {{ background: {icons.color('banner_bg').name()};"
            " border-bottom: 1px solid #d4a72c; }"
        )
        self.banner = QLabel(self.banner_bar)
        self.banner.setWordWrap(True)
        self.banner.setTextFormat(Qt.TextFormat.RichText)
        self.banner_button = QPushButton(self.banner_bar)
        self.banner_button.hide()
        self.banner_button.clicked.connect(self._on_banner_action)
        self._banner_action: tuple[str, Callable[[], object]] | None = None
        bl = QHBoxLayout(self.banner_bar)
        bl.setContentsMargins(8, 4, 8, 4)
        bl.addWidget(self.banner, 1)
        bl.addWidget(self.banner_button)
        self.banner_bar.hide()
        central = QWidget(self)
        lay = QVBoxLayout(central)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.setSpacing(0)
        lay.addWidget(self.banner_bar)
        lay.addWidget(self.split, 1)
        self.setCentralWidget(central)
        self._build_actions()
        for key in TAB_KEYS:  # the tabs show their View-menu action's icon (one icon set)
            self.tabs.setTabIcon(self.tabs.indexOf(self.panes[key]), self.actions[f"tab_{key}"].icon())
        self._build_toolbar()
        self._build_statusbar()
        ctx.catalog_changed.connect(self._update_status)
        ctx.listing_changed.connect(self._update_status)
        ctx.client_changed.connect(self._on_client)
        ctx.scan_started.connect(self._on_scan_started)
        ctx.scan_progress.connect(self._on_progress)
        ctx.scan_finished.connect(self._on_scan_finished)
        ctx.scan_failed.connect(self._on_scan_failed)
        ctx.problem.connect(lambda message: self.statusBar().showMessage(message, 15000))
        ctx.notes_changed.connect(self._update_banner)
        ctx.workspace_changed.connect(self._update_title)
        ctx.catalog_changed.connect(self._update_title)
        if ctx.scanning:  # the scan may start before the window exists (faster startup)
            self._on_scan_started()
        self._update_banner()
        self._update_title()
        self._update_status()
        self.resize(1400, 900)
        self.split.setSizes([480, 800])  # at 1280 px the tabs get 780 (every view fits, issue 13)
        self.left.setSizes([520, 330])
        self._restore_state()

    # -- building --------------------------------------------------------------------------
    def _build_actions(self) -> None:
        handlers: dict[str, Callable[[], object]] = {
            "open_folder": self.open_folder,
            "rescan": self.ctx.rescan,
            "quit": self.close,
            "filter": self.skills.focus_filter,
            "focus_tree": lambda: self.skills.tree.setFocus(Qt.FocusReason.ShortcutFocusReason),
            "shortcuts": self.show_shortcuts,
            "about": self.show_about,
        }
        for key in TAB_KEYS:

            def show(key: str = key) -> None:
                self.show_tab(key)

            handlers[f"tab_{key}"] = show
        for cid in CLIENT_IDS:

            def choose(cid: str = cid) -> None:
                self.ctx.set_client(cid)

            handlers[f"client.{cid}"] = choose
        self.actions = build_actions(self, handlers)
        # Ctrl+F belongs to the tree (the editor has its own find): only while focus is there.
        filt = self.actions["filter"]
        filt.setShortcutContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
        self.skills.addAction(filt)
        mb = self.menuBar()
        menus = {m: mb.addMenu(f"&{m}") for m in MENUS}
        for a in ACTIONS:
            menus[a.menu].addAction(self.actions[a.id])
            if a.id == "rescan":
                menus[a.menu].addSeparator()
        for a in ACTIONS:  # window-wide shortcuts also work with the menu bar hidden
            if a.id != "filter":
                self.addAction(self.actions[a.id])

    def _build_toolbar(self) -> None:
        tb = self.addToolBar("Main")
        tb.setObjectName("main-toolbar")
        tb.setMovable(False)
        tb.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        for a in ACTIONS:
            if a.toolbar:
                tb.addAction(self.actions[a.id])
        tb.addSeparator()
        tb.addWidget(QLabel(" Client: ", self))
        self.client_combo = QComboBox(self)
        for i, cid in enumerate(CLIENT_IDS, 1):
            self.client_combo.addItem(DISPLAY_NAMES.get(cid, cid), cid)
            self.client_combo.setItemData(i - 1, f"Ctrl+{i}", Qt.ItemDataRole.ToolTipRole)
        self.client_combo.setCurrentIndex(CLIENT_IDS.index(self.ctx.client_id))
        self.client_combo.currentIndexChanged.connect(
            lambda i: self.ctx.set_client(self.client_combo.itemData(i))
        )
        tb.addWidget(self.client_combo)
        tb.addWidget(QLabel("  Context: ", self))
        self.context_combo = ContextSizeCombo(self.ctx, self)
        self.context_combo.invalid.connect(
            lambda t: self.statusBar().showMessage(f"'{t}' is not a token count (e.g. 64k, 1M, 150000)", 5000)
        )
        tb.addWidget(self.context_combo)
        tb.addWidget(QLabel(" tokens", self))

    def _build_statusbar(self) -> None:
        sb = self.statusBar()
        self.counts = StatusCounts(self)
        sb.addPermanentWidget(self.counts)
        self.progress = QProgressBar(self)
        self.progress.setMaximumWidth(160)
        self.progress.setTextVisible(True)
        self.progress.setFormat("scanning %v/%m")
        self.progress.hide()
        sb.addPermanentWidget(self.progress)

    # -- commands ---------------------------------------------------------------------------
    def show_tab(self, key: str) -> None:
        """Show a tab (``TAB_KEYS``) and focus it (building a hosted pane if needed)."""
        w = self.panes.get(key)
        if w is not None:
            self.tabs.setCurrentWidget(w)
            self.pane(key).setFocus(Qt.FocusReason.ShortcutFocusReason)

    def pane(self, key: str) -> QWidget:
        """The real widget of a tab (a hosted pane is built now if it was not yet)."""
        w = self.panes[key]
        return w.ensure() if isinstance(w, LazyPane) else w

    def built(self, key: str) -> QWidget | None:
        """The real widget of a tab, None for a hosted pane not built yet (nothing is built)."""
        w = self.panes.get(key)
        return w.widget if isinstance(w, LazyPane) else w

    def open_folder(self) -> None:
        d = QFileDialog.getExistingDirectory(self, "Open folder", str(self.ctx.env.workspace))
        if d:
            self.open_path(Path(d))

    def open_path(self, folder: Path) -> None:
        """Open ``folder`` as the workspace (keeping the simulated home/OS/env)."""
        env = dataclasses.replace(
            self.ctx.env,
            workspace=folder,
            cwd=None,
            extra_roots=[r for r in self.ctx.env.extra_roots if r != self.ctx.env.workspace],
        )
        if self.ctx.demo:
            env = Environment(workspace=folder)
        self.ctx.settings.set("last_workspace", str(folder))
        recent = [str(folder)] + [p for p in self.ctx.settings.get("recent_workspaces") if p != str(folder)]
        self.ctx.settings.set("recent_workspaces", recent[:10])
        self.ctx.open_workspace(env)

    def show_shortcuts(self) -> None:
        ShortcutsDialog(self).exec()

    def show_about(self) -> None:
        QMessageBox.about(
            self,
            "About Skill Workbench",
            f"<b>Skill Workbench</b> {__version__}<br>See what coding agents see of "
            "your Agent Skills: discovery, listings, lint, trigger tests.",
        )

    # -- reactions --------------------------------------------------------------------------
    def _on_client(self, cid: str) -> None:
        i = CLIENT_IDS.index(cid)
        if self.client_combo.currentIndex() != i:
            self.client_combo.blockSignals(True)
            self.client_combo.setCurrentIndex(i)
            self.client_combo.blockSignals(False)
        self._update_status()
        self._update_title()
        self._update_banner()

    def _on_scan_started(self) -> None:
        self.progress.setRange(0, 0)
        self.progress.show()
        self.statusBar().showMessage("Scanning…")

    def _on_progress(self, done: int, total: int) -> None:
        self.progress.setRange(0, total)
        self.progress.setValue(done)

    def _on_scan_finished(self, seconds: float) -> None:
        self.progress.hide()
        self.statusBar().clearMessage()
        self._update_status()
        self._update_banner()

    def _on_scan_failed(self, message: str) -> None:
        self.progress.hide()
        self.statusBar().showMessage(f"Scan failed: {message}", 15000)

    def _update_status(self) -> None:
        cat = self.ctx.catalog()
        counts = tallies.catalog_counts(cat) if cat is not None else {}
        rep = self.ctx.listing() if cat is not None else None
        self.counts.set_counts(
            counts,
            self.ctx.scan_seconds if cat is not None else None,
            self.ctx.last_update_seconds * 1000 if self.ctx.last_update_seconds else None,
            tallies.listing_counts(rep) if rep is not None else None,
        )
        err = self.ctx.errors.get(self.ctx.client_id)
        if err:
            self.statusBar().showMessage(f"{self.ctx.client_id}: {err}", 15000)

    def _update_banner(self) -> None:
        notes = list(self.ctx.notes)
        err = self.ctx.errors.get(self.ctx.client_id)
        if err and self.ctx.catalog() is None:
            notes.append(f"{self.ctx.client_id}: {err}")
        # "this client finds nothing here, that one does" (an empty tree said nothing)
        hint = None
        if not self.ctx.scanning:
            try:
                hint = empty_hint(self.ctx.catalog(), self.ctx.catalogs, gui=True) or nothing_found_hint(
                    self.ctx.catalogs, gui=True
                )
            except Exception as exc:  # noqa: BLE001 - a hint must never break the window
                log.exception("the empty-tree hint failed")
                hint = f"(the hint for this view failed: {type(exc).__name__}: {exc})"
        if hint:
            notes.append(hint)
        self._banner_action = None if self.ctx.scanning else extra_root_action(self.ctx)
        if self._banner_action is not None:
            self.banner_button.setText(self._banner_action[0])
        self.banner_button.setVisible(self._banner_action is not None)
        if notes:
            self.banner.setText("<br>".join(html.escape(n, quote=False) for n in notes))
        elif self._banner_action is not None:
            self.banner.setText("This folder holds skill folders that no client root contains.")
        self.banner_bar.setVisible(bool(notes) or self._banner_action is not None)

    def _on_banner_action(self) -> None:
        if self._banner_action is not None:
            self._banner_action[1]()

    def _update_title(self) -> None:
        ws = self.ctx.env.workspace
        extra = " (demo)" if self.ctx.demo else ""
        self.setWindowTitle(
            f"{ws.name or ws}{extra} — {DISPLAY_NAMES.get(self.ctx.client_id, '')} — Skill Workbench"
        )

    # -- state ------------------------------------------------------------------------------
    def _restore_state(self) -> None:
        s = self.ctx.settings
        try:
            if s.get("window_geometry"):
                self.restoreGeometry(QByteArray.fromHex(s.get("window_geometry").encode()))
            if s.get("splitter_state"):
                self.split.restoreState(QByteArray.fromHex(s.get("splitter_state").encode()))
        except Exception as exc:  # noqa: BLE001 - a bad saved state only costs the layout
            log.warning("the saved window layout could not be restored", exc_info=True)
            self.statusBar().showMessage(f"The saved window layout was not restored: {exc}", 10000)
        tab = s.get("current_tab")
        if tab in self.panes:
            self.tabs.setCurrentWidget(self.panes[tab])

    def _save_state(self) -> None:
        s = self.ctx.settings
        s.set("window_geometry", bytes(self.saveGeometry().toHex().data()).decode())
        s.set("splitter_state", bytes(self.split.saveState().toHex().data()).decode())
        for k, w in self.panes.items():
            if w is self.tabs.currentWidget():
                s.set("current_tab", k)

    def _ask_unsaved(self, path: str) -> str:
        b = QMessageBox.StandardButton
        r = QMessageBox.warning(
            self,
            "Unsaved changes",
            f"{path} has unsaved changes.\n\nSave them before closing?",
            b.Save | b.Discard | b.Cancel,
            b.Save,
        )
        return {b.Save: "save", b.Discard: "discard"}.get(r, "cancel")

    def resolve_unsaved(self) -> bool:
        """Ask what to do with unsaved editor changes (``unsaved_prompt``). True = go on closing:
        saved (a failed save keeps the window open; the editor's banner says why), discarded
        (the recovery file is removed), or nothing unsaved. False = cancelled."""
        pane = self._editor(build=False)
        if pane is None or not pane.has_unsaved_changes():
            return True
        answer = self.unsaved_prompt(str(pane.path or "the open file"))
        if answer == "save":
            if pane.save():
                return True
            self.show_tab("editor")
            return False
        if answer == "discard":
            pane.close_buffer(discard=True)
            return True
        return False

    def closeEvent(self, ev: QCloseEvent) -> None:  # Override QWidget::closeEvent
        if not self.resolve_unsaved() or not self._panes_agree_to_close():
            ev.ignore()
            return
        self._save_state()
        for pane in self.panes.values():
            if isinstance(pane, LazyPane):
                pane.shutdown()
        self.ctx.shutdown()
        super().closeEvent(ev)

    def _panes_agree_to_close(self) -> bool:
        """Ask each built ``HostedPane`` ``maybe_close()`` (its own unsaved work); False = one
        said no. A pane whose check raises is logged and does not block closing."""
        for key, title, _factory in HOSTED_PANES:
            pane = self.built(key)
            if not isinstance(pane, HostedPane):
                continue
            try:
                if pane.maybe_close() is False:
                    return False
            except Exception:  # noqa: BLE001 - a broken check must not keep the window open
                log.exception("the %s pane's close check failed", title)
        return True

    # -- helpers for tests and --screenshot ---------------------------------------------------
    def settle(self, timeout_ms: int = 60_000) -> bool:
        """Wait for the scan and pending updates, then process events (tests, screenshots)."""
        ok = self.ctx.wait_for_scan(timeout_ms)
        self.ctx.flush_updates()
        for _ in range(3):
            QCoreApplication.processEvents()
        deadline = time.monotonic() + timeout_ms / 1000
        while not self.listing.text_complete and time.monotonic() < deadline:
            QCoreApplication.processEvents()  # a long listing text is set in pieces
        return ok

    def settle_tab(self, key: str, timeout_s: float = 30.0) -> bool:
        """Wait until the tab ``key`` shows its content: the debounced explain job finished, the
        editor's preview rendered (tests, screenshots). True when it did before the timeout."""
        if key == "explain":
            self.explain._debounce.flush()
        deadline = time.monotonic() + timeout_s
        while not self._tab_ready(key) and time.monotonic() < deadline:
            QCoreApplication.processEvents()
            wait_all(50)
            time.sleep(0.01)
        for _ in range(3):
            QCoreApplication.processEvents()
        return self._tab_ready(key)

    def _tab_ready(self, key: str) -> bool:
        if key == "explain":
            return not self.explain.status.text().startswith("Explaining")
        if key == "editor":
            pane = self._editor(build=True)
            return (
                pane is None
                or pane.preview.isHidden()
                or not pane.path
                or bool(pane.preview.toPlainText().strip())
            )
        return True

    def _editor(self, build: bool) -> EditorPane | None:
        """The editor tab's ``EditorPane`` (built now when ``build``), or None when it is not
        built or failed to start (a ``Placeholder``)."""
        w = self.pane("editor") if build else self.built("editor")
        if w is None:
            return None
        from workbench.app.editor import EditorPane  # not at startup: the editor loads on first use

        return w if isinstance(w, EditorPane) else None
