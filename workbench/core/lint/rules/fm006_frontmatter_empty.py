r"""FM006 frontmatter-empty: nothing between the ``---`` lines.

Codex rejects empty frontmatter; skills-ref reports the missing name and description
(validators.md B2).

PASS:
    ---
    name: pdf-tools
    description: Extracts text from PDF files. Use when the user asks to read a PDF.
    ---
FAIL:
    ---
    ---
    # PDF tools
"""

from collections.abc import Iterator

from workbench.core.lint.context import LintContext
from workbench.core.lint.registry import Finding, rule
from workbench.core.lint.types import Fix, TextEdit


@rule("FM006", "frontmatter-empty", "error", profiles={"claude-code": "warning"})
def check(ctx: LintContext) -> Iterator[Finding]:
    sf = ctx.sf
    if sf.state != "empty":
        return
    name = ctx.dir_name or "my-skill"
    fix = Fix(
        "Add name and description",
        [
            TextEdit(
                2,
                1,
                2,
                1,
                f'name: {name}\ndescription: "Describe what this skill does and when to use it."\n',
            )
        ],
    )
    yield Finding(ctx.line_span(1), sf.message, fix)
