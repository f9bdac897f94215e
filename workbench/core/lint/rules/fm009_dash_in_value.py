r"""FM009 dash-in-value: ``---`` appears inside a frontmatter value.

skills-ref splits the file with ``content.split("---", 2)``, so ``description: a --- b`` is
silently cut to ``a`` (validators.md 1 "Quirks", 4.2). We deliberately differ from skills-ref:
we read the value whole (as YAML and every client does) and warn, instead of truncating and
reporting the file valid — the ``agentskills`` verdict (no error) stays the same.

PASS:
    ---
    name: pdf-tools
    description: Extracts text from PDF files - use when the user asks to read a PDF.
    ---
FAIL:
    ---
    name: pdf-tools
    description: Extracts text from PDF files --- use when the user asks to read a PDF.
    ---
"""

from collections.abc import Iterator

from workbench.core.lint.context import LintContext
from workbench.core.lint.registry import Finding, rule
from workbench.core.skillfile import Span


@rule("FM009", "dash-in-value", "warning")
def check(ctx: LintContext) -> Iterator[Finding]:
    for ln in ctx.sf.dash_lines:
        s = ctx.get_line(ln)
        c = s.find("---")
        yield Finding(
            Span(ln, c + 1, ln, c + 4),
            "'---' inside a frontmatter value: parsers that split "
            "on '---' (skills-ref) cut the frontmatter here; use '-' or '—'",
        )
