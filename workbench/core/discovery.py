"""Discovery: an ``Environment`` and a client → a ``Catalog`` of every root and every SKILL.md.

``scan(env, client_id, cache=None) -> Catalog`` drives the client's ``ClientProfile`` (see
``workbench/core/clients/base.py``) and never special-cases a client:

1. ``profile.roots(env)`` (highest precedence first, extra roots last); roots that resolve to the
   same real folder are scanned once when the client dedupes them (``profile.dedupe_roots``);
   an extra root that duplicates a client root is always dropped (a note says so).
2. ``profile.find(root, env)`` lists every SKILL.md below the root, including those the client
   would not find (too deep, skipped folder, symlink out of the root): those become ``skipped``
   with that reason.
3. Each file is parsed once (``ParseCache``) and read the client's way (``profile.read``); a file
   the client rejects is ``skipped`` with the client's reason.
4. A SKILL.md reached twice through symlinks/duplicate roots counts once (``shadowed`` by the
   first path) when ``profile.dedupe_files``.
5. Skills under an inactive root are ``conditional`` (nested package not touched) or ``gated``
   (untrusted folder); otherwise ``profile.gate`` may make them ``hidden``/``gated``/``conditional``.
6. ``profile.resolve_collisions`` marks name-collision losers ``shadowed`` (``shadowed_by`` = the
   winner's SKILL.md).

Every skill gets a one-line ``reason``. ``scan_all(env, cache=None)`` runs every client with one
shared cache (each file parsed once across the 8 clients).

The workspace as a project or a collection (``workspace_root_candidate``, ``use_workspace_as_root``,
``workspace_treatment``, ``apply_workspace_mode``) lives in ``workbench.core.workspace`` and is
re-exported here.
"""

from __future__ import annotations

import logging
import os
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any, TypeGuard

from workbench.core.cache.fscache import DirCache, snapshot
from workbench.core.clients import get_profile
from workbench.core.clients.base import ClientProfile, Found, ReadResult
from workbench.core.clients.common import (
    EXTRA_RULES,
    CommonProfile,
    best_name,
    installed_view,
    is_installed_extra,
    real_dir_memo,
    walk,
)
from workbench.core.forkrun import fork_ok
from workbench.core.giveway import current_baton
from workbench.core.model import CLIENT_IDS, Catalog, Environment, Root, Skill, SkillStatus, gc_paused
from workbench.core.parsecache import ParseCache, Prefetcher
from workbench.core.skillfile import SkillFile
from workbench.core.workspace import (
    WORKSPACE_MODES,
    WorkspaceTreatment,
    apply_workspace_mode,
    collection_roots,
    use_workspace_as_root,
    workspace_root_candidate,
    workspace_treatment,
)

log = logging.getLogger(__name__)

_LISTED = SkillStatus.LISTED  # read once: a class attribute of an enum costs ~0.1 µs per skill

__all__ = [
    "ParseCache",
    "Prefetcher",
    "fork_ok",
    "prepare",
    "start_parse",
    "read_skill",
    "scan",
    "set_status",
    "scan_all",
    "workspace_root_candidate",
    "use_workspace_as_root",
    "WORKSPACE_MODES",
    "WorkspaceTreatment",
    "workspace_treatment",
    "apply_workspace_mode",
]


def _real(p: Path) -> str:
    try:
        return os.path.realpath(p)
    except OSError:  # pragma: no cover
        return str(p)


def _dedupe_roots(roots: list[Root], dedupe: bool, notes: list[str]) -> list[Root]:
    out: list[Root] = []
    seen: dict[str, Root] = {}
    for r in roots:
        real = _real(r.path)
        first = seen.get(real)
        if first is not None and (dedupe or r.scope == "extra"):
            notes.append(f"root {r.path} is the same folder as {first.path}; scanned once")
            continue
        seen.setdefault(real, r)
        out.append(r)
    return out


def _common_walk(profile: ClientProfile) -> TypeGuard[CommonProfile]:
    """Whether ``profile`` finds its files by the common walk (``CommonProfile.find`` not
    overridden): discovery then walks each root once per pass and calls ``after_walk`` itself."""
    return isinstance(profile, CommonProfile) and type(profile).find is CommonProfile.find


