r"""NAME001 name-missing: ``name`` is absent, empty, or not text.

Spec: required (skills-ref "Missing required field in frontmatter: name", validators.md C1).
Clients differ (clients.md 8 "Name rule"): Claude Code, Codex, OpenClaw and VS Code (newest)
fall back to the folder name (info); Gemini CLI and OpenCode need a string name and skip the skill
otherwise (error); Cursor requires it (error).

PASS:
    ---
    name: pdf-tools
    description: Extracts text from PDF files. Use when the user asks to read a PDF.
    ---
FAIL:
    ---
    description: Extracts text from PDF files. Use when the user asks to read a PDF.
    ---
"""

from collections.abc import Iterator

from workbench.core.lint.context import LintContext
from workbench.core.lint.registry import Finding, rule
from workbench.core.lint.types import Fix, TextEdit


@rule(
    "NAME001",
    "name-missing",
    "error",
    profiles={"claude-code": "info", "codex": "info", "openclaw": "info", "vscode-copilot": "info"},
)
def check(ctx: LintContext) -> Iterator[Finding]:
    if not ctx.has_fields:
        return
    f = ctx.field("name")
    if f is not None and isinstance(f.value, str) and f.value.strip() and (ctx.name_str() or ""):
        return  # the usual file: a non-empty text name
    fallback = f" (this client then uses the folder name{' ' + repr(ctx.dir_name) if ctx.dir_name else ''})"
    if f is None:
        fix = None
        if ctx.dir_name:
            fix = Fix(f"Add 'name: {ctx.dir_name}'", [TextEdit(2, 1, 2, 1, f"name: {ctx.dir_name}\n")])
        yield Finding(ctx.line_span(1), "missing required field 'name'" + fallback, fix)
    elif isinstance(f.value, (dict, list)):
        yield Finding(
            f.value_span, "name must be text, not a " + ("mapping" if isinstance(f.value, dict) else "list")
        )
    elif not (ctx.name_str() or ""):
        yield Finding(f.value_span if f.value is not None else f.key_span, "name is empty" + fallback)
