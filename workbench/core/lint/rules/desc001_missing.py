r"""DESC001 description-missing: ``description`` is absent, empty, or not text.

Spec: required, 1-1024 characters (skills-ref "Missing required field ... description";
quick_validate lets an empty string pass; validators.md D1, 4.2). Codex refuses the skill
("missing field `description`"); OpenClaw and Gemini CLI skip it; Claude Code falls back to the
body's first paragraph (warning); OpenCode (V2) and VS Code load it but never list it (warning).

PASS:
    ---
    name: pdf-tools
    description: Extracts text from PDF files. Use when the user asks to read a PDF.
    ---
FAIL:
    ---
    name: pdf-tools
    description: ""
    ---
"""

from collections.abc import Iterator

from workbench.core.lint.context import LintContext
from workbench.core.lint.registry import Finding, rule
from workbench.core.lint.types import Fix, TextEdit

_WHAT = {
    "claude-code": " (Claude Code then uses the body's first paragraph)",
    "opencode": " (OpenCode loads it but does not list it to the model)",
    "vscode-copilot": " (VS Code loads it but does not list it to the model)",
    "codex": " (Codex refuses to load the skill)",
}


@rule(
    "DESC001",
    "description-missing",
    "error",
    profiles={"claude-code": "warning", "opencode": "warning", "vscode-copilot": "warning"},
)
def check(ctx: LintContext) -> Iterator[Finding]:
    if not ctx.has_fields:
        return
    f = ctx.field("description")
    what = _WHAT.get(ctx.profile.id, "")
    if f is None:
        nf = ctx.field("name")
        fix = None
        if nf is not None and nf.value_span.end_line == nf.key_span.line:
            ln = nf.value_span.end_line + 1
            fix = Fix(
                "Add a description",
                [
                    TextEdit(
                        ln, 1, ln, 1, 'description: "Describe what this skill does and when to use it."\n'
                    )
                ],
            )
        yield Finding(
            nf.key_span if nf else ctx.line_span(1), "missing required field 'description'" + what, fix
        )
    elif isinstance(f.value, (dict, list)):
        yield Finding(
            f.value_span,
            "description must be text, not a " + ("mapping" if isinstance(f.value, dict) else "list") + what,
        )
    elif not (ctx.description_str() or "").strip():
        yield Finding(f.value_span if f.value is not None else f.key_span, "description is empty" + what)
