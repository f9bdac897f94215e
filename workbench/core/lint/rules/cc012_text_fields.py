r"""CC012 cc-text-field: a Claude Code text field (when_to_use, argument-hint) is not text.

code.claude.com skills docs (clients.md 1.2): ``when_to_use`` is appended to the description in
the listing and ``argument-hint`` is shown in the ``/`` menu; both are strings.

PASS (profile=claude-code):
    ---
    name: pdf-tools
    description: Extracts text from PDF files.
    when_to_use: Use when the user asks to read a PDF.
    ---
FAIL (profile=claude-code):
    ---
    name: pdf-tools
    description: Extracts text from PDF files.
    when_to_use:
      - reading PDFs
    ---
"""

from collections.abc import Iterator

from workbench.core.lint.context import LintContext
from workbench.core.lint.registry import Finding, rule


@rule("CC012", "cc-text-field", "off", profiles={"claude-code": "error", "vscode-copilot": "warning"})
def check(ctx: LintContext) -> Iterator[Finding]:
    if ctx.sf.state != "ok":
        return
    for key in ("when_to_use", "argument-hint"):
        f = ctx.field(key)
        if f is not None and isinstance(f.value, (dict, list)):
            yield Finding(
                f.value_span,
                f"{key} must be text, not a " + ("mapping" if isinstance(f.value, dict) else "list"),
            )
