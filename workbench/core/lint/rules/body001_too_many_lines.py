r"""BODY001 body-too-long: SKILL.md is over 500 lines.

Spec and Anthropic: "keep SKILL.md under 500 lines" and move detail into references/ (agnix
AS-012, skill-validator, skillscheck 1e.body.length; validators.md G1). Counted on the whole file.

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
    ---
    <<501 lines>>
"""

from collections.abc import Iterator

from workbench.core.lint.context import LintContext
from workbench.core.lint.registry import Finding, rule

LIMIT = 500


@rule("BODY001", "body-too-long", "warning")
def check(ctx: LintContext) -> Iterator[Finding]:
    t = ctx.text
    # the line breaks in the first 200,000 characters: for the usual file = ctx.line_count - 1,
    # which clamping and the catalog facts count anyway (one count of the text, not two)
    if (ctx.line_count - 1 if len(t) <= 200_000 else t.count("\n", 0, 200_000)) < LIMIT:
        return
    n = ctx.line_count - (1 if t.endswith("\n") else 0)
    if n > LIMIT:
        ln = min(LIMIT + 1, ctx.line_count)
        yield Finding(
            ctx.line_span(ln),
            f"SKILL.md has {n} lines; keep it under {LIMIT} and move details into references/ files",
        )
