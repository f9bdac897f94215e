r"""DESC005 description-person: the description speaks in the first or second person.

Anthropic: "always write in third person" (the description is injected into the system prompt);
agnix AS-018 (validators.md D6). Following section 5, only first/second person (I, we, you) is
flagged; the imperative "Use this skill when ..." is fine.

PASS:
    ---
    name: pdf-tools
    description: Extracts text from PDF files. Use when the user asks to read a PDF.
    ---
FAIL:
    ---
    name: pdf-tools
    description: I can help you extract text from PDF files.
    ---
"""

import re
from collections.abc import Iterator

from workbench.core.lint.context import LintContext
from workbench.core.lint.registry import Finding, rule
from workbench.core.lint.rules._util import PhraseSearch, first_line_of

_START = re.compile(r"^\W*(I|I'm|I'll|I've|We|We're|We'll|You|You're|You'll|Your|My|Our)\b")
_PHRASES: tuple[str, ...] = ("i can", "i will", "i'll", "i help", "we can", "we will", "we'll")
_PHRASES += ("you can", "you will", "you'll", "you should", "let me")
_ANY = PhraseSearch(r"\b(" + "|".join(_PHRASES) + r")\b", _PHRASES)


@rule("DESC005", "description-person", "warning")
def check(ctx: LintContext) -> Iterator[Finding]:
    if not ctx.has_fields:
        return
    d = ctx.description_str() or ""
    m = _START.search(d) or _ANY.search(d)
    if m:
        f = ctx.fields["description"]
        yield Finding(
            first_line_of(f.value_span, ctx),
            f"description uses the first/second person "
            f"({d[m.start(1) : m.end(1)]!r}); write in the third person ('Extracts ...', 'Use when ...')",
        )
