"""``Span``: a 1-based source range (end column exclusive, code points), and building them fast
from YAML nodes. Re-exported by ``workbench.core.skillfile``."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True, slots=True)
class Span:
    """A 1-based source range; ``end_column`` is exclusive. Units: code points."""

    line: int
    column: int
    end_line: int
    end_column: int

    @staticmethod
    def point(line: int, column: int = 1) -> Span:
        return Span(line, column, line, column + 1)


_new_obj = object.__new__
_SPAN_SET = tuple(Span.__dict__[k].__set__ for k in ("line", "column", "end_line", "end_column"))


def mkspan(line: int, column: int, end_line: int, end_column: int) -> Span:
    """``Span(line, column, end_line, end_column)`` at half the cost of the frozen dataclass's
    ``__init__`` (the parse builds two per frontmatter key)."""
    sp = _new_obj(Span)
    a, b, c, d = _SPAN_SET
    a(sp, line)
    b(sp, column)
    c(sp, end_line)
    d(sp, end_column)
    return sp


def span_at(node: Any, offset: int) -> Span:
    """The ``Span`` of a YAML node whose document starts ``offset`` lines into the file."""
    s, e = node.start_mark, node.end_mark
    return mkspan(s.line + 1 + offset, s.column + 1, e.line + 1 + offset, e.column + 1)


def node_span(node: Any) -> Span:
    """The file ``Span`` of a YAML node of the frontmatter (e.g. ``FieldInfo.node`` or a node
    inside it). The frontmatter starts on file line 2, so node marks are shifted by one line."""
    return span_at(node, 1)
