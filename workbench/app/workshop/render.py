"""How the Workshop pane shows a proposal: colours, the risk banner, the side-by-side diff and
the findings tree. Pure rendering (HTML strings, tree items); no store access."""

from __future__ import annotations

import html
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor
from PySide6.QtWidgets import QTreeWidget, QTreeWidgetItem

from workbench.core.text import plural
from workbench.core.workshop import Proposal
from workbench.core.workshop.preview import decode_for_display, side_by_side

STATE_COLORS = {
    "pending": "#2f81f7",
    "applied": "#2e9d4a",
    "rejected": "#7d8590",
    "quarantined": "#cf222e",
    "stale": "#d97a00",
}
SEV_COLORS = {"critical": "#cf222e", "error": "#cf222e", "warning": "#d97a00", "info": "#2f81f7"}
ROW_BG = {"replace": "#fff5b1", "delete": "#ffebe9", "insert": "#dafbe1"}
#: Findings about content that runs by itself (shown in the risk banner besides blocking ones).
RUNS_CODES = ("WS-BANG", "WS-HOOKS")


def script_files(p: Proposal) -> list[tuple[str, str]]:
    """[(relpath, "new script" | "changed executable" | ...)] of the proposal's new or changed
    script/executable files (the risk checks' WS-EXEC findings), in file order."""
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
            f"{esc(f.code)} at {esc(f.file)}:{f.line}:{f.column}"
            if f.line
            else f"{esc(f.code)} in {esc(f.file)}"
            for f in block[:4]
        )
        more = f" and {len(block) - 4} more" if len(block) > 4 else ""
        parts.append(f"<b>Apply is blocked</b> by {plural(len(block), 'critical finding')}: {where}{more}.")
    scripts = script_files(p)
    if scripts:
        names = ", ".join(f"<code>{esc(rel)}</code> ({esc(what)})" for rel, what in scripts[:6])
        more = f" and {len(scripts) - 6} more" if len(scripts) > 6 else ""
        parts.append(
            f"<b>{plural(len(scripts), 'script/executable file')}</b> an agent may run: {names}{more}. "
            "Read them in the Diff tab before applying."
        )
    runs = [f for f in p.findings if f.code in RUNS_CODES]
    if runs:
        parts.append(
            "<b>Runs commands by itself</b>: "
            + ", ".join(f"{esc(f.file)}:{f.line} <code>{esc(f.excerpt[:60])}</code>" for f in runs[:4])
            + "."
        )
    return "<br>".join(parts)


def esc(s: Any) -> str:
    """HTML-escape ``str(s)`` (quotes kept)."""
    return html.escape(str(s), quote=False)


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
        return f"<p><i>Binary file {esc(rel)}: {len(old or b''):,} → {len(new):,} bytes</i></p>"
    pre = "<pre style='margin:0; white-space:pre-wrap'>"
    table = "<table width='99%' cellspacing='0' cellpadding='1' style='font-family:monospace'>"
    if old is None:
        out = [table, f"<tr><th colspan='2' align='left' nowrap>{esc(rel)} — new file (proposed)</th></tr>"]
        for no, line in enumerate(b.splitlines() or [""], 1):
            out.append(
                f"<tr><td style='color:#8c959f' align='right'>{no}</td>"
                f"<td width='100%' bgcolor='{ROW_BG['insert']}'>{pre}{esc(line)}</pre></td></tr>"
            )
        out.append("</table>")
        return "".join(out)
    out = [
        table,
        f"<tr><th colspan='2' align='left' nowrap>{esc(rel)} — live / before</th>"
        "<th colspan='2' align='left' nowrap>proposed</th></tr>",
    ]
    for r in side_by_side(a, b):
        bg = ROW_BG.get(r.tag, "")
        lbg = "#ffebe9" if r.tag in ("replace", "delete") and r.old_no else bg
        rbg = "#dafbe1" if r.tag in ("replace", "insert") and r.new_no else bg
        out.append(
            "<tr>"
            f"<td style='color:#8c959f' align='right'>{r.old_no or ''}</td>"
            f"<td width='{_HALF}' bgcolor='{lbg or '#ffffff'}'>{pre}{esc(r.old)}</pre></td>"
            f"<td style='color:#8c959f' align='right'>{r.new_no or ''}</td>"
            f"<td width='{_HALF}' bgcolor='{rbg or '#ffffff'}'>{pre}{esc(r.new)}</pre></td>"
            "</tr>"
        )
    out.append("</table>")
    return "".join(out)


def fill_findings(t: QTreeWidget, p: Proposal) -> tuple[int, int]:
    """Fill the findings tree: the risk checks' findings, then lint's; returns (total, blocking)."""
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
        it.setForeground(0, QColor(SEV_COLORS.get(f.severity, "#000")))
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
        it.setForeground(0, QColor(SEV_COLORS.get(d.get("severity", ""), "#000")))
    t.expandAll()
    for col in range(3):
        t.resizeColumnToContents(col)
    return len(p.findings) + len(p.lint.diagnostics), len(p.blocking_findings)
