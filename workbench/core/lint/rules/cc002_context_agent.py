r"""CC002 cc-context-agent: Claude Code's ``context`` / ``agent`` fields do not fit together.

agnix CC-SK-002..005 (validators.md F2): ``context`` must be ``fork``; an ``agent`` without
``context: fork`` is ignored; ``agent`` is Explore, Plan, general-purpose or a kebab-case agent
name. ``context: fork`` without ``agent`` is reported by agnix as an error; the docs say a default
agent is used, so this is only a warning here (unverified).

PASS (profile=claude-code):
    ---
    name: pdf-tools
    description: Extracts text from PDF files. Use when the user asks to read a PDF.
    context: fork
    agent: Explore
    ---
    Read every PDF under docs/ and summarise it.
FAIL (profile=claude-code):
    ---
    name: pdf-tools
    description: Extracts text from PDF files. Use when the user asks to read a PDF.
    agent: Explore
    ---
"""

import re
from collections.abc import Iterator

from workbench.core.lint.context import LintContext
from workbench.core.lint.registry import Finding, rule
from workbench.core.lint.types import WARNING

_AGENT = re.compile(r"Explore|Plan|general-purpose|[a-z0-9]+(-[a-z0-9]+)*")


@rule("CC002", "cc-context-agent", "off", profiles={"claude-code": "error"})
def check(ctx: LintContext) -> Iterator[Finding]:
    if ctx.sf.state != "ok":
        return
    c, a = ctx.field("context"), ctx.field("agent")
    if c is not None and c.value != "fork":
        yield Finding(c.value_span, f"context {c.value!r}: the only value is 'fork'")
    if a is not None:
        if not isinstance(a.value, str) or not _AGENT.fullmatch(a.value):
            yield Finding(
                a.value_span,
                f"agent {a.value!r} is not Explore, Plan, general-purpose or a kebab-case agent name",
            )
        if c is None or c.value != "fork":
            yield Finding(a.key_span, "agent only applies with 'context: fork'; it is ignored")
    elif c is not None and c.value == "fork":
        yield Finding(
            c.value_span,
            "context: fork without an agent (the default agent is used; unverified)",
            severity=WARNING,
        )
