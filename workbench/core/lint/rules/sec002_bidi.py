r"""SEC002 bidi-control: bidirectional control characters (U+202A-U+202E, U+2066-U+2069,
U+200E, U+200F, U+061C).

They reorder how text is displayed, so a reviewer sees something other than what the model reads
("Trojan Source"); skillsaw flags them as errors (validators.md J2). One finding per line that has
them (at most ``MAX_RUNS``). Quick fix: remove them.

PASS:
    ---
    name: pdf-tools
    description: Extracts text from PDF files. Use when the user asks to read a PDF.
    ---
    Run the script.
FAIL:
    ---
    name: pdf-tools
    description: Extracts text from PDF files. Use when the user asks to read a PDF.
    ---
    Run the script.\u202e txt.exe
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING

from workbench.core.lint.bodyscan import odd_bytes as odd_bytes
from workbench.core.lint.registry import Finding, rule
from workbench.core.lint.rules._util import any_of_bytes
from workbench.core.lint.types import Fix, TextEdit
from workbench.core.riskpatterns import BIDI_CHARS
from workbench.core.riskpatterns import BIDI_RE as BIDI
from workbench.core.skillfile import Span

if TYPE_CHECKING:
    from workbench.core.lint.context import LintContext

#: One run per line: (start, end, distinct characters, the (start, end) of each match).
Run = tuple[int, int, list[str], list[tuple[int, int]]]

#: The pre-check (SEC002, SEC003, SEC006): the characters' UTF-8 bytes searched in ``odd_bytes``.
BIDI_UTF8 = tuple(c.encode() for c in BIDI_CHARS)
#: Any of them, one search (``_util.any_of_bytes``).
_BIDI_ODD = any_of_bytes(BIDI_UTF8)

#: At most this many findings per rule and file (``findings_per_line``): a file of 300,000
#: scattered characters gets 50 findings, the last one counting the rest, and one fix removing all.
MAX_RUNS = 50


def has_bidi(odd: bytes) -> bool:
    """Whether ``odd`` (``odd_bytes`` of the file) holds a bidirectional control character
    (= ``any(c in odd for c in BIDI_UTF8)``)."""
    return _BIDI_ODD.search(odd) is not None


def line_runs(text: str, matches: Iterable[re.Match[str]]) -> list[Run]:
    """Group regex ``matches`` (in text order) into one run per line:
    ``[(start, end, chars, ranges)]`` from the line's first match to its last, ``chars`` its
    distinct characters in order (from its first 64 matches; at least three kept), ``ranges``
    the matches' (start, end).
    Linear in ``len(text)``."""
    runs: list[Run] = []
    line_end = -1
    ranges: list[tuple[int, int]] = []
    chars: list[str] = []
    for m in matches:
        a, b = m.span()
        if a >= line_end or not runs:
            line_end = text.find("\n", a)
            line_end = len(text) + 1 if line_end == -1 else line_end
            ranges, chars = [], []
            runs.append((a, b, chars, ranges))
        ranges.append((a, b))
        runs[-1] = (runs[-1][0], b, chars, ranges)
        if len(chars) < 3 and len(ranges) <= 64:  # names for the message: the first few
            chars.extend(c for c in text[a:b] if c not in chars)
    return runs


def removal(ctx: LintContext, title: str, runs: list[Run]) -> Fix | None:
    """One edit per run (``line_runs``): the run's text without its matches."""
    edits = []
    text = ctx.text
    for s, e, _, ranges in runs:
        sp = ctx.span(s, e)
        keep = "".join(text[a_end:b_start] for (_, a_end), (b_start, _) in zip(ranges, ranges[1:]))
        edits.append(TextEdit(sp.line, sp.column, sp.end_line, sp.end_column, keep))
    return Fix(title, edits) if edits else None


def findings_per_line(ctx: LintContext, runs: list[Run]) -> list[tuple[Span, str, str]]:
    """``[(span, names, more)]`` for the first ``MAX_RUNS`` runs: ``names`` the first three
    characters as ``U+XXXX``, ``more`` a note on the last one when runs were left out."""
    out = []
    for i, (s, e, chars, _) in enumerate(runs[:MAX_RUNS]):
        more = ""
        if i == MAX_RUNS - 1 and len(runs) > MAX_RUNS:
            more = f" (and {len(runs) - MAX_RUNS:,} more lines not listed; the quick fix removes all)"
        out.append((ctx.span(s, e), ", ".join(f"U+{ord(c):04X}" for c in chars[:3]), more))
    return out


@rule("SEC002", "bidi-control", "error")
def check(ctx: LintContext) -> Iterator[Finding]:
    if ctx.is_ascii:
        return
    if not has_bidi(ctx.odd):
        return
    text = ctx.text
    runs = line_runs(text, BIDI.finditer(text))
    fix = removal(ctx, "Remove all bidirectional control characters", runs)
    for span, names, more in findings_per_line(ctx, runs):
        yield Finding(
            span,
            f"bidirectional control character ({names}): the text "
            f"displays differently from what the model reads{more}",
            fix,
        )
