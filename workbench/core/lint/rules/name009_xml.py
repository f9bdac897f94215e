r"""NAME009 name-xml: ``name`` contains an XML tag.

Anthropic platform rule ("cannot contain XML tags", platform.claude.com agent-skills overview;
validators.md C9): error in ``claude-api``, off elsewhere (the charset rule NAME004 already
rejects ``<``).

PASS (profile=claude-api, dir=pdf-tools):
    ---
    name: pdf-tools
    description: Extracts text from PDF files. Use when the user asks to read a PDF.
    ---
FAIL (profile=claude-api):
    ---
    name: <b>pdf</b>
    description: Extracts text from PDF files. Use when the user asks to read a PDF.
    ---
"""

import re
from collections.abc import Iterator

from workbench.core.lint.context import LintContext
from workbench.core.lint.registry import Finding, rule

_TAG = re.compile(r"<[^>]+>")


@rule("NAME009", "name-xml", "off", profiles={"claude-api": "error"})
def check(ctx: LintContext) -> Iterator[Finding]:
    if not ctx.has_fields:
        return
    name = ctx.name_str() or ""
    if _TAG.search(name):
        yield Finding(ctx.fields["name"].value_span, "name cannot contain XML tags")
