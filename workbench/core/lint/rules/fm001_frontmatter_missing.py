r"""FM001 frontmatter-missing: the file does not start with a ``---`` line.

Every validator and client needs the frontmatter at byte 0 (validators.md B1: skills-ref "must
start with YAML frontmatter (---)", Codex "first line trimmed == ---", Gemini CLI regex
``^---``). Claude Code still loads the skill with the folder name and the body's first line as
description (clients.md 1.2), hence a warning there. Quick fixes: delete blank lines or
indentation before ``---``, or insert a frontmatter block.

PASS:
    ---
    name: pdf-tools
    description: Extracts text from PDF files. Use when the user asks to read a PDF.
    ---
FAIL:
    # PDF tools
    Extracts text from PDF files.
"""

from collections.abc import Iterator

from workbench.core.lint.context import LintContext
from workbench.core.lint.registry import Finding, rule
from workbench.core.lint.rules._util import slugify
from workbench.core.lint.types import Fix, TextEdit
from workbench.core.skillfile import Span


@rule("FM001", "frontmatter-missing", "error", profiles={"claude-code": "warning"})
def check(ctx: LintContext) -> Iterator[Finding]:
    sf = ctx.sf
    if sf.state != "no-frontmatter":
        return
    lines = ctx.lines
    first = lines[0] if lines else ""
    fix = None
    if first.strip() == "---":
        fix = Fix("Remove the indentation before '---'", [TextEdit(1, 1, 1, len(first) + 1, "---")])
    else:
        j = 0
        while j < len(lines) and not lines[j].strip():
            j += 1
        if 0 < j < len(lines) and lines[j].rstrip() == "---":
            fix = Fix("Remove the blank lines before '---'", [TextEdit(1, 1, j + 1, 1, "")])
    if fix is None:
        name = ctx.dir_name or slugify(sf.first_body_line()) or "my-skill"
        desc = (
            sf.first_body_paragraph().replace('"', "'")[:200]
            or "Describe what this skill does and when to use it."
        )
        fix = Fix(
            "Insert a frontmatter block",
            [TextEdit(1, 1, 1, 1, f'---\nname: {name}\ndescription: "{desc}"\n---\n')],
        )
    yield Finding(sf.error_span or Span(1, 1, 1, 2), sf.message or "no frontmatter", fix)
