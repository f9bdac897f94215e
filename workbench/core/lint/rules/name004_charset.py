r"""NAME004 name-charset: ``name`` has characters other than lowercase letters, digits and ``-``.

skills-ref allows any Unicode letter or digit (``isalnum()``: ``技能`` and ``мой-навык`` are valid);
quick_validate, agnix, skill-validator and the Anthropic API docs allow only ``[a-z0-9-]``
(validators.md C4, section 5 "Unicode names"). The profile option ``unicode_names`` decides:
True (skills-ref) for every profile except ``claude-api``. Quick fix: slugify.

PASS (dir=my-skill):
    ---
    name: my-skill
    description: Extracts text from PDF files. Use when the user asks to read a PDF.
    ---
FAIL (dir=my-skill):
    ---
    name: my_skill
    description: Extracts text from PDF files. Use when the user asks to read a PDF.
    ---
FAIL (dir=café, profile=claude-api):
    ---
    name: café
    description: Extracts text from PDF files. Use when the user asks to read a PDF.
    ---
"""

import re
from collections.abc import Iterator

from workbench.core.lint.context import LintContext
from workbench.core.lint.registry import Finding, rule
from workbench.core.lint.rules.name003_lowercase import NAME_SEVERITIES, name_fix

_ASCII = re.compile(r"[a-z0-9-]+")


@rule("NAME004", "name-charset", "error", profiles=NAME_SEVERITIES)
def check(ctx: LintContext) -> Iterator[Finding]:
    if not ctx.has_fields:
        return
    name = ctx.name_str()
    if not name:
        return
    low = name.lower()
    if _ASCII.fullmatch(low):  # the usual name: every character allowed under either rule below
        return
    if ctx.profile.unicode_names:
        bad = sorted({c for c in low if not (c.isalnum() or c == "-")})
        allowed = "lowercase letters, digits and hyphens"
    else:
        bad = sorted({c for c in low if not _ASCII.fullmatch(c)})
        allowed = "a-z, 0-9 and hyphens"
    if bad:
        f = ctx.fields["name"]
        shown = ", ".join(repr(c) for c in bad[:5])
        yield Finding(
            f.value_span,
            f"name {name!r} has invalid characters ({shown}); only {allowed} are allowed",
            name_fix(ctx, f),
        )
