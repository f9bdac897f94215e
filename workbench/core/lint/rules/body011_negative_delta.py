r"""BODY011 negative-delta: the body has patterns that make a skill do worse than no skill.

Source: waza's negative-delta risk check (validators.md I3) warns on more than one "Step 1:"
(two competing procedures), "however you can also" (an escape hatch that undoes the rule before
it), and more than 5 never/always/must-not (over-constraint). Decisions: an info (a heuristic
about quality, not a defect; two numbered procedures can be fine), outside fenced code only, and
only the "Step 1:" part. Every body scan costs ~3 µs per file on the real tree (issue 14 counts
them): "however you can also" is in none of the 1,241 corpus skills, and waza's threshold of 5
never/always/must-not fires on about two thirds of them (generated skills repeat "always" six to
nine times: noise), so neither is checked. The body is scanned by ``str.find`` for the
case-sensitive literal "tep 1" and the regex is tried there only ("STEP 1:" in capitals is not
seen).

PASS:
    ---
    name: pdf-tools
    description: Extracts text from PDF files. Use when the user asks to read a PDF.
    ---
    ## Step 1: open the file
    ## Step 2: extract the text
FAIL:
    ---
    name: pdf-tools
    description: Extracts text from PDF files. Use when the user asks to read a PDF.
    ---
    ## Step 1: install pdftotext
    ## Step 1: extract the text
"""

import re
from collections.abc import Iterator

from workbench.core.lint.context import LintContext
from workbench.core.lint.registry import Finding, rule

_STEP1 = re.compile(r"(?i)\bstep 1\b\**:")


def _matches(ctx: LintContext, pattern: re.Pattern[str], literal: str, back: int) -> list[tuple[int, int]]:
    """The ``(start, end)`` offsets into ``ctx.text`` of ``pattern``'s matches in the body outside
    fenced code, tried only ``back`` characters before each occurrence of ``literal`` (the body
    is scanned by ``str.find``, never by the case-insensitive regex: that costs ~100 µs a file)."""
    body, base = ctx.body, ctx.body_offset
    out: list[tuple[int, int]] = []
    find, match = body.find, pattern.match
    i = find(literal)
    while i >= 0:
        if i >= back:
            m = match(body, i - back)
            if m is not None and not ctx.in_code(base + m.start()):
                out.append((base + m.start(), base + m.end()))
        i = find(literal, i + 1)
    return out


@rule("BODY011", "negative-delta", "info")
def check(ctx: LintContext) -> Iterator[Finding]:
    steps = _matches(ctx, _STEP1, "tep 1", 1)
    if len(steps) > 1:
        yield Finding(
            ctx.span(*steps[1]),
            f"{len(steps)} procedures start with 'Step 1:'; agents may mix them: "
            "name each procedure and say when to follow which",
        )