def _finder(
    profile: ClientProfile, env: Environment, walks: dict[Any, Any] | None, dirs: DirCache | None = None
) -> Callable[[Root], Iterable[Found]]:
    """``profile.find``, memoised per (root, walk rules) inside one ``scan_all`` pass when the
    profile uses the common walk (extra roots are walked identically for every client): then
    the walk *before* ``CommonProfile.after_walk`` (``_views`` applies it), read through
    ``dirs`` (the cache's ``DirCache``)."""
    if not _common_walk(profile):
        return lambda root: profile.find(root, env)

    def find(root: Root) -> list[Found]:
        if not root.exists:
            return []
        key = (str(root.path), profile.rules_for(root))
        got = walks.get(key) if walks is not None else None
        if got is None:
            got = walk(root.path, key[1], dirs=dirs)
            if walks is not None:
                walks[key] = got
        return got

    return find


def read_name(rr: ReadResult, sf: SkillFile | None, path: Path) -> str:
    """The name a skill gets from ``profile.read``'s result: the client's, else the best guess
    (``common.best_name``); an explicit ``name: ""`` a client lists as is stays empty (OpenCode
    1.18.33; lab: name-empty)."""
    if rr.ok and not rr.name and rr.fields.get("name") == "":
        return ""
    return rr.name or best_name(sf, path)


def read_skill(
    profile: ClientProfile, sf: SkillFile, found: Found, root: Root, env: Environment
) -> tuple[Skill, str | None]:
    """Steps 2-3 of ``scan`` for one file: a ``Skill`` for ``found`` read the client's way.
    Returns ``(skill, note)``: ``note`` is the read's note when the client accepts the file (the
    caller then dedupes and calls ``set_status``), None when the skill is already ``skipped``
    (skipped by the walk, rejected by the client, or the profile raised: logged). Shared with
    ``rediscover`` (an incremental update re-reads a file exactly as a scan does)."""
    path = found.path
    unverified = [f"root {root.label or root.path} is unverified ({root.note})"] if not root.verified else []
    if found.skip_reason:
        sk = Skill(path, root, best_name(sf, path), file=sf, depth=found.depth, unverified=unverified)
        sk.status, sk.reason, sk.parse_mode = SkillStatus.SKIPPED, found.skip_reason, "failed"
        return sk, None
    try:
        rr = profile.read(sf, found, root, env)
    except Exception as exc:  # noqa: BLE001 - a profile bug must not lose the file
        log.warning("%s: reading %s failed (a profile bug)", profile.id, path, exc_info=True)
        sk = Skill(path, root, best_name(sf, path), file=sf, depth=found.depth, unverified=unverified)
        sk.status, sk.reason, sk.parse_mode = (
            SkillStatus.SKIPPED,
            f"internal error reading: {exc!r}",
            "failed",
        )
        return sk, None
    ok = rr.ok
    name = rr.name
    if not name:  # ``read_name`` inline (once per skill per client)
        name = "" if ok and rr.fields.get("name") == "" else best_name(sf, path)
    if ok and root.namespace:
        name = f"{root.namespace}:{name}"
    if rr.unverified:
        for u in rr.unverified:
            if u not in unverified:
                unverified.append(u)
    # positional, in ``model.Skill``'s field order: a keyword call of its ``__init__`` costs
    # ~0.3 µs more (90,000 calls per pass)
    sk = Skill(
        path, root, name, rr.description, rr.when_to_use, _LISTED, "", None, sf, rr.mode, rr.note,
        rr.fields, found.depth, unverified,
    )  # fmt: skip
    if not ok:
        sk.status, sk.reason = SkillStatus.SKIPPED, rr.reason or "skipped by the client"
        return sk, None
    return sk, rr.note


def set_status(profile: ClientProfile, sk: Skill, note: str, env: Environment) -> None:
    """Step 5 of ``scan`` for a file the client accepts (``note``: its read note): conditional
    or gated under an inactive root, else the profile's gate, else listed."""
    root = sk.root
    if not root.active:
        sk.status = profile.inactive_status(root, env)
        sk.reason = root.condition or "its root is not active"
        return
    g = profile.gate(sk, env)
    if g:
        sk.status, sk.reason = g
    else:
        sk.status = _LISTED
        sk.reason = note or "frontmatter read normally"


