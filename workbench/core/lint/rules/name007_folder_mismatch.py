r"""NAME007 name-folder-mismatch: ``name`` differs from the skill folder's name.

Spec: must equal the parent directory; skills-ref compares after NFKC normalisation and strip
(``name: 's '`` matches ``s``; precomposed ``café`` matches ``cafe\u0301``) (validators.md A3, C7).
Cursor requires it; older VS Code builds skip the skill and newer ones use the folder name
(warning); Claude Code, Codex, OpenClaw, Gemini CLI and OpenCode use the frontmatter name
(info). Needs a path. Quick fix: rename to the folder name (when that is a valid name).

PASS (dir=pdf-tools):
    ---
    name: pdf-tools
    description: Extracts text from PDF files. Use when the user asks to read a PDF.
    ---
FAIL (dir=wrong-name):
    ---
    name: correct-name
    description: Extracts text from PDF files. Use when the user asks to read a PDF.
    ---
"""

import unicodedata
from collections.abc import Iterator

from workbench.core.lint.context import LintContext
from workbench.core.lint.registry import Finding, rule
from workbench.core.lint.rules._util import replace_value, valid_name


@rule(
    "NAME007",
    "name-folder-mismatch",
    "error",
    profiles={
        "claude-code": "info",
        "codex": "info",
        "openclaw": "info",
        "gemini-cli": "info",
        "opencode": "info",
        "vscode-copilot": "warning",
        "claude-api": "warning",
    },
)
def check(ctx: LintContext) -> Iterator[Finding]:
    if not ctx.has_fields or not ctx.dir_name:
        return
    name = ctx.name_str()
    if not name:
        return
    d = unicodedata.normalize("NFKC", ctx.dir_name).strip()
    if name != d:
        f = ctx.fields["name"]
        fix = None
        if valid_name(d, ctx.profile.unicode_names):
            fix = replace_value(f, ctx.dir_name, f"Rename to the folder name '{ctx.dir_name}'")
        yield Finding(f.value_span, f"name {name!r} does not match the folder name {ctx.dir_name!r}", fix)
