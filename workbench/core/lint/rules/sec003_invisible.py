r"""SEC003 invisible-char: invisible characters (zero-width space/joiners, word joiner, soft hyphen,
invisible operators, Unicode tag characters, a BOM inside the text).

They can hide instructions from a human reviewer (Unicode tag characters carry invisible ASCII)
and break matching; skillsaw flags them (validators.md J2). Zero-width joiners inside emoji
sequences and ZWNJ between non-Latin letters are allowed. One finding per line (SEC002's
``line_runs``). Quick fix: remove them.

PASS:
    ---
    name: pdf-tools
    description: Extracts text from PDF files. Use when the user asks to read a PDF.
    ---
    Run the script.
FAIL:
    ---
    name: pdf-tools
    description: Extracts text from PDF\u200b files. Use when the user asks to read a PDF.
    ---
    Run the script.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from workbench.core.lint.registry import Finding, rule
from workbench.core.lint.rules._util import any_of_bytes
from workbench.core.lint.rules.sec002_bidi import findings_per_line, line_runs, removal
from workbench.core.riskpatterns import INVISIBLE_BMP
from workbench.core.riskpatterns import INVISIBLE_RE as INVISIBLE

if TYPE_CHECKING:
    from workbench.core.lint.context import LintContext

#: Fast pre-check (same characters): the BMP ones' UTF-8 bytes and the lead bytes F3 A0 of the
#: tag block U+E0000-U+E007F, searched in ``odd_bytes`` (the non-ASCII bytes of the file).
_UTF8 = (*(c.encode() for c in INVISIBLE_BMP), b"\xf3\xa0")
#: Any of them, one search (``_util.any_of_bytes``).
_UTF8_ANY = any_of_bytes(_UTF8)


def has_invisible(odd: bytes) -> bool:
    """Whether ``odd`` (``odd_bytes`` of the file) holds an invisible character (= ``any(c in odd
    for c in _UTF8)``)."""
    return _UTF8_ANY.search(odd) is not None


def _allowed(text: str, s: int, e: int) -> bool:
    run = text[s:e]
    if set(run) <= {"\u200d", "\u200c"}:
        prev = text[s - 1] if s > 0 else ""
        nxt = text[e] if e < len(text) else ""
        if prev and nxt and ord(prev) > 0x2000 and ord(nxt) > 0x2000:
            return True  # emoji ZWJ sequences, Indic/Persian joiners
        if prev and nxt and (ord(prev) >= 0x0590 and ord(nxt) >= 0x0590) and prev.isalpha() and nxt.isalpha():
            return True
    return False


@rule("SEC003", "invisible-char", "warning")
def check(ctx: LintContext) -> Iterator[Finding]:
    if ctx.is_ascii:
        return
    if not has_invisible(ctx.odd):
        return
    text = ctx.text
    hits = [m for m in INVISIBLE.finditer(text) if not _allowed(text, m.start(), m.end())]
    if not hits:
        return
    runs = line_runs(text, hits)
    fix = removal(ctx, "Remove all invisible characters", runs)
    for span, names, more in findings_per_line(ctx, runs):
        tag = "U+E00" in names
        extra = " (Unicode tag characters can carry hidden text)" if tag else ""
        yield Finding(span, f"invisible character ({names}){extra}{more}", fix)
