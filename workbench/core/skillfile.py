"""Reading SKILL.md: split the frontmatter, parse its YAML with positions, and keep everything
a client-specific reader or a lint rule needs to decide what to do with a bad file.

Nothing here decides *policy* (which client accepts what): that lives in
``workbench.core.clients.<client>``. This module only reports facts, with positions.

Positions: every ``Span`` is 1-based (line, column) to (end_line, end_column), the end column
exclusive, columns counted in Unicode code points of the decoded line. A UTF-8 BOM is stripped
before positions are counted (editors do not show it as a column).

Typical use::

    sf = read_skill_file(Path("skills/pdf/SKILL.md"))
    sf.state            # "ok" | "no-frontmatter" | "unclosed" | "empty" | "yaml-error" | ...
    sf.data             # dict from strict YAML (None unless state == "ok")
    sf.fields["name"].value_span
    sf.line_fields()    # the lenient line parser used by Gemini CLI / OpenClaw as a fallback
"""

from __future__ import annotations

import hashlib
import os
import re
import stat as _stat
from contextlib import suppress
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import yaml

# Moved out (re-exported here: ``from workbench.core.skillfile import load_yaml`` keeps working).
from workbench.core.cache.fscache import fast_path
from workbench.core.fileread import O_NONBLOCK, read_fd
from workbench.core.fileread import file_identity as file_identity
from workbench.core.fileread import read_regular_file as read_regular_file
from workbench.core.fileread import special_file_problem as special_file_problem
from workbench.core.lineparse import LineField as LineField
from workbench.core.lineparse import line_parse
from workbench.core.skillyaml import MAX_YAML_INT_DIGITS as MAX_YAML_INT_DIGITS
from workbench.core.skillyaml import MAX_YAML_NODES as MAX_YAML_NODES
from workbench.core.skillyaml import YamlLimitError as YamlLimitError
from workbench.core.skillyaml import check_yaml_size as check_yaml_size
from workbench.core.skillyaml import compose, construct_plain, constructor
from workbench.core.skillyaml import load_yaml as load_yaml
from workbench.core.spans import SPAN_GET as _span_get
from workbench.core.spans import Span as Span
from workbench.core.spans import mkspan as _mkspan
from workbench.core.spans import node_span as node_span
from workbench.core.spans import span_at as _span
from workbench.core.text import decode_text_bytes

#: Files larger than this (bytes) are not parsed: no client reads them sensibly, and a GUI must
#: not stall on them. OpenClaw's own cap (``maxSkillFileBytes``) is smaller: 256,000 bytes.
MAX_FILE_BYTES = 1_000_000

_OPEN_FLAGS = os.O_RDONLY | O_NONBLOCK | getattr(os, "O_BINARY", 0) | getattr(os, "O_CLOEXEC", 0)

#: File states, in the order a reader meets them.
STATES = (
    "ok",  # frontmatter found and parsed to a mapping
    "unreadable",  # OS error reading the file
    "too-large",  # over MAX_FILE_BYTES; not parsed
    "binary",  # contains a NUL byte
    "no-frontmatter",  # first line is not ``---``
    "unclosed",  # ``---`` opened, never closed
    "empty",  # ``---`` directly followed by ``---`` (or only blank/comment lines)
    "yaml-error",  # the YAML between the delimiters does not parse
    "not-mapping",  # parsed, but to a list/scalar
)


@dataclass(slots=True)
class FieldInfo:
    """One top-level frontmatter key: its constructed value and where key and value are.

    ``value`` is what strict YAML constructs (str, bool, int, list, dict, None, ...).
    ``style`` is the scalar style for scalars: '' plain, "'" / '"' quoted, '|' literal, '>' folded;
    None for collections. ``tag`` is the resolved YAML tag, e.g. ``tag:yaml.org,2002:bool``.
    ``lenient``: the field comes from the lenient line parser (``lint.context.FieldView``, the
    same class: then ``value`` is always a str and ``node`` None).
    """

    key: str
    value: Any
    key_span: Span
    value_span: Span
    style: str | None
    tag: str
    node: Any = field(repr=False, default=None)
    lenient: bool = False

    @property
    def is_str(self) -> bool:
        return isinstance(self.value, str)


