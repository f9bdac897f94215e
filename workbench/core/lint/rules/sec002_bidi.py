r"""SEC002 bidi-control: bidirectional control characters (U+202A-U+202E, U+2066-U+2069,
U+200E, U+200F, U+061C).

They reorder how text is displayed, so a reviewer sees something other than what the model reads
("Trojan Source"); skillsaw flags them as errors (validators.md J2). Quick fix: remove them.

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

from workbench.core.lint.registry import Finding, rule
from workbench.core.lint.types import Fix, TextEdit
from workbench.core.riskpatterns import BIDI_CHARS
from workbench.core.riskpatterns import BIDI_RE as BIDI

# BIDI_CHARS is the fast pre-check: 12 ``in`` searches cost ~7x less than one search with the
# character-class regex on a non-ASCII text (measured: 15 vs 107 µs on 4 KB).


def removal(ctx, rx, title):
    edits = []
    for m in rx.finditer(ctx.text):
        sp = ctx.span(m.start(), m.end())
        edits.append(TextEdit(sp.line, sp.column, sp.end_line, sp.end_column, ""))
    return Fix(title, edits) if edits else None


@rule("SEC002", "bidi-control", "error")
def check(ctx):
    text = ctx.text
    if ctx.is_ascii or not any(c in text for c in BIDI_CHARS):
        return
    fix = removal(ctx, BIDI, "Remove all bidirectional control characters")
    for m in BIDI.finditer(text):
        names = ", ".join(f"U+{ord(c):04X}" for c in m.group(0)[:3])
        yield Finding(ctx.span(m.start(), m.end()), f"bidirectional control character ({names}): the text "
                      "displays differently from what the model reads", fix)
