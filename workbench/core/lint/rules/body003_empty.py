r"""BODY003 body-empty: nothing after the frontmatter.

skillscheck warns on an empty body (validators.md G3): loading the skill gives the agent no
instructions.

PASS:
    ---
    name: pdf-tools
    description: Extracts text from PDF files. Use when the user asks to read a PDF.
    ---
    Run `pdftotext file.pdf -` and read the output.
FAIL:
    ---
    name: pdf-tools
    description: Extracts text from PDF files. Use when the user asks to read a PDF.
    ---
"""

from collections.abc import Iterator

from workbench.core.lint.context import LintContext
from workbench.core.lint.registry import Finding, rule


@rule("BODY003", "body-empty", "warning")
def check(ctx: LintContext) -> Iterator[Finding]:
    if ctx.sf.state not in ("ok", "yaml-error", "not-mapping", "empty"):
        return
    body = ctx.body
    if not body or body.isspace():  # = not body.strip(), without the copy
        ln = ctx.sf.close_line or 1
        yield Finding(
            ctx.line_span(ln), "the body is empty: loading the skill gives the agent no instructions"
        )
