r"""CC006 cc-command-injection: ``!`command``` lines in the body.

Claude Code runs each ``!`cmd``` before the model sees the body and replaces it with the output
(clients.md 1.5); agnix CC-SK-009 warns above 3 of them and skillsaw asks for an allowlist
(validators.md F6). In ``claude-code``: a warning when there are more than 3. Other clients do
not run them (the model sees the raw text): info, once.

PASS (profile=claude-code):
    ---
    name: pdf-tools
    description: Extracts text from PDF files. Use when the user asks to read a PDF.
    ---
    Current branch: !`git branch --show-current`
FAIL (profile=claude-code):
    ---
    name: pdf-tools
    description: Extracts text from PDF files. Use when the user asks to read a PDF.
    ---
    !`git status`
    !`git log -5`
    !`git diff`
    !`ls -la`
"""

import re
from collections.abc import Iterator

from workbench.core.lint.context import LintContext
from workbench.core.lint.registry import Finding, rule

_INJ = re.compile(r"(?<![\w`\\])!`[^`\n]+`")


@rule("CC006", "cc-command-injection", "info", profiles={"claude-code": "warning", "agentskills": "off"})
def check(ctx: LintContext) -> Iterator[Finding]:
    body = ctx.body
    if "!`" not in body:
        return
    hits = [m for m in _INJ.finditer(body) if not ctx.in_code(ctx.body_offset + m.start())]
    if not hits:
        return
    base = ctx.body_offset
    if ctx.profile.id == "claude-code":
        if len(hits) > 3:
            m = hits[3]
            yield Finding(
                ctx.span(base + m.start(), base + m.end()),
                f"{len(hits)} !`command` injections run "
                "before every use of this skill; keep it to 3 or fewer and scope them in allowed-tools",
            )
    else:
        m = hits[0]
        yield Finding(
            ctx.span(base + m.start(), base + m.end()),
            f"!`command` injection: only Claude Code runs "
            f"these; {ctx.profile.title} shows the model the raw text",
        )
