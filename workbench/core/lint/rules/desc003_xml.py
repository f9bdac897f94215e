r"""DESC003 description-xml: ``<`` or ``>`` in the description.

quick_validate rejects any angle bracket and agnix AS-009 any ``<tag>`` because the description
lands in the system prompt (Anthropic overview; validators.md D3); skills-ref accepts it
(4.2 ``Use <b>x</b>``). Platform rule: error in ``claude-api``, warning elsewhere; VS Code strips
tags from descriptions (clients.md 6.2), Gemini CLI and OpenCode do not escape them.

PASS:
    ---
    name: pdf-tools
    description: Extracts text from PDF files. Use when the user asks to read a PDF.
    ---
FAIL:
    ---
    name: pdf-tools
    description: Use <b>only</b> for PDF files.
    ---
"""

from collections.abc import Iterator

from workbench.core.lint.context import LintContext
from workbench.core.lint.registry import Finding, rule
from workbench.core.lint.rules._util import first_line_of


@rule("DESC003", "description-xml", "warning", profiles={"claude-api": "error"})
def check(ctx: LintContext) -> Iterator[Finding]:
    if not ctx.has_fields:
        return
    d = ctx.description_str() or ""
    if "<" in d or ">" in d:
        f = ctx.fields["description"]
        span = f.value_span
        if span.line == span.end_line:  # point at the first bracket when on one line
            line = ctx.get_line(span.line) if span.line > 0 else ctx.lines[span.line - 1]
            seg = line[span.column - 1 : span.end_column - 1]
            i = min((seg.find(c) for c in "<>" if c in seg), default=-1)
            if i >= 0:
                span = type(span)(span.line, span.column + i, span.line, span.column + i + 1)
        extra = " (VS Code strips tags)" if ctx.profile.id == "vscode-copilot" else ""
        yield Finding(
            first_line_of(span, ctx),
            "angle brackets in the description: it is placed in the "
            "system prompt, and claude.ai/the API and quick_validate reject XML there" + extra,
        )