def scan(
    env: Environment, client_id: str, cache: ParseCache | None = None, *, _walks: dict[Any, Any] | None = None
) -> Catalog:
    """Every root of ``client_id`` and every SKILL.md under them, with status and reason.

    Args:
        env: the simulated machine.
        client_id: one of ``CLIENT_IDS``.
        cache: a ``ParseCache`` to share parses (a fresh one when None).

    Returns:
        ``Catalog`` with ``roots`` (highest precedence first) and ``skills`` (root order, then
        path). Never raises on file content; raises KeyError for an unknown client.
    """
    # Allocation-heavy (a Skill per file): the cyclic GC otherwise rescans the large cache of
    # parsed files many times per scan (measured: ~40% of a warm 10,000-skill scan).
    with gc_paused(), snapshot():  # each path stat'ed once per scan (fscache)
        return _scan(env, client_id, cache, _walks)


#: What ``_walked`` returns and ``_views`` takes: ``(roots, notes, found_per_root)``.
_Discovered = tuple[list[Root], list[str], list[tuple[Root, list[Found]]]]


def _discover(
    profile: ClientProfile, env: Environment, cache: ParseCache, walks: dict[Any, Any] | None
) -> _Discovered:
    """Steps 1-2 of ``scan`` for one client: ``(roots, notes, found_per_root)`` (extra roots as
    the client's installed view). Taken from ``walks`` when ``prepare`` computed it for this
    pass, or only its walks (``defer_views``: the views then made here); used once: popped."""
    if walks is not None:
        got = walks.pop(("found", profile.id), None)
        if got is not None:
            return got  # type: ignore[no-any-return]
        got = walks.pop(("walked", profile.id), None)
        if got is not None:
            return _views(profile, env, walks, got)
    return _views(profile, env, walks, _walked(profile, env, cache, walks))


def _walked(
    profile: ClientProfile, env: Environment, cache: ParseCache, walks: dict[Any, Any] | None
) -> _Discovered:
    """Step 1 and the walks of step 2: the client's roots, notes and each root's walk (before
    ``after_walk`` and the installed views: ``_views``)."""
    notes: list[str] = []
    roots = _dedupe_roots(
        collection_roots(profile.roots(env), env, notes), getattr(profile, "dedupe_roots", True), notes
    )
    find = _finder(profile, env, walks, getattr(cache, "dirs", None))
    found_per_root: list[tuple[Root, list[Found]]] = []
    for root in roots:
        fl = find(root) if root.exists else []
        found_per_root.append((root, fl if isinstance(fl, list) else list(fl)))
    return roots, notes, found_per_root


def _views(
    profile: ClientProfile, env: Environment, walks: dict[Any, Any] | None, got: _Discovered
) -> _Discovered:
    """The rest of step 2 on ``_walked``'s result: the client's ``after_walk`` of each common
    walk, then each extra root as the client's installed view."""
    roots, notes, found_per_root = got
    if _common_walk(profile):
        after = profile.after_walk
        found_per_root = [(r, after(r, fl, env) if r.exists else fl) for r, fl in found_per_root]
    if isinstance(profile, CommonProfile) and any(is_installed_extra(r) for r in roots):
        # Extra roots: the skills as if installed in this client's root, minus files one of
        # the client's own roots reports already (``clients.walk.installed_view``).
        covered = _covered(roots)
        rules = profile.installed_rules()
        real_dir = walks.setdefault("real_dir", real_dir_memo()) if walks is not None else None
        views = walks.setdefault("installed", {}) if walks is not None else None
        found_per_root = [
            (r, installed_view(fl, r.path, rules, covered, real_dir, views) if is_installed_extra(r) else fl)
            for r, fl in found_per_root
        ]
    return roots, notes, found_per_root