@dataclass(slots=True)
class SkillFile:
    """Everything known about one SKILL.md after reading it. Never raises on bad content.

    Attributes:
        path: the file (None for in-memory text).
        raw: the bytes as read (b"" when unreadable or too large).
        text: decoded text, BOM removed, line endings as in the file.
        state: one of ``STATES``.
        message: a one-line human explanation for any state other than ``ok``.
        error_span: where the problem is (YAML error mark, opening line, ...) or None.
        has_bom: the file starts with a UTF-8 BOM (several clients then see no frontmatter).
        newline: the file's dominant line ending, "\\n" or "\\r\\n".
        not_utf8: bytes were not valid UTF-8 (decoded with replacement characters).
        encoding_message: one line about invalid UTF-8 (byte value and position), "" when valid.
            Kept apart from ``message``, which a frontmatter problem replaces.
        encoding_span: where the first invalid UTF-8 byte is (line, column of its U+FFFD
            replacement character in ``text``, one code point wide), or None when the bytes are
            valid UTF-8. Set whatever ``state`` is (``error_span`` stays the parse problem).
        open_line: 1-based line of the opening ``---`` (1) or None.
        close_line: 1-based line of the closing ``---`` or None.
        open_trailing_ws: the opening line had trailing whitespace after ``---``.
        frontmatter: the text between the delimiters ("" when none).
        body: the text after the closing delimiter (the whole text when no frontmatter).
        body_line: 1-based line where ``body`` starts.
        data: the strict YAML mapping (None unless state == "ok").
        fields: top-level keys with positions (empty unless state == "ok").
        duplicate_keys: (key, span of the repeated key) for keys defined twice (YAML keeps the last).
        dash_lines: 1-based lines inside the frontmatter where ``---`` appears inside a value
            (skills-ref's ``split("---", 2)`` would cut the frontmatter there).
        sha256: hex digest of ``raw``.
        size: byte size of the file.
        mtime_ns: modification time when read (0 for in-memory text).
    """

    path: Path | None
    raw: bytes = b""
    text: str = ""
    state: str = "ok"
    message: str = ""
    error_span: Span | None = None
    has_bom: bool = False
    newline: str = "\n"
    not_utf8: bool = False
    encoding_span: Span | None = None
    encoding_message: str = ""
    open_line: int | None = None
    close_line: int | None = None
    open_trailing_ws: bool = False
    frontmatter: str = ""
    body: str = ""
    body_line: int = 1
    data: dict[str, Any] | None = None
    fields: dict[str, FieldInfo] = field(default_factory=dict)
    duplicate_keys: list[tuple[str, Span]] = field(default_factory=list)
    dash_lines: list[int] = field(default_factory=list)
    #: hex digest of ``raw``, computed on first read of ``sha256`` (only the caches need it)
    _sha256: str | None = field(default=None, repr=False, compare=False)
    size: int = 0
    mtime_ns: int = 0
    _line_fields: dict[str, LineField] | None = field(default=None, repr=False)
    #: True on a *partial* file, rebuilt from persisted facts (``cache.skillfacts``): the
    #: ``LAZY_ATTRS`` are not held until ``load_full()`` (see there).
    _lazy: bool = field(default=False, repr=False, compare=False)
    #: where ``body`` starts in ``text`` until it is first read (-1: ``body`` is set): the
    #: parse does not copy the body, which most readers never look at (lint has its own)
    _body_at: int = field(default=-1, repr=False, compare=False)

    if not TYPE_CHECKING:  # (mypy would take any attribute name for a valid one)

        def __getattr__(self, name: str) -> Any:
            """Only called for an unset slot: ``body`` of a parsed file is sliced from ``text``
            on first use; on a partial file, one of ``LAZY_ATTRS`` calls ``load_full()`` first (a class-level hook: reading and writing the slots stays at C
            speed, unlike a Python descriptor per attribute)."""
            if name == "_body_at":  # a partial file (``skillfile_from_facts``): body not sliced
                return -1
            if name == "body" and not self._lazy and self._body_at >= 0:
                body: str = self.text[self._body_at :]  # sliced on first use (``_split``)
                self.body = body
                return body
            if name in LAZY_ATTRS and self._lazy:
                self.load_full()
                return _SLOTS[name].__get__(self, SkillFile)
            raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    @property
    def partial(self) -> bool:
        """True until ``load_full()`` on a file rebuilt from persisted facts."""
        return self._lazy

    def load_full(self) -> SkillFile:
        """Complete a partial file (``partial``): read ``path`` again and fill ``LAZY_ATTRS``
        (raw, text, frontmatter, body, fields, the line parser's result). When the file changed
        since its facts were stored, every attribute is replaced by the new read, so the object
        stays consistent. No-op on a full file. Returns ``self``. Reads the disk: a caller on a
        GUI thread calls it in the background; reading one of ``LAZY_ATTRS`` of a partial file
        calls it first. Never raises (an unreadable file becomes ``unreadable``)."""
        if not self._lazy:
            return self
        path = self.path
        full = read_skill_file(path) if path is not None else SkillFile(path=None)
        same = full.sha256 == self.sha256
        for n in LAZY_ATTRS if same else _ALL_ATTRS:
            _SLOTS[n].__set__(self, getattr(full, n))
        self._lazy = False
        return self

    # -- convenience -------------------------------------------------------------------
    @property
    def sha256(self) -> str:
        """Hex SHA-256 of ``raw`` (the bytes as read, BOM included), computed once on first use."""
        h = self._sha256
        if h is None:
            h = self._sha256 = hashlib.sha256(self.raw).hexdigest()
        return h

    @property
    def ok(self) -> bool:
        return self.state == "ok"

    @property
    def has_frontmatter_block(self) -> bool:
        """True when both delimiters were found (whatever the YAML inside)."""
        return self.open_line is not None and self.close_line is not None

    @property
    def skill_dir(self) -> Path | None:
        return self.path.parent if self.path is not None else None

    def get(self, key: str, default: Any = None) -> Any:
        """The strict YAML value of a top-level key, or ``default``."""
        if self.data is None:
            return default
        return self.data.get(key, default)

    def line_fields(self) -> dict[str, LineField]:
        """The frontmatter read by a lenient line parser (cached).

        Reproduces the fallback of Gemini CLI (``skillLoader.ts``: js-yaml first, then a line
        parser that accepts unquoted colons and indented continuation lines) and OpenClaw
        (``skill-contract.ts``: YAML first, then a single-line ``key: value`` parser):

        * a line ``key: value`` starting in column 1 starts a field; the value is everything after
          the first ``:`` (so ``description: Use when: x`` gives ``Use when: x``), stripped, with
          one level of matching surrounding quotes removed;
        * following lines that are indented continue the previous value, joined with a space;
        * comment lines and blank lines are ignored.

        Only available when both delimiters were found; otherwise returns {}.
        """
        if self._line_fields is None:
            self._line_fields = line_parse(self.frontmatter, (self.open_line or 0) + 1)
        return self._line_fields

    def first_body_line(self) -> str:
        """The first non-empty body line with leading Markdown heading marks removed.

        Claude Code's fallback description when the frontmatter is missing or unparseable
        (``skill-doctor`` prompt, CC v2.1.233: "description [falls back] to the first line of the
        body"). The docs word it "first paragraph"; which of the two is current is unverified.
        """
        for line in self.body.splitlines():
            s = line.strip()
            if s:
                return s.lstrip("#").strip()
        return ""

    def first_body_paragraph(self) -> str:
        """The first paragraph of the body (lines up to a blank line), joined with spaces."""
        out: list[str] = []
        for line in self.body.splitlines():
            s = line.strip()
            if not s:
                if out:
                    break
                continue
            if s.startswith("#") and not out:
                continue  # a heading is not a paragraph
            out.append(s)
        return " ".join(out)


