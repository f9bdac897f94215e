r"""DESC008 description-restates-name: the description only repeats the name.

skillsaw (validators.md D9): "pdf-tools: PDF tools" gives the agent nothing to match on.

PASS:
    ---
    name: pdf-tools
    description: Extracts text from PDF files. Use when the user asks to read a PDF.
    ---
FAIL:
    ---
    name: pdf-tools
    description: The PDF tools skill.
    ---
"""

import re
from collections.abc import Iterator

from workbench.core.lint.context import LintContext
from workbench.core.lint.registry import Finding, rule

_FILLER = {"a", "an", "the", "skill", "skills", "for", "of", "and", "tool", "tools", "this"}


@rule("DESC008", "description-restates-name", "info")
def check(ctx: LintContext) -> Iterator[Finding]:
    if not ctx.has_fields:
        return
    name = (ctx.name_str() or ctx.dir_name or "").lower()
    d = (ctx.description_str() or "").lower()
    if not name or not d.strip() or len(d) > 2 * len(name) + 40:
        return
    words = set(re.findall(r"\w+", d))
    name_words = set(re.findall(r"[^\W_]+", name))
    if words and words <= (name_words | _FILLER) and name_words & words:
        yield Finding(
            ctx.fields["description"].value_span,
            "the description only restates the name; say what it does and when to use it",
        )
