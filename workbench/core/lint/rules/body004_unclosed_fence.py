r"""BODY004 unclosed-fence: a fenced code block is never closed.

skill-validator and skillscheck 2d (error), skillsaw (warning) (validators.md G4): the rest of
the file renders, and reads, as code. Quick fix: close it at the end of the file.

PASS:
    ---
    name: pdf-tools
    description: Extracts text from PDF files. Use when the user asks to read a PDF.
    ---
    ```bash
    pdftotext file.pdf -
    ```
FAIL:
    ---
    name: pdf-tools
    description: Extracts text from PDF files. Use when the user asks to read a PDF.
    ---
    ```bash
    pdftotext file.pdf -
"""

from collections.abc import Iterator

from workbench.core.lint.context import LintContext
from workbench.core.lint.registry import Finding, rule
from workbench.core.lint.types import Fix, TextEdit


@rule("BODY004", "unclosed-fence", "warning")
def check(ctx: LintContext) -> Iterator[Finding]:
    fence = ctx.unclosed_fence()  # (only the last block can be unclosed)
    if fence is None:
        return
    line = ctx.lines[fence.line - 1]
    last = len(ctx.lines)
    end = len(ctx.lines[-1]) + 1
    prefix = "\n" if ctx.lines[-1] else ""
    fix = Fix(
        "Close the code block at the end of the file",
        [TextEdit(last, end, last, end, prefix + fence.marker + "\n")],
    )
    yield Finding(
        ctx.line_span(fence.line) if line else ctx.line_span(fence.line),
        f"code block opened with {fence.marker} on line {fence.line} is never closed",
        fix,
    )
