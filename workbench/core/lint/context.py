"""``LintContext``: everything rules share about one SKILL.md, computed once.

Rules never re-parse: the YAML comes from ``workbench.core.skillfile`` (with positions), and the
body is scanned once, lazily, for code fences and links (``lint.bodyscan``). Offsets are indexes
into ``sf.text`` (BOM removed, line endings as in the file); ``pos``/``span`` turn them into
1-based positions.
"""

from __future__ import annotations

import os
import unicodedata
from bisect import bisect_right
from collections.abc import Iterable
from itertools import accumulate
from pathlib import Path
from typing import Any

from workbench.core.lint.bodyscan import Fence, fence_lang, local_links, odd_bytes, scan_fences, scan_links
from workbench.core.lint.catalogindex import CatalogEntry, CatalogIndex
from workbench.core.lint.profiles import Profile
from workbench.core.skillfile import FieldInfo, SkillFile, Span

#: A top-level frontmatter key as rules see it: the parser's ``FieldInfo`` (strict YAML), or one
#: built from the lenient line parser when the YAML did not parse (then ``lenient`` is True and
#: ``value`` is always a str). One class, so a parsed file's fields are shared, not copied.
FieldView = FieldInfo

_PLUS_ONE = (1).__add__
_UNSET = object()
#: ``LintContext.pos`` answers this many positions by counting before it builds the line table.
_POS_DIRECT = 16
#: States whose ``text`` is not the decoded ``raw`` (``LintContext.utf8``).
_NOT_DECODED = frozenset({"unreadable", "too-large", "binary"})


def _listing(folder: str) -> list[str]:
    """The sorted names in ``folder``, folders (symlinks followed) with a trailing "/". Raises
    OSError."""
    with os.scandir(folder) as it:
        return sorted([e.name + "/" if e.is_dir() else e.name for e in it])


