r"""CC011 cc-shell: Claude Code's ``shell`` is not ``bash`` or ``powershell``.

code.claude.com skills docs: ``shell`` (bash | powershell) selects the shell for ``!`cmd```
injections (clients.md 1.2).

PASS (profile=claude-code):
    ---
    name: pdf-tools
    description: Extracts text from PDF files. Use when the user asks to read a PDF.
    shell: powershell
    ---
FAIL (profile=claude-code):
    ---
    name: pdf-tools
    description: Extracts text from PDF files. Use when the user asks to read a PDF.
    shell: zsh
    ---
"""

from collections.abc import Iterator

from workbench.core.lint.context import LintContext
from workbench.core.lint.registry import Finding, rule


@rule("CC011", "cc-shell", "off", profiles={"claude-code": "error"})
def check(ctx: LintContext) -> Iterator[Finding]:
    if ctx.sf.state != "ok":
        return
    f = ctx.field("shell")
    if f is not None and f.value not in ("bash", "powershell"):
        yield Finding(f.value_span, f"shell {f.value!r}: expected bash or powershell")
