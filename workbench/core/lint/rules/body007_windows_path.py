r"""BODY007 windows-path: a Windows-style ``a\b`` path in the body.

Anthropic: "avoid Windows-style paths"; agnix AS-014 (validators.md H3): agents on macOS/Linux
cannot open ``scripts\run.py``. Flagged: a backslash path starting with scripts/references/
assets/templates/examples or ``.\``/``..\``, or ending in a common file extension. Code blocks
for Windows shells (powershell, cmd, bat) are skipped. Quick fix: use forward slashes.

PASS:
    ---
    name: pdf-tools
    description: Extracts text from PDF files. Use when the user asks to read a PDF.
    ---
    Run `python scripts/extract.py`.
FAIL:
    ---
    name: pdf-tools
    description: Extracts text from PDF files. Use when the user asks to read a PDF.
    ---
    Run `python scripts\extract.py`.
"""

import re
from collections.abc import Iterator

from workbench.core.lint.context import LintContext
from workbench.core.lint.registry import Finding, rule
from workbench.core.lint.types import Fix, TextEdit

_TOKEN = re.compile(r"[\w.\-\\]+")
_PATH = re.compile(
    r"(?:(?:scripts|references|assets|templates|examples)\\|\.{1,2}\\)[\w.\-]+(?:\\[\w.\-]+)*"
    r"|[\w\-]+(?:\\[\w\-]+)*\\[\w\-]+\.(?:md|py|sh|js|ts|json|txt|ya?ml|csv|html)"
)
_WIN_SHELLS = {"powershell", "ps1", "pwsh", "cmd", "bat", "batch", "ps", "dos"}


@rule("BODY007", "windows-path", "warning")
def check(ctx: LintContext) -> Iterator[Finding]:
    body = ctx.body
    i = body.find("\\")
    if i == -1:
        return
    base = ctx.body_offset
    done = -1
    while i != -1:
        if i > done:
            # the token around this backslash
            s = i
            while s > 0 and (body[s - 1].isalnum() or body[s - 1] in "_.-\\"):
                s -= 1
            m = _TOKEN.match(body, s)
            e = m.end() if m else i + 1
            done = e
            tok = body[s:e]
            pm = _PATH.fullmatch(tok.rstrip(".")) if tok.count("\\") else None
            if pm and not (s > 0 and body[s - 1] in "/:"):
                off = base + s
                if ctx.code_lang(off) not in _WIN_SHELLS:
                    val = pm.group(0)
                    sp = ctx.span(off, off + len(val))
                    yield Finding(
                        sp,
                        f"Windows-style path {val!r}: use forward slashes",
                        Fix(
                            "Use forward slashes",
                            [
                                TextEdit(
                                    sp.line, sp.column, sp.end_line, sp.end_column, val.replace("\\", "/")
                                )
                            ],
                        ),
                    )
        i = body.find("\\", max(i + 1, done))
