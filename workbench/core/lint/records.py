"""Compact lint records: diagnostics as plain tuples (what workers send back and the result cache
stores with ``marshal``), and ``DiagnosticList``, the read-only sequence ``lint_paths`` returns.

An encoded diagnostic (``DiagTuple``) is ``(line, column, end_line, end_column, severity, code,
message, fix, rule, unverified)`` where ``fix`` is None or ``(title, ((line, column, end_line,
end_column, new_text), ...))``: the fields of ``Diagnostic`` in order (1-based, end column
exclusive, code points).
"""

from __future__ import annotations

import marshal
from bisect import bisect_right
from collections.abc import Iterable, Iterator, Sequence
from typing import Any, NamedTuple, overload

from workbench.core.jsontext import dumps_indented, encode_basestring
from workbench.core.lint.types import ERROR, SEVERITY_RANK, Diagnostic, Fix, TextEdit
from workbench.core.text import escape_unsafe_utf8

#: An encoded ``Diagnostic`` (see the module docstring).
DiagTuple = tuple[Any, ...]
#: Encoded diagnostics, or a ``marshal`` blob of a tuple of them (decoded on first use).
DiagSource = bytes | tuple[DiagTuple, ...] | list[DiagTuple]
#: Separates the diagnostics of a ``json_fragment``: a tab (JSON escapes it inside strings, the
#: template writes none, and ``text.escape_unsafe`` keeps it).
FRAGMENT_SEP = "\t"
#: The text before each diagnostic object's path in the ``--format json`` report (indent 2).
DIAG_HEAD = '\n    {\n      "path": '

_SEV_INDEX = {ERROR: 0, "warning": 1, "info": 2}


class Counts(NamedTuple):
    """Severity totals of some diagnostics."""

    errors: int
    warnings: int
    infos: int

    def plus(self, other: tuple[int, int, int]) -> Counts:
        """The element-wise sum with ``other`` (errors, warnings, infos)."""
        return Counts(self[0] + other[0], self[1] + other[1], self[2] + other[2])


def severity_counts(diags: Iterable[DiagTuple]) -> Counts:
    """``Counts`` of encoded diagnostics (an unknown severity counts as info)."""
    c = [0, 0, 0]
    for t in diags:
        c[_SEV_INDEX.get(t[4], 2)] += 1
    return Counts(c[0], c[1], c[2])


def encode_diag(d: Diagnostic) -> DiagTuple:
    """``d`` as a ``DiagTuple`` (marshal-able)."""
    fx = None
    if d.fix is not None:
        fx = (
            d.fix.title,
            tuple((e.line, e.column, e.end_line, e.end_column, e.new_text) for e in d.fix.edits),
        )
    return (
        d.line,
        d.column,
        d.end_line,
        d.end_column,
        d.severity,
        d.code,
        d.message,
        fx,
        d.rule,
        d.unverified,
    )


def decode_diag(t: DiagTuple) -> Diagnostic:
    """The ``Diagnostic`` of an encoded one."""
    fx = t[7]
    fix = None if fx is None else Fix(fx[0], [TextEdit(*e) for e in fx[1]])
    return Diagnostic(t[0], t[1], t[2], t[3], t[4], t[5], t[6], fix, t[8], t[9])


def tuple_sort_key(t: DiagTuple) -> tuple[Any, ...]:
    """``Diagnostic.sort_key`` of an encoded diagnostic."""
    return (t[0], t[1], SEVERITY_RANK.get(t[4], 9), t[5], t[2], t[3], t[6])


def _tuples(src: DiagSource) -> Sequence[DiagTuple]:
    if isinstance(src, bytes):
        got: Sequence[DiagTuple] = marshal.loads(src)
        return got
    return src


