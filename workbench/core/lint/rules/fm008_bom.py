r"""FM008 bom: the file starts with a UTF-8 byte order mark.

skills-ref: "must start with YAML frontmatter (---)" (validators.md 4.2 "BOM"); Codex 0.111 failed
on a BOM (clients.md 2.2, third-party report: unverified); Gemini CLI's ``^---`` regex does not
match after a BOM. Under a client profile the severity follows the client
(``_util.fallback_severity``): a warning when that client still reads the file (OpenClaw, OpenCode,
VS Code), an error when it skips it. Quick fix: remove the BOM.

PASS:
    ---
    name: pdf-tools
    description: Extracts text from PDF files. Use when the user asks to read a PDF.
    ---
FAIL:
    \ufeff---
    name: pdf-tools
    description: Extracts text from PDF files. Use when the user asks to read a PDF.
    ---
"""

from collections.abc import Iterator

from workbench.core.lint.context import LintContext
from workbench.core.lint.registry import Finding, rule
from workbench.core.lint.rules._util import fallback_severity
from workbench.core.lint.types import Fix, TextEdit
from workbench.core.skillfile import Span


@rule("FM008", "bom", "error", profiles={"claude-code": "warning"})
def check(ctx: LintContext) -> Iterator[Finding]:
    if ctx.sf.has_bom:
        severity, message = fallback_severity(
            ctx,
            "the file starts with a byte order mark (BOM); several clients then do not see the frontmatter",
        )
        yield Finding(
            Span(1, 1, 1, 1), message, Fix("Remove the BOM", [TextEdit(1, 0, 1, 1, "")]), severity=severity
        )