#: The attributes a partial ``SkillFile`` (``partial``) holds only after ``load_full()``.
LAZY_ATTRS = ("raw", "text", "frontmatter", "body", "fields", "_line_fields")
_SLOTS: dict[str, Any] = {n: SkillFile.__dict__[n] for n in SkillFile.__slots__}  # member descriptors
_ALL_ATTRS = tuple(n for n in SkillFile.__slots__ if n not in ("path", "_lazy"))


# ----------------------------------------------------------------------------------------
# reading


def read_skill_file(path: Path | str, *, regular: bool = False) -> SkillFile:
    """Read and parse one SKILL.md. Never raises for bad content or I/O errors, never blocks.

    Returns a ``SkillFile`` with ``state`` "unreadable" when the file cannot be read (OS message;
    a broken or looping symlink, a folder, a FIFO/socket/device: see ``special_file_problem``),
    "too-large" above ``MAX_FILE_BYTES``, else whatever ``parse_skill_bytes`` finds.

    Only regular files are opened: the path is ``os.stat``-ed first (``S_ISREG``), and opened with
    ``O_NONBLOCK`` and checked again with ``fstat`` (a FIFO swapped in between must not block the
    reader: opening a FIFO for reading waits for a writer forever). ``regular``: a listing said it is a regular file: opened without the ``stat`` (the ``fstat``
    checks it; a failed open is read as without the hint: the same message)."""
    p = path if isinstance(path, Path) else fast_path(path)
    ps = path if type(path) is str else os.fspath(p)  # the system calls take the str as it is
    if regular:
        with suppress(OSError, ValueError):  # gone or changed since listed: stat'ed below
            return _read_open(p, os.open(ps, _OPEN_FLAGS), None)
    try:
        st = os.stat(ps)
    except (OSError, ValueError) as exc:  # ValueError: a NUL in the path
        problem = special_file_problem(p, exc=exc) if isinstance(exc, OSError) else None
        return _unreadable(p, problem or f"cannot read: {getattr(exc, 'strerror', None) or exc}")
    if not _stat.S_ISREG(st.st_mode):
        return _unreadable(p, special_file_problem(p, st=st) or "not a regular file", st)
    if st.st_size > MAX_FILE_BYTES:
        return _too_large(p, st)
    try:
        fd = os.open(ps, _OPEN_FLAGS)
    except OSError as exc:
        return _unreadable(p, f"cannot read: {exc.strerror or exc}", st)
    return _read_open(p, fd, st)


