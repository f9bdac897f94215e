r"""BODY003 body-empty: nothing after the frontmatter.

skillscheck warns on an empty body (validators.md G3): loading the skill gives the agent no
instructions.

PASS:
    ---
    name: pdf-tools
    description: Extracts text from PDF files. Use when the user asks to read a PDF.
    ---
    Run `pdftotext file.pdf -` and read the output.
FAIL:
    ---
    name: pdf-tools
    description: Extracts text from PDF files. Use when the user asks to read a PDF.
    ---
"""

import re
from collections.abc import Iterator

from workbench.core.lint.context import LintContext
from workbench.core.lint.registry import Finding, rule

#: A character ``str.isspace`` calls no space (``\s`` of a str pattern is ``Py_UNICODE_ISSPACE``,
#: what ``isspace`` tests): the body is blank when none follows its start.
_NOT_SPACE = re.compile(r"\S")


@rule("BODY003", "body-empty", "warning")
def check(ctx: LintContext) -> Iterator[Finding]:
    if ctx.sf.state not in ("ok", "yaml-error", "not-mapping", "empty"):
        return
    # = not body.strip(), searched from the body's start in the whole text (no copy)
    if _NOT_SPACE.search(ctx.text, ctx.body_offset) is None:
        ln = ctx.sf.close_line or 1
        yield Finding(
            ctx.line_span(ln), "the body is empty: loading the skill gives the agent no instructions"
        )