class LintContext:
    """Shared, lazily computed facts about one file under one profile.

    Attributes:
        sf: the parsed ``SkillFile``.
        text: ``sf.text`` (BOM removed).
        path: the SKILL.md path or None (in-memory text).
        profile: the ``Profile``.
        catalog: other skills (a ``CatalogIndex``), for cross-skill rules.
        dir_name: the skill folder's name (None without a path).
        lenient: fields come from the lenient line parser (the YAML did not parse).
    """

    def __init__(self, sf: SkillFile, profile: Profile, catalog: Iterable[Any] | None = None):
        self.sf = sf
        self.text = sf.text
        self.path = sf.path
        self.profile = profile
        self.catalog = catalog if isinstance(catalog, CatalogIndex) else CatalogIndex(catalog)
        path = sf.path
        self._path_str = "" if path is None else str(path)
        self.self_key = os.path.abspath(self._path_str) if path is not None else None
        # = path.parent.name (or None when empty), without building the parent Path
        self.dir_name = os.path.basename(os.path.dirname(self._path_str)) or None
        self.lenient = False
        self.fields: dict[str, FieldView] = {}
        state = sf.state
        if state == "ok":
            self.fields = dict(sf.fields)
        elif state == "yaml-error" and sf.has_frontmatter_block:
            self.lenient = True
            for k, lf in sf.line_fields().items():
                self.fields[k] = FieldView(k, lf.value, lf.key_span, lf.value_span, "", "", None, True)
        #: True when field rules can run (strict YAML mapping, or the lenient fallback).
        self.has_fields = state == "ok" or self.lenient
        self._name: object = _UNSET
        self._desc: object = _UNSET
        self._line_starts: list[int] | None = None
        self._npos = 0  # positions answered without the line table (``pos``)
        self._at: tuple[int, int] | None = None  # the last of them: (line, offset of its start)
        self._lines: list[str] | None = None
        self._head: list[str] | None = None
        self._nlines = -1
        self._parts: list[str] | None = None
        self._fences: list[Fence] | None = None
        self._code: list[int] | None = None
        self._marks: list[tuple[str, str]] = []
        self._unclosed = False
        self._links: list[tuple[str, int, int]] | None = None
        self._local: list[tuple[str, int, int]] | None = None
        self._folder: dict[str, list[str]] | None = None
        self._body_offset: int | None = None
        self._body: str | None = None
        self._ascii: bool | None = None
        self._utf8: bytes | None = None
        self._odd: bytes | None = None
        self._dircache: dict[str, frozenset[str]] = {}
        self._listed: tuple[tuple[str, ...], tuple[str, ...]] | None = None
        self._skill_dir: Path | None = None
        #: Paths outside SKILL.md whose state the result depends on (folders listed, files read);
        #: ``workbench.core.cache.resultcache`` stats them to know a cached result is still valid.
        self.deps: set[str] = set()

    def depend(self, path: str | os.PathLike[str]) -> None:
        """Record that the lint result depends on ``path`` (a folder listed or a file read besides
        SKILL.md). Rules that touch the disk other than through ``folder()``/``exists()`` call it."""
        self.deps.add(os.fspath(path))

    def others(
        self, entries: Iterable[CatalogEntry] | None = None, limit: int | None = None
    ) -> list[CatalogEntry]:
        """Catalog entries (all, or the given subset) other than this file itself, in order; at
        most ``limit`` of them (``CatalogIndex.others_than``)."""
        return self.catalog.others_than(self.self_key, entries, limit)

    # -- fields --------------------------------------------------------------------------
    def field(self, key: str) -> FieldView | None:
        return self.fields.get(key)

    def name_str(self) -> str | None:
        """The name as skills-ref checks it: NFKC-normalised and stripped; None when absent/not str.
        Non-string scalars (``name: 123``) are taken as their source text, like strictyaml.
        Computed once (about ten rules ask)."""
        got = self._name
        if got is _UNSET:
            got = self._name = self._name_str()
        return got  # type: ignore[return-value]

    def _name_str(self) -> str | None:
        f = self.fields.get("name")
        if f is None or f.value is None:
            return None
        v = f.value if isinstance(f.value, str) else self.scalar_source(f)
        if v is None:
            return None
        return unicodedata.normalize("NFKC", v).strip()

    def description_str(self) -> str | None:
        """The description as a str (a non-string scalar's source text); None when absent or a
        collection. Computed once."""
        got = self._desc
        if got is _UNSET:
            got = self._desc = self._description_str()
        return got  # type: ignore[return-value]

    def _description_str(self) -> str | None:
        f = self.fields.get("description")
        if f is None or f.value is None:
            return None
        return f.value if isinstance(f.value, str) else self.scalar_source(f)

    def scalar_source(self, f: FieldView) -> str | None:
        """The source text of a plain non-string scalar (``123``, ``yes``), as strictyaml sees it;
        None for collections."""
        node = f.node
        if node is not None and hasattr(node, "value") and isinstance(node.value, str):
            return node.value
        if isinstance(f.value, (dict, list)):
            return None
        return None if f.value is None else str(f.value)

    # -- positions -----------------------------------------------------------------------
    @property
    def line_starts(self) -> list[int]:
        """Offset of the first character of each line (``[0, after first "\\n", ...]``)."""
        if self._line_starts is None:
            # running sum of (line length + 1) over the "\n"-split parts, all in C (a find() loop
            # in Python cost ~50 µs per 1,000 lines)
            starts = list(accumulate(map(_PLUS_ONE, map(len, self._split_lines())), initial=0))
            starts.pop()
            self._line_starts = starts
        return self._line_starts

    @property
    def lines(self) -> list[str]:
        """The file's lines without line endings."""
        if self._lines is None:
            parts = self._split_lines()
            self._lines = (
                [ln[:-1] if ln.endswith("\r") else ln for ln in parts] if "\r" in self.text else parts
            )
        return self._lines

    @property
    def line_count(self) -> int:
        """``len(lines)``, counted without splitting the text."""
        n = self._nlines
        if n < 0:
            n = self._nlines = self.text.count("\n") + 1
        return n

    def line_len(self, line: int) -> int:
        """``len(lines[line - 1])`` for a 1-based line in ``1..line_count``; splits the text only
        for a line past 64 when neither ``lines`` nor ``line_starts`` is built yet."""
        lines = self._lines
        if lines is not None:
            return len(lines[line - 1])
        if 0 < line <= (self.sf.close_line or 0):  # a frontmatter line (most findings): the table
            head = self.frontmatter_lines()
            if line <= len(head):
                return len(head[line - 1])
        ls = self._line_starts
        t = self.text
        if ls is None:
            at = self._at
            if at is not None and at[0] <= line <= at[0] + 1:
                # the line of the last position ``pos`` counted, or the next: from its start
                s = at[1] if line == at[0] else t.find("\n", at[1]) + 1
                e = t.find("\n", s)
                if e == -1:
                    e = len(t)
                return e - s - (e > s and t[e - 1] == "\r")
            if line > 64:
                return len(self.lines[line - 1])
            return len(self.get_line(line))
        s = ls[line - 1]
        e = ls[line] - 1 if line < len(ls) else len(t)
        if e > s and t[e - 1] == "\r":
            e -= 1
        return e - s

    def head_lines(self, k: int) -> list[str]:
        """``lines[:k]`` (the first ``k`` lines, no line endings) without splitting the rest."""
        lines = self._lines
        if lines is not None or k <= 0:
            return (lines or [])[: max(k, 0)]
        if k <= (self.sf.close_line or 0):  # the frontmatter's lines (the catalog facts): the table
            head = self.frontmatter_lines()
            if k <= len(head):
                return head[:k]
        t, e = self.text, -1
        for _ in range(k):
            e = t.find("\n", e + 1)
            if e == -1:
                break
        top = t if e == -1 else t[:e]
        head = top.split("\n")
        if "\r" in top:  # (the head only: a "\r" further on ends none of these lines)
            head = [ln[:-1] if ln.endswith("\r") else ln for ln in head]
        return head[:k]

    def frontmatter_lines(self) -> list[str]:
        """The lines before the body (``lines[:n]``, n <= ``sf.close_line``: the frontmatter
        through its closing line), split once from ``text[:body_offset]`` (do not modify): the
        findings on frontmatter lines and the catalog facts measure them without a ``find`` loop
        per question. Empty without a closed frontmatter."""
        head = self._head
        if head is None:
            n = self.sf.close_line or 0
            b = self.body_offset if n else 0
            head = []
            if b:
                top = self.text[:b]
                head = top.split("\n")
                if b < len(self.text):  # (the piece after the last "\n": not a whole line)
                    head.pop()
                del head[n:]
                if "\r" in top:
                    head = [ln[:-1] if ln.endswith("\r") else ln for ln in head]
            self._head = head
        return head

    def _split_lines(self) -> list[str]:
        """``text.split("\\n")`` (done once for ``lines`` and ``line_starts``; do not modify)."""
        if self._parts is None:
            self._parts = self.text.split("\n")
        return self._parts

    def pos(self, offset: int) -> tuple[int, int]:
        """1-based (line, column) of an offset into ``text``. The first ``_POS_DIRECT`` calls
        count line breaks in C, between the offset and the line start of the previous position
        (most files need a few positions: building the line table would cost more); later ones
        bisect ``line_starts``."""
        ls = self._line_starts
        if ls is None:
            if self._npos < _POS_DIRECT:
                self._npos += 1
                t = self.text
                at = self._at
                if at is None or offset < 0:
                    line = t.count("\n", 0, offset) + 1
                elif offset >= at[1]:  # line breaks counted from the previous position's line start
                    line = at[0] + t.count("\n", at[1], offset)
                else:
                    line = at[0] - t.count("\n", offset, at[1])
                r = t.rfind("\n", 0, offset)
                self._at = (line, r + 1)  # (line, its start): for the next ``pos`` and ``line_len``
                return line, offset - r
            ls = self.line_starts
        i = bisect_right(ls, offset) - 1
        return i + 1, offset - ls[i] + 1

    def span(self, start: int, end: int) -> Span:
        """The ``Span`` of text[start:end]."""
        l1, c1 = self.pos(start)
        l2, c2 = self.pos(max(start, end))
        return Span(l1, c1, l2, c2)

    def offset(self, line: int, column: int) -> int:
        ls = self.line_starts
        line = min(max(line, 1), len(ls))
        return min(ls[line - 1] + column - 1, len(self.text))

    def get_line(self, line: int) -> str:
        """The text of a 1-based line without its line ending ("" when out of range); cheap for
        lines near the top even before ``lines`` is computed."""
        at = self._at
        if self._lines is None and 0 < line <= (self.sf.close_line or 0):
            head = self.frontmatter_lines()
            if line <= len(head):
                return head[line - 1]
        if self._lines is None and (line <= 64 or at is not None and at[0] == line):
            t, s = self.text, 0
            if at is not None and at[0] == line:  # the line of the last ``pos``: from its start
                s = at[1]
            else:
                for _ in range(line - 1):
                    s = t.find("\n", s) + 1
                    if s == 0:
                        return ""
            e = t.find("\n", s)
            ln = t[s:] if e == -1 else t[s:e]
            return ln[:-1] if ln.endswith("\r") else ln
        lines = self.lines
        return lines[line - 1] if 0 < line <= len(lines) else ""

    def line_span(self, line: int) -> Span:
        """The whole content of a 1-based line (at least one column wide when possible)."""
        ln = self.get_line(line)
        return Span(line, 1, line, max(2, len(ln) + 1) if ln else 1)

    def top_span(self) -> Span:
        """Where file-level findings go: the opening ``---`` (or line 1)."""
        return self.line_span(1)

    # -- body ----------------------------------------------------------------------------
    @property
    def body_offset(self) -> int:
        """Offset of the first body character in ``text`` (``len(text)`` when there is no body).
        Computed once."""
        b = self._body_offset
        if b is None:
            b = self._body_offset = self._find_body_offset()
        return b

    def _find_body_offset(self) -> int:
        if self.sf.state in ("unclosed", "too-large", "binary", "unreadable"):
            return len(self.text)
        if self.sf.close_line is None:
            return 0
        t, at = self.text, self.sf._body_at  # where the parse found the body (-1: not known)
        if at >= 0 and t is self.sf.text:
            return min(at, len(t))  # (past the end when the closing line ends the file)
        idx = -1
        for _ in range(self.sf.close_line):
            idx = t.find("\n", idx + 1)
            if idx == -1:
                idx = len(t) - 1
                break
        return idx + 1

    @property
    def utf8(self) -> bytes:
        """``text`` encoded as UTF-8 (cached): byte-level pre-checks run at memory speed."""
        if self._utf8 is None:
            sf = self.sf
            t = self.text
            ok = t is sf.text and not sf.not_utf8 and sf.state not in _NOT_DECODED and not sf.partial
            raw = sf.raw if ok else b""
            if len(raw) < len(t):  # (a SkillFile built without its bytes too)
                self._utf8 = t.encode("utf-8", "surrogatepass")
            else:  # the file's bytes are ``text``'s UTF-8 (valid UTF-8 decodes and encodes back
                # byte for byte): no encoding of the whole text
                self._utf8 = raw[3:] if sf.has_bom else raw
        return self._utf8

    @property
    def odd(self) -> bytes:
        """``odd_bytes(utf8)``, once per file (SEC002/003/006's pre-check; empty for most files)."""
        if self._odd is None:
            self._odd = odd_bytes(self.utf8)
        return self._odd

    @property
    def is_ascii(self) -> bool:
        """The whole text is ASCII (lets Unicode rules return at once)."""
        if self._ascii is None:
            self._ascii = self.text.isascii()
        return self._ascii

    @property
    def body(self) -> str:
        """The body text exactly as it sits in ``text`` (``text[body_offset:]``; sliced once)."""
        b = self._body
        if b is None:
            b = self._body = self.text[self.body_offset :]
        return b

    def _scan_fences(self) -> list[int]:
        """The fenced code blocks as a flat ``[start, end, start, end, ...]`` list of offsets into
        ``text`` (``bodyscan.scan_fences``, computed once); their markers and info strings go to
        ``_marks``, whether the last one is unclosed to ``_unclosed``."""
        code = self._code
        if code is None:
            code, self._marks, self._unclosed = scan_fences(self.text, self.body_offset)
            self._code = code
        return code

    @property
    def fences(self) -> list[Fence]:
        """Fenced code blocks of the body (CommonMark: ``` or ~~~, 3+, indent <= 3, no backtick in
        a backtick fence's info string; closed by the same character, at least as long, nothing
        after it). Built on first use from ``_scan_fences`` (``in_code``/``unclosed_fence``
        answer without it)."""
        if self._fences is None:
            code = self._scan_fences()
            out: list[Fence] = []
            at, at_line = 0, -1  # lines counted from the previous fence (no line table)
            last = len(code) // 2 - 1
            for k, (marker, rest) in enumerate(self._marks):
                start = code[2 * k]
                at_line = self._line_from(start, at, at_line)
                at = start
                closed = k < last or not self._unclosed
                out.append(Fence(start, code[2 * k + 1], at_line, marker, fence_lang(rest), closed))
            self._fences = out
        return self._fences

    def unclosed_fence(self) -> Fence | None:
        """The fenced code block that runs to the end of the text (only the last one can), or
        None."""
        code = self._scan_fences()
        if not self._unclosed:
            return None
        marker, rest = self._marks[-1]
        start = code[-2]
        return Fence(start, code[-1], self.pos(start)[0], marker, fence_lang(rest), False)

    def _line_from(self, offset: int, prev: int, prev_line: int) -> int:
        """The 1-based line of ``offset``, given ``prev_line`` of an earlier ``prev`` (-1: none)."""
        if prev_line < 0:
            return self.pos(offset)[0]
        return prev_line + self.text.count("\n", prev, offset)

    def in_code(self, offset: int) -> bool:
        """True when the offset is inside a fenced code block."""
        code = self._code
        if code is None:
            code = self._scan_fences()
        # an odd number of fence starts/ends at or before the offset = inside a block
        return bisect_right(code, offset) & 1 == 1

    def code_lang(self, offset: int) -> str | None:
        """The language of the fenced code block holding ``offset`` (as ``Fence.lang``; "" without
        one), None outside fenced code."""
        code = self._scan_fences()
        k = bisect_right(code, offset)
        return fence_lang(self._marks[k // 2][1]) if k & 1 else None

    def code_ranges(self) -> list[tuple[int, int]]:
        """(start, end) offsets of the fenced code blocks (as ``fences``)."""
        code = self._scan_fences()
        return list(zip(code[::2], code[1::2]))

    @property
    def links(self) -> list[tuple[str, int, int]]:
        """Inline Markdown links/images in the body outside fenced code and inline code spans:
        (target, start offset, end offset) where the offsets cover the target."""
        if self._links is None:
            self._links = scan_links(self.text, self.body_offset, self._scan_fences())
        return self._links

    @property
    def local_links(self) -> list[tuple[str, int, int]]:
        """``links`` with a local target: ``(bodyscan.local_target(target), start, end)`` (URLs,
        anchors and templates left out; computed once for BODY005 and BODY006)."""
        if self._local is None:
            self._local = local_links(self.links)
        return self._local

    def exists(self, path: str) -> bool:
        """Whether ``path`` (absolute, normalised) exists, answered from one cached ``os.listdir``
        per folder (links to many files in references/ cost one system call, not one each)."""
        parent, name = os.path.split(path)
        if not name:
            return os.path.isdir(parent)
        cache = self._dircache
        got = cache.get(parent)
        if got is None:
            self.deps.add(parent)
            listed = self._listed
            if listed is not None and parent == os.path.dirname(self._path_str):
                got = frozenset((*listed[0], *listed[1]))
            else:
                try:
                    got = frozenset(os.listdir(parent))
                except OSError:
                    got = frozenset()
            cache[parent] = got
        return name in got

    def listed(self, files: tuple[str, ...], dirs: tuple[str, ...]) -> None:
        """Give the skill folder's names as an earlier listing saw them (``fscache.skill_folders``:
        ``files`` every entry but the folders, ``dirs`` the folders; it held no symlink):
        ``folder`` and ``exists`` answer from them instead of listing the folder again."""
        self._listed = (files, dirs)

    # -- folder --------------------------------------------------------------------------
    @property
    def skill_dir(self) -> Path | None:
        """The skill folder (``path.parent``, computed once), or None without a path."""
        if self._skill_dir is None and self.path is not None:
            self._skill_dir = self.path.parent
        return self._skill_dir

    def folder(self) -> dict[str, list[str]] | None:
        """A shallow listing of the skill folder: {"": top-level names (dirs end with "/"),
        "scripts": [...], "references": [...], "assets": [...]} (one ``os.scandir`` each), or None
        without a path or when the folder cannot be read."""
        if self._folder is None:
            if self.path is None:
                return None
            out: dict[str, list[str]] = {}
            ds = os.path.dirname(self._path_str) or "."  # = str(self.skill_dir)
            self.deps.add(ds)
            listed = self._listed
            try:
                out[""] = top = (
                    _listing(ds) if listed is None else sorted([*listed[0], *[d + "/" for d in listed[1]]])
                )
            except OSError:
                return None
            for sub in ("scripts/", "references/", "assets/"):
                if sub in top:
                    sp = os.path.join(ds, sub[:-1])  # = str(d / sub)
                    self.deps.add(sp)
                    try:
                        out[sub[:-1]] = _listing(sp)
                    except OSError:
                        out[sub[:-1]] = []
            self._folder = out
        return self._folder
