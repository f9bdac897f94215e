r"""FLD007 allowed-tools-bash-unscoped: ``Bash`` allowed without a command pattern.

agnix CC-SK-007 (validators.md E5): ``Bash`` pre-approves every shell command while the skill is
active; scope it (``Bash(git:*)``). Claude Code only.

PASS (profile=claude-code):
    ---
    name: pdf-tools
    description: Extracts text from PDF files. Use when the user asks to read a PDF.
    allowed-tools: Bash(pdftotext:*) Read
    ---
FAIL (profile=claude-code):
    ---
    name: pdf-tools
    description: Extracts text from PDF files. Use when the user asks to read a PDF.
    allowed-tools: Bash Read
    ---
"""

import re
from collections.abc import Iterator

from workbench.core.lint.context import LintContext
from workbench.core.lint.registry import Finding, rule

_BARE = re.compile(r"(?<![\w(])Bash(?![\w(])")


@rule("FLD007", "allowed-tools-bash-unscoped", "off", profiles={"claude-code": "warning"})
def check(ctx: LintContext) -> Iterator[Finding]:
    if ctx.sf.state != "ok":
        return
    f = ctx.field("allowed-tools")
    if f is None:
        return
    v = f.value
    text = (
        " ".join(x for x in v if isinstance(x, str))
        if isinstance(v, list)
        else v
        if isinstance(v, str)
        else ""
    )
    if _BARE.search(text):
        yield Finding(
            f.value_span,
            "'Bash' without a pattern pre-approves every shell command; scope it, e.g. 'Bash(git:*)'",
        )