def _read_open(p: Path, fd: int, st: os.stat_result | None) -> SkillFile:
    """Read and parse the open ``fd`` (closed here); ``st``: the path's prior ``stat`` or None."""
    try:
        fst = os.fstat(fd)
        if not _stat.S_ISREG(fst.st_mode):  # swapped for something else since the stat
            return _unreadable(p, special_file_problem(p, st=fst) or "not a regular file", fst)
        if st is None and fst.st_size > MAX_FILE_BYTES:
            return _too_large(p, fst)
        raw = read_fd(fd, fst.st_size, MAX_FILE_BYTES + 1)
    except OSError as exc:
        return _unreadable(p, f"cannot read: {exc.strerror or exc}", st)
    finally:
        os.close(fd)
    sf = parse_skill_bytes(raw, p)
    sf.mtime_ns = fst.st_mtime_ns
    return sf


def _unreadable(p: Path, message: str, st: os.stat_result | None = None) -> SkillFile:
    # Decision: ``mtime_ns`` stays 0, so that caches keyed on (size, mtime) never keep an
    # "unreadable" verdict (a chmod or a new symlink target does not change the mtime).
    return SkillFile(path=p, state="unreadable", message=message, error_span=Span.point(1), _sha256="")


def _too_large(p: Path, st: os.stat_result) -> SkillFile:
    sf = SkillFile(path=p, state="too-large", size=st.st_size, mtime_ns=st.st_mtime_ns, _sha256="")
    sf.message = f"file is {st.st_size:,} bytes; files over {MAX_FILE_BYTES:,} bytes are not parsed"
    sf.error_span = Span.point(1)
    return sf


