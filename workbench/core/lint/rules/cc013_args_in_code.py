r"""CC013 cc-args-in-code: ``$1`` (or ``$ARGUMENTS[1]``) inside code is replaced by Claude Code.

When the skill is invoked with arguments, Claude Code replaces ``$N`` and ``$ARGUMENTS[N]``
everywhere in the body — inside fenced code and inline code too — so a shell or awk ``$1`` becomes
the second argument (0-based). Checked on Claude Code 2.1.328 with the real client
(``workbench/core/clients/claude_code/arguments.py``): ``awk '{ total += $1 }'`` turned into
``awk '{ total += my label }'``; a single backslash (``\$1``) keeps it literal. An index with no
argument passed is left as written, so the breakage shows only when enough arguments are given
(indices over 9, e.g. the price ``$150``, are not flagged).
``$ARGUMENTS`` in code is usually meant to be replaced and is not flagged; nor is a ``$N`` outside
single quotes in a skill that declares ``argument-hint`` or ``arguments`` (then it is most likely the
argument on purpose). Flagged: ``$N`` in code inside single quotes (an awk/sed/perl program or a
literal shell string), or any ``$N`` in code when the skill declares no arguments.

PASS (profile=claude-code):
    ---
    name: csv-total
    description: Sums a CSV column. Use when the user asks for a column total.
    argument-hint: <file> <label>
    ---
    ```sh
    awk -F, '{ total += \$1 } END { print total }' $0
    ```
FAIL (profile=claude-code):
    ---
    name: csv-total
    description: Sums a CSV column. Use when the user asks for a column total.
    argument-hint: <file> <label>
    ---
    ```sh
    awk -F, '{ total += $1 } END { print total }' data.csv
    ```
"""

import re
from bisect import bisect_right
from collections.abc import Iterator

from workbench.core.lint.context import LintContext
from workbench.core.lint.registry import Finding, rule
from workbench.core.lint.types import Fix, TextEdit

_POSITIONAL = re.compile(r"(?<![\\$])\$(?:ARGUMENTS\[(\d+)\]|(\d+))")


def _ordinal(n: int) -> str:
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


@rule("CC013", "cc-args-in-code", "off", profiles={"claude-code": "warning"})
def check(ctx: LintContext) -> Iterator[Finding]:
    if ctx.sf.state != "ok":
        return
    body = ctx.body
    if "$" not in body:
        return
    base = ctx.body_offset
    starts = ctx.line_starts
    expects_args = ctx.field("argument-hint") is not None or ctx.field("arguments") is not None
    for m in _POSITIONAL.finditer(body):
        off = base + m.start()
        before = ctx.text[starts[bisect_right(starts, off) - 1] : off]
        if not ctx.in_code(off) and before.count("`") % 2 == 0:  # nor in an inline code span
            continue
        if expects_args and before.count("'") % 2 == 0:  # meant as the argument, most likely
            continue
        idx = int(m.group(1) or m.group(2))
        if idx > 9:  # "$150" in code is a price: it stays unless 151 arguments are passed
            continue
        sp = ctx.span(off, base + m.end())
        yield Finding(
            sp,
            f"{m.group(0)} in code is replaced by the {_ordinal(idx + 1)} argument when the "
            f"skill is invoked with arguments (Claude Code); write \\{m.group(0)} to keep it",
            Fix(f"Escape as \\{m.group(0)}", [TextEdit(sp.line, sp.column, sp.line, sp.column, "\\")]),
        )
