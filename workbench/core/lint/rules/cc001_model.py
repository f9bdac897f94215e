r"""CC001 cc-model: Claude Code's ``model`` is not a known model alias or id.

agnix CC-SK-001 (validators.md F1): one of sonnet, opus, haiku, inherit. Full model ids
(``claude-...``) are also accepted here (code.claude.com skills docs allow a model name; which
exact ids are valid is unverified).

PASS (profile=claude-code):
    ---
    name: pdf-tools
    description: Extracts text from PDF files. Use when the user asks to read a PDF.
    model: haiku
    ---
FAIL (profile=claude-code):
    ---
    name: pdf-tools
    description: Extracts text from PDF files. Use when the user asks to read a PDF.
    model: gpt-4
    ---
"""

import re
from collections.abc import Iterator

from workbench.core.lint.context import LintContext
from workbench.core.lint.registry import Finding, rule

ALIASES = {"sonnet", "opus", "haiku", "inherit", "opusplan", "default"}
_ID = re.compile(r"claude-[a-z0-9.\-\[\]]+")


@rule("CC001", "cc-model", "off", profiles={"claude-code": "error"})
def check(ctx: LintContext) -> Iterator[Finding]:
    if ctx.sf.state != "ok":
        return
    f = ctx.field("model")
    if f is None:
        return
    v = f.value
    if not isinstance(v, str) or not (v in ALIASES or _ID.fullmatch(v) or v.split("[")[0] in ALIASES):
        yield Finding(
            f.value_span,
            f"model {v!r} is not one of {', '.join(sorted(ALIASES - {'default', 'opusplan'}))} "
            "or a claude-... model id",
        )
