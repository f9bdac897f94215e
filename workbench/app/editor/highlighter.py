"""Syntax highlighting for SKILL.md: YAML frontmatter + Markdown body, syntax only.

A ``QSyntaxHighlighter`` with block state (Frescobaldi ``highlighter.py``: the state saved at the
end of the previous block is restored, the line is tokenised, the new state stored with
``setCurrentBlockState``), so a multi-line construct never needs a re-scan of the file. Diagnostics
never go through here: they live in ``diagnostics.DiagnosticsLayer`` (style.md §7.9).

Block states (``int``; low 4 bits = kind, the rest = extra)::

    FRONTMATTER     inside the ``---`` block
    BLOCK_SCALAR    inside a YAML ``|`` / ``>`` scalar; extra = indent of its key
    BODY            Markdown body
    FENCE           inside a fenced code block; extra = fence length * 2 + (1 if "~" else 0)

The frontmatter opens only when line 1 is exactly ``---`` (trailing spaces allowed), the same rule
as ``workbench.core.skillfile``; it closes at the next such line.

Body tokens follow what clients do with a body: Claude Code runs `` !`cmd` `` injections before
the model sees the body and substitutes ``$ARGUMENTS``, ``$ARGUMENTS[N]``, ``$N`` and
``${CLAUDE_SKILL_DIR}``-style variables; OpenClaw substitutes ``{baseDir}``
(../shared/reference/clients.md §1.5 and the comparison table "Args"). Placeholders are also
marked inside code fences, because the substitution happens there too.
"""

from __future__ import annotations

import re

from PySide6.QtGui import QSyntaxHighlighter, QTextDocument

from workbench.app.editor.theme import syntax_formats

FRONTMATTER, BLOCK_SCALAR, BODY, FENCE = 1, 2, 3, 4

_DELIM = re.compile(r"---[ \t]*")
_KEY = re.compile(r"""^(\s*)(-\s+)?("[^"]*"|'[^']*'|[^\s#'"\-?:][^#]*?|-[^\s#]*?)\s*:(?=\s|$)""")
_DASH = re.compile(r"^(\s*)(-)(\s|$)")
_COMMENT_AT = re.compile(r"(^|\s)#")
_NUMBER = re.compile(r"[-+]?(\d[\d_]*(\.\d*)?([eE][-+]?\d+)?|\.\d+|0x[0-9a-fA-F]+|\.inf|\.nan)$")
_BOOL = re.compile(r"(true|false|yes|no|on|off|null|~|True|False|TRUE|FALSE|Null|NULL)$")
_BLOCK_IND = re.compile(r"[|>][-+0-9]*\s*(#.*)?$")

_HEADING = re.compile(r"^ {0,3}#{1,6}(\s|$)")
_FENCE_OPEN = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_QUOTE = re.compile(r"^\s{0,3}>")
_LIST = re.compile(r"^\s*([-*+]|\d{1,9}[.)])(?=\s)")
_INJECTION = re.compile(r"!`[^`\n]+`")
_INLINE_CODE = re.compile(r"(`+)(?!`)(.+?)(?<!`)\1(?!`)")
_LINK = re.compile(r"!?\[([^\]\n]*)\]\(([^)\s]*)(?:\s+\"[^\"]*\")?\)")
_AUTOLINK = re.compile(r"<(https?://[^>\s]+)>")
_STRONG = re.compile(r"(\*\*|__)(?=\S)(.+?)(?<=\S)\1")
_EMPH = re.compile(
    r"(?<![*\w])\*(?=[^\s*])([^*\n]+?)(?<=\S)\*(?!\*)|(?<![_\w])_(?=\S)([^_\n]+?)(?<=\S)_(?!\w)"
)
#: Argument and variable substitutions (Claude Code; OpenClaw ``{baseDir}``).
PLACEHOLDER = re.compile(r"\$ARGUMENTS(?:\[\d+\])?|\$\d+(?!\w)|\$\{CLAUDE_[A-Z_]+\}|\{baseDir\}")


