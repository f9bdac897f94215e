r"""BODY009 skill-relative-path: code names a file of the skill folder by a relative path.

A command or path in the body such as ``python scripts/fill.py`` or ``references/spec.md`` is relative
to the skill folder, but the agent's tools resolve it against the working directory (the project),
where it does not exist. Claude Code puts ``Base directory for this skill: <dir>`` before the body
(checked on 2.1.328) but runs ``scripts/fill.py`` from the project unless the model rewrites the
path; write ``${CLAUDE_SKILL_DIR}/scripts/fill.py`` (substituted by Claude Code, checked on 2.1.328).
Other clients tell the model how to resolve such paths (OpenCode's ``<skill_content>`` wrapper,
OpenClaw's prompt, ``{baseDir}``) and get no diagnostic. Only paths that exist in the skill folder
and appear in code (fenced or inline) are flagged, once per path.

PASS (profile=claude-code, files=scripts/fill.py):
    ---
    name: pdf-forms
    description: Fills PDF forms. Use when the user asks to fill in a PDF form.
    ---
    Run `python ${CLAUDE_SKILL_DIR}/scripts/fill.py form.pdf`.
FAIL (profile=claude-code, files=scripts/fill.py):
    ---
    name: pdf-forms
    description: Fills PDF forms. Use when the user asks to fill in a PDF form.
    ---
    Run `python scripts/fill.py form.pdf`.
"""

import os
import re
from bisect import bisect_right
from collections.abc import Iterator

from workbench.core.lint.context import LintContext
from workbench.core.lint.registry import Finding, rule
from workbench.core.lint.types import Fix, TextEdit

_PATH = re.compile(r"(?<![\w/.$}{~-])(?:\./)?((?:[\w.-]+/)+[\w.-]+\.\w{1,8})(?![\w/])")
PREFIX = {"claude-code": "${CLAUDE_SKILL_DIR}/"}


@rule("BODY009", "skill-relative-path", "off", profiles={"claude-code": "info"})
def check(ctx: LintContext) -> Iterator[Finding]:
    d = ctx.skill_dir
    body = ctx.body
    if d is None or "/" not in body:
        return
    prefix = PREFIX.get(ctx.profile.client or "", "")
    base = ctx.body_offset
    starts = ctx.line_starts
    seen: set[str] = set()
    for m in _PATH.finditer(body):
        rel = m.group(1)
        if rel in seen or rel.startswith(("http", "www.")):
            continue
        off = base + m.start()
        before = ctx.text[starts[bisect_right(starts, off) - 1] : off]
        if not ctx.in_code(off) and before.count("`") % 2 == 0:
            continue
        if not ctx.exists(os.path.normpath(os.path.join(str(d), rel))):
            continue
        seen.add(rel)
        sp = ctx.span(off, base + m.end())
        yield Finding(
            sp,
            f"'{rel}' is relative to the skill folder, but tools resolve it against the working "
            f"directory; write {prefix or '<skill folder>/'}{rel}",
            Fix(f"Prefix with {prefix}", [TextEdit(sp.line, sp.column, sp.line, sp.column, prefix)])
            if prefix
            else None,
        )
