r"""DESC006 description-too-short: under 20 characters.

skillscheck warns under 20 characters, waza scores under 150 as low (validators.md D5): a short
description rarely matches the requests it should.

PASS:
    ---
    name: pdf-tools
    description: Extracts text from PDF files. Use when the user asks to read a PDF.
    ---
FAIL:
    ---
    name: pdf-tools
    description: PDF tools.
    ---
"""

from collections.abc import Iterator

from workbench.core.lint.context import LintContext
from workbench.core.lint.registry import Finding, rule


@rule("DESC006", "description-too-short", "warning")
def check(ctx: LintContext) -> Iterator[Finding]:
    if not ctx.has_fields:
        return
    d = (ctx.description_str() or "").strip()
    if 0 < len(d) < 20:
        yield Finding(
            ctx.fields["description"].value_span,
            f"description is only {len(d)} characters; say what the skill does and when to use it",
        )
