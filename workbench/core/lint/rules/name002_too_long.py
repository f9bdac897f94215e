r"""NAME002 name-too-long: ``name`` is longer than 64 characters (code points, after NFKC).

Spec 1-64 characters; skills-ref and Codex count characters, agnix and skill-validator bytes
(validators.md C2). Codex refuses the skill (``MAX_NAME_LEN`` counted after plugin namespacing,
clients.md 2.2); VS Code truncates to 64.

PASS:
    ---
    name: pdf-tools
    description: Extracts text from PDF files. Use when the user asks to read a PDF.
    ---
FAIL:
    ---
    name: a-very-long-skill-name-that-goes-on-and-on-and-on-well-past-the-limit-of-sixty-four
    description: Extracts text from PDF files. Use when the user asks to read a PDF.
    ---
"""

from collections.abc import Iterator

from workbench.core.lint.context import LintContext
from workbench.core.lint.registry import Finding, rule


@rule(
    "NAME002",
    "name-too-long",
    "error",
    profiles={
        "claude-code": "warning",
        "openclaw": "warning",
        "vscode-copilot": "warning",
        "gemini-cli": "info",
        "opencode": "info",
    },
)
def check(ctx: LintContext) -> Iterator[Finding]:
    if not ctx.has_fields:
        return
    name = ctx.name_str()
    if name and len(name) > 64:
        f = ctx.fields["name"]
        nbytes = len(name.encode("utf-8"))
        extra = f" ({nbytes} bytes)" if nbytes != len(name) else ""
        yield Finding(f.value_span, f"name is {len(name)} characters{extra}; the limit is 64")
