r"""DESC010 description-placeholder: the description is a placeholder (TODO, TBD, ...).

skillscheck flags TODO / PLACEHOLDER descriptions (validators.md D1).

PASS:
    ---
    name: pdf-tools
    description: Extracts text from PDF files. Use when the user asks to read a PDF.
    ---
FAIL:
    ---
    name: pdf-tools
    description: TODO describe this skill
    ---
"""

from collections.abc import Iterator

from workbench.core.lint.context import LintContext
from workbench.core.lint.registry import Finding, rule
from workbench.core.lint.rules._util import PhraseSearch, first_line_of

_PH = PhraseSearch(
    r"\b(todo|tbd|fixme|placeholder|lorem ipsum|replace (?:this |me )?with (?:a |the )?description)\b"
    r"|\[(?:description|insert[^\]]*)\]",
    ("todo", "tbd", "fixme", "placeholder", "lorem ipsum", "replace", "[description", "[insert"),
)


@rule("DESC010", "description-placeholder", "warning")
def check(ctx: LintContext) -> Iterator[Finding]:
    if not ctx.has_fields:
        return
    d = ctx.description_str() or ""
    m = _PH.search(d)
    if m:
        yield Finding(
            first_line_of(ctx.fields["description"].value_span, ctx),
            f"the description contains the placeholder {d[m.start() : m.end()]!r}",
        )
