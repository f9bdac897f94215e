r"""BODY010 surface-limit: part of SKILL.md never reaches the model through a client's load path.

Some load paths cut long files silently (``workbench/core/clients/surfaces.py``): Codex CLI 0.169.0
shows the model only the first and last 5,000 bytes of a SKILL.md it reads with ``exec_command``
(measured with the real client), so a checklist in the middle of a 33,000-byte file is lost. The
message names each surface, its limit and source, and the lines lost; move those lines to a
``references/`` file the body points to, or shorten the file. Severity follows the profile:
a warning for the client whose surface cuts, info in the spec profile (every measured surface).

PASS (profile=codex):
    ---
    name: pdf-tools
    description: Extracts text from PDF files. Use when the user asks to read a PDF.
    ---
    # PDF tools
FAIL (profile=codex):
    ---
    name: pdf-tools
    description: Extracts text from PDF files. Use when the user asks to read a PDF.
    ---
    <<12000 chars>>
"""

import re
from collections.abc import Iterator

from workbench.core.clients.surfaces import surfaces_for
from workbench.core.lint.context import LintContext
from workbench.core.lint.registry import Finding, rule
from workbench.core.skillfile import Span

#: A lone surrogate's UTF-8 (``surrogatepass``) lead bytes: ``ctx.utf8`` then differs from
#: ``text.encode()`` (which raises).
_SURROGATE = re.compile(b"\xed[\xa0-\xbf]")


@rule(
    "BODY010",
    "surface-limit",
    "off",
    profiles={"codex": "warning", "claude-code": "info", "agentskills": "info"},
)
def check(ctx: LintContext) -> Iterator[Finding]:
    text = ctx.text
    if len(text) <= 5000:  # below every surface (bytes >= chars)
        return
    client = ctx.profile.client
    # the cached UTF-8 bytes = text.encode() unless the text holds a lone surrogate
    data = ctx.utf8 if ctx.is_ascii or _SURROGATE.search(ctx.odd) is None else None
    for s in surfaces_for(client):
        lost = s.lost_range(text, data)
        if lost is None:
            continue
        a, b = lost
        l1, c1 = ctx.pos(a)
        # the last lost character's line, counted from ``a`` (not from the start again)
        l2 = l1 + text.count("\n", a, b - 1) if b - 1 > a else l1
        keep = f"the first {s.head:,}" + (f" and last {s.tail:,}" if s.tail else "")
        # up to the start of the line after line l1 (= line_starts[l1], without the table)
        nl = text.find("\n", a)
        end = (l1 + 1, 1) if nl != -1 and nl + 1 <= b else (l1, c1 + max(0, b - a))
        yield Finding(
            Span(l1, c1, *end),
            f"{s.title} passes only {keep} {s.unit} of this {len(text.encode() if data is None else data):,}-byte file: "
            f"lines {l1}–{l2} do not reach the model ({s.source})",
        )
