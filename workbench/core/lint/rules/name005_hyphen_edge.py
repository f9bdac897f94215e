r"""NAME005 name-hyphen-edge: ``name`` starts or ends with ``-``.

skills-ref "cannot start or end with a hyphen" (validators.md C5). Quick fix: strip them.

PASS (dir=my-skill):
    ---
    name: my-skill
    description: Extracts text from PDF files. Use when the user asks to read a PDF.
    ---
FAIL (dir=my-skill):
    ---
    name: -my-skill
    description: Extracts text from PDF files. Use when the user asks to read a PDF.
    ---
"""

from collections.abc import Iterator

from workbench.core.lint.context import LintContext
from workbench.core.lint.registry import Finding, rule
from workbench.core.lint.rules.name003_lowercase import NAME_SEVERITIES, name_fix


@rule("NAME005", "name-hyphen-edge", "error", profiles=NAME_SEVERITIES)
def check(ctx: LintContext) -> Iterator[Finding]:
    if not ctx.has_fields:
        return
    name = ctx.name_str()
    if name and (name.startswith("-") or name.endswith("-")):
        f = ctx.fields["name"]
        yield Finding(f.value_span, f"name {name!r} cannot start or end with a hyphen", name_fix(ctx, f))
