"""Colours and text formats of the editor, from the ``"editor"`` section of ``theme.json``
(``workbench/resources``).

The colour table file is shared with the rest of the app (``workbench.app.icons.theme()`` reads and
merges it over built-in defaults). The editor starts from ``DEFAULT_EDITOR_THEME`` below, applies
the app-wide ``"highlight"`` colours (``yaml_key``, ``yaml_string``, ``yaml_comment``,
``delimiter``, ``md_heading``, ``md_code``), then its own optional ``"editor"`` section, so a
missing or partial file still gives a complete light theme.
Severity colours come from the shared ``"level"`` table (``icons.level_color``), so squiggles, gutter
marks and the problems list use the same colour as the rest of the app.

Shape of the ``"editor"`` section (every key optional)::

    {"editor": {
        "background": "#ffffff", "foreground": "#1f2328", "current_line": "#f5f8ff",
        "gutter_bg": "#f6f8fa", "gutter_fg": "#8c959f", "search_match": "#fff3b0",
        "syntax": {"<token>": {"color": "#rrggbb", "background": "#rrggbb",
                               "bold": bool, "italic": bool}, ...}}}

Token names: ``delimiter``, ``key``, ``value``, ``string``, ``comment``, ``number``, ``bool``,
``block_scalar``, ``list_dash``, ``heading``, ``fence``, ``code``, ``inline_code``, ``link``,
``link_url``, ``injection``, ``placeholder``, ``emphasis``, ``strong``, ``quote``, ``list_marker``.
"""

from __future__ import annotations

import copy
import logging
from functools import lru_cache
from typing import Any

from PySide6.QtGui import QColor, QFont, QTextCharFormat

log = logging.getLogger(__name__)

DEFAULT_EDITOR_THEME: dict[str, Any] = {
    "background": "#ffffff",
    "foreground": "#1f2328",
    "current_line": "#f3f6fb",
    "gutter_bg": "#f6f8fa",
    "gutter_fg": "#8c959f",
    "gutter_current_fg": "#1f2328",
    "search_match": "#fff3b0",
    "syntax": {
        "delimiter": {"color": "#8250df", "bold": True},
        "key": {"color": "#0550ae", "bold": True},
        "value": {"color": "#1f2328"},
        "string": {"color": "#0a3069"},
        "comment": {"color": "#6e7781", "italic": True},
        "number": {"color": "#953800"},
        "bool": {"color": "#cf222e"},
        "block_scalar": {"color": "#0a3069"},
        "list_dash": {"color": "#8250df"},
        "heading": {"color": "#0550ae", "bold": True},
        "fence": {"color": "#6e7781"},
        "code": {"color": "#24292f", "background": "#f6f8fa"},
        "inline_code": {"color": "#953800", "background": "#f6f8fa"},
        "link": {"color": "#0969da"},
        "link_url": {"color": "#57606a"},
        "injection": {"color": "#ffffff", "background": "#bc4c00", "bold": True},
        "placeholder": {"color": "#116329", "background": "#dafbe1", "bold": True},
        "emphasis": {"italic": True},
        "strong": {"bold": True},
        "quote": {"color": "#57606a", "italic": True},
        "list_marker": {"color": "#8250df", "bold": True},
    },
}

#: The shared theme's ``"highlight"`` keys and the editor tokens whose colour they set.
_SHARED_HIGHLIGHT = {
    "yaml_key": ("key",),
    "yaml_string": ("string", "block_scalar"),
    "yaml_comment": ("comment",),
    "delimiter": ("delimiter", "list_dash"),
    "md_heading": ("heading",),
    "md_code": ("inline_code", "code"),
}

_FALLBACK_LEVELS = {"error": "#cf222e", "warning": "#d97a00", "info": "#2f81f7", "ok": "#2e9d4a"}


@lru_cache(maxsize=1)
def editor_theme() -> dict[str, Any]:
    """The editor section of the theme merged over ``DEFAULT_EDITOR_THEME`` (never raises)."""
    out = copy.deepcopy(DEFAULT_EDITOR_THEME)
    try:
        from workbench.app import icons

        whole = icons.theme()
    except Exception as exc:  # noqa: BLE001 - a broken theme must not break the editor
        log.warning("theme not read; using the default editor colours", exc_info=exc)
        whole = {}
    shared = whole.get("highlight") if isinstance(whole, dict) else None
    if isinstance(shared, dict):  # the app-wide "highlight" table: colours only
        for name, tokens in _SHARED_HIGHLIGHT.items():
            if isinstance(shared.get(name), str):
                for tok in tokens:
                    out["syntax"][tok]["color"] = shared[name]
    section = whole.get("editor") if isinstance(whole, dict) else None
    if isinstance(section, dict):
        for k, v in section.items():
            if k == "syntax" and isinstance(v, dict):
                for tok, spec in v.items():
                    if isinstance(spec, dict):
                        out["syntax"].setdefault(tok, {}).update(spec)
            elif isinstance(v, str):
                out[k] = v
    return out


def color(key: str) -> QColor:
    """A top-level editor colour, e.g. ``color("gutter_bg")``."""
    return QColor(editor_theme().get(key, "#000000"))


def severity_color(severity: str) -> QColor:
    """Colour of a diagnostic severity ("error" | "warning" | "info"), from the shared level table."""
    try:
        from workbench.app import icons

        return icons.level_color(severity)
    except Exception as exc:  # noqa: BLE001 - the built-in colour is used
        log.warning("level colour %r not read from the theme", severity, exc_info=exc)
        return QColor(_FALLBACK_LEVELS.get(severity, "#7d8590"))


@lru_cache(maxsize=1)
def syntax_formats() -> dict[str, QTextCharFormat]:
    """One ``QTextCharFormat`` per token name (see module docstring)."""
    out: dict[str, QTextCharFormat] = {}
    for tok, spec in editor_theme()["syntax"].items():
        f = QTextCharFormat()
        if spec.get("color"):
            f.setForeground(QColor(spec["color"]))
        if spec.get("background"):
            f.setBackground(QColor(spec["background"]))
        if spec.get("bold"):
            f.setFontWeight(QFont.Weight.Bold)
        if spec.get("italic"):
            f.setFontItalic(True)
        out[tok] = f
    return out
