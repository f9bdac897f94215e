r"""DESC004 description-no-when: the description does not say *when* to use the skill.

Agents pick skills from the description alone; the spec, Anthropic and every linter ask for a
"Use when ..." clause (agnix AS-010, skillscheck 2a.description.no-when, skillsaw
content-description-routing, waza; validators.md D4).

PASS:
    ---
    name: pdf-tools
    description: Extracts text from PDF files. Use when the user asks to read a PDF.
    ---
FAIL:
    ---
    name: pdf-tools
    description: Extracts text and tables from PDF files.
    ---
"""

from collections.abc import Iterator

from workbench.core.lint.context import LintContext
from workbench.core.lint.registry import Finding, rule
from workbench.core.lint.rules._util import PhraseSearch, first_line_of

_WHEN = PhraseSearch(
    r"\b(when(ever)?|if (the|you|a|an)|use (this|it|for|to|on|in|with)|used (for|to|when)|"
    r"invoke[ds]?|trigger(s|ed)?|activate[sd]?|designed for|intended for|applies to|for (tasks|requests|work|use)|"
    r"before|after|during|helps? (with|you)|asks?|needs? to|wants? to|should be used)\b",
    # what every match starts with (PhraseSearch's pre-check)
    ("when", "if ", "use", "invoke", "trigger", "activate", "designed for", "intended for", "applies to")
    + ("for ", "before", "after", "during", "help", "ask", "need", "want", "should be used"),
)


@rule("DESC004", "description-no-when", "warning")
def check(ctx: LintContext) -> Iterator[Finding]:
    if not ctx.has_fields:
        return
    d = ctx.description_str() or ""
    if len(d.strip()) < 3 or _WHEN.search(d):
        return
    f = ctx.fields["description"]
    yield Finding(
        first_line_of(f.value_span, ctx),
        "the description does not say when to use the skill; "
        "add a 'Use when ...' clause naming the situations that should trigger it",
    )
