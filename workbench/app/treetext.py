"""The skills tree's texts: root labels and the tooltips of root and skill rows (HTML)."""

from __future__ import annotations

import html
from functools import partial

from workbench.core.model import Root, Skill

#: HTML-escape & < > (not quotes): text put into a rich-text tooltip or label.
esc = partial(html.escape, quote=False)


def skill_tooltip(s: Skill) -> str:
    """A skill row's tooltip: name, status, reason, path, what shadows it, unverified rules."""
    lines = [f"<b>{esc(s.name)}</b> — {s.status}", esc(s.reason) if s.reason else "", esc(str(s.path))]
    if s.shadowed_by:
        lines.append(f"shadowed by {esc(str(s.shadowed_by))}")
    if s.unverified:
        lines.append("<i>unverified rules:</i> " + esc("; ".join(s.unverified)))
    return "<br>".join(x for x in lines if x)


def root_label(r: Root) -> str:
    """A root row's name: its label, else its path."""
    return r.label or str(r.path)


def root_tooltip(r: Root) -> str:
    """A root row's tooltip: label, path, scope and precedence, condition, notes."""
    t = [
        f"<b>{esc(root_label(r))}</b>",
        esc(str(r.path)),
        f"scope {r.scope}, precedence {r.precedence}, {'exists' if r.exists else 'does not exist'}",
    ]
    if r.condition:
        t.append(esc(r.condition) + ("" if r.active else " (not active now)"))
    if not r.verified:
        t.append("<i>unverified root</i>" + (f": {esc(r.note)}" if r.note else ""))
    elif r.note:
        t.append(esc(r.note))
    return "<br>".join(t)