def parse_skill_text(text: str, path: Path | str | None = None) -> SkillFile:
    """Parse in-memory text (e.g. an editor buffer). A leading U+FEFF counts as a BOM."""
    return parse_skill_bytes(text.encode("utf-8", "surrogatepass"), Path(path) if path else None)


def parse_skill_bytes(raw: bytes, path: Path | None = None) -> SkillFile:
    """Parse SKILL.md bytes. Never raises; see ``SkillFile`` for what is reported."""
    sf = SkillFile(path=path, raw=raw, size=len(raw))
    if len(raw) > MAX_FILE_BYTES:
        sf.state = "too-large"
        sf.message = f"file is {len(raw):,} bytes; files over {MAX_FILE_BYTES:,} bytes are not parsed"
        sf.error_span = Span.point(1)
        return sf
    if b"\x00" in raw:
        sf.state = "binary"
        sf.message = "file contains NUL bytes: not a text file"
        sf.error_span = Span.point(1)
        return sf
    dec = decode_text_bytes(raw)
    sf.has_bom = dec.has_bom
    if dec.bad_offset is not None:
        body = raw[3:] if dec.has_bom else raw
        sf.not_utf8 = True
        sf.encoding_span = Span(dec.bad_line, dec.bad_column, dec.bad_line, dec.bad_column + 1)
        sf.encoding_message = (
            f"not valid UTF-8 (first bad byte 0x{body[dec.bad_offset]:02X} at line {dec.bad_line}, "
            f"column {dec.bad_column}); decoded with replacement characters"
        )
        sf.message = sf.encoding_message  # replaced by a frontmatter problem's message, if any
    sf.text = dec.text
    sf.newline = dec.newline
    _split(sf)
    if sf.state == "ok":
        _parse_yaml(sf)
    return sf


# ----------------------------------------------------------------------------------------
# splitting

_DELIM = re.compile(r"---[ \t]*\r?")
#: A first frontmatter character that may start a blank or comment line (``_split``'s emptiness
#: check looks further only then).
_BLANK_OR_COMMENT = frozenset({"#"} | {c for c in map(chr, range(0x3001)) if c.isspace()})
# a delimiter line after a line break (literal first character: the regex engine's fast search)
_CLOSE = re.compile(r"\n---[ \t]*\r?(?=\n|\Z)")


