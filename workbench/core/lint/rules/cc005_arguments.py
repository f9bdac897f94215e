r"""CC005 cc-arguments: ``argument-hint`` and ``$ARGUMENTS`` do not go together.

agnix CC-SK-012/016 (validators.md F5): an ``argument-hint`` with no ``$ARGUMENTS`` / ``$N`` in
the body (Claude Code then appends "ARGUMENTS: ..." itself, clients.md 1.5), or ``$ARGUMENTS[N]`` /
``$N`` used with no ``argument-hint`` to tell the user what to pass.

PASS (profile=claude-code):
    ---
    name: pdf-tools
    description: Extracts text from PDF files. Use when the user asks to read a PDF.
    argument-hint: <file.pdf>
    ---
    Extract the text of $ARGUMENTS.
FAIL (profile=claude-code):
    ---
    name: pdf-tools
    description: Extracts text from PDF files. Use when the user asks to read a PDF.
    argument-hint: <file.pdf>
    ---
    Extract the text of the file.
"""

import re
from collections.abc import Iterator

from workbench.core.lint.context import LintContext
from workbench.core.lint.registry import Finding, rule

_ARGS = re.compile(r"\$(ARGUMENTS\b(\[\d+\])?|\d\b)")


@rule("CC005", "cc-arguments", "off", profiles={"claude-code": "warning"})
def check(ctx: LintContext) -> Iterator[Finding]:
    if ctx.sf.state != "ok":
        return
    hint = ctx.field("argument-hint")
    body = ctx.body
    m = _ARGS.search(body) if "$" in body else None
    if hint is not None and m is None and ctx.field("arguments") is None:
        yield Finding(
            hint.key_span, "argument-hint is set but the body never uses $ARGUMENTS (or $0, $1 ...)"
        )
    if hint is None and m is not None and (m.group(2) or m.group(1)[0].isdigit()):
        yield Finding(
            ctx.span(ctx.body_offset + m.start(), ctx.body_offset + m.end()),
            f"{m.group(0)} is used but there is no argument-hint telling the user what to pass",
        )
