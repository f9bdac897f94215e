"""The explain pane: "why doesn't my skill trigger?" for the selected skill, in every client.

For each client, the ordered chain of ``workbench.core.explain.StepFinding``s from
``explain`` (found? parsed, and how? gated? shadowed? listed, and how much of the description
survived? overlaps?), each with a level icon (ok / info / warning / error, see
``icons.level_icon``), its detail and the "what to change" fix text (child rows starting with
"→"). One column, wrapped to the view's width (re-wrapped on resize), so no text is ever cut. The
current client is expanded first; the others stay collapsed under a header that shows their
worst level.

Explain runs on a worker thread (it may scan), debounced, and only while the pane is visible; a
result for a skill that is no longer selected is dropped (stale token).
"""

from __future__ import annotations

import html
import logging
import textwrap

from PySide6.QtCore import Qt
from PySide6.QtGui import QBrush, QColor, QShowEvent
from PySide6.QtWidgets import QHeaderView, QLabel, QTreeWidget, QTreeWidgetItem, QVBoxLayout, QWidget

from workbench.app import icons
from workbench.app.context import AppContext
from workbench.app.emptystate import EmptyState, select_first_skill
from workbench.app.workers import Debouncer, describe, run_in_background
from workbench.core.clients import DISPLAY_NAMES
from workbench.core.explain import LEVELS, ClientExplanation, StepFinding, explain
from workbench.core.model import CLIENT_IDS, Catalog, Environment

log = logging.getLogger(__name__)

#: ``StepFinding.level`` (``explain.LEVELS``: ok|info|warn|error) -> the name of its icon and
#: colour in ``icons`` (ok|info|warning|error).
ICON_LEVEL = {"ok": "ok", "info": "info", "warn": "warning", "error": "error"}


def findings_by_client(explanations: list[ClientExplanation]) -> dict[str, list[StepFinding]]:
    """client id -> that client's findings, in ``explain``'s order."""
    return {e.client: list(e.findings) for e in explanations}


def run_explain(
    env: Environment, target: str, context_tokens: int | None, catalogs: dict[str, Catalog] | None = None
) -> dict[str, list[StepFinding]]:
    """``explain`` every client (worker thread), reusing the window's ``catalogs`` (a client
    without one is scanned). Returns ``findings_by_client``; raises what ``explain`` raises."""
    res = explain(env, target, clients=None, context_tokens=context_tokens, catalogs=dict(catalogs or {}))
    return findings_by_client(res)


def worst_level(findings: list[StepFinding]) -> str:
    """The worst ``StepFinding.level`` of ``findings`` ("ok" when empty)."""
    return LEVELS[max((LEVELS.index(f.level) for f in findings), default=0)]


