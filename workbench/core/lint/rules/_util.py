"""Helpers shared by rule modules (not a rule: modules starting with "_" are not loaded as rules)."""

from __future__ import annotations

import json
import re
import unicodedata

from workbench.core.lint.context import FieldView, LintContext
from workbench.core.lint.types import Fix, TextEdit
from workbench.core.skillfile import Span


def replace_value(f: FieldView, new_text: str, title: str) -> Fix:
    """A fix replacing a field's whole value range."""
    s = f.value_span
    return Fix(title, [TextEdit(s.line, s.column, s.end_line, s.end_column, new_text)])


def yaml_quote(s: str) -> str:
    """A YAML double-quoted scalar for ``s`` (JSON strings are valid YAML double-quoted scalars)."""
    return json.dumps(s, ensure_ascii=False)


_SLUG_BAD = re.compile(r"[^a-z0-9-]+")
_SLUG_BAD_U = re.compile(r"[^\w-]+|_+")


def slugify(name: str, unicode_ok: bool = True) -> str:
    """Lowercase, hyphenate, drop invalid characters, no edge or double hyphens."""
    s = unicodedata.normalize("NFKC", name).strip().lower()
    s = re.sub(r"[\s_./]+", "-", s)
    s = (_SLUG_BAD_U if unicode_ok else _SLUG_BAD).sub("", s) if unicode_ok else _SLUG_BAD.sub("", s)
    s = re.sub(r"-{2,}", "-", s).strip("-")
    return s[:64].strip("-")


def valid_name(name: str, unicode_ok: bool = True) -> bool:
    """The spec's name rules (skills-ref validator.py ``_validate_name``, NFKC-normalised input)."""
    if not name or len(name) > 64 or name != name.lower():
        return False
    if name.startswith("-") or name.endswith("-") or "--" in name:
        return False
    if unicode_ok:
        return all(c.isalnum() or c == "-" for c in name)
    return re.fullmatch(r"[a-z0-9-]+", name) is not None


def key_span(f: FieldView) -> Span:
    return f.key_span


def whole_field_span(f: FieldView) -> Span:
    """From the key to the end of the value."""
    return Span(f.key_span.line, f.key_span.column, f.value_span.end_line, f.value_span.end_column)


def first_line_of(span: Span, ctx: LintContext) -> Span:
    """A multi-line span cut to its first line (keeps squiggles readable)."""
    if span.end_line == span.line:
        return span
    ln = ctx.lines[span.line - 1] if span.line <= len(ctx.lines) else ""
    return Span(span.line, span.column, span.line, max(span.column + 1, len(ln) + 1))
