r"""NAME006 name-double-hyphen: ``name`` contains ``--``.

skills-ref "cannot contain consecutive hyphens" (validators.md C6). Quick fix: collapse them.

PASS (dir=my-skill):
    ---
    name: my-skill
    description: Extracts text from PDF files. Use when the user asks to read a PDF.
    ---
FAIL (dir=my-skill):
    ---
    name: my--skill
    description: Extracts text from PDF files. Use when the user asks to read a PDF.
    ---
"""

from collections.abc import Iterator

from workbench.core.lint.context import LintContext
from workbench.core.lint.registry import Finding, rule
from workbench.core.lint.rules.name003_lowercase import NAME_SEVERITIES, name_fix


@rule("NAME006", "name-double-hyphen", "error", profiles=NAME_SEVERITIES)
def check(ctx: LintContext) -> Iterator[Finding]:
    if not ctx.has_fields:
        return
    name = ctx.name_str()
    if name and "--" in name:
        f = ctx.fields["name"]
        yield Finding(f.value_span, f"name {name!r} cannot contain consecutive hyphens", name_fix(ctx, f))