def _split(sf: SkillFile) -> None:
    """Find the frontmatter block: sets state (no-frontmatter / unclosed / empty), the delimiter
    lines, ``frontmatter`` (its lines without "\\r"), ``body`` and ``dash_lines``. Only the
    frontmatter is split into lines; the body is one slice of the text."""
    text = sf.text
    nl = text.find("\n")
    first = text if nl == -1 else text[:nl]
    if first != "---" and not _DELIM.fullmatch(first):
        sf.state = "no-frontmatter"
        if first.strip() == "---":
            sf.message = "the first line is not exactly '---' (leading whitespace)"
        elif not first.strip() and any(_DELIM.fullmatch(ln) for ln in text.split("\n", 6)[1:6]):
            sf.message = "frontmatter must start on line 1; blank line(s) before '---'"
        else:
            sf.message = "no frontmatter: the file must start with a '---' line"
        sf.error_span = Span(1, 1, 1, max(2, len(first.rstrip("\r")) + 1))
        sf.body = text
        sf.body_line = 1
        return
    sf.open_line = 1
    sf.open_trailing_ws = first.rstrip("\r") != "---"
    m = _CLOSE.search(text, nl) if nl != -1 else None
    if m is None:
        sf.state = "unclosed"
        sf.message = "frontmatter opened with '---' on line 1 is never closed by a '---' line"
        sf.error_span = Span(1, 1, 1, 4)
        rest = [] if nl == -1 else text[nl + 1 :].split("\n")
        sf.frontmatter = "\n".join(ln.rstrip("\r") for ln in rest)
        sf.body = ""
        sf.body_line = len(rest) + 2
        return
    close = text.count("\n", 0, m.start() + 1)  # 0-based line index of the closing '---'
    sf.close_line = close + 1
    fm = text[nl + 1 : m.start()] if m.start() > nl else ""
    if "\r" in fm:
        fm = "\n".join(ln.rstrip("\r") for ln in fm.split("\n"))
    sf.frontmatter = fm
    sf._body_at = m.end() + 1  # ``body``: sliced on first use (``SkillFile.__getattr__``)
    del sf.body
    sf.body_line = close + 2
    if "---" in fm:
        for j, ln in enumerate(fm.split("\n")):
            if "---" in ln and not ln.lstrip().startswith("#"):
                sf.dash_lines.append(j + 2)
    c0 = fm[:1]
    if c0 and c0 not in _BLANK_OR_COMMENT:  # the usual first line, "name: ...": not empty
        return
    fm_lines = fm.split("\n") if m.start() > nl else []
    if not fm.strip() or all(not ln.strip() or ln.lstrip().startswith("#") for ln in fm_lines):
        sf.state = "empty"
        sf.message = "the frontmatter between the '---' lines is empty"
        sf.error_span = Span(1, 1, sf.close_line, 4)


# ----------------------------------------------------------------------------------------
# YAML with positions

_STR_TAG = "tag:yaml.org,2002:str"
_MapNode, _ScalarNode = yaml.MappingNode, yaml.ScalarNode
_new_obj = object.__new__


