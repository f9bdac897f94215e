r"""CC003 cc-boolean: ``disable-model-invocation`` / ``user-invocable`` are not real booleans.

agnix CC-SK-014/015 (validators.md F3): ``"true"`` in quotes is a string and the flag silently
does nothing. Also ``yes``/``on``: PyYAML reads them as booleans, but YAML 1.2 readers (Claude
Code's JavaScript parser) read them as strings. Quick fix: write ``true``/``false``. Error in
``claude-code``; warning in OpenClaw, VS Code and Cursor, which read the same flags.

PASS (profile=claude-code):
    ---
    name: pdf-tools
    description: Extracts text from PDF files. Use when the user asks to read a PDF.
    disable-model-invocation: true
    ---
FAIL (profile=claude-code):
    ---
    name: pdf-tools
    description: Extracts text from PDF files. Use when the user asks to read a PDF.
    disable-model-invocation: "true"
    ---
"""

from collections.abc import Iterator

from workbench.core.lint.context import LintContext
from workbench.core.lint.registry import Finding, rule
from workbench.core.lint.rules._util import replace_value

FLAGS = ("disable-model-invocation", "user-invocable", "user-invokable")
_TRUE = {"true", "yes", "on", "y"}
_FALSE = {"false", "no", "off", "n"}


@rule(
    "CC003",
    "cc-boolean",
    "off",
    profiles={
        "claude-code": "error",
        "openclaw": "warning",
        "vscode-copilot": "warning",
        "cursor": "warning",
    },
)
def check(ctx: LintContext) -> Iterator[Finding]:
    if ctx.sf.state != "ok":
        return
    for key in FLAGS:
        f = ctx.field(key)
        if f is None:
            continue
        src = ctx.scalar_source(f)
        if isinstance(f.value, bool) and src is not None and src.lower() in ("true", "false"):
            continue
        low = (src or "").strip().lower()
        fixed = "true" if low in _TRUE else "false" if low in _FALSE else None
        fix = replace_value(f, fixed, f"Write {fixed}") if fixed else None
        yield Finding(
            f.value_span,
            f"{key} must be true or false (unquoted); {src!r} is not read as a boolean by every client",
            fix,
        )
