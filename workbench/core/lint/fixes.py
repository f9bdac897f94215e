"""Applying a quick fix (``Fix`` / ``TextEdit``s) to SKILL.md text."""

from __future__ import annotations

from collections.abc import Iterable

from workbench.core.lint.types import Fix, TextEdit


def apply_fix(text: str, fix: Fix | TextEdit | Iterable[TextEdit]) -> str:
    """Apply a fix's edits to ``text`` and return the new text.

    Positions are those of the diagnostics (1-based, end exclusive, code points, after a BOM);
    line 1 column 0 addresses a leading BOM. "\\n" in ``new_text`` becomes "\\r\\n" when the text's
    dominant line ending is CRLF.

    Raises ValueError when an edit is out of range or edits overlap.
    """
    if isinstance(fix, Fix):
        edits = list(fix.edits)
    elif isinstance(fix, TextEdit):
        edits = [fix]
    else:
        edits = list(fix)
    bom = 1 if text.startswith("\ufeff") else 0
    starts = [bom]
    i = text.find("\n")
    while i != -1:
        starts.append(i + 1)
        i = text.find("\n", i + 1)
    crlf = text.count("\r\n")
    nl = "\r\n" if crlf and crlf >= text.count("\n") - crlf else "\n"

    def off(line: int, col: int) -> int:
        if line < 1 or line > len(starts):
            raise ValueError(f"edit line {line} out of range (1..{len(starts)})")
        if line == 1 and col == 0:
            if not bom:
                raise ValueError("column 0 addresses a BOM and the text has none")
            return 0
        end = (starts[line] - 1) if line < len(starts) else len(text)
        o = starts[line - 1] + col - 1
        if col < 1 or o > end:
            raise ValueError(f"edit column {col} out of range on line {line}")
        return o

    spans = sorted(
        ((off(e.line, e.column), off(e.end_line, e.end_column), e.new_text) for e in edits),
        key=lambda t: (t[0], t[1]),
    )
    for (_s1, e1, _), (s2, _e2, _) in zip(spans, spans[1:]):
        if s2 < e1:
            raise ValueError("fix edits overlap")
    for s, e, new in reversed(spans):
        if e < s:
            raise ValueError("edit ends before it starts")
        if nl == "\r\n":
            new = new.replace("\r\n", "\n").replace("\n", "\r\n")
        text = text[:s] + new + text[e:]
    return text
