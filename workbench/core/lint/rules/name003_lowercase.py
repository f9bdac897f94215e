r"""NAME003 name-lowercase: ``name`` has uppercase letters.

skills-ref: ``name != name.lower()`` (Unicode-aware) -> "must be lowercase" (validators.md C3,
tests ``MySkill``, ``НАВЫК``). Codex, Gemini CLI and OpenCode accept any case (info); Claude Code,
OpenClaw (install-time check) and VS Code document lowercase (warning). Quick fix: lowercase and
hyphenate.

PASS (dir=my-skill):
    ---
    name: my-skill
    description: Extracts text from PDF files. Use when the user asks to read a PDF.
    ---
FAIL (dir=my-skill):
    ---
    name: MySkill
    description: Extracts text from PDF files. Use when the user asks to read a PDF.
    ---
"""

from collections.abc import Iterator

from workbench.core.lint.context import FieldView, LintContext
from workbench.core.lint.registry import Finding, rule
from workbench.core.lint.rules._util import replace_value, slugify
from workbench.core.lint.types import Fix

NAME_SEVERITIES = {
    "claude-code": "warning",
    "openclaw": "warning",
    "vscode-copilot": "warning",
    "codex": "info",
    "gemini-cli": "info",
    "opencode": "info",
}


def name_fix(ctx: LintContext, f: FieldView) -> Fix | None:
    """The fix renaming the ``name`` field ``f`` to the slug of the name (``slugify``), or None when
    the slug is empty or already the value. Shared by NAME003-NAME006."""
    fixed = slugify(ctx.name_str() or "", ctx.profile.unicode_names)
    if fixed and fixed != f.value:
        return replace_value(f, fixed, f"Change the name to '{fixed}'")
    return None


@rule("NAME003", "name-lowercase", "error", profiles=NAME_SEVERITIES)
def check(ctx: LintContext) -> Iterator[Finding]:
    if not ctx.has_fields:
        return
    name = ctx.name_str()
    if name and name != name.lower():
        f = ctx.fields["name"]
        yield Finding(f.value_span, f"name {name!r} must be lowercase", name_fix(ctx, f))