def json_fragment(records: Iterable[DiagTuple]) -> str:
    """The ``workbench lint --format json`` text of one file's diagnostics (``DiagTuple``s in
    report order) without their path: per diagnostic its object's text after ``"path": PATH``
    (from ``,\\n      "line": `` to the closing ``\\n    }``, as ``json.dumps(indent=2,
    ensure_ascii=False)`` writes it nested in the report's list), joined with ``FRAGMENT_SEP``;
    "" for none. ``json_diagnostics`` puts the paths back."""
    enc = encode_basestring
    out: list[str] = []
    add = out.append
    for t in records:
        s = (
            f',\n      "line": {t[0]},\n      "column": {t[1]},\n      "end_line": {t[2]},'
            f'\n      "end_column": {t[3]},\n      "severity": {enc(t[4])},\n      "code": {enc(t[5])},'
            f'\n      "message": {enc(t[6])},\n      "rule": {enc(t[8])}'
        )
        if t[9]:
            s += ',\n      "unverified": true'
        fx = t[7]
        if fx is not None:
            edits = [
                {"line": e[0], "column": e[1], "end_line": e[2], "end_column": e[3], "new_text": e[4]}
                for e in fx[1]
            ]
            s += ',\n      "fix": ' + dumps_indented({"title": fx[0], "edits": edits}, level=3)
        add(s + "\n    }")
    return FRAGMENT_SEP.join(out)


def escaped_json(records: Iterable[DiagTuple]) -> bytes:
    """``json_fragment(records)`` through ``text.escape_unsafe``, UTF-8 encoded: what the result
    cache keeps (``put_catalog``) so that a warm ``workbench lint --format json`` joins stored
    bytes instead of decoding and formatting every diagnostic (bytes: one byte per character
    of the usual text where a ``str`` holding one emoji takes four, and no decoding on load).
    Escaped text holds no lone surrogate, so the encoding never fails."""
    return escape_unsafe_utf8(json_fragment(records))  # = escape_unsafe(...).encode("utf-8")


_SEP_B, _HEAD_B = FRAGMENT_SEP.encode(), DIAG_HEAD.encode()


def merged_json(src: DiagSource, text: bytes, more: Sequence[DiagTuple]) -> bytes | None:
    """``escaped_json`` of ``src`` (sorted encoded diagnostics) and ``more`` together, in
    ``DiagnosticList.records()`` order (a stable sort of ``src`` then ``more``), from ``text`` =
    ``escaped_json(src)``: only ``more`` is rendered, each piece put where the sort puts it (a
    piece per diagnostic, ``FRAGMENT_SEP`` between them: that byte is in no piece, and
    ``text.escape_unsafe`` works character by character, so pieces escape as the whole does).
    None when ``text`` does not hold one piece per diagnostic of ``src`` (render it whole)."""
    if not more:
        return text
    src_t = _tuples(src)
    extra = sorted(more, key=tuple_sort_key)
    if not src_t:
        return escaped_json(extra) if not text else None
    pieces = text.split(_SEP_B)
    if len(pieces) != len(src_t):
        return None
    out: list[bytes] = []
    at = 0
    for t in extra:
        k = tuple_sort_key(t)
        j = bisect_right(src_t, k, lo=at, key=tuple_sort_key)  # after equal keys: src first
        out += pieces[at:j]
        out.append(escaped_json((t,)))
        at = j
    out += pieces[at:]
    return _SEP_B.join(out)


def json_diagnostics(parts: Iterable[tuple[bytes, bytes]]) -> list[bytes]:
    """The ``"diagnostics"`` list of the ``--format json`` report, from ``[`` to ``]`` (nested at
    level 1 as ``json.dumps(indent=2)`` writes it), UTF-8 encoded (lone surrogates as
    ``surrogatepass`` writes them), as pieces to join once with the rest of the report: from
    ``(encoded path, json_fragment)`` pairs in report order, both encoded the same way (the
    path as ``json.encoder.encode_basestring`` gives it). One ``bytes.replace`` per file puts
    its path before each of its diagnostics."""
    out: list[bytes] = [b"["]
    add = out.append
    sep = b""
    for ps, frag in parts:
        if frag:
            head = _HEAD_B + ps
            add(sep + head)
            add(frag.replace(_SEP_B, b"," + head))
            sep = b","
    if len(out) == 1:
        return [b"[]"]
    add(b"\n  ]")
    return out


