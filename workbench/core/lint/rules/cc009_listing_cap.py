r"""CC009 cc-listing-cap: ``description`` + ``when_to_use`` exceed Claude Code's 1,536-character
listing entry.

Claude Code truncates each listing entry (description and when_to_use combined) at 1,536
characters (code.claude.com skills docs; ``skillListingMaxDescChars``, clients.md 1.4).

PASS (profile=claude-code):
    ---
    name: pdf-tools
    description: Extracts text from PDF files.
    when_to_use: Use when the user asks to read a PDF.
    ---
FAIL (profile=claude-code):
    ---
    name: pdf-tools
    description: Extracts text from PDF files. <<1000 chars>>
    when_to_use: Use when the user asks to read a PDF. <<600 chars>>
    ---
"""

from collections.abc import Iterator

from workbench.core.lint.context import LintContext
from workbench.core.lint.registry import Finding, rule
from workbench.core.lint.rules._util import first_line_of

CAP = 1536


@rule("CC009", "cc-listing-cap", "off", profiles={"claude-code": "warning"})
def check(ctx: LintContext) -> Iterator[Finding]:
    if not ctx.has_fields:
        return
    d = ctx.description_str() or ""
    w = ctx.field("when_to_use")
    wv = w.value if w is not None and isinstance(w.value, str) else ""
    n = len(d) + (len(wv) + 3 if wv else 0)
    if n > CAP:
        f = w or ctx.fields["description"]
        yield Finding(
            first_line_of(f.value_span, ctx),
            f"description{' + when_to_use' if wv else ''} is {n} "
            f"characters; Claude Code cuts each listing entry at {CAP}",
        )
