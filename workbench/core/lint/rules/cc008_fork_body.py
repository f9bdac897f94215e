r"""CC008 cc-fork-body: ``context: fork`` with (almost) no instructions in the body.

With ``context: fork`` the body becomes the subagent's prompt (clients.md 1.5); agnix CC-SK-013
warns when it holds no imperative instructions (validators.md F8). Simplified: fewer than 8 words.

PASS (profile=claude-code):
    ---
    name: pdf-tools
    description: Extracts text from PDF files. Use when the user asks to read a PDF.
    context: fork
    agent: Explore
    ---
    Find every PDF under docs/, extract its text and write a summary of each.
FAIL (profile=claude-code):
    ---
    name: pdf-tools
    description: Extracts text from PDF files. Use when the user asks to read a PDF.
    context: fork
    agent: Explore
    ---
    # PDF tools
"""

import re
from collections.abc import Iterator

from workbench.core.lint.context import LintContext
from workbench.core.lint.registry import Finding, rule


@rule("CC008", "cc-fork-body", "off", profiles={"claude-code": "warning"})
def check(ctx: LintContext) -> Iterator[Finding]:
    if ctx.sf.state != "ok":
        return
    c = ctx.field("context")
    if c is None or c.value != "fork":
        return
    words = re.findall(r"[A-Za-z]{2,}", re.sub(r"(?m)^#.*$", "", ctx.body))
    if len(words) < 8:
        yield Finding(
            c.value_span,
            "context: fork runs the body as the subagent's task, but the body has almost no instructions",
        )
