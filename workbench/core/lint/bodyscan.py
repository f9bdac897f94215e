"""The body scanners ``LintContext`` runs once per file: fenced code blocks, inline links, the
local part of a link target, and the odd bytes of the file (split out of ``lint.context``, issue
15: modules under 600 lines).

Offsets are indexes into the whole text (``sf.text``), searched from the body's start, so no body
copy is made. Decision (spec silent): a small CommonMark-shaped scanner rather than markdown-it-py
(several milliseconds per 500-line file; the rules only need fence ranges and inline links).
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Iterable
from dataclasses import dataclass
from itertools import chain
from urllib.parse import unquote


@dataclass(slots=True)
class Fence:
    """A fenced code block in the body: offsets into ``sf.text``; ``end`` is past the closing line
    (or the end of the text when unclosed)."""

    start: int
    end: int
    line: int
    marker: str
    lang: str
    closed: bool


# a fence line after a line break (a literal first character lets the regex engine skip ahead
# with its fast search: ~4x faster than a ``^`` + MULTILINE pattern), and at the body's start
_FENCE_NL = re.compile(r"\n {0,3}(`{3,}|~{3,})([^\n]*)")
_FENCE_AT = re.compile(r" {0,3}(`{3,}|~{3,})([^\n]*)")
# a backtick fence line only (the usual body: no "~~~"), searched over ``text`` from the body's
# start: the literal "```" prefix lets the regex engine jump from run to run of backticks (~3x
# fewer instructions than stopping at every line break); the lookbehinds keep a run that follows
# a line break and at most 3 spaces (the character before the body is its "\n")
_FENCE_BT = re.compile(r"(```(?:(?<=\n```)|(?<=\n ```)|(?<=\n  ```)|(?<=\n   ```))`*)([^\n]*)")
# The optional "!" of an image is not matched: the pattern then starts with a literal "[" (the
# fast search again); the target, its offsets and the line are the same either way. The link
# text is the unrolled form of ``(?:[^\]\\\n]|\\.)*`` (same strings, no alternation per character:
# tests/lint/test_context_scan.py).
# The possessive quantifiers (``*+``, ``++``) never give back what they took (none of them could
# help a match by doing so: each stops at a character the next part of the pattern cannot start
# with): ~40% fewer steps on the "[" that start no link.
_LINK = re.compile(
    r"\[[^\]\\\n]*+(?:\\.[^\]\\\n]*+)*+\]\(\s*+(<[^>\n]*>|[^)\s]++)(?:\s+(?:\"[^\"\n]*\"|'[^'\n]*'))?\s*\)"
)
_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.\-]*:")

#: Printable ASCII, tab, LF and CR: what ``odd_bytes`` deletes.
_PLAIN = bytes(range(0x20, 0x7F)) + b"\t\n\r"


def fence_lang(rest: str) -> str:
    """A fence's language: the first word of its info string, lower-cased ("" without one)."""
    info = rest.strip()
    return info.split(" ")[0].lower() if info else ""


def odd_bytes(data: bytes) -> bytes:
    """``data`` (UTF-8) without printable ASCII, tab, LF and CR: control bytes and whole non-ASCII
    characters (a multi-byte character is in it exactly when it is in ``data``). One
    ``bytes.translate`` (~6 µs per corpus file vs ~40 for a regex over the str); ``LintContext.odd``."""
    return data.translate(None, _PLAIN)


def scan_fences(text: str, base: int) -> tuple[list[int], list[tuple[str, str]], bool]:
    """The fenced code blocks of the body starting at offset ``base`` of ``text`` (CommonMark: ```
    or ~~~, 3+, indent <= 3, no backtick in a backtick fence's info string; closed by the same
    character, at least as long, nothing after it): ``(code, marks, unclosed)``, ``code`` a flat
    ``[start, end, start, end, ...]`` list of offsets (sorted, non-overlapping; a start is its
    line's start, an end is past the closing line or ``len(text)``), ``marks`` each block's
    (marker, rest of the opening line), ``unclosed`` whether the last block runs to the end.
    ``text[base - 1]`` is "\\n" when ``base`` > 0 (the body starts a line)."""
    code: list[int] = []
    marks: list[tuple[str, str]] = []
    if base >= len(text):
        return code, marks, False
    # candidate lines: up to 3 spaces, then ``` or ~~~ (one regex pass over the body)
    if text.find("~", base) >= 0 and text.find("~~~", base) >= 0:
        cands: Iterable[re.Match[str]] = _FENCE_NL.finditer(text, base - 1 if base else 0)
    else:
        cands = _FENCE_BT.finditer(text, base)
    if not base:  # the body's first line has no "\n" before it
        m0 = _FENCE_AT.match(text)
        if m0:
            cands = chain((m0,), cands)
    open_at = -1
    open_marker = open_rest = ""
    for m in cands:
        marker, rest = m.group(1, 2)  # rest: up to the "\n" ("\r" included: strip() drops it)
        if open_at < 0:
            if marker[0] == "`" and "`" in rest:
                continue
            s = m.start(1)
            open_at = text.rfind("\n", s - 4 if s > 4 else 0, s) + 1  # the line's start
            open_marker, open_rest = marker, rest
        elif marker[0] == open_marker[0] and len(marker) >= len(open_marker) and not rest.strip():
            code += (open_at, m.end())
            marks.append((open_marker, open_rest))
            open_at = -1
    if open_at >= 0:
        code += (open_at, len(text))
        marks.append((open_marker, open_rest))
        return code, marks, True
    return code, marks, False


def scan_links(text: str, base: int, code: list[int]) -> list[tuple[str, int, int]]:
    """Inline Markdown links/images in ``text`` from offset ``base`` outside the fenced ``code``
    blocks (``scan_fences``) and inline code spans: ``[(target, start, end)]``, the offsets
    covering the target (without its ``<...>``)."""
    out: list[tuple[str, int, int]] = []
    if text.find("](", base) < 0:
        return out
    for m in _LINK.finditer(text, base):
        s, e = m.span(1)
        if bisect_right(code, s) & 1:  # inside a fenced block
            continue
        at = m.start()
        if text.count("`", text.rfind("\n", 0, at) + 1, at) & 1:  # in an inline code span
            continue
        target = m.group(1)
        if target.startswith("<") and target.endswith(">"):
            target, s, e = target[1:-1], s + 1, e - 1
        out.append((target, s, e))
    return out


def local_target(target: str) -> str | None:
    """The file part of a local link target (``#fragment`` and ``?query`` cut, %-escapes
    decoded), or None for URLs/anchors/templates."""
    t = target.strip()
    if not t or t.startswith("#") or _SCHEME.match(t) or t.startswith("//") or "{" in t or "$" in t:
        return None
    t = t.split("#", 1)[0].split("?", 1)[0]
    return unquote(t) if t else None


def local_links(links: list[tuple[str, int, int]]) -> list[tuple[str, int, int]]:
    """``[(local_target(target), start, end)]`` of the ``links`` whose target is local."""
    out = []
    for target, s, e in links:
        t = local_target(target)
        if t is not None:
            out.append((t, s, e))
    return out
