r"""DESC009 duplicate-description: another skill in the catalog has the same description.

skillscheck 1g.duplicate-description (validators.md D11): the agent cannot tell the two apart.
Compared after collapsing whitespace and case. Needs a catalog (``lint_paths`` passes the files
linted together).

PASS (dir=pdf-tools, catalog=other-skill=Reads Word documents. Use when the user asks for a .docx file.):
    ---
    name: pdf-tools
    description: Extracts text from PDF files. Use when the user asks to read a PDF.
    ---
FAIL (dir=pdf-tools, catalog=pdf-reader=Extracts text from PDF files. Use when the user asks to read a PDF.):
    ---
    name: pdf-tools
    description: Extracts text from PDF files. Use when the user asks to read a PDF.
    ---
"""

from collections.abc import Iterator

from workbench.core.lint.context import LintContext
from workbench.core.lint.registry import Finding, rule
from workbench.core.lint.rules._util import first_line_of
from workbench.core.skillfile import collapse_ws


@rule("DESC009", "duplicate-description", "warning")
def check(ctx: LintContext) -> Iterator[Finding]:
    if not ctx.has_fields or not ctx.catalog:
        return
    d = collapse_ws(ctx.description_str() or "").casefold()
    if not d:
        return
    dups = ctx.others(ctx.catalog.by_desc.get(d, ()), limit=3)
    if dups:
        where = ", ".join(f"{e.name!r}" + (f" ({e.path})" if e.path else "") for e in dups[:3])
        yield Finding(
            first_line_of(ctx.field("description").value_span, ctx),  # type: ignore[union-attr]
            f"the same description is used by {where}; the agent cannot tell them apart",
        )