def _parse_yaml(sf: SkillFile) -> None:
    offset = 1  # frontmatter line 1 is file line 2
    fm = sf.frontmatter
    ctor = None  # a PyYAML constructor, made when a key or value needs one
    try:
        # The frontmatter's last line ends with a line break in the file, so clip-chomped block
        # scalars (``description: >``) keep their final "\n", as YAML defines.
        node = compose(fm + "\n")
        if node is None:
            sf.state = "empty"
            sf.message = "the frontmatter between the '---' lines is empty"
            sf.error_span = Span(1, 1, (sf.close_line or 1), 4)
            return
        alias = "*" in fm  # an alias needs a '*': the common file pays nothing
        if alias:
            check_yaml_size(node)
        if type(node) is not _MapNode:
            sf.state = "not-mapping"
            kind = "a list" if type(node) is yaml.SequenceNode else "a single value"
            sf.message = f"the frontmatter is {kind}, not a mapping of keys to values"
            sf.error_span = _span(node, offset)
            return
        pairs = node.value
        seen: set[str] = set()
        fis: list[FieldInfo] = []
        plain_keys = True  # every key a str scalar: the constructed mapping needs no re-keying
        new = _new_obj
        memo: list[list[str]] = []
        for knode, vnode in pairs:
            key_s = k = knode.value
            if knode.tag != _STR_TAG or type(key_s) is not str:
                plain_keys = False
                if ctor is None:
                    ctor = constructor()
                try:
                    key = ctor.construct_object(knode, deep=True)
                except yaml.YAMLError:
                    key = knode.value
                key_s = key if isinstance(key, str) else str(key)
                if type(knode) is not _ScalarNode:
                    k = str(k)
            ks, ke = knode.start_mark, knode.end_mark
            k4 = (ks.line + 2, ks.column + 1, ke.line + 2, ke.column + 1)  # offset 1
            kspan = _span_get(k4) or _mkspan(*k4)  # = Span(*k4), inline
            if key_s in seen:
                sf.duplicate_keys.append((key_s, kspan))
            seen.add(key_s)
            # = FieldInfo(k, <value: below>, kspan, vspan, style, tag, vnode), inline
            fi = new(FieldInfo)
            fi.key = k
            fi.key_span = kspan
            fi.tag = vnode.tag
            fi.node = vnode
            fi.lenient = False
            if type(vnode) is _ScalarNode:
                fi.style = vnode.style or ""
                s, e = vnode.start_mark, vnode.end_mark
                line = s.line + 2  # offset 1
                if e.line + 2 == line:
                    sc, ec = s.column, e.column
                    if ec > sc:  # the usual value: on one line
                        v4 = (line, sc + 1, line, ec + 1)
                        fi.value_span = _span_get(v4) or _mkspan(*v4)
                        fis.append(fi)
                        continue
                fi.value_span = _value_span(vnode, offset, sf, memo)
            else:
                fi.style = None
                fi.value_span = _value_span(vnode, offset, sf, memo)
            fis.append(fi)
        data = construct_plain(node, alias, ctor)
    except yaml.MarkedYAMLError as exc:
        sf.state = "yaml-error"
        mark = exc.problem_mark or exc.context_mark
        problem = exc.problem or str(exc)
        ctx = f" ({exc.context})" if exc.context else ""
        if mark is not None:
            line, col = mark.line + 1 + offset, mark.column + 1
            sf.error_span = Span(line, col, line, col + 1)
            sf.message = f"invalid YAML at line {line}, column {col}: {problem}{ctx}"
        else:  # pragma: no cover - PyYAML always marks parse errors
            sf.error_span = Span.point(2)
            sf.message = f"invalid YAML: {problem}{ctx}"
        if "\t" in sf.frontmatter and "tab" in problem.lower():
            sf.message += " (tabs cannot indent YAML)"
        return
    except (yaml.YAMLError, ValueError, TypeError, RecursionError) as exc:
        sf.state = "yaml-error"
        sf.error_span = Span.point(2)
        sf.message = f"invalid YAML: {exc}"
        return
    if not isinstance(data, dict):  # pragma: no cover - guarded by the MappingNode check
        sf.state = "not-mapping"
        sf.message = "the frontmatter is not a mapping"
        return
    sf.data = data if plain_keys else {(k if isinstance(k, str) else str(k)): v for k, v in data.items()}
    get = sf.data.get
    fields = sf.fields
    for fi in fis:
        k = fi.key
        fi.value = get(k)
        fields[k] = fi


def _value_span(vnode: Any, offset: int, sf: SkillFile, memo: list[list[str]] | None = None) -> Span:
    s, e = vnode.start_mark, vnode.end_mark
    line, end_line = s.line + 1 + offset, e.line + 1 + offset
    if end_line == line and e.column > s.column:  # the usual case: a value on one line
        return _mkspan(line, s.column + 1, line, e.column + 1)
    sp = _mkspan(line, s.column + 1, end_line, e.column + 1)
    # PyYAML ends block scalars at the start of the next key's line; pull the end back to the end
    # of the last content line so a squiggle does not run onto the next key.
    if sp.end_line > sp.line and sp.end_column == 1:
        # ``memo`` keeps the split text across the fields of one parse (one split per file,
        # not one per block scalar).
        if memo is None:
            memo = []
        if not memo:  # the frontmatter's lines: file line L is lines[L - 2]
            memo.append(sf.frontmatter.split("\n"))
        lines = memo[0]
        el = sp.end_line - 1
        while el > sp.line and not lines[el - 2].strip():
            el -= 1
        return Span(sp.line, sp.column, el, len(lines[el - 2]) + 1)
    if sp.end_line == sp.line and sp.end_column <= sp.column:  # empty value
        return Span(sp.line, sp.column, sp.line, sp.column + 1)
    return sp


# ----------------------------------------------------------------------------------------
# helpers used by several clients


def collapse_ws(s: str) -> str:
    """Collapse runs of whitespace to one space and strip (Codex ``sanitize_single_line``)."""
    return " ".join(s.split())
