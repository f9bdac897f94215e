"""The explain pane: "why doesn't my skill trigger?" for the selected skill, in every client.

For each client, the ordered chain of findings from ``workbench.core.explain.explain`` (found?
parsed, and how? gated? shadowed? listed, and how much of the description survived? overlaps?),
each with a level icon (ok / info / warning / error, see ``icons.level_icon``), its detail and the
"what to change" fix text (child rows starting with "→"). One column, wrapped to the view's width
(re-wrapped on resize), so no text is ever cut. The current client is expanded first; the
others stay collapsed under a header that shows their worst level.

Explain runs on a worker thread (it may scan), debounced, and only while the pane is visible; a
result for a skill that is no longer selected is dropped (stale token).

The core result shape is read tolerantly (``normalize``) because explain is built in parallel:
a mapping client -> findings, or an object with ``clients``/``per_client``/``results``; a
finding is an object or dict with ``level``/``severity``, ``message``/``title``/``text``,
optional ``detail`` and ``fix``.
"""

from __future__ import annotations

import html
import textwrap
from dataclasses import dataclass
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtGui import QBrush, QColor
from PySide6.QtWidgets import QHeaderView, QLabel, QTreeWidget, QTreeWidgetItem, QVBoxLayout, QWidget

from workbench.app import icons
from workbench.app.context import core_module, unavailable_reason
from workbench.app.emptystate import EmptyState, select_first_skill
from workbench.app.workers import Debouncer, describe, run_in_background
from workbench.core.model import CLIENT_IDS

LEVEL_ORDER = {"ok": 0, "pass": 0, "info": 1, "note": 1, "warning": 2, "warn": 2, "error": 3, "fail": 3}
_LEVEL_NAME = {0: "ok", 1: "info", 2: "warning", 3: "error"}


@dataclass
class FindingView:
    """A finding as the pane shows it."""

    level: str
    text: str
    detail: str = ""
    fix: str = ""


def _get(obj: Any, *names: str, default: Any = "") -> Any:
    for n in names:
        v = obj.get(n) if isinstance(obj, dict) else getattr(obj, n, None)
        if v not in (None, ""):
            return v
    return default


def _fix_text(fix: Any) -> str:
    if fix in (None, ""):
        return ""
    if isinstance(fix, str):
        return fix
    return str(_get(fix, "title", "text", "message", default=fix))


def normalize_finding(f: Any) -> FindingView:
    level = str(_get(f, "level", "severity", "kind", default="info")).lower()
    level = _LEVEL_NAME[LEVEL_ORDER.get(level, 1)]
    text = str(_get(f, "message", "title", "text", "summary", default=f if isinstance(f, str) else repr(f)))
    return FindingView(
        level=level,
        text=text,
        detail=str(_get(f, "detail", "details", "why")),
        fix=_fix_text(_get(f, "fix", "what_to_change", "suggestion", default="")),
    )


def normalize(result: Any) -> dict[str, list[FindingView]]:
    """client id -> findings, from whatever ``explain`` returned (see module docstring)."""
    if result is None:
        return {}
    for attr in ("clients", "per_client", "results", "findings"):
        inner = (
            result.get(attr) if isinstance(result, dict) and attr in result else getattr(result, attr, None)
        )
        if inner is not None and not callable(inner) and not isinstance(result, list):
            if isinstance(inner, (dict, list)):
                result = inner
                break
    out: dict[str, list[FindingView]] = {}
    if isinstance(result, dict):
        for cid, fs in result.items():
            fs = _get(fs, "findings", default=fs) if not isinstance(fs, list) else fs
            out[str(cid)] = [normalize_finding(f) for f in (fs or [])]
        return out
    if isinstance(result, list):
        for item in result:
            cid = _get(item, "client", default="")
            inner = _get(item, "findings", default=None)
            if inner is not None:
                out.setdefault(str(cid), []).extend(normalize_finding(f) for f in inner)
            else:
                out.setdefault(str(cid), []).append(normalize_finding(item))
    return out


def run_explain(
    env, target: str, context_tokens: int | None, catalogs: dict | None = None
) -> dict[str, list[FindingView]]:
    """Call the core explain (worker thread), reusing the window's catalogs (no rescan) when
    explain accepts ``catalogs``. Raises when explain is missing or fails."""
    mod = core_module("explain")
    if mod is None:
        raise RuntimeError(unavailable_reason("explain") or "explain is not available")
    try:
        res = mod.explain(
            env, target, clients=None, context_tokens=context_tokens, catalogs=dict(catalogs or {})
        )
    except TypeError:  # an explain without the catalogs parameter
        res = mod.explain(env, target, clients=None, context_tokens=context_tokens)
    return normalize(res)


class ExplainPane(QWidget):
    """Findings per client for ``ctx.selected_path`` (see module docstring)."""

    def __init__(self, ctx, parent: QWidget | None = None) -> None:
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
        self.result: dict[str, list[FindingView]] = {}
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

    def showEvent(self, ev) -> None:  # Override QWidget::showEvent
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
        if core_module("explain") is None:
            self.status.setText(f"Explain is not available: {unavailable_reason('explain')}")
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

    def _on_result(self, token: int, result: dict) -> None:
        if token != self._token:
            return  # stale: another skill was selected meanwhile
        self.result = result
        p = self.ctx.selected_path
        self.status.setText(f"<b>{html.escape(p.parent.name if p else '')}</b> — {html.escape(str(p))}")
        self._fill()

    def _on_error(self, token: int, exc: BaseException) -> None:
        if token != self._token:
            return
        self.result = {}
        self.tree.clear()
        self.status.setText(
            f"<span style='color:#cf222e'>Explain failed:</span> {html.escape(describe(exc))}"
        )

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

    def _fill(self, expanded: set | None = None) -> None:
        from workbench.core.clients import DISPLAY_NAMES

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
            worst = max((LEVEL_ORDER.get(f.level, 1) for f in fs), default=0)
            top = QTreeWidgetItem([DISPLAY_NAMES.get(cid, cid)])
            top.setIcon(0, icons.level_icon(_LEVEL_NAME[worst]))
            f0 = top.font(0)
            f0.setBold(True)
            top.setFont(0, f0)
            top.setData(0, Qt.ItemDataRole.UserRole, cid)
            for i, f in enumerate(fs, 1):
                item = QTreeWidgetItem([wrap(f"{i}. {f.text}", 1)])
                item.setIcon(0, icons.level_icon(f.level))
                item.setToolTip(0, f"{f.level}: {f.text}" + (f"\n{f.detail}" if f.detail else ""))
                if f.detail:  # views elide, not wrap, paths: wrapped here to the view's width
                    d = QTreeWidgetItem([wrap(f.detail, 2)])
                    d.setForeground(0, QBrush(QColor("#57606a")))
                    d.setToolTip(0, f.detail)
                    item.addChild(d)
                if f.fix:
                    fix = QTreeWidgetItem([wrap(f"→ {f.fix}", 2)])
                    fix.setForeground(0, QBrush(icons.level_color(f.level).darker(130)))
                    fix.setToolTip(0, f.fix)
                    item.addChild(fix)
                top.addChild(item)
            self.tree.addTopLevelItem(top)
            for k in range(top.childCount()):  # details open (expanding needs the item in the tree)
                child = top.child(k)
                if child is not None:
                    child.setExpanded(True)
            top.setExpanded(cid in expanded if expanded is not None else cid == self.ctx.client_id)

    def findings(self, client_id: str) -> list[FindingView]:
        return list(self.result.get(client_id, []))
