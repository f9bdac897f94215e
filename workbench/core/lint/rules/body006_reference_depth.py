r"""BODY006 reference-depth: a linked file is more than one folder level below SKILL.md.

Spec / Anthropic: "keep file references one level deep from SKILL.md" — agents may only
partially read nested chains (agnix AS-013; validators.md H2). ``references/a.md`` is fine,
``references/api/v2/a.md`` is not.

PASS:
    ---
    name: pdf-tools
    description: Extracts text from PDF files. Use when the user asks to read a PDF.
    ---
    See [forms](references/forms.md).
FAIL:
    ---
    name: pdf-tools
    description: Extracts text from PDF files. Use when the user asks to read a PDF.
    ---
    See [forms](references/pdf/forms/fill.md).
"""

from collections.abc import Iterator

from workbench.core.lint.context import LintContext
from workbench.core.lint.registry import Finding, rule


@rule("BODY006", "reference-depth", "warning")
def check(ctx: LintContext) -> Iterator[Finding]:
    for t, s, e in ctx.local_links:
        if t.startswith("/") or t.startswith(".."):
            continue
        parts = [p for p in t.split("/") if p not in ("", ".")]
        if len(parts) >= 3:
            yield Finding(
                ctx.span(s, e),
                f"{t!r} is {len(parts) - 1} folders deep; keep references one level "
                "below SKILL.md (e.g. references/name.md)",
            )