class ExplainPane(QWidget):
    """Findings per client for ``ctx.selected_path`` (see module docstring)."""

    def __init__(self, ctx: AppContext, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.ctx = ctx
        self.status = QLabel(self)
        self.status.setWordWrap(True)
        self.tree = QTreeWidget(self)
        self.tree.setColumnCount(1)
        self.tree.setHeaderLabels(["Finding → what to change"])
        self.tree.setUniformRowHeights(False)
        self.tree.setAlternatingRowColors(True)
        self.tree.setTextElideMode(Qt.TextElideMode.ElideNone)
        self.tree.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.tree.header().setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        self._wrap_chars = 0
        # wrapped text depends on the view's width: wrap again when it changes (cheap: ~50 rows)
        self.tree.header().sectionResized.connect(lambda *_: self._rewrap())
        lay = QVBoxLayout(self)
        lay.setContentsMargins(4, 4, 4, 4)
        lay.addWidget(self.status)
        lay.addWidget(self.tree, 1)
        self.empty = EmptyState(
            self.tree,
            "No skill selected. Select one in the tree to see, for each "
            "client, whether it is found, parsed, gated, shadowed and listed, and "
            "what to change.",
            [("Explain the first listed skill", lambda: select_first_skill(ctx))],
            is_empty=lambda: ctx.selected_path is None,
        )
        ctx.skill_selected.connect(lambda _p: self.empty.refresh())
        self.result: dict[str, list[StepFinding]] = {}
        self._token = 0
        self._shown_for: tuple | None = None
        self._debounce = Debouncer(150, self._start, self)
        ctx.skill_selected.connect(lambda _p: self.request())
        ctx.catalog_changed.connect(self.request)
        ctx.client_changed.connect(lambda _c: self._fill())
        ctx.context_changed.connect(lambda _t: self.request())
        self.request()

    def request(self) -> None:
        """Schedule an explain of the selected skill (runs when visible)."""
        self._shown_for = None
        if self.isVisible():
            self._debounce.trigger()

    def showEvent(self, ev: QShowEvent) -> None:  # Override QWidget::showEvent
        super().showEvent(ev)
        if self._shown_for is None:
            self._debounce.trigger()

    def _start(self) -> None:
        path = self.ctx.selected_path
        if path is None:
            self.result = {}
            self.status.setText("")
            self.tree.clear()
            return
        key = (str(path), self.ctx.context_tokens, id(self.ctx.catalogs.get(self.ctx.client_id)))
        self._shown_for = key
        self.status.setText(f"Explaining {path.parent.name}…")
        job = run_in_background(
            run_explain,
            self.ctx.env,
            str(path),
            self.ctx.context_tokens,
            self.ctx.catalogs,
            connect={"returned": self._on_result, "errored": self._on_error},
        )
        self._token = job.token

    def _on_result(self, token: int, result: dict[str, list[StepFinding]]) -> None:
        if token != self._token:
            return  # stale: another skill was selected meanwhile
        self.result = result
        p = self.ctx.selected_path
        self.status.setText(f"<b>{html.escape(p.parent.name if p else '')}</b> — {html.escape(str(p))}")
        self._fill()

    def _on_error(self, token: int, error: BaseException) -> None:
        if token != self._token:
            return
        self.result = {}
        self.tree.clear()
        message = describe(error)
        log.warning("explain of %s failed: %s", self.ctx.selected_path, message)
        self.status.setText(f"<span style='color:#cf222e'>Explain failed:</span> {html.escape(message)}")

    def _chars_per_line(self, depth: int) -> int:
        """How many characters fit on a row at ``depth`` (0 = client header) of the tree."""
        fm = self.tree.fontMetrics()
        width = self.tree.header().sectionSize(0) - self.tree.indentation() * (depth + 1) - 40
        return max(24, int(0.95 * width / max(1, fm.horizontalAdvance("abcdefghij_ /") / 13)))

    def _rewrap(self) -> None:
        if self.result and self._chars_per_line(0) != self._wrap_chars:
            tops = [self.tree.topLevelItem(i) for i in range(self.tree.topLevelItemCount())]
            expanded = {
                it.data(0, Qt.ItemDataRole.UserRole) for it in tops if it is not None and it.isExpanded()
            }
            self._fill(expanded)

    def _fill(self, expanded: set[str] | None = None) -> None:
        self._wrap_chars = self._chars_per_line(0)

        def wrap(text: str, depth: int) -> str:
            return "\n".join(
                textwrap.wrap(
                    text, self._chars_per_line(depth), break_long_words=True, break_on_hyphens=False
                )
                or [text]
            )

        self.tree.clear()
        order = [self.ctx.client_id] + [c for c in CLIENT_IDS if c != self.ctx.client_id]
        order += [c for c in self.result if c not in order]
        for cid in order:
            fs = self.result.get(cid)
            if fs is None:
                continue
            top = QTreeWidgetItem([DISPLAY_NAMES.get(cid, cid)])
            top.setIcon(0, icons.level_icon(ICON_LEVEL[worst_level(fs)]))
            f0 = top.font(0)
            f0.setBold(True)
            top.setFont(0, f0)
            top.setData(0, Qt.ItemDataRole.UserRole, cid)
            for i, f in enumerate(fs, 1):
                level = ICON_LEVEL[f.level]
                item = QTreeWidgetItem([wrap(f"{i}. {f.title}", 1)])
                item.setIcon(0, icons.level_icon(level))
                item.setToolTip(0, f"{level}: {f.title}" + (f"\n{f.detail}" if f.detail else ""))
                if f.detail:  # views elide, not wrap, paths: wrapped here to the view's width
                    d = QTreeWidgetItem([wrap(f.detail, 2)])
                    d.setForeground(0, QBrush(QColor("#57606a")))
                    d.setToolTip(0, f.detail)
                    item.addChild(d)
                if f.fix:
                    fix = QTreeWidgetItem([wrap(f"→ {f.fix}", 2)])
                    fix.setForeground(0, QBrush(icons.level_color(level).darker(130)))
                    fix.setToolTip(0, f.fix)
                    item.addChild(fix)
                top.addChild(item)
            self.tree.addTopLevelItem(top)
            for k in range(top.childCount()):  # details open (expanding needs the item in the tree)
                child = top.child(k)
                if child is not None:
                    child.setExpanded(True)
            top.setExpanded(cid in expanded if expanded is not None else cid == self.ctx.client_id)

    def findings(self, client_id: str) -> list[StepFinding]:
        """The findings shown for ``client_id`` (empty before a result arrives)."""
        return list(self.result.get(client_id, []))
