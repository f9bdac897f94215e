r"""SEC006 control-char: control characters (C0 except tab and line breaks, DEL, C1) in the file.

An ``ESC`` starts a terminal escape sequence: printed by a tool that lists skills (``workbench
listing`` escapes them; other tools, ``cat`` and ``git log -p`` do not) it can recolour, retitle,
hide or rewrite what the reader sees; a lone carriage return overwrites the start of a line; the
model reads them all. No client or validator reviewed rejects them (ours, issue 12). A carriage
return is allowed only before a line feed (CRLF files). Also a double-quoted value that a YAML
escape (``"\e[31m"``, ``"\x1b"``) fills with one (no quick fix there). One finding per line (SEC002's
``line_runs``, at most 50). Quick fix: remove them.

PASS:
    ---
    name: pdf-tools
    description: Extracts text from PDF files. Use when the user asks to read a PDF.
    ---
    Run the script.
FAIL:
    ---
    name: pdf-tools
    description: "Extracts text from PDF files.\u001b[8m Use when the user asks to read a PDF."
    ---
    Run the script.
"""

import re

from workbench.core.lint.registry import Finding, rule
from workbench.core.lint.rules.sec002_bidi import findings_per_line, line_runs, removal

CONTROL = re.compile("(?:[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]|\r(?!\n))+")
#: The pre-check: one character class (no alternation, no look-ahead) is a fast C scan; a lone CR
#: is found by counting (CRLF files are common and must stay cheap).
_ANY = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")


def _has_control(text: str) -> bool:
    return _ANY.search(text) is not None or ("\r" in text and text.count("\r") != text.count("\r\n"))


_NAMES = {0x1B: "ESC", 0x07: "BEL", 0x08: "BS", 0x0D: "CR", 0x7F: "DEL", 0x9B: "CSI", 0x00: "NUL"}


def _named(chars) -> str:
    return ", ".join(
        f"U+{ord(c):04X} ({_NAMES[ord(c)]})" if ord(c) in _NAMES else f"U+{ord(c):04X}" for c in chars
    )


@rule("SEC006", "control-char", "warning")
def check(ctx):
    text = ctx.text
    m = CONTROL.search(text) if _has_control(text) else None
    if m is not None:
        runs = line_runs(text, CONTROL.finditer(text, m.start()))
        fix = removal(ctx, "Remove all control characters", runs)
        for span, _, more in findings_per_line(ctx, runs):
            chars = dict.fromkeys(
                c
                for c in text[ctx.offset(span.line, span.column) : ctx.offset(span.end_line, span.end_column)]
                if CONTROL.match(c + "x")
            )
            yield Finding(
                span,
                f"control character {_named(list(chars)[:3])}: a terminal acts on it "
                f"(colours, cursor moves, hidden text) instead of showing it{more}",
                fix,
            )
    # a YAML escape ("\e[31m", "\x1b") puts one in a value without one in the text
    if ctx.sf.state != "ok" or "\\" not in text:
        return
    for key, f in ctx.sf.fields.items():
        v = f.value
        if isinstance(v, str) and f.style == '"' and CONTROL.search(v):
            chars = dict.fromkeys(c for c in v if CONTROL.match(c + "x"))
            yield Finding(
                f.value_span,
                f"{key}: a YAML escape puts control character "
                f"{_named(list(chars)[:3])} in the value; a terminal acts on it instead of "
                "showing it",
            )
