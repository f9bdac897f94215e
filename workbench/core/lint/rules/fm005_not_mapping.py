r"""FM005 frontmatter-not-mapping: the frontmatter parses to a list or a single value.

skills-ref "must be a YAML mapping", quick_validate "must be a YAML dictionary" (validators.md B4).

PASS:
    ---
    name: pdf-tools
    description: Extracts text from PDF files. Use when the user asks to read a PDF.
    ---
FAIL:
    ---
    - name: pdf-tools
    - description: Extracts text from PDF files.
    ---
"""

from collections.abc import Iterator

from workbench.core.lint.context import LintContext
from workbench.core.lint.registry import Finding, rule


@rule("FM005", "frontmatter-not-mapping", "error")
def check(ctx: LintContext) -> Iterator[Finding]:
    if ctx.sf.state == "not-mapping":
        yield Finding(ctx.sf.error_span or ctx.line_span(2), ctx.sf.message)
