"""``Span``: a 1-based source range (end column exclusive, code points), and building them fast
from YAML nodes. Re-exported by ``workbench.core.skillfile``."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

_new_obj = object.__new__
#: Equal spans are one object (``Span`` is immutable): the spans of a SKILL.md's frontmatter
#: keys and values, the file-level findings' first line, repeat from file to file (93% of the
#: corpus's key and value spans are met before: 483 distinct ones over its 1,241 files). At most
#: ``_INTERN_MAX`` are kept (then new ones are built and not kept).
_INTERNED: dict[tuple[int, int, int, int], Span] = {}
_INTERN_MAX = 4096


@dataclass(frozen=True, slots=True)
class Span:
    """A 1-based source range; ``end_column`` is exclusive. Units: code points.

    Immutable and compared by value; equal spans may be one object (``Span(...)`` and
    ``mkspan`` hand out a kept one: about a third of the frozen dataclass's ``__init__``)."""

    line: int
    column: int
    end_line: int
    end_column: int

    def __new__(cls, line: int, column: int, end_line: int, end_column: int) -> Span:
        return _INTERNED.get((line, column, end_line, end_column)) or mkspan(
            line, column, end_line, end_column
        )

    if not TYPE_CHECKING:
        #: the instance is complete after ``__new__`` (C's no-op ``__init__``; ``dataclass``
        #: keeps an ``__init__`` the class defines)
        __init__ = object.__init__

    def __reduce__(self) -> tuple[Any, tuple[int, int, int, int]]:  # pickle, copy: through __new__
        return (Span, (self.line, self.column, self.end_line, self.end_column))

    @staticmethod
    def point(line: int, column: int = 1) -> Span:
        return Span(line, column, line, column + 1)


#: The setters of a ``Span``'s four slots (line, column, end_line, end_column): a frozen
#: dataclass's fields are set through them (``mkspan``).
SPAN_SET = tuple(Span.__dict__[k].__set__ for k in ("line", "column", "end_line", "end_column"))
#: ``SPAN_GET((line, column, end_line, end_column))``: the kept ``Span`` of those values or
#: None (then ``mkspan``): the parse's inline fast path.
SPAN_GET = _INTERNED.get


def mkspan(line: int, column: int, end_line: int, end_column: int) -> Span:
    """``Span(line, column, end_line, end_column)`` (a kept one when there is one)."""
    key = (line, column, end_line, end_column)
    sp = _INTERNED.get(key)
    if sp is None:
        sp = _new_obj(Span)
        a, b, c, d = SPAN_SET
        a(sp, line)
        b(sp, column)
        c(sp, end_line)
        d(sp, end_column)
        if len(_INTERNED) < _INTERN_MAX:
            _INTERNED[key] = sp
    return sp


def span_at(node: Any, offset: int) -> Span:
    """The ``Span`` of a YAML node whose document starts ``offset`` lines into the file."""
    s, e = node.start_mark, node.end_mark
    return mkspan(s.line + 1 + offset, s.column + 1, e.line + 1 + offset, e.column + 1)


def node_span(node: Any) -> Span:
    """The file ``Span`` of a YAML node of the frontmatter (e.g. ``FieldInfo.node`` or a node
    inside it). The frontmatter starts on file line 2, so node marks are shifted by one line."""
    return span_at(node, 1)
