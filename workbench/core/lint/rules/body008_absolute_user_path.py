r"""BODY008 absolute-user-path: a path into someone's home folder (``/home/alice``, ``/Users/bob``,
``C:\Users\carol``).

waza over-specificity (validators.md H6): the path only exists on the author's machine. Use a
path relative to the skill folder (``${CLAUDE_SKILL_DIR}`` in Claude Code, ``{baseDir}`` in
OpenClaw) or a placeholder. ``/home/user`` and ``~`` are not flagged.

PASS:
    ---
    name: pdf-tools
    description: Extracts text from PDF files. Use when the user asks to read a PDF.
    ---
    Run `python scripts/extract.py ~/input.pdf`.
FAIL:
    ---
    name: pdf-tools
    description: Extracts text from PDF files. Use when the user asks to read a PDF.
    ---
    Run `python /Users/alice/skills/pdf-tools/scripts/extract.py`.
"""

import re
from collections.abc import Iterator

from workbench.core.lint.context import LintContext
from workbench.core.lint.registry import Finding, rule

_ABS = re.compile(
    r"(?:/home/|/Users/|[A-Z]:\\Users\\)(?!(?:user|username|you|your-?name|me|name|\$|<|\{|\.\.\.)\b)"
    r"[A-Za-z0-9_.\-]+"
)

_UNIX_HOME = re.compile(r"/(?:home|Users)/")


@rule("BODY008", "absolute-user-path", "info")
def check(ctx: LintContext) -> Iterator[Finding]:
    body = ctx.body
    # = "/home/" in body or "/Users/" in body or ":\\Users\\" in body, in about a third of the
    # time (a one-character literal first: the regex engine's fast scan; "\\" by memchr)
    if _UNIX_HOME.search(body) is None and ("\\" not in body or ":\\Users\\" not in body):
        return
    base = ctx.body_offset
    for m in _ABS.finditer(body):
        yield Finding(
            ctx.span(base + m.start(), base + m.end()),
            f"{m.group(0)!r} only exists on one machine; use a path relative to the skill folder",
        )
