r"""NAME008 name-reserved-word: ``name`` contains "anthropic" or "claude".

Anthropic platform rule (platform.claude.com agent-skills overview: the name "cannot contain"
these words; claude.ai and the API reportedly refuse it, Claude Code accepts it; agnix AS-007
only flags exact matches) — validators.md C8 and section 5: an error only in ``claude-api``,
info in ``claude-code``, off elsewhere.

PASS (profile=claude-api, dir=pdf-tools):
    ---
    name: pdf-tools
    description: Extracts text from PDF files. Use when the user asks to read a PDF.
    ---
FAIL (profile=claude-api, dir=claude-helper):
    ---
    name: claude-helper
    description: Extracts text from PDF files. Use when the user asks to read a PDF.
    ---
"""

from collections.abc import Iterator

from workbench.core.lint.context import LintContext
from workbench.core.lint.registry import Finding, rule


@rule("NAME008", "name-reserved-word", "off", profiles={"claude-api": "error", "claude-code": "info"})
def check(ctx: LintContext) -> Iterator[Finding]:
    if not ctx.has_fields:
        return
    name = (ctx.name_str() or "").lower()
    for word in ("anthropic", "claude"):
        if word in name:
            f = ctx.fields["name"]
            yield Finding(
                f.value_span,
                f"name contains the reserved word {word!r}; claude.ai and the Claude API refuse such skills",
            )
            return
