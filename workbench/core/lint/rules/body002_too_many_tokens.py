r"""BODY002 body-too-many-tokens: the body is over about 5,000 tokens.

Spec: body "< 5000 tokens" (skill-validator counts o200k_base tokens, skillscheck estimates;
validators.md G2). Tokens are *estimated* as ceil(characters / 4) — the message says so; no
tokenizer is bundled.

PASS:
    ---
    name: pdf-tools
    description: Extracts text from PDF files. Use when the user asks to read a PDF.
    ---
    # PDF tools
FAIL:
    ---
    name: pdf-tools
    description: Extracts text from PDF files. Use when the user asks to read a PDF.
    ---
    <<21000 chars>>
"""

from collections.abc import Iterator

from workbench.core.lint.context import LintContext
from workbench.core.lint.registry import Finding, rule
from workbench.core.tokens import estimate_tokens

LIMIT_TOKENS = 5000


@rule("BODY002", "body-too-many-tokens", "warning")
def check(ctx: LintContext) -> Iterator[Finding]:
    if len(ctx.text) - ctx.body_offset <= LIMIT_TOKENS * 4:
        return
    body = ctx.body
    n = estimate_tokens(len(body))
    line = ctx.sf.body_line if ctx.sf.body_line <= ctx.line_count else 1
    yield Finding(
        ctx.line_span(line),
        f"the body is ≈{n:,} tokens (estimate: {len(body):,} chars / 4); keep it "
        f"under {LIMIT_TOKENS:,} and move details into references/ files",
    )
