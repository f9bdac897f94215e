"""Hosted panes: the tabs the main window builds lazily (editor, chat, evals, workshop, real client).

``HOSTED_PANES`` lists them: ``(tab key, title, factory)``. A factory ``(ctx, parent) -> QWidget``
constructs its pane with its real signature and connects it to the ``AppContext``; it is the
one integration point of that pane (to wire a pane differently, edit its factory only).
``LazyPane`` runs the factory the first time its tab is shown, so startup does not pay for the
pane's imports (each factory imports its pane module when it runs); a factory that raises
becomes a ``Placeholder`` tab saying why (and the error is logged) — the window never crashes on
a hosted pane.

Panes reach each other only through the window (``PaneHost``: ``show_tab``, ``pane``,
``built``), never through each other's widgets.
"""

from __future__ import annotations

import html
import logging
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Protocol, runtime_checkable

from PySide6.QtCore import Qt
from PySide6.QtGui import QShowEvent
from PySide6.QtWidgets import QLabel, QVBoxLayout, QWidget

from workbench.app.context import AppContext
from workbench.app.panes import HostedPane

log = logging.getLogger(__name__)

#: ``factory(ctx, parent) -> QWidget``: builds one hosted pane.
PaneFactory = Callable[[AppContext, QWidget], QWidget]


@runtime_checkable
class PaneHost(Protocol):
    """What a hosted pane's wiring may ask of the window holding it (``MainWindow``)."""

    def show_tab(self, key: str) -> None: ...

    def pane(self, key: str) -> QWidget: ...

    def built(self, key: str) -> QWidget | None: ...


