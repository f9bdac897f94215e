"""The catalog as cross-skill lint rules see it: ``CatalogEntry`` and ``CatalogIndex``.

A lint run over many files builds one ``CatalogIndex`` (names, normalised descriptions and paths,
each indexed once) and every file's ``LintContext`` reads it: O(1) look-ups per linted file for
the duplicate-name/description rules and the budget rules. Split out of ``lint/context``
(issue 15: modules under 600 lines); ``lint.context`` imports both names from here.
"""

from __future__ import annotations

import itertools
import os
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any


@dataclass(slots=True)
class CatalogEntry:
    """Another skill of the catalog (for cross-skill rules)."""

    name: str
    description: str
    path: Path | None


def _entries(catalog: Iterable[Any] | None) -> list[CatalogEntry]:
    out: list[CatalogEntry] = []
    for item in catalog or ():
        if isinstance(item, CatalogEntry):
            out.append(item)
        elif isinstance(item, (tuple, list)):
            name, desc = item[0], item[1] if len(item) > 1 else ""
            p = item[2] if len(item) > 2 else None
            out.append(CatalogEntry(str(name or ""), str(desc or ""), Path(p) if p else None))
        else:  # a workbench.core.model.Skill (duck-typed)
            out.append(
                CatalogEntry(
                    str(getattr(item, "name", "") or ""),
                    str(getattr(item, "description", "") or ""),
                    getattr(item, "path", None),
                )
            )
    return out


class CatalogIndex:
    """The catalog prepared once for cross-skill rules (O(1) look-ups per linted file).

    Build it once and pass it as ``catalog`` when linting many files against the same catalog
    (``lint_paths`` does). Entries: ``CatalogEntry``; ``(name, description, path)`` tuples and
    ``Skill`` objects are converted.
    """

    def __init__(self, catalog: Iterable[Any] | None, keys: Iterable[str | None] | None = None):
        """``keys``: each entry's ``os.path.abspath(path)`` (None for no path), in entry order,
        when the caller has them already (``lint_paths`` does): saves one ``abspath`` per entry."""
        self.entries = _entries(catalog)
        by_name: dict[str, list[CatalogEntry]] = {}
        by_desc: dict[str, list[CatalogEntry]] = {}
        self.keys: dict[int, str | None] = {}
        by_key: dict[str, list[CatalogEntry]] = {}
        abspath = os.path.abspath
        ks = (abspath(e.path) if e.path is not None else None for e in self.entries) if keys is None else keys
        for e, k in zip(self.entries, ks):
            got = by_name.get(e.name)
            if got is None:
                by_name[e.name] = [e]
            else:
                got.append(e)
            d = " ".join(e.description.split()).casefold()
            if d:
                got = by_desc.get(d)
                if got is None:
                    by_desc[d] = [e]
                else:
                    got.append(e)
            self.keys[id(e)] = k
            if k is not None:
                got = by_key.get(k)
                if got is None:
                    by_key[k] = [e]
                else:
                    got.append(e)
        self.by_name, self.by_desc, self.by_key = by_name, by_desc, by_key
        self._sums: dict[Any, int] = {}

    def __len__(self) -> int:
        return len(self.entries)

    def __bool__(self) -> bool:
        return bool(self.entries)

    def __iter__(self) -> Iterator[CatalogEntry]:
        return iter(self.entries)

    def key(self, e: CatalogEntry) -> str | None:
        k = self.keys.get(id(e), False)
        if k is False:
            return os.path.abspath(e.path) if e.path is not None else None
        return k  # type: ignore[return-value]

    def others_than(
        self, me: str | None, entries: Iterable[CatalogEntry] | None = None, limit: int | None = None
    ) -> list[CatalogEntry]:
        """The entries (all, or the given subset), in order, whose ``key`` is not ``me`` (the
        linted file's absolute path; None keeps all); at most ``limit`` of them: a rule that names
        a few of a big group of duplicates must not pay for the whole group on every file (that
        was quadratic in the group's size)."""
        src = self.entries if entries is None else entries
        if me is None or (limit is not None and limit <= 0):  # (islice raises for a negative one)
            return list(src if limit is None else itertools.islice(src if me is None else (), limit))
        out: list[CatalogEntry] = []
        keys = self.keys
        for e in src:  # = self.key(e) != me, inline (the catalog pass asks once per file and rule)
            k = keys.get(id(e), False)
            if k is False:
                k = os.path.abspath(e.path) if e.path is not None else None
            if k != me:
                out.append(e)
                if limit is not None and len(out) >= limit:
                    break
        return out

    def cached_sum(self, key: Any, fn: Callable[[CatalogEntry], int]) -> int:
        """``sum(fn(e) for e in entries)`` computed once per ``key``."""
        if key not in self._sums:
            self._sums[key] = sum(fn(e) for e in self.entries)
        return self._sums[key]
