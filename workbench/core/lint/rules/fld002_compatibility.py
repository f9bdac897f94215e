r"""FLD002 compatibility-invalid: ``compatibility`` is not text, is over 500 characters, or is empty.

Spec: optional, 1-500 characters (validators.md E1, E2): skills-ref / quick_validate reject a
non-string or over 500; agnix / skillscheck also an empty value. skills-ref accepts
``compatibility: ""`` (4.2): we deliberately report it only as a warning, so the ``agentskills``
verdict still matches skills-ref.

PASS:
    ---
    name: pdf-tools
    description: Extracts text from PDF files. Use when the user asks to read a PDF.
    compatibility: Requires Python 3.11+
    ---
FAIL:
    ---
    name: pdf-tools
    description: Extracts text from PDF files. Use when the user asks to read a PDF.
    compatibility:
      python: 3.11
    ---
"""

from collections.abc import Iterator

from workbench.core.lint.context import LintContext
from workbench.core.lint.registry import Finding, rule
from workbench.core.lint.rules._util import first_line_of
from workbench.core.lint.types import WARNING


@rule(
    "FLD002",
    "compatibility-invalid",
    "error",
    profiles={
        "claude-code": "warning",
        "codex": "info",
        "gemini-cli": "info",
        "openclaw": "warning",
        "vscode-copilot": "warning",
    },
)
def check(ctx: LintContext) -> Iterator[Finding]:
    f = ctx.field("compatibility")
    if f is None or not ctx.has_fields:
        return
    v = f.value
    if v is None or (isinstance(v, str) and not v.strip()):
        yield Finding(
            f.value_span,
            "compatibility is empty; remove it or say what the skill needs (1-500 characters)",
            severity=WARNING,
        )
        return
    if isinstance(v, (dict, list)):
        yield Finding(
            f.value_span,
            "compatibility must be text (1-500 characters), not a "
            + ("mapping" if isinstance(v, dict) else "list"),
        )
        return
    s = v if isinstance(v, str) else (ctx.scalar_source(f) or "")
    if len(s) > 500:
        yield Finding(
            first_line_of(f.value_span, ctx), f"compatibility is {len(s)} characters; the limit is 500"
        )