def _covered(roots: list[Root]) -> list[str]:
    """The real paths of the client's own existing roots (``installed_view`` drops an extra
    root's files inside one of them)."""
    return [_real(r.path) for r in roots if r.exists and not is_installed_extra(r)]


def start_parse(env: Environment, cache: ParseCache, walks: dict[Any, Any]) -> Prefetcher | None:
    """Start the cold parse of the pass ``walks`` with the files of ``env.extra_roots`` (walked
    alike for every client: kept in ``walks`` for ``_finder``), before any client's roots are
    found; ``prepare`` goes on with the same ``Prefetcher`` (None: a cache without one). A
    caller may call it early (the scan CLI: before the workspace treatment) and must then call
    ``prepare`` (or ``Prefetcher.finish``) with the same ``walks``."""
    got = walks.get("prefetcher")
    if got is not None:
        return got  # type: ignore[no-any-return]
    prefetcher = getattr(cache, "prefetcher", None)
    if prefetcher is None:
        return None
    pf: Prefetcher = prefetcher()
    walks["prefetcher"] = pf
    with gc_paused(), snapshot():
        for p in env.extra_roots:
            wkey = (str(p), EXTRA_RULES)
            if os.path.isdir(p) and wkey not in walks:
                # the workers start on the first files while the walk goes on
                walks[wkey] = walk(p, EXTRA_RULES, dirs=getattr(cache, "dirs", None), on_file=pf.add_one)
                pf.add(f.path for f in walks[wkey])  # a remembered walk: no ``on_file`` calls
    return pf


def prepare(
    env: Environment,
    client_ids: Iterable[str],
    cache: ParseCache,
    walks: dict[Any, Any],
    defer_views: bool = False,
) -> dict[str, int]:
    """Steps 1-2 of ``scan`` for every client of ``client_ids`` (their roots and walks, kept in
    ``walks`` for their ``scan(..., _walks=walks)`` in this pass) and one cold parse of every
    file found in both cores (``ParseCache.prefetcher``: it starts with the first client's
    files while the other clients' roots are walked), then each file's ``SkillFile`` and
    identity in ``walks`` (a helper forked after this inherits them). Returns
    per client how many SKILL.md entries its catalog will hold (0 = an empty catalog).
    ``defer_views``: a client's ``after_walk`` and installed views are left to its ``scan``
    (the scan CLI: after its helper's fork, so that both processes share them) when they
    cannot change its count: the client has no existing root of its own (so none can hold an
    extra root's files, which its installed view would drop; checked conservatively, per
    client, not per file) and ``after_walk`` keeps one ``Found`` per file. Raises KeyError for
    an unknown client."""
    with gc_paused(), snapshot():
        todo: dict[str, Path] = {}
        n: dict[str, int] = {}
        lists: dict[int, list[Found]] = {}  # found lists seen (kept alive: ids stay unique)
        ids = list(client_ids)
        # the parse starts with the first client's files while the others' roots are walked
        pf = start_parse(env, cache, walks)
        for cid in ids:
            profile = get_profile(cid)
            got = _walked(profile, env, cache, walks)
            if defer_views and not (isinstance(profile, CommonProfile) and _covered(got[0])):
                walks[("walked", cid)] = got  # the same files: ``_views`` in its ``scan``
            else:
                got = walks[("found", cid)] = _views(profile, env, walks, got)
            n[cid] = 0
            new: list[Path] = []
            for root, fl in got[2]:
                if root.exists:
                    n[cid] += len(fl)
                    if id(fl) in lists:
                        continue  # the same walk as another client's (memoised)
                    lists[id(fl)] = fl
                    for f in fl:
                        key = str(f.path)
                        if key not in todo:
                            todo[key] = f.path
                            new.append(f.path)
            if pf is not None and new:
                pf.add(new)
        if defer_views:  # while the parse goes on: the part of the views every client shares
            _first_views(env, ids, walks)
        if pf is not None:
            walks.pop("prefetcher", None)
            pf.finish()
        elif getattr(cache, "prefetch", None) is not None and todo:
            cache.prefetch(list(todo.values()))
        # each file's SkillFile and identity once for the pass (a forked helper inherits them)
        files = walks.setdefault("files", {})
        file_ids = walks.setdefault("file_ids", {})
        for key, path in todo.items():
            if key not in files:
                files[key] = cache.get(path)
                file_ids[key] = cache.file_id(key) or _real(path)
        walks.setdefault("prepared", set()).update(ids)
        return n


