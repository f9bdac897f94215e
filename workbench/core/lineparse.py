"""The lenient frontmatter line parser (Gemini CLI's and OpenClaw's fallback when the YAML does
not parse; see ``SkillFile.line_fields``). Re-exported by ``workbench.core.skillfile``."""

from __future__ import annotations

import re
from dataclasses import dataclass

from workbench.core.spans import Span


@dataclass(slots=True)
class LineField:
    """A key read by the lenient line parser: value is always a string (see ``line_fields``)."""

    key: str
    value: str
    key_span: Span
    value_span: Span


_KEY_LINE = re.compile(r"^([A-Za-z0-9_][A-Za-z0-9_.\-]*)[ \t]*:(?:[ \t]+(.*)|)$")


def _unquote(v: str) -> str:
    if len(v) >= 2 and v[0] == v[-1] and v[0] in "'\"":
        return v[1:-1]
    return v


def line_parse(fm: str, first_line: int) -> dict[str, LineField]:
    """The frontmatter text ``fm`` (its first line is file line ``first_line``) read by the
    lenient line parser (see ``SkillFile.line_fields``): {key: ``LineField``}."""
    out: dict[str, LineField] = {}
    cur: LineField | None = None
    for i, line in enumerate(fm.split("\n")):
        ln = first_line + i
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        if line[0] in " \t":
            if cur is not None:
                cont = line.strip()
                cur.value = (cur.value + " " + cont) if cur.value else cont
                cur.value_span = Span(cur.value_span.line, cur.value_span.column, ln, len(line) + 1)
            continue
        m = _KEY_LINE.match(line)
        if not m:
            cur = None
            continue
        key, val = m.group(1), (m.group(2) or "").strip()
        vcol = (m.start(2) + 1) if m.group(2) is not None else len(line) + 1
        cur = LineField(key, _unquote(val), Span(ln, 1, ln, len(key) + 1), Span(ln, vcol, ln, len(line) + 1))
        out[key] = cur
    for lf in out.values():
        lf.value = _unquote(lf.value.strip())
    return out
