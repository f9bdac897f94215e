"""Tallies the window shows, made once per catalog or listing and remembered (issue 14).

The status bar's counts (``Catalog.counts``, ``ListingReport.counts``) and the tree's listing
states (``listing.listing_states``) are loops over every skill: ~1-3 ms each at 10,000 skills,
and the first scan result's turns on the GUI thread asked for them again for the same objects.
The scan pass (``app/scanpass``) makes them on its thread before it hands a catalog or a
listing to the window, which then finds them here. Keyed by the object's identity: a
finished catalog or listing is never changed in place (an incremental update makes a new one,
``core/rediscover``); an entry goes when its object does (a weak reference), so an old scan's
objects are not kept alive. Safe across threads: one dict operation per look-up or store.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable
from typing import Any, TypeVar

from workbench.core.listing import ListingReport, listing_states
from workbench.core.model import Catalog

T = TypeVar("T")

_memo: dict[tuple[int, str], tuple[weakref.ref[Any], Any]] = {}


def _remembered(obj: object, what: str, make: Callable[[], T]) -> T:
    key = (id(obj), what)
    hit = _memo.get(key)
    if hit is not None and hit[0]() is obj:
        return hit[1]  # type: ignore[no-any-return]
    value = make()
    _memo[key] = (weakref.ref(obj, lambda _r: _memo.pop(key, None)), value)
    return value


def catalog_counts(cat: Catalog) -> dict[str, int]:
    """``cat.counts()`` (status -> skills), made once per catalog; do not change the dict."""
    return _remembered(cat, "counts", cat.counts)


def listing_counts(rep: ListingReport) -> dict[str, int]:
    """``rep.counts()`` (listing state -> skills), made once per listing; do not change it."""
    return _remembered(rep, "counts", rep.counts)


def states(rep: ListingReport | None) -> dict[str, str]:
    """``listing.listing_states(rep)`` (SKILL.md path -> state; {} for None), made once per
    listing; do not change the dict."""
    return {} if rep is None else _remembered(rep, "states", lambda: listing_states(rep))


def prepare(catalogs: dict[str, Catalog], listings: dict[str, ListingReport]) -> None:
    """Make the tallies of ``catalogs`` and ``listings`` now (the scan thread, before the window
    is given them)."""
    for cat in catalogs.values():
        catalog_counts(cat)
    for rep in listings.values():
        listing_counts(rep)
        states(rep)
