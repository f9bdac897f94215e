"""Incremental discovery: catalogs re-derived after a few SKILL.md files changed, without a walk.

``refresh_all(catalogs, changed, cache, buffers=())`` is what the window runs for an editor
buffer, a save or a file the watcher saw change (``app/context.py``); ``refresh(catalog,
changed, cache)`` does it for one catalog. Both follow ``discovery.scan``'s per-file steps (read
the client's way, deduplicate, gate, resolve collisions) on fresh ``Skill`` objects for the
changed files and for every skill sharing a name with them, and give what a full ``discovery.scan`` gives
(``tests/core/test_discovery_refresh.py`` compares them). Only ``scan`` can place a new, moved or
deleted file: then they return None.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Collection, Iterable
from dataclasses import replace
from pathlib import Path

from workbench.core.clients import get_profile
from workbench.core.clients.base import ClientProfile, Found
from workbench.core.clients.common import best_name
from workbench.core.discovery import ParseCache, read_skill, set_status
from workbench.core.model import Catalog, Environment, Skill, SkillStatus
from workbench.core.skillfile import SkillFile, read_skill_file

__all__ = ["refresh", "refresh_all"]

log = logging.getLogger(__name__)


def refresh(
    catalog: Catalog, changed: Iterable[Path | str], cache: ParseCache | None = None
) -> Catalog | None:
    """``catalog`` re-derived after the SKILL.md files at ``changed`` changed, without walking.

    Only the skills that can change are re-derived: those at ``changed`` and every skill sharing
    a name with them (before or after the change), following ``discovery.scan`` steps 3-6 (read the
    client's way, namespace, gate, collisions) on fresh ``Skill`` objects. Collision rules group
    by name, so resolving them on that subset gives what a full ``discovery.scan`` gives. Walk-level skips
    (too deep, skipped folder) depend only on the path, so a skill skipped by the walk stays
    skipped; the same file reached twice is deduplicated again (``scan`` step 4).

    Args:
        catalog: a ``scan`` result; never mutated (a worker may be rendering it).
        changed: absolute SKILL.md paths, each a skill of ``catalog`` (every path of a changed
            file: ``refresh_all`` adds those reached through a symlinked folder).
        cache: where the files are read (``cache.get``); the caller invalidates the changed
            paths first (``refresh_all`` does). None = read each changed file from disk.

    Returns:
        A new ``Catalog`` (same roots and skill order), or None when a path is not a skill of
        ``catalog`` (a new or moved file): only a ``scan`` can place it.
    """
    paths = {Path(p) for p in changed}
    idx = [i for i, s in enumerate(catalog.skills) if s.path in paths]
    if len({catalog.skills[i].path for i in idx}) != len(paths):
        return None
    return _refresh_at(catalog, idx, cache)


def _refresh_at(catalog: Catalog, idx: list[int], cache: ParseCache | None) -> Catalog:
    """``refresh`` of the skills at indexes ``idx`` of ``catalog.skills``."""
    profile = get_profile(catalog.client)
    env = catalog.env
    fresh: dict[int, Skill] = {}
    for i in idx:
        old = catalog.skills[i]
        fresh[i] = _rederive(profile, old, cache.get(old.path) if cache is not None else None, env)
    if getattr(profile, "dedupe_files", True):
        _dedupe(fresh, cache)
    names = {_base_name(catalog.skills[i]) for i in idx} | {_base_name(s) for s in fresh.values()}
    for i, s in enumerate(catalog.skills):
        if i not in fresh and _base_name(s) in names:  # unchanged file: its parse is still valid
            if s.status == SkillStatus.SHADOWED and _DEDUPED in s.reason:  # and so is that verdict
                reason = s.reason[: s.reason.index(_DEDUPED) + len(_DEDUPED)]  # as step 4 left it
                fresh[i] = replace(s, reason=reason, flags=dict(s.flags), unverified=list(s.unverified))
            else:
                fresh[i] = _rederive(profile, s, s.file, env)
    profile.resolve_collisions([fresh[i] for i in sorted(fresh)], env)
    skills = list(catalog.skills)
    for i, s in fresh.items():
        skills[i] = s
    return replace(catalog, skills=skills)


def refresh_all(
    catalogs: dict[str, Catalog],
    changed: Iterable[Path | str],
    cache: ParseCache | None = None,
    *,
    buffers: Collection[str] = (),
) -> dict[str, Catalog] | None:
    """``refresh`` for every catalog holding one of the ``changed`` SKILL.md files: each changed
    file is read once (``cache.invalidate`` + ``cache.get``) for all clients.

    Args:
        catalogs: client id -> ``scan`` result (never mutated).
        changed: absolute SKILL.md paths that changed on disk or in an editor buffer (the paths
            of the same file through a symlinked folder are added).
        cache: the ``ParseCache`` the catalogs were scanned with (None = read from disk).
        buffers: paths (as str) whose text comes from an unsaved editor buffer served by
            ``cache``: they need not exist on disk.

    Returns:
        client id -> catalog (unchanged catalogs are the same objects), or None when only a full
        ``scan`` can answer: a path no catalog knows (new or moved) or one deleted from disk.
        Raises what a client profile raises while re-deriving (the caller rescans).
    """
    paths = {Path(p) for p in changed}
    known = {s.path for cat in catalogs.values() for s in cat.skills}
    if not paths <= known or any(str(p) not in buffers and not p.exists() for p in paths):
        return None
    paths |= _aliases(paths, known, cache)
    if cache is not None:
        for p in paths:
            cache.invalidate(p)
            cache.get(p)
    out = dict(catalogs)
    for cid, cat in catalogs.items():
        idx = [i for i, s in enumerate(cat.skills) if s.path in paths]
        if idx:
            out[cid] = _refresh_at(cat, idx, cache)
    return out


def _aliases(paths: set[Path], known: set[Path], cache: ParseCache | None) -> set[Path]:
    """The ``known`` SKILL.md paths that are the same file as one of ``paths`` (reached through a
    symlinked folder): they changed too. Compared by the (st_dev, st_ino) the cache recorded at
    the last scan (no system call per skill; a path without one is gone from disk, and so are its
    aliases), else (no cache) by real path."""
    if cache is not None:
        ids = {i for i in map(cache.file_id, paths) if i is not None}
        return {k for k in known if cache.file_id(k) in ids} if ids else set()
    reals = {os.path.realpath(p) for p in paths}
    return {k for k in known if os.path.realpath(k) in reals}


#: The end of the reason of a skill ``scan`` deduplicated (the same file reached twice).
_DEDUPED = "(deduplicated by real path)"


def _dedupe(fresh: dict[int, Skill], cache: ParseCache | None) -> None:
    """``scan`` step 4 on re-derived skills (every path of each file among them): the same file
    reached twice counts once, the first in catalog order wins (the others become ``shadowed``)."""
    seen: dict[object, Skill] = {}
    for i in sorted(fresh):
        sk = fresh[i]
        if sk.status == SkillStatus.SKIPPED:
            continue
        real = (cache.file_id(sk.path) if cache is not None else None) or os.path.realpath(sk.path)
        first = seen.setdefault(real, sk)
        if first is not sk:
            sk.status, sk.shadowed_by = SkillStatus.SHADOWED, first.path
            sk.reason = f"the same file as {first.path} {_DEDUPED}"


def _base_name(s: Skill) -> str:
    """A skill's name without the root's namespace (collisions group by it)."""
    name = s.flags.get("unscoped_name", s.name)
    return name if isinstance(name, str) else s.name


def _rederive(profile: ClientProfile, old: Skill, sf: SkillFile | None, env: Environment) -> Skill:
    """A fresh ``Skill`` for ``old.path`` from its parsed file ``sf`` (``discovery.scan`` steps 3 and 5 for
    one file; ``sf`` None = read it now). Deduplication (step 4) and collisions (step 6) are the
    caller's."""
    if sf is None:
        sf = read_skill_file(old.path)
    root = old.root
    found = Found(path=old.path, depth=old.depth)
    if old.status == SkillStatus.SKIPPED and old.file is not None and _walk_skipped(profile, old, found, env):
        name = best_name(sf, old.path)
        return replace(old, file=sf, name=name, flags=dict(old.flags), unverified=list(old.unverified))
    sk, note = read_skill(profile, sf, found, root, env)
    if note is not None:
        set_status(profile, sk, note, env)
    return sk


def _walk_skipped(profile: ClientProfile, old: Skill, found: Found, env: Environment) -> bool:
    """True when ``old`` (skipped) was skipped by the walk (too deep, skipped folder: where it
    lies, which a content change cannot alter), not by the client's read: reading its old file
    again does not give that skip (it reads fine, or is rejected for another reason)."""
    assert old.file is not None
    try:
        rr = profile.read(old.file, found, old.root, env)
    except Exception:  # noqa: BLE001 - the read raised: ``scan`` skipped it for that; re-derived
        log.debug("re-reading %s raised", old.path, exc_info=True)
        return False
    return rr.ok or old.reason != (rr.reason or "skipped by the client")
