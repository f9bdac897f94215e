r"""CC004 cc-unreachable: neither the model nor the user can start the skill.

agnix CC-SK-011 (validators.md F4): ``user-invocable: false`` hides it from the ``/`` menu and
``disable-model-invocation: true`` hides it from the model (clients.md 1.2).

PASS (profile=claude-code):
    ---
    name: pdf-tools
    description: Extracts text from PDF files. Use when the user asks to read a PDF.
    user-invocable: false
    ---
FAIL (profile=claude-code):
    ---
    name: pdf-tools
    description: Extracts text from PDF files. Use when the user asks to read a PDF.
    user-invocable: false
    disable-model-invocation: true
    ---
"""

from collections.abc import Iterator

from workbench.core.lint.context import LintContext
from workbench.core.lint.registry import Finding, rule


@rule("CC004", "cc-unreachable", "off", profiles={"claude-code": "error", "vscode-copilot": "warning"})
def check(ctx: LintContext) -> Iterator[Finding]:
    if ctx.sf.state != "ok":
        return
    u, d = ctx.field("user-invocable") or ctx.field("user-invokable"), ctx.field("disable-model-invocation")
    if u is not None and d is not None and u.value is False and d.value is True:
        yield Finding(
            d.key_span,
            "unreachable skill: user-invocable is false and disable-model-invocation "
            "is true, so neither the user nor the model can start it",
        )
