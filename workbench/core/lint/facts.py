"""A linted file's *facts* (what the catalog rules need of it without re-reading it) and
``FactsContext``, the part of ``LintContext`` the catalog rules use, rebuilt from them.

Shared by the runner (which builds the facts), the batch linter (which runs the catalog rules on
them) and ``workbench.core.cache.resultcache`` (which stores them as a plain tuple with
``marshal``), so none imports another's internals.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any, NamedTuple

from workbench.core.lint.catalogindex import CatalogEntry, CatalogIndex
from workbench.core.lint.profiles import Profile
from workbench.core.skillfile import Span
from workbench.core.spans import mkspan

#: A field as the facts keep it: (value reduced by ``plain_value``, (line, column, end_line, end_column)).
FactField = tuple[Any, tuple[int, int, int, int]]


class LintFacts(NamedTuple):
    """What the catalog rules need of one file. Stored as a plain tuple (``tuple(facts)``);
    ``LintFacts._make(t)`` reads one back."""

    state: str  #: ``SkillFile.state``
    has_fields: bool  #: ``LintContext.has_fields``
    name: str | None  #: ``LintContext.name_str()`` (None without fields)
    desc: str | None  #: ``LintContext.description_str()``
    fields: dict[str, FactField]  #: name, description, when_to_use, disable-model-invocation
    head: list[int]  #: lengths of the lines up to the last of those fields
    nlines: int  #: the file's line count
    cat_name: str | None  #: the catalog name when it differs from ``name``, else None
    cat_desc: str | None  #: the catalog description when it differs from ``desc``, else None


def cat_name(facts: tuple[Any, ...]) -> str:
    """The name a catalog rule compares (the catalog name when set, else the frontmatter name)."""
    f = LintFacts._make(facts)
    return (f.name or "") if f.cat_name is None else f.cat_name


def cat_desc(facts: tuple[Any, ...]) -> str:
    """The description a catalog rule compares (catalog value when set, else the frontmatter one)."""
    f = LintFacts._make(facts)
    return (f.desc or "") if f.cat_desc is None else f.cat_desc


def plain_value(v: Any) -> Any:
    """A field value reduced to what the catalog rules look at (str and bool survive; anything
    else becomes 0, which is neither a str nor ``True``)."""
    return v if isinstance(v, (str, bool)) else 0


class _LiteField:
    """A frontmatter field as the catalog rules see it in a ``FactsContext`` (its ``Span`` built
    on first use: most fields of most files are never asked for one)."""

    __slots__ = ("value", "_span")

    def __init__(self, value: Any, span: tuple[int, int, int, int]):
        self.value = value
        self._span = span

    @property
    def value_span(self) -> Span:
        return mkspan(*self._span)


class _HeadLines:
    """``ctx.lines`` for a ``FactsContext``: the lengths of the first lines of the file (those the
    catalog rules' spans can touch) and the true line count. Items are placeholder strings of the
    right length: the catalog rules and ``runner.clamp`` only take ``len()`` of a line."""

    __slots__ = ("head", "n")

    def __init__(self, head: list[int], n: int):
        self.head, self.n = head, n

    def __len__(self) -> int:
        return self.n

    def __getitem__(self, i: int) -> str:
        if i < 0:
            i += self.n
        if 0 <= i < len(self.head):
            return " " * self.head[i]
        if 0 <= i < self.n:
            return ""
        raise IndexError(i)


class _State:
    __slots__ = ("state",)

    def __init__(self, state: str):
        self.state = state


class FactsContext:
    """The part of ``LintContext`` that the catalog rules (``runner.CATALOG_RULES``) use, rebuilt
    from a file's ``LintFacts``: lets them run on cached or worker-computed results without
    re-parsing."""

    def __init__(
        self,
        facts: tuple[Any, ...],
        path: Path,
        profile: Profile,
        catalog: CatalogIndex,
        key: str | None = None,
    ):
        """``key``: ``os.path.abspath(path)`` when the caller has it (the batch linter does)."""
        state, has_fields, name, desc, fields, head, nlines = facts[:7]
        self.has_fields: bool = has_fields
        self._name: str | None = name
        self._desc: str | None = desc
        self._fields: dict[str, FactField] = fields
        self.sf = _State(state)
        self.lines = _HeadLines(head, nlines)
        self.path = path
        self.profile = profile
        self.catalog = catalog
        self.self_key = os.path.abspath(path) if key is None else key

    @property
    def dir_name(self) -> str | None:
        """The skill folder's name (``LintContext.dir_name``; computed when a rule asks)."""
        return os.path.basename(os.path.dirname(os.fspath(self.path))) or None

    @property
    def line_count(self) -> int:
        """The file's number of lines (``LintContext.line_count``)."""
        return self.lines.n

    def line_len(self, line: int) -> int:
        """The length of a 1-based line in ``1..line_count`` (0 past the kept head lines)."""
        head = self.lines.head
        return head[line - 1] if 0 < line <= len(head) else 0

    @property
    def fields(self) -> dict[str, _LiteField]:
        """The kept frontmatter fields (name, description, when_to_use, disable-model-invocation)."""
        return {k: _LiteField(v, sp) for k, (v, sp) in self._fields.items()}

    def others(
        self, entries: Iterable[CatalogEntry] | None = None, limit: int | None = None
    ) -> list[CatalogEntry]:
        """Catalog entries (all, or the given subset) other than this file itself, in order; at
        most ``limit`` of them (``CatalogIndex.others_than``)."""
        return self.catalog.others_than(self.self_key, entries, limit)

    def field(self, key: str) -> _LiteField | None:
        got = self._fields.get(key)
        return None if got is None else _LiteField(*got)

    def name_str(self) -> str | None:
        return self._name

    def description_str(self) -> str | None:
        return self._desc

    def get_line(self, line: int) -> str:
        return self.lines[line - 1] if 0 < line <= len(self.lines) else ""

    def line_span(self, line: int) -> Span:
        ln = self.get_line(line)
        return Span(line, 1, line, max(2, len(ln) + 1) if ln else 1)

    def top_span(self) -> Span:
        return self.line_span(1)