class Placeholder(QWidget):
    """A tab standing in for a pane that failed to start (``reason`` says why)."""

    def __init__(self, title: str, reason: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.reason = reason
        lab = QLabel(
            f"<h3>{title}</h3><p>This pane is not available in this build.</p>"
            f"<p style='color:#57606a'>{html.escape(reason, quote=False)}</p>",
            self,
        )
        lab.setWordWrap(True)
        lab.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
        lay = QVBoxLayout(self)
        lay.addWidget(lab)
        lay.addStretch(1)


def _host(widget: QWidget) -> PaneHost | None:
    """The window holding ``widget`` when it hosts panes (a ``MainWindow``), else None."""
    win = widget.window()
    return win if isinstance(win, PaneHost) else None


def make_editor(ctx: AppContext, parent: QWidget) -> QWidget:
    """``workbench.app.editor.EditorPane``: lints with the current client's profile, shares the
    context's watcher, feeds unsaved buffers to ``ctx.apply_buffer`` (live listing/tree) and
    opens the selected skill (unless the open buffer has unsaved changes)."""
    from workbench.app.editor import EditorPane

    pane = EditorPane(parent, profile_provider=lambda: ctx.client_id, watcher=ctx.watcher)
    # Only a modified buffer is an overlay: the debounced lint of the last keystrokes may fire
    # after Ctrl+S and re-send the (now saved) text, which used to leave a stale overlay that hid
    # later changes on disk from the tree and listing (tests/gui/test_flows.py flow 2).
    pane.buffer_changed.connect(
        lambda p, text: ctx.apply_buffer(p, text if pane.has_unsaved_changes() else None)
    )
    pane.saved.connect(lambda p: ctx.apply_buffer(p, None))
    pane.file_reloaded.connect(lambda p: ctx.apply_buffer(p, None))

    def follow(path: Path | None) -> None:
        if path is None or str(path) == pane.path:
            return
        if pane.has_unsaved_changes():
            pane.show_banner(f"Unsaved changes in {pane.path}: save them to open {path}.", "warning")
            return
        pane.open_file(path)

    ctx.skill_selected.connect(follow)
    follow(ctx.selected_path)
    return pane


def make_chat(ctx: AppContext, parent: QWidget) -> QWidget:
    """``workbench.app.chat_pane.ChatPane(catalog_provider, parent)`` with the provider
    ``() -> (current catalog, context tokens)``; ``skills_loaded(list)`` marks the loaded skills
    in the tree and listing (``ctx.mark_loaded``); a drafted proposal refreshes the Workshop tab
    and "Review" opens it there."""
    from workbench.app.chat_pane import ChatPane

    pane = ChatPane(lambda: (ctx.catalog(), ctx.context_tokens), parent, credentials=ctx.credentials)
    pane.skills_loaded.connect(ctx.mark_loaded)
    pane.proposal_created.connect(lambda _id: _refresh_workshop(parent))
    pane.review_requested.connect(lambda pid: _review_proposal(parent, pid))
    return pane


def _review_proposal(parent: QWidget, proposal_id: str) -> None:
    """Show the Workshop tab with ``proposal_id`` selected."""
    from workbench.app.workshop_pane import WorkshopPane

    host = _host(parent)
    if host is None:
        return
    host.show_tab("workshop")
    wp = host.pane("workshop")
    if isinstance(wp, WorkshopPane):
        wp.refresh()
        wp.select(proposal_id)


def make_workshop(ctx: AppContext, parent: QWidget) -> QWidget:
    """``workbench.app.workshop_pane.WorkshopPane(ctx, parent)``; files it writes are re-read
    (``files_changed`` -> ``ctx.refresh_paths``; new files trigger a rescan)."""
    from workbench.app.workshop_pane import WorkshopPane

    pane = WorkshopPane(ctx, parent)
    pane.files_changed.connect(lambda paths: workshop_files_changed(ctx, paths))
    return pane


def workshop_files_changed(ctx: AppContext, paths: Path | str | Iterable[Path | str] | None) -> None:
    """Re-read what an apply/rollback wrote. ``WorkshopPane.files_changed`` carries one SKILL.md
    ``Path`` (a list is accepted too); a new or removed file makes ``refresh_paths`` rescan.
    Nothing usable -> a full rescan. (Iterating the bare Path raised TypeError, so the tree and
    listing never showed an applied create: tests/gui/test_flows.py flow 1.)"""
    items = [paths] if isinstance(paths, (str, Path)) else list(paths or [])
    skill_mds = [Path(p) for p in items if str(p).endswith("SKILL.md")]
    if skill_mds:
        ctx.refresh_paths(skill_mds)
    else:
        ctx.rescan()


def _refresh_workshop(parent: QWidget) -> None:
    from workbench.app.workshop_pane import WorkshopPane

    host = _host(parent)
    ws = host.built("workshop") if host is not None else None
    if isinstance(ws, WorkshopPane):
        ws.refresh()


def make_evals(ctx: AppContext, parent: QWidget) -> QWidget:
    """``workbench.app.evals_pane.EvalsPane(ctx, parent)`` (the key: ``ctx.credentials``, shared with
    the Chat pane): trigger evals on the
    current catalog; an improved description arrives as a workshop proposal (the Workshop tab is
    refreshed when one is created)."""
    from workbench.app.evals_pane import EvalsPane

    pane = EvalsPane(ctx, parent)
    pane.proposal_created.connect(lambda _id: _refresh_workshop(parent))
    return pane


def make_capture(ctx: AppContext, parent: QWidget) -> QWidget:
    """``workbench.app.capture_pane.CapturePane(ctx, parent)``: the Real client view."""
    from workbench.app.capture_pane import CapturePane

    return CapturePane(ctx, parent)


#: (tab key, title, factory). Factories run lazily, the first time the tab is shown (the editor
#: also when a skill is opened through it), so startup does not pay for them.
HOSTED_PANES: tuple[tuple[str, str, PaneFactory], ...] = (
    ("editor", "Editor", make_editor),
    ("chat", "Chat", make_chat),
    ("evals", "Evals", make_evals),
    ("workshop", "Workshop", make_workshop),
    ("capture", "Real client", make_capture),
)


class LazyPane(QWidget):
    """Builds ``factory(ctx, self)`` on first show (or ``ensure()``); a factory that raises
    becomes a ``Placeholder`` with the error (logged) — the window never crashes on a hosted pane.

    Attributes:
        widget: the built pane (None until built).
    """

    def __init__(
        self, ctx: AppContext, title: str, factory: PaneFactory, parent: QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self.ctx, self.title, self.factory = ctx, title, factory
        self.widget: QWidget | None = None
        self._lay = QVBoxLayout(self)
        self._lay.setContentsMargins(0, 0, 0, 0)

    def ensure(self) -> QWidget:
        """The pane, built now if it was not yet."""
        if self.widget is None:
            try:
                self.widget = self.factory(self.ctx, self)
            except Exception as exc:  # noqa: BLE001 - a broken pane must not take the window down
                log.exception("the %s pane failed to start", self.title)
                self.widget = Placeholder(self.title, f"failed to start: {type(exc).__name__}: {exc}", self)
            self._lay.addWidget(self.widget)
        return self.widget

    def showEvent(self, ev: QShowEvent) -> None:  # Override QWidget::showEvent
        self.ensure()
        super().showEvent(ev)

    def shutdown(self) -> None:
        """Call the built pane's ``shutdown()`` (panes with workers have one); errors are logged."""
        if isinstance(self.widget, HostedPane):
            try:
                self.widget.shutdown()
            except Exception:  # noqa: BLE001 - closing goes on; the log says what failed
                log.exception("shutting down the %s pane failed", self.title)
