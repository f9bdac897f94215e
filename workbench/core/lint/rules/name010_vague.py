r"""NAME010 name-vague: ``name`` is a generic word (helper, utils, tools, ...).

Anthropic best practices: "avoid vague names" (gerund form preferred); agnix AS-019
(validators.md C10). Info: a hint, not a client rule.

PASS (dir=processing-pdfs):
    ---
    name: processing-pdfs
    description: Extracts text from PDF files. Use when the user asks to read a PDF.
    ---
FAIL (dir=helper):
    ---
    name: helper
    description: Extracts text from PDF files. Use when the user asks to read a PDF.
    ---
"""

from collections.abc import Iterator

from workbench.core.lint.context import LintContext
from workbench.core.lint.registry import Finding, rule

VAGUE = {
    "helper",
    "helpers",
    "utils",
    "util",
    "utilities",
    "tools",
    "tool",
    "misc",
    "general",
    "common",
    "base",
    "main",
    "default",
    "skill",
    "stuff",
    "test",
}


@rule("NAME010", "name-vague", "info")
def check(ctx: LintContext) -> Iterator[Finding]:
    if not ctx.has_fields:
        return
    name = ctx.name_str()
    if name and name.lower() in VAGUE:
        yield Finding(
            ctx.fields["name"].value_span,
            f"name {name!r} is vague; say what the skill does (e.g. 'processing-pdfs')",
        )
