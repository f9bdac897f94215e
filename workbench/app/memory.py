"""Keeping the window's peak memory down (issue 14: 10,000 skills seen by 9 clients).

* ``ValueSharer.share(catalog)``: the 9 clients' catalogs of one workspace hold a ``Skill`` per
  client per file, each with its own copy of values that are mostly equal across clients (the
  ``fields`` dict every profile copies from the frontmatter, the ``flags`` and ``unverified``
  containers, descriptions a client normalised to the same text). Equal values are replaced by
  the first catalog's object: ~2.5 MB less per client on a 10,000-skill tree.
* ``release_free_memory()``: hand the C allocator's free pages back to the system (glibc's
  ``malloc_trim``), after a big transient (a listing's text rendered on a worker thread is freed
  into that thread's arena, which the GUI thread's allocations do not reuse).
* ``fix_mmap_threshold()``: big blocks keep their own ``mmap`` (glibc's dynamic threshold off),
  so that they go back to the system when freed instead of fragmenting the heaps.

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

from workbench.core.giveway import current_baton
from workbench.core.model import Catalog, Skill

log = logging.getLogger(__name__)

#: ``Skill`` attributes whose equal values are shared across catalogs (strings, and containers
#: nobody mutates once the scan is done).
SHARED_ATTRS = ("name", "description", "reason", "parse_note", "fields", "flags", "unverified")


class ValueSharer:
    """Makes the skills of later catalogs reuse the equal values of earlier ones (same SKILL.md
    path; ``unverified`` lists of any path). Not thread-safe: one scan pass uses one (on its
    worker thread)."""

    def __init__(self) -> None:
        # str(SKILL.md path) -> earlier skills of it that brought a value not seen before
        self._seen: dict[str, list[Skill]] = {}
        self._lists: dict[tuple[str, ...], list[str]] = {}  # non-empty ``unverified`` by content

    def share(self, catalog: Catalog) -> int:
        """Point ``catalog``'s skills at equal values (``SHARED_ATTRS``) that skills of the same
        path had in earlier ``share`` calls (and at an equal ``unverified`` list of any skill);
        a skill with a value not seen before becomes a reference for later calls. Call it once
        the client's scan is done (it only swaps equal values: every attribute compares equal
        before and after). Returns how many values now point at another skill's object."""
        seen, lists = self._seen, self._lists
        shared = 0
        baton = current_baton()  # turns with the GUI thread (``core.giveway``; the window's scan)
        for s in catalog.skills:
            if baton is not None:
                baton.give_way()
            unv = s.unverified
            if unv:
                ref = lists.setdefault(tuple(unv), unv)
                if ref is not unv:
                    s.unverified = ref
                    shared += 1
            key = str(s.path)
            refs = seen.get(key)
            if refs is None:
                seen[key] = [s]
                continue
            new = False
            for attr in SHARED_ATTRS:
                mine: Any = getattr(s, attr)
                for r in refs:
                    v = getattr(r, attr)
                    if v is mine:
                        break
                    if type(v) is type(mine) and v == mine:
                        setattr(s, attr, v)
                        shared += 1
                        break
                else:
                    new = True
            if new:
                refs.append(s)
        return shared


def _libc_function(name: str, argtypes: list[Any]) -> Any:
    """glibc's function ``name`` (returning int) or None (another C library, or not found)."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        func = getattr(ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6"), name)
    except (OSError, AttributeError):  # musl and others have no malloc_trim
        return None
    func.argtypes = argtypes
    func.restype = ctypes.c_int
    return func


_TRIM: Any = _libc_function("malloc_trim", [ctypes.c_size_t])
_MALLOPT: Any = _libc_function("mallopt", [ctypes.c_int, ctypes.c_int])
#: ``mallopt``'s parameter for the mmap threshold (glibc ``malloc.h``: ``M_MMAP_THRESHOLD``).
_M_MMAP_THRESHOLD = -3
#: The threshold kept: glibc's default. Blocks this big or bigger get their own ``mmap``.
MMAP_THRESHOLD = 128 * 1024


def fix_mmap_threshold() -> bool:
    """Keep glibc's mmap threshold at ``MMAP_THRESHOLD`` for this process and the processes it
    forks (``mallopt(M_MMAP_THRESHOLD)``, which turns off its dynamic raise). Returns True when
    set, False where it cannot be (another C library). Call it at start-up, before big blocks.

    Issue 14: glibc raises the threshold to the size of every ``mmap``'ed block freed (up to 32
    MiB), so after one 340 KB message from the parse pool, 10,000-entry dicts and lists of the
    scan were carved from the threads' heaps instead of ``mmap``'ed, and the window's peak RSS
    came out at 201-202 MB in some runs instead of 195 (a fixed threshold: 194.7-195.5 in every
    run; the main branch's window 194.0-195.2 -> 193.3-193.8)."""
    if _MALLOPT is None:
        return False
    try:
        return bool(_MALLOPT(_M_MMAP_THRESHOLD, MMAP_THRESHOLD))
    except OSError:  # pragma: no cover - a foreign libc refusing the call
        log.debug("mallopt failed", exc_info=True)
        return False


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
