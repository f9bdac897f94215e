r"""SEC003 invisible-char: invisible characters (zero-width space/joiners, word joiner, soft hyphen,
invisible operators, Unicode tag characters, a BOM inside the text).

They can hide instructions from a human reviewer (Unicode tag characters carry invisible ASCII)
and break matching; skillsaw flags them (validators.md J2). Zero-width joiners inside emoji
sequences and ZWNJ between non-Latin letters are allowed. Quick fix: remove them.

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

from workbench.core.lint.registry import Finding, rule
from workbench.core.lint.types import Fix, TextEdit
from workbench.core.riskpatterns import INVISIBLE_BMP as _BMP
from workbench.core.riskpatterns import INVISIBLE_RE as INVISIBLE

# Fast pre-check (same characters): ``in`` searches for the BMP ones, and the UTF-8 lead bytes
# F3 A0 of the tag block U+E0000-U+E007F in the cached UTF-8 text; ~7x cheaper than the regex.


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
def check(ctx):
    text = ctx.text
    if ctx.is_ascii or not (any(c in text for c in _BMP) or b"\xf3\xa0" in ctx.utf8):
        return
    hits = [m for m in INVISIBLE.finditer(text) if not _allowed(text, m.start(), m.end())]
    if not hits:
        return
    edits = []
    for m in hits:
        sp = ctx.span(m.start(), m.end())
        edits.append(TextEdit(sp.line, sp.column, sp.end_line, sp.end_column, ""))
    fix = Fix("Remove all invisible characters", edits)
    for m in hits:
        tag = any(0xE0000 <= ord(c) <= 0xE007F for c in m.group(0))
        names = ", ".join(f"U+{ord(c):04X}" for c in m.group(0)[:3])
        extra = " (Unicode tag characters can carry hidden text)" if tag else ""
        yield Finding(ctx.span(m.start(), m.end()), f"invisible character ({names}){extra}", fix)
