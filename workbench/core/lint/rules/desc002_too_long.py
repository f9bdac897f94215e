r"""DESC002 description-too-long: ``description`` is over 1,024 characters.

Spec 1-1024 characters. Units (validators.md D2, section 5): code points of the parsed string —
skills-ref counts it unstripped (a quoted 1,020-character text plus 5 spaces fails), Codex after
collapsing whitespace (profile option ``description_count``); agnix / skill-validator count
bytes (mentioned in the message, never used). Codex refuses to load the skill (error); Claude Code
truncates listings (1,536 with when_to_use), VS Code truncates to 1,024 (warning).

PASS:
    ---
    name: pdf-tools
    description: Extracts text from PDF files. Use when the user asks to read a PDF.
    ---
FAIL:
    ---
    name: pdf-tools
    description: Extracts text from PDF files. Use when the user asks to read a PDF. <<1000 chars>>
    ---
"""

from collections.abc import Iterator

from workbench.core.lint.context import LintContext
from workbench.core.lint.registry import Finding, rule
from workbench.core.lint.rules._util import first_line_of
from workbench.core.skillfile import collapse_ws

LIMIT = 1024


@rule(
    "DESC002",
    "description-too-long",
    "error",
    profiles={
        "claude-code": "warning",
        "vscode-copilot": "warning",
        "openclaw": "warning",
        "opencode": "warning",
        "gemini-cli": "info",
        "cursor": "warning",
    },
)
def check(ctx: LintContext) -> Iterator[Finding]:
    if not ctx.has_fields:
        return
    d = ctx.description_str()
    if not d:
        return
    counted = collapse_ws(d) if ctx.profile.description_count == "collapsed" else d
    n = len(counted)
    if n > LIMIT:
        nb = len(counted.encode("utf-8"))
        extra = f", {nb} bytes" if nb != n else ""
        how = " after collapsing whitespace" if ctx.profile.description_count == "collapsed" else ""
        tail = " — Codex refuses to load the skill" if ctx.profile.id == "codex" else ""
        f = ctx.fields["description"]
        yield Finding(
            first_line_of(f.value_span, ctx),
            f"description is {n} characters{how}{extra}; the limit is {LIMIT}{tail}",
        )
