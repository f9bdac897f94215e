r"""FM010 delimiter-whitespace: trailing spaces after a ``---`` delimiter.

quick_validate's regex ``^---\n(.*?)\n---`` does not match ``--- `` (validators.md B1), so the
skill-creator packager rejects the file; other readers trim. Quick fix: strip the spaces.

PASS:
    ---
    name: pdf-tools
    description: Extracts text from PDF files. Use when the user asks to read a PDF.
    ---
FAIL:
    ---\u0020\u0020
    name: pdf-tools
    description: Extracts text from PDF files. Use when the user asks to read a PDF.
    ---
"""

from collections.abc import Iterator

from workbench.core.lint.context import LintContext
from workbench.core.lint.registry import Finding, rule
from workbench.core.lint.types import Fix, TextEdit
from workbench.core.skillfile import Span


@rule("FM010", "delimiter-whitespace", "warning")
def check(ctx: LintContext) -> Iterator[Finding]:
    sf = ctx.sf
    for ln in (sf.open_line, sf.close_line):
        if not ln:
            continue
        s = ctx.get_line(ln)
        if s != "---" and s.rstrip() == "---":
            yield Finding(
                Span(ln, 4, ln, len(s) + 1),
                "trailing whitespace after '---'",
                Fix("Strip the trailing whitespace", [TextEdit(ln, 4, ln, len(s) + 1, "")]),
            )
