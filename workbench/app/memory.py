"""Keeping the window's peak memory down (issue 14: 10,000 skills seen by 9 clients).

* ``ValueSharer.share(catalog)``: the 9 clients' catalogs of one workspace hold a ``Skill`` per
  client per file, each with its own copy of values that are mostly equal across clients (the
  ``fields`` dict every profile copies from the frontmatter, the ``flags`` and ``unverified``
  containers, descriptions a client normalised to the same text). Equal values are replaced by
  the first catalog's object: ~2.5 MB less per client on a 10,000-skill tree.
* ``release_free_memory()``: hand the C allocator's free pages back to the system (glibc's
  ``malloc_trim``), after a big transient (a listing's text rendered on a worker thread is freed
  into that thread's arena, which the GUI thread's allocations do not reuse).

Sharing is safe because a finished catalog's skills are never mutated: ``rediscover`` copies
``flags``/``unverified`` (``dataclasses.replace``) before it re-derives a skill, and the scan
itself is done with a catalog before it is shared.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import logging
import sys
from typing import Any

from workbench.core.model import Catalog, Skill

log = logging.getLogger(__name__)

#: ``Skill`` attributes whose equal values are shared across catalogs (strings, and containers
#: nobody mutates once the scan is done).
SHARED_ATTRS = ("name", "description", "reason", "parse_note", "fields", "flags", "unverified")


class ValueSharer:
    """Makes the skills of later catalogs reuse the equal values of earlier ones (same SKILL.md
    path). Not thread-safe: one scan pass uses one (on its worker thread)."""

    def __init__(self) -> None:
        self._first: dict[str, Skill] = {}  # str(SKILL.md path) -> the first skill seen for it

    def share(self, catalog: Catalog) -> int:
        """Point ``catalog``'s skills at the equal values (``SHARED_ATTRS``) of the first skill
        seen for the same path in an earlier ``share`` call; its other skills become the
        reference for later calls. Call it once the client's scan is done (it only swaps equal
        values: every attribute compares equal before and after). Returns how many values now
        point at an earlier skill's object."""
        first = self._first
        shared = 0
        for s in catalog.skills:
            key = str(s.path)
            ref = first.get(key)
            if ref is None:
                first[key] = s
                continue
            if ref is s:
                continue
            for attr in SHARED_ATTRS:
                mine: Any = getattr(s, attr)
                theirs: Any = getattr(ref, attr)
                if mine is not theirs and type(mine) is type(theirs) and mine == theirs:
                    setattr(s, attr, theirs)
                    shared += 1
        return shared


def _load_trim() -> Any:
    """glibc's ``malloc_trim`` or None (another C library, or not found)."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        trim = libc.malloc_trim
    except (OSError, AttributeError):  # musl and others have no malloc_trim
        return None
    trim.argtypes = [ctypes.c_size_t]
    trim.restype = ctypes.c_int
    return trim


_TRIM: Any = _load_trim()


def release_free_memory() -> bool:
    """Return the C allocator's free memory to the system (``malloc_trim(0)``, glibc only).
    Returns True when memory was released, False when none was or the call is not available.
    Takes ~1-5 ms; call it after big transients, not in a loop."""
    if _TRIM is None:
        return False
    try:
        return bool(_TRIM(0))
    except OSError:  # pragma: no cover - a foreign libc refusing the call
        log.debug("malloc_trim failed", exc_info=True)
        return False
