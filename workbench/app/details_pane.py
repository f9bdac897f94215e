"""Details of the selected skill as the current client sees it.

Shows: name, status (with its icon colour) and reason, ``shadowed_by`` as a link (clicking
selects the winner), path, root (label, scope, precedence), parse mode and what a fallback lost,
the frontmatter fields *as the client read them*, flags, and the rules applied that the reference
marks unverified. Rendered as HTML into a read-only ``QTextBrowser``; links use the scheme
``skill:`` (select) so nothing opens outside the app.
"""

from __future__ import annotations

import html
import json
from pathlib import Path
from typing import Any

from PySide6.QtCore import QUrl
from PySide6.QtWidgets import QTextBrowser, QVBoxLayout, QWidget

from workbench.app import icons
from workbench.app.emptystate import EmptyState, open_folder, select_first_skill
from workbench.core.model import Skill

_PARSE_MODES = {
    "strict": "strict YAML",
    "fallback": "fallback: a line parser recovered the fields",
    "dropped": "kept with every frontmatter field dropped",
    "failed": "not read (skipped)",
}


def _e(s: Any) -> str:
    return html.escape(str(s), quote=True)


def _value(v: Any) -> str:
    if isinstance(v, str):
        return _e(v)
    try:
        return _e(json.dumps(v, ensure_ascii=False, default=str))
    except (TypeError, ValueError):
        return _e(repr(v))


def skill_details_html(s: Skill, client_name: str, loaded: bool = False) -> str:
    """The HTML of the details pane for one skill (pure function: testable without a view)."""
    c = icons.status_color(s.status).name()
    rows: list[tuple[str, str]] = [
        ("Status", f"<b style='color:{c}'>{_e(s.status)}</b>" + (" · loaded by the chat" if loaded else "")),
        ("Reason", _e(s.reason) or "—"),
    ]
    if s.shadowed_by:
        rows.append(
            (
                "Shadowed by",
                f"<a href='skill:{_e(bytes(QUrl.toPercentEncoding(str(s.shadowed_by)).data()).decode())}'>"
                f"{_e(s.shadowed_by)}</a>",
            )
        )
    rows.append(("Path", _e(s.path)))
    r = s.root
    root_txt = f"{_e(r.label or r.path)} — scope <b>{_e(r.scope)}</b>, precedence {r.precedence}"
    if r.label:
        root_txt += f"<br><small>{_e(r.path)}</small>"
    if r.condition:
        root_txt += f"<br><i>{_e(r.condition)}</i>" + ("" if r.active else " (not active now)")
    if not r.verified:
        root_txt += "<br><span style='color:#b08800'>root unverified</span>"
    rows.append(("Root", root_txt))
    rows.append(("Depth", str(s.depth)))
    mode = _PARSE_MODES.get(s.parse_mode, s.parse_mode)
    if s.parse_note:
        mode += f"<br><span style='color:#b08800'>{_e(s.parse_note)}</span>"
    if s.file is not None and s.file.state != "ok":
        msg = s.file.message
        span = s.file.error_span
        where = f" (line {span.line}, column {span.column})" if span is not None else ""
        mode += f"<br><small>file: {_e(s.file.state)}{where}: {_e(msg)}</small>"
    rows.append(("Parse", mode))
    desc = _e(s.description) if s.description else "<i>(none)</i>"
    rows.append(("Description", f"{desc}<br><small>{len(s.description)} chars</small>"))
    if s.when_to_use:
        rows.append(("when_to_use", _e(s.when_to_use)))
    shown = {k: v for k, v in s.flags.items() if not k.startswith("_")}  # "_x": bookkeeping
    if shown:
        rows.append(("Flags", "<br>".join(f"{_e(k)}: {_value(v)}" for k, v in shown.items())))
    body = "".join(f"<tr><th align='left' valign='top'>{k}</th><td>{v}</td></tr>" for k, v in rows)
    out = [
        f"<h3>{_e(s.name)} <small style='color:#57606a'>— {_e(client_name)}</small></h3>",
        f"<table cellspacing='4'>{body}</table>",
    ]
    out.append("<h4>Frontmatter as the client read it</h4>")
    if s.fields:
        out.append(
            "<table cellspacing='2'>"
            + "".join(
                f"<tr><td valign='top'><code>{_e(k)}</code></td><td>{_value(v)}</td></tr>"
                for k, v in s.fields.items()
            )
            + "</table>"
        )
    else:
        out.append("<p><i>no fields</i></p>")
    if s.unverified:
        out.append(
            "<h4 style='color:#b08800'>Unverified rules applied</h4><ul>"
            + "".join(f"<li>{_e(u)}</li>" for u in s.unverified)
            + "</ul>"
        )
    return "\n".join(out)


class DetailsPane(QWidget):
    """Details of ``ctx.skill()``; follows selection, client and catalog changes."""

    def __init__(self, ctx, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.ctx = ctx
        self.view = QTextBrowser(self)
        self.view.setOpenLinks(False)
        self.view.setOpenExternalLinks(False)
        self.view.anchorClicked.connect(self._on_link)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addWidget(self.view)
        self.empty = EmptyState(
            self.view,
            "No skill selected. Select one in the tree to see where it "
            "was found and how the client reads it.",
            [
                ("Select the first listed skill", lambda: select_first_skill(ctx)),
                ("Open folder…", lambda: open_folder(self)),
            ],
        )
        ctx.skill_selected.connect(lambda _p: self.refresh())
        ctx.catalog_changed.connect(self.refresh)
        ctx.client_changed.connect(lambda _c: self.refresh())
        ctx.loaded_changed.connect(self.refresh)
        self.refresh()

    def refresh(self) -> None:
        from workbench.core.clients import DISPLAY_NAMES

        s = self.ctx.skill()
        if s is None:
            if self.ctx.selected_path is not None and self.ctx.catalog() is not None:
                self.view.setHtml(
                    f"<p><i>{_e(self.ctx.selected_path)}</i></p><p>This file is not "
                    f"found by {_e(DISPLAY_NAMES.get(self.ctx.client_id, self.ctx.client_id))}: "
                    "none of its roots contains it.</p>"
                )
            else:
                self.view.clear()  # the empty state says what to do
            self.empty.refresh()
            return
        self.view.setHtml(
            skill_details_html(
                s, DISPLAY_NAMES.get(self.ctx.client_id, self.ctx.client_id), s.name in self.ctx.loaded_names
            )
        )
        self.empty.refresh()

    def _on_link(self, url: QUrl) -> None:
        if url.scheme() == "skill":
            raw = url.path(QUrl.ComponentFormattingOption.FullyDecoded)
            self.ctx.select_skill(Path(raw))
