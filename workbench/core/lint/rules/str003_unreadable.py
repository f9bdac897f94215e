r"""STR003 file-unreadable: the file cannot be read as text (I/O error, over 1 MB, NUL bytes,
or not valid UTF-8).

No client reads such a file sensibly (skillfile.py states unreadable / too-large / binary;
OpenClaw's own cap is 256,000 bytes, clients.md 3.2). Invalid UTF-8 is decoded with replacement
characters and linted anyway; the finding points at the first bad byte (the column of its
replacement character, in code points), the message names the byte.

PASS:
    ---
    name: pdf-tools
    description: Extracts text from PDF files. Use when the user asks to read a PDF.
    ---
FAIL:
    ---
    name: pdf-tools
    description: Extracts text\u0000 from PDF files.
    ---
"""

from collections.abc import Iterator

from workbench.core.lint.context import LintContext
from workbench.core.lint.registry import Finding, rule
from workbench.core.skillfile import Span


@rule("STR003", "file-unreadable", "error")
def check(ctx: LintContext) -> Iterator[Finding]:
    sf = ctx.sf
    if sf.state in ("unreadable", "too-large", "binary"):
        yield Finding(Span(1, 1, 1, 1), sf.message or f"file state: {sf.state}")
    elif sf.not_utf8:
        # At the first bad byte: its U+FFFD replacement character (``SkillFile.encoding_span``,
        # code points of the decoded line). A parse without the span (older callers) keeps line 1.
        # ``encoding_message``, not ``message``: a frontmatter problem (no frontmatter, unclosed,
        # ...) replaces ``message`` and has its own rule.
        sp = getattr(sf, "encoding_span", None)
        yield Finding(
            sp if sp is not None else ctx.top_span(), getattr(sf, "encoding_message", "") or "not valid UTF-8"
        )
