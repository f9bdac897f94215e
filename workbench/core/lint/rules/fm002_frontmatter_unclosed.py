r"""FM002 frontmatter-unclosed: ``---`` on line 1 is never closed by another ``---`` line.

validators.md B2: skills-ref "not properly closed with ---", quick_validate "Invalid frontmatter
format", Codex "missing YAML frontmatter delimited by ---". Quick fix: insert the closing
``---`` before the first blank line or Markdown heading.

PASS:
    ---
    name: pdf-tools
    description: Extracts text from PDF files. Use when the user asks to read a PDF.
    ---
    # PDF tools
FAIL:
    ---
    name: pdf-tools
    description: Extracts text from PDF files. Use when the user asks to read a PDF.

    # PDF tools
"""

from collections.abc import Iterator

from workbench.core.lint.context import LintContext
from workbench.core.lint.registry import Finding, rule
from workbench.core.lint.types import Fix, TextEdit
from workbench.core.skillfile import Span


@rule("FM002", "frontmatter-unclosed", "error")
def check(ctx: LintContext) -> Iterator[Finding]:
    sf = ctx.sf
    if sf.state != "unclosed":
        return
    lines = ctx.lines
    at = len(lines) + 1
    for i in range(1, len(lines)):
        s = lines[i]
        if not s.strip() or s.startswith("#"):
            at = i + 1
            break
    if at <= len(lines):
        edit = TextEdit(at, 1, at, 1, "---\n")
    else:
        last = lines[-1] if lines else ""
        edit = TextEdit(
            len(lines), len(last) + 1, len(lines), len(last) + 1, ("\n" if last else "") + "---\n"
        )
    yield Finding(sf.error_span or Span(1, 1, 1, 4), sf.message, Fix("Insert the closing '---'", [edit]))
