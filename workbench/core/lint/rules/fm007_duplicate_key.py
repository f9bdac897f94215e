r"""FM007 duplicate-key: a top-level key is defined twice.

skills-ref (strictyaml) rejects it; PyYAML, js-yaml and most clients silently keep the last one
(validators.md B5, 4.2 "name: s twice"), so the first value is dead text.

PASS:
    ---
    name: pdf-tools
    description: Extracts text from PDF files. Use when the user asks to read a PDF.
    ---
FAIL:
    ---
    name: pdf-tools
    name: pdf-tools
    description: Extracts text from PDF files. Use when the user asks to read a PDF.
    ---
"""

from collections.abc import Iterator

from workbench.core.lint.context import LintContext
from workbench.core.lint.registry import Finding, rule


@rule("FM007", "duplicate-key", "warning", profiles={"agentskills": "error"})
def check(ctx: LintContext) -> Iterator[Finding]:
    for key, span in ctx.sf.duplicate_keys:
        yield Finding(
            span,
            f"key {key!r} is defined more than once; YAML keeps only the last value "
            "(strict parsers such as skills-ref reject the file)",
        )
