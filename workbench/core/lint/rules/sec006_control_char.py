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

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING

from workbench.core.lint.registry import Finding, rule
from workbench.core.lint.rules.sec002_bidi import findings_per_line, line_runs, removal

if TYPE_CHECKING:
    from workbench.core.lint.context import LintContext

CONTROL = re.compile("(?:[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]|\r(?!\n))+")
#: The pre-check, on ``odd_bytes`` (the file without printable ASCII, tab and line breaks: empty
#: for most files): a C0 control or DEL byte, or a C1 control (UTF-8 C2 80-C2 9F). A lone CR is
#: found by counting (CRLF files are common and must stay cheap).
_ANY_UTF8 = re.compile(b"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]|\xc2[\x80-\x9f]")


def _has_control(ctx: LintContext) -> bool:
    odd = ctx.odd
    if odd and _ANY_UTF8.search(odd) is not None:
        return True
    text = ctx.text
    return "\r" in text and text.count("\r") != text.count("\r\n")


_NAMES = {0x1B: "ESC", 0x07: "BEL", 0x08: "BS", 0x0D: "CR", 0x7F: "DEL", 0x9B: "CSI", 0x00: "NUL"}


def _named(chars: Iterable[str]) -> str:
    return ", ".join(
        f"U+{ord(c):04X} ({_NAMES[ord(c)]})" if ord(c) in _NAMES else f"U+{ord(c):04X}" for c in chars
    )


@rule("SEC006", "control-char", "warning")
def check(ctx: LintContext) -> Iterator[Finding]:
    text = ctx.text
    m = CONTROL.search(text) if _has_control(ctx) else None
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
