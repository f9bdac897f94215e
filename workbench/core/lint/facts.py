"""The layout of a file's lint *facts* record (what the catalog rules and the result cache need of a
linted SKILL.md without re-reading it): a 9-tuple, indexed by the ``F_*`` constants.

Shared by the engine (which builds the records) and ``workbench.core.resultcache`` (which stores
them), so neither imports the other's internals.
"""

from __future__ import annotations

from typing import Any

#: One facts record (fields of mixed types; see the ``F_*`` indexes).
Facts = tuple[Any, ...]

(F_STATE, F_HAS_FIELDS, F_NAME, F_DESC, F_FIELDS, F_LINES, F_NLINES, F_CAT_NAME, F_CAT_DESC) = range(9)


def cat_name(facts: Facts) -> str:
    """The name a catalog rule compares (the catalog name when set, else the frontmatter name)."""
    v: str | None = facts[F_CAT_NAME]
    name: str = facts[F_NAME] if v is None else v
    return name


def cat_desc(facts: Facts) -> str:
    """The description a catalog rule compares (catalog value when set, else the frontmatter one)."""
    v: str | None = facts[F_CAT_DESC]
    desc: str = facts[F_DESC] if v is None else v
    return desc
