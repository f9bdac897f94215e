r"""STR003 file-unreadable: the file cannot be read as text (I/O error, over 1 MB, NUL bytes,
or not valid UTF-8).

No client reads such a file sensibly (skillfile.py states unreadable / too-large / binary;
OpenClaw's own cap is 256,000 bytes, clients.md 3.2). Invalid UTF-8 is decoded with replacement
characters and linted anyway.

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

from workbench.core.lint.registry import Finding, rule
from workbench.core.skillfile import Span


@rule("STR003", "file-unreadable", "error")
def check(ctx):
    sf = ctx.sf
    if sf.state in ("unreadable", "too-large", "binary"):
        yield Finding(Span(1, 1, 1, 1), sf.message or f"file state: {sf.state}")
    elif sf.not_utf8:
        yield Finding(ctx.top_span(), sf.message or "not valid UTF-8")