class DiagnosticList(Sequence[Diagnostic]):
    """The diagnostics of one file, sorted by position, built on first use.

    ``lint_paths`` returns one per file: a warm run over 10,000 cached files would otherwise spend
    most of its time constructing ~35,000 frozen dataclasses nobody may look at. Built from the
    per-file rules' encoded diagnostics (a tuple or a ``marshal`` blob) plus the catalog rules'
    ones; ``counts()``/``totals()`` and ``records()`` never build ``Diagnostic`` objects. A
    read-only ``Sequence``: iteration, ``len``, indexing/slicing (a slice is a ``list``),
    ``in``, ``==`` with any list or sequence of diagnostics, ``+`` (gives a ``list``); pickles
    as a plain ``list``. ``list(dl)`` gives a mutable copy.
    """

    __slots__ = ("_src", "_cat", "_counts", "_items", "_json")

    def __init__(
        self,
        src: DiagSource = (),
        cat: DiagSource = (),
        counts: tuple[int, int, int] | None = None,
        json: bytes | None = None,
    ):
        # ``counts``: severity totals of ``src`` and ``cat`` together (None = count on demand);
        # ``json``: their ``escaped_json`` when known (the result cache keeps it)
        self._src = src
        self._cat = cat
        self._counts = counts
        self._items: list[Diagnostic] | None = None
        self._json = json

    @classmethod
    def of(cls, diags: Iterable[Diagnostic]) -> DiagnosticList:
        """A list over already built diagnostics (kept in the given order)."""
        out = cls()
        out._items = list(diags)
        return out

    def records(self) -> list[DiagTuple]:
        """The diagnostics as ``DiagTuple``s in list order, without building ``Diagnostic``
        objects (what printing 35,000 of them needs, ~5x cheaper than the objects)."""
        if self._items is not None:
            return [encode_diag(d) for d in self._items]
        src, cat = _tuples(self._src), _tuples(self._cat)
        return sorted((*src, *cat), key=tuple_sort_key) if cat else list(src)

    def escaped_json(self) -> bytes:
        """``escaped_json(self.records())``, computed once, or as the result cache gave it
        (then no diagnostic is decoded)."""
        j = self._json
        if j is None:
            j = self._json = escaped_json(self.records())
        return j

    def _built(self) -> list[Diagnostic]:
        items = self._items
        if items is None:
            items = self._items = [decode_diag(t) for t in self.records()]
            self._src = self._cat = ()
        return items

    def totals(self) -> Counts:
        """(errors, warnings, infos) without building anything."""
        if self._items is not None:
            c = [0, 0, 0]
            for d in self._items:
                c[_SEV_INDEX.get(d.severity, 2)] += 1
            return Counts(c[0], c[1], c[2])
        if self._counts is not None:
            return Counts(*self._counts)
        return severity_counts(_tuples(self._src)).plus(severity_counts(_tuples(self._cat)))

    def counts(self) -> dict[str, int]:
        """{"error": n, "warning": n, "info": n} (without building the diagnostics)."""
        e, w, i = self.totals()
        return {ERROR: e, "warning": w, "info": i}

    def __len__(self) -> int:
        if self._items is None and self._counts is not None:
            return sum(self._counts)
        return len(self._built())

    @overload
    def __getitem__(self, i: int) -> Diagnostic: ...

    @overload
    def __getitem__(self, i: slice) -> list[Diagnostic]: ...

    def __getitem__(self, i: int | slice) -> Diagnostic | list[Diagnostic]:
        return self._built()[i]

    def __iter__(self) -> Iterator[Diagnostic]:
        return iter(self._built())

    def __bool__(self) -> bool:
        return len(self) > 0

    def __eq__(self, other: object) -> bool:
        if isinstance(other, DiagnosticList):
            return self._built() == other._built()
        if isinstance(other, (list, tuple)):
            return self._built() == list(other)
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def __add__(self, other: Iterable[Diagnostic]) -> list[Diagnostic]:
        return [*self._built(), *other]

    def __radd__(self, other: Iterable[Diagnostic]) -> list[Diagnostic]:
        return [*other, *self._built()]

    def __repr__(self) -> str:
        return repr(self._built())

    def __reduce__(self) -> tuple[Any, ...]:
        return (list, (self._built(),))


def severity_totals(results: dict[Any, Sequence[Diagnostic]]) -> dict[str, int]:
    """{"error": n, "warning": n, "info": n} over ``lint_paths`` results, from the compact records
    where the lists are not built yet."""
    e = w = i = 0
    for v in results.values():
        if isinstance(v, DiagnosticList):
            a, b, c = v.totals()
        else:
            a, b, c = severity_counts(encode_diag(d) for d in v)
        e, w, i = e + a, w + b, i + c
    return {ERROR: e, "warning": w, "info": i}


def diagnostic_records(diags: Sequence[Diagnostic]) -> list[DiagTuple]:
    """``DiagnosticList.records()`` for any sequence of diagnostics (a plain list is encoded)."""
    if isinstance(diags, DiagnosticList):
        return diags.records()
    return [encode_diag(d) for d in diags]