def _first_views(env: Environment, ids: list[str], walks: dict[Any, Any]) -> None:
    """The views (``_views``) of the first client of ``ids`` whose views ``prepare`` deferred
    and that has an extra root: the part of ``installed_view`` every client shares (its memo in
    ``walks``, ~40 ms at 10,000 files) is then made once, before the scan CLI's fork."""
    for cid in ids:
        got = walks.get(("walked", cid))
        if got is not None and any(is_installed_extra(r) for r in got[0]):
            walks[("found", cid)] = _views(get_profile(cid), env, walks, walks.pop(("walked", cid)))
            return


def _scan(
    env: Environment, client_id: str, cache: ParseCache | None, _walks: dict[Any, Any] | None
) -> Catalog:
    t0 = time.perf_counter()
    profile = get_profile(client_id)
    cache = cache if cache is not None else ParseCache()
    skills: list[Skill] = []
    seen_files: dict[object, Skill] = {}
    dedupe_files = getattr(profile, "dedupe_files", True)
    roots, notes, found_per_root = _discover(profile, env, cache, _walks)
    # One parse per file for the whole ``scan_all`` pass: the first client's ``cache.get`` (a
    # stat and a lock) fills ``files``, the others find the same SkillFile there.
    files: dict[str, SkillFile] = _walks.setdefault("files", {}) if _walks is not None else {}
    file_ids: dict[str, object] = _walks.setdefault("file_ids", {}) if _walks is not None else {}
    counted = isinstance(getattr(cache, "hits", None), int)
    hits = 0
    prefetch = getattr(cache, "prefetch", None)
    if prefetch is not None and client_id not in (_walks or {}).get("prepared", ()):
        # cold: parse in both cores first (a no-op when all are cached)
        todo = [f.path for _, fl in found_per_root for f in fl if str(f.path) not in files]
        if todo:
            prefetch(todo)
    baton = current_baton()  # the window's scan takes turns with the GUI thread (``core.giveway``)
    for root, found_list in found_per_root:
        if not root.exists:
            continue
        for found in found_list:
            if baton is not None:
                baton.give_way()
            key = str(found.path)
            sf = files.get(key)
            if sf is None:
                sf = files[key] = cache.get(found.path)
            else:
                hits += 1  # served without a parse, as ``get`` would count it
            sk, note = read_skill(profile, sf, found, root, env)
            if note is None:
                skills.append(sk)
                continue
            if dedupe_files:
                real = file_ids.get(key)
                if real is None:
                    real = file_ids[key] = cache.file_id(key) or _real(found.path)
                first = seen_files.get(real)
                if first is not None:
                    sk.status, sk.shadowed_by = SkillStatus.SHADOWED, first.path
                    sk.reason = f"the same file as {first.path} (deduplicated by real path)"
                    skills.append(sk)
                    continue
                seen_files[real] = sk
            set_status(profile, sk, note, env)
            skills.append(sk)
    if counted and hits:
        cache.hits += hits
    profile.resolve_collisions(skills, env)
    save = getattr(cache, "save", None)
    if save is not None:
        save()
    return Catalog(
        client=client_id,
        env=env,
        roots=roots,
        skills=skills,
        scan_seconds=time.perf_counter() - t0,
        notes=notes,
    )


def scan_all(env: Environment, cache: ParseCache | None = None) -> dict[str, Catalog]:
    """``scan`` for every client in ``CLIENT_IDS`` order, sharing one ``ParseCache``."""
    cache = cache if cache is not None else ParseCache()
    walks: dict[Any, Any] = {}
    with snapshot():  # one stat per path for all clients
        prepare(env, CLIENT_IDS, cache, walks)  # one parse pool for every client's files
        return {cid: scan(env, cid, cache, _walks=walks) for cid in CLIENT_IDS}


# ----------------------------------------------------------------------------------------
# the workspace as an extra root
