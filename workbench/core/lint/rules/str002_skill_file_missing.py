r"""STR002 skill-file-missing: a folder given to lint holds no ``SKILL.md``.

skills-ref ``validate``: "Missing required file: SKILL.md" (validators.md A2). Reported by
``lint_paths`` for a folder with no SKILL.md below it (keyed by the folder), never by
``lint_text``.

PASS (dir=pdf-tools):
    ---
    name: pdf-tools
    description: Extracts text from PDF files. Use when the user asks to read a PDF.
    ---
FAIL (dir=pdf-tools, file=README.md):
    # Not a skill file
"""

from collections.abc import Iterable

from workbench.core.lint.context import LintContext
from workbench.core.lint.registry import Finding, rule


@rule("STR002", "skill-file-missing", "error")
def check(ctx: LintContext) -> Iterable[Finding]:
    return ()  # emitted by engine.lint_paths for folders
