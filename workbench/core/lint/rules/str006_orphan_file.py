r"""STR006 orphan-file: a file in ``scripts/``, ``references/`` or ``assets/`` that SKILL.md never
mentions.

An agent only opens what the body points to (progressive disclosure), so an unmentioned file is
dead weight (validators.md A6; skill-validator, skillscheck 2b.orphan, skillsaw
unreferenced-files). Simplified: the file's name must appear somewhere in SKILL.md (no transitive
references through other files).

PASS (dir=pdf-tools, files=references/forms.md):
    ---
    name: pdf-tools
    description: Extracts text from PDF files. Use when the user asks to read a PDF.
    ---
    For forms read references/forms.md.
FAIL (dir=pdf-tools, files=references/forms.md):
    ---
    name: pdf-tools
    description: Extracts text from PDF files. Use when the user asks to read a PDF.
    ---
    # PDF tools
"""

from collections.abc import Iterator

from workbench.core.lint.context import LintContext
from workbench.core.lint.registry import Finding, rule


@rule("STR006", "orphan-file", "info")
def check(ctx: LintContext) -> Iterator[Finding]:
    folder = ctx.folder()
    if not folder:
        return
    text = ctx.text
    for sub in ("scripts", "references", "assets"):
        for name in folder.get(sub, []):
            if name.endswith("/") or name.startswith(".") or name == "__init__.py":
                continue
            stem = name.rsplit(".", 1)[0]
            if name not in text and f"{sub}/{stem}" not in text:
                yield Finding(
                    ctx.top_span(),
                    f"{sub}/{name} is never mentioned in SKILL.md; an agent will not know to open it",
                )
