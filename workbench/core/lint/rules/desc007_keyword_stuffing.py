r"""DESC007 keyword-stuffing: the description is a list of keywords rather than prose.

skill-validator / skillscheck heuristics (validators.md D8): 5 or more quoted strings with fewer
prose words than quotes, or a sentence of 8+ comma-separated segments of which 60% or more have
at most 3 words.

PASS:
    ---
    name: pdf-tools
    description: Extracts text from PDF files. Use when the user asks to read, split or merge a PDF.
    ---
FAIL:
    ---
    name: pdf-tools
    description: PDF, pdf files, extract, text, tables, forms, merge, split, OCR, scan. Use when needed.
    ---
"""

import re
from collections.abc import Iterator

from workbench.core.lint.context import LintContext
from workbench.core.lint.registry import Finding, rule
from workbench.core.lint.rules._util import first_line_of

_QUOTED = re.compile(r"\"[^\"]{1,60}\"|'[^']{1,60}'|“[^”]{1,60}”")
_SENT = re.compile(r"[.!?;:](?:\s|$)")


@rule("DESC007", "keyword-stuffing", "warning")
def check(ctx: LintContext) -> Iterator[Finding]:
    if not ctx.has_fields:
        return
    d = ctx.description_str() or ""
    if d.count(",") < 7 and d.count('"') + d.count("'") + d.count("“") < 10:
        return
    msg = None
    quotes = _QUOTED.findall(d)
    if len(quotes) >= 5:
        prose = _QUOTED.sub(" ", d)
        if len(re.findall(r"[A-Za-z]{2,}", prose)) < len(quotes):
            msg = f"{len(quotes)} quoted phrases and little prose"
    if msg is None:
        for sent in _SENT.split(d):
            segs = [s for s in sent.split(",")]
            if len(segs) >= 8:
                short = sum(1 for s in segs if len(s.split()) <= 3)
                if short / len(segs) >= 0.6:
                    msg = f"a sentence of {len(segs)} comma-separated keywords"
                    break
    if msg:
        yield Finding(
            first_line_of(ctx.fields["description"].value_span, ctx),
            f"the description looks keyword-stuffed ({msg}); describe the situations in prose",
        )