def state_kind(state: int) -> int:
    """The kind part (FRONTMATTER, BLOCK_SCALAR, BODY, FENCE) of a block state; 0 if unset."""
    return state & 0xF if state >= 0 else 0


class SkillHighlighter(QSyntaxHighlighter):
    """Highlight a SKILL.md document (YAML frontmatter + Markdown body). Syntax only.

    Formats come from ``theme.syntax_formats()`` (``workbench/resources/theme.json`` "editor" section).
    """

    def __init__(self, document: QTextDocument) -> None:
        self.formats = syntax_formats()
        super().__init__(document)

    # Override QSyntaxHighlighter::highlightBlock
    def highlightBlock(self, text: str) -> None:  # noqa: N802 - Qt override
        prev = self.previousBlockState()
        block_no = self.currentBlock().blockNumber()
        kind = state_kind(prev)
        if block_no == 0:
            if _DELIM.fullmatch(text):
                self._fmt(0, len(text), "delimiter")
                self.setCurrentBlockState(FRONTMATTER)
                return
            kind = BODY
        elif kind == 0:
            kind = BODY
        if kind in (FRONTMATTER, BLOCK_SCALAR):
            self._frontmatter(text, prev)
        elif kind == FENCE:
            self._fence(text, prev >> 4)
        else:
            self._body(text)

    # -- helpers ----------------------------------------------------------------------
    def _fmt(self, start: int, length: int, token: str) -> None:
        # QSyntaxHighlighter positions are UTF-16 units; Python str indexes code points. Convert
        # only when the line has characters outside the BMP (rare: emoji).
        if length > 0:
            text = self.currentBlock().text()
            if len(text) != len(text.encode("utf-16-le")) // 2:
                s16 = len(text[:start].encode("utf-16-le")) // 2
                l16 = len(text[start : start + length].encode("utf-16-le")) // 2
                start, length = s16, l16
            self.setFormat(start, length, self.formats[token])

    # -- frontmatter ------------------------------------------------------------------
    def _frontmatter(self, text: str, prev: int) -> None:
        if _DELIM.fullmatch(text):
            self._fmt(0, len(text), "delimiter")
            self.setCurrentBlockState(BODY)
            return
        if state_kind(prev) == BLOCK_SCALAR:
            key_indent = prev >> 4
            indent = len(text) - len(text.lstrip(" "))
            if not text.strip() or indent > key_indent:
                self._fmt(0, len(text), "block_scalar")
                self.setCurrentBlockState(prev)
                return
        self.setCurrentBlockState(FRONTMATTER)
        stripped = text.lstrip()
        if not stripped:
            return
        if stripped.startswith("#"):
            self._fmt(0, len(text), "comment")
            return
        m = _KEY.match(text)
        if m:
            if m.group(2):
                self._fmt(m.start(2), 1, "list_dash")
            self._fmt(m.start(3), m.end(3) - m.start(3), "key")
            rest_start = m.end()
            value_part = text[rest_start:]
            if _BLOCK_IND.match(value_part.strip()) and value_part.strip():
                vs = rest_start + len(value_part) - len(value_part.lstrip())
                self._fmt(vs, len(text) - vs, "block_scalar")
                self.setCurrentBlockState(BLOCK_SCALAR | (len(m.group(1)) << 4))
                return
            self._value(text, rest_start)
            return
        d = _DASH.match(text)
        if d:
            self._fmt(d.start(2), 1, "list_dash")
            self._value(text, d.end(2))
            return
        self._value(text, 0)  # a continuation line of a plain or quoted scalar

    def _value(self, text: str, start: int) -> None:
        i = start
        while i < len(text) and text[i] in " \t":
            i += 1
        if i >= len(text):
            return
        ch = text[i]
        if ch in "\"'":
            end = self._quoted_end(text, i)
            self._fmt(i, end - i, "string")
            c = _COMMENT_AT.search(text, end)
            if c:
                cs = c.start() + len(c.group(1))
                self._fmt(cs, len(text) - cs, "comment")
            return
        c = _COMMENT_AT.search(text, i)
        vend = c.start() + len(c.group(1)) if c else len(text)
        word = text[i:vend].rstrip()
        if _BOOL.fullmatch(word):
            tok = "bool"
        elif _NUMBER.fullmatch(word):
            tok = "number"
        else:
            tok = "value"
        self._fmt(i, len(word), tok)
        if c:
            self._fmt(vend, len(text) - vend, "comment")

    @staticmethod
    def _quoted_end(text: str, i: int) -> int:
        q = text[i]
        j = i + 1
        while j < len(text):
            if q == '"' and text[j] == "\\":
                j += 2
                continue
            if text[j] == q:
                if q == "'" and j + 1 < len(text) and text[j + 1] == "'":
                    j += 2
                    continue
                return j + 1
            j += 1
        return len(text)  # continues on the next line (multi-line quoted scalar)

    # -- body -------------------------------------------------------------------------
    def _fence(self, text: str, extra: int) -> None:
        length, tilde = extra >> 1, bool(extra & 1)
        ch = "~" if tilde else "`"
        s = text.strip()
        indent = len(text) - len(text.lstrip(" "))
        if indent <= 3 and len(s) >= length and s == ch * len(s):
            self._fmt(0, len(text), "fence")
            self.setCurrentBlockState(BODY)
            return
        self._fmt(0, len(text), "code")
        self._placeholders(text)
        self.setCurrentBlockState(FENCE | (extra << 4))

    def _body(self, text: str) -> None:
        self.setCurrentBlockState(BODY)
        m = _FENCE_OPEN.match(text)
        if m:
            fence = m.group(1)
            if not (fence[0] == "`" and "`" in text[m.end() :]):  # ``` with backticks after is not a fence
                self._fmt(0, len(text), "fence")
                extra = len(fence) * 2 + (1 if fence[0] == "~" else 0)
                self.setCurrentBlockState(FENCE | (extra << 4))
                return
        if _HEADING.match(text):
            self._fmt(0, len(text), "heading")
            self._inline(text)
            return
        if _QUOTE.match(text):
            self._fmt(0, len(text), "quote")
        lm = _LIST.match(text)
        if lm:
            self._fmt(lm.start(1), lm.end(1) - lm.start(1), "list_marker")
        self._inline(text)

    def _inline(self, text: str) -> None:
        if "*" in text or "_" in text:
            for m in _STRONG.finditer(text):
                self._fmt(m.start(), m.end() - m.start(), "strong")
            for m in _EMPH.finditer(text):
                self._fmt(m.start(), m.end() - m.start(), "emphasis")
        if "](" in text:
            for m in _LINK.finditer(text):
                self._fmt(m.start(), m.start(2) - 1 - m.start(), "link")
                self._fmt(m.start(2) - 1, m.end() - m.start(2) + 1, "link_url")
        if "<http" in text:
            for m in _AUTOLINK.finditer(text):
                self._fmt(m.start(), m.end() - m.start(), "link")
        if "`" in text:
            injections = []
            for m in _INJECTION.finditer(text):
                self._fmt(m.start(), m.end() - m.start(), "injection")
                injections.append((m.start(), m.end()))
            for m in _INLINE_CODE.finditer(text):
                if any(a <= m.start() < b for a, b in injections) or (
                    m.start() > 0 and text[m.start() - 1] == "!"
                ):
                    continue
                self._fmt(m.start(), m.end() - m.start(), "inline_code")
        self._placeholders(text)

    def _placeholders(self, text: str) -> None:
        if "$" in text or "{baseDir}" in text:
            for m in PLACEHOLDER.finditer(text):
                self._fmt(m.start(), m.end() - m.start(), "placeholder")
