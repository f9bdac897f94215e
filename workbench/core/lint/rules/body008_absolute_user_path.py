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
    # searched in the whole text from the body's start (no body copy)
    text, base = ctx.text, ctx.body_offset
    # = "/home/" in body or "/Users/" in body or ":\\Users\\" in body, in about a third of the
    # time (a one-character literal first: the regex engine's fast scan; "\\" by memchr)
    if _UNIX_HOME.search(text, base) is None and (
        text.find("\\", base) < 0 or text.find(":\\Users\\", base) < 0
    ):
        return
    for m in _ABS.finditer(text, base):
        yield Finding(
            ctx.span(m.start(), m.end()),
            f"{m.group(0)!r} only exists on one machine; use a path relative to the skill folder",
        )
