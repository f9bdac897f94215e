r"""STR001 skill-file-case: the skill file is not named exactly ``SKILL.md``.

skills-ref accepts ``skill.md`` (parser.py ``find_skill_md``), but Anthropic's quick_validate /
package_skill and Codex need the exact name, and the Anthropic guide says "SKILL.md must be
exact case" (validators.md A2). Error under every client profile (the file is not found);
warning under ``agentskills``, whose reference implementation accepts it.

PASS (dir=pdf-tools):
    ---
    name: pdf-tools
    description: Extracts text from PDF files. Use when the user asks to read a PDF.
    ---
    # PDF tools
FAIL (dir=pdf-tools, file=skill.md):
    ---
    name: pdf-tools
    description: Extracts text from PDF files. Use when the user asks to read a PDF.
    ---
    # PDF tools
"""

from collections.abc import Iterator

from workbench.core.lint.context import LintContext
from workbench.core.lint.registry import Finding, rule


@rule("STR001", "skill-file-case", "error", profiles={"agentskills": "warning"})
def check(ctx: LintContext) -> Iterator[Finding]:
    if ctx.path is not None and ctx.path.name != "SKILL.md" and ctx.path.name.lower() == "skill.md":
        yield Finding(
            ctx.top_span(),
            f"the file is named {ctx.path.name!r}; most clients only "
            "find a file named exactly 'SKILL.md' (rename it)",
        )
