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
import threading
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from workbench.core.cache.fscache import DirCache, default_dir_cache, snapshot
from workbench.core.cache.fscache import stat as _fs_stat
from workbench.core.cache.skillfacts import skillfile_facts, skillfile_from_facts
from workbench.core.clients import get_profile
from workbench.core.clients.base import ClientProfile, Found, ReadResult
from workbench.core.clients.common import (
    CommonProfile,
    best_name,
    installed_view,
    is_installed_extra,
    real_dir_memo,
    walk,
)
from workbench.core.model import CLIENT_IDS, Catalog, Environment, Root, Skill, SkillStatus, gc_paused
from workbench.core.skillfile import SkillFile, read_skill_file
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


class ParseCache:
    """Parsed ``SkillFile`` per path, reused while the file's (size, mtime_ns) is unchanged.

    Shared across clients and rescans. Thread-safe: a lock guards the table (parsing itself runs
    outside the lock, so two threads may parse the same new file once each; harmless).

    Args:
        persist: False (default) = in memory only. True = also keep parse facts on disk
            (``workbench.core.cache.parsestore.ParseStore`` under ``appdirs.cache_dir()``) and the folder
            listings of walks (``workbench.core.cache.fscache.DirCache``), so that a new process scanning
            an unchanged tree neither lists folders nor reads files; a folder path = the same
            under that folder (``<folder>/parse``, ``<folder>/fs``). ``save()`` writes them
            (``scan`` calls it).

    Attributes:
        hits, misses: counters (for benchmarks and tests).
        store: the ``ParseStore`` or None.
        dirs: the ``DirCache`` used by walks (in memory unless ``persist``).
    """

    def __init__(self, persist: bool | str | Path = False) -> None:
        self._table: dict[str, tuple[tuple[int, int], SkillFile]] = {}
        self._ids: dict[str, tuple[int, int]] = {}
        self._lock = threading.Lock()
        self.hits = 0
        self.misses = 0
        self.store = None
        #: ``prefetch`` parses through this when set, even while other threads run: a
        #: ``core.parsepool.ParsePool.facts`` (processes forked before any thread), or None.
        self.pool: Callable[[list[str]], list[tuple[Any, ...] | None] | None] | None = None
        if persist:
            from workbench.core.cache.parsestore import ParseStore

            base = None if persist is True else Path(persist)
            self.store = ParseStore(None if base is None else base / "parse")
            self.dirs = default_dir_cache(None if base is None else base / "fs")
        else:
            self.dirs = DirCache(persist=False)

    def get(self, path: Path | str) -> SkillFile:
        """The parsed file at ``path`` (never raises; an unreadable file gives state "unreadable")."""
        key = str(path)
        st = _fs_stat(key)
        if st is None:
            with self._lock:
                self._table.pop(key, None)
                self._ids.pop(key, None)
            return read_skill_file(key)
        ident = (st.st_size, st.st_mtime_ns)
        self._ids[key] = (st.st_dev, st.st_ino)
        with self._lock:
            ent = self._table.get(key)
            if ent is not None and ent[0] == ident:
                self.hits += 1
                return ent[1]
        sf = (
            self.store.get(key, st, path if isinstance(path, Path) else None)
            if self.store is not None
            else None
        )
        if sf is None:
            sf = read_skill_file(key)
            if self.store is not None:
                self.store.put(key, sf, st)
        with self._lock:
            self.misses += 1
            self._table[key] = (ident, sf)
        return sf

    def prefetch(self, paths: list[str], jobs: int | None = None) -> int:
        """Parse the files of ``paths`` that are neither in memory nor in the store in ``jobs``
        forked processes (None = both cores from ``PREFETCH_MIN`` files, when the caller runs no
        other thread; through ``self.pool`` when set). Workers send back compact parse facts; the ``SkillFile``s built from them
        read their text lazily (``skillfile.skillfile_from_facts``). Returns how many files were
        parsed in workers (0 = nothing to do or serial; ``get`` then parses as usual)."""
        todo: list[tuple[str, os.stat_result, Path | str]] = []
        table = self._table
        stored = self.store._load() if self.store is not None else {}
        for p in paths:
            key = str(p)
            st = _fs_stat(key)
            if st is None:
                continue
            ident = (st.st_size, st.st_mtime_ns)
            ent = table.get(key)
            if ent is not None and ent[0] == ident:
                continue
            got = stored.get(key)
            if got is not None and type(got) is tuple and got[:3] == (st.st_size, st.st_mtime_ns, st.st_ino):
                continue  # ``get`` rebuilds it from the store
            todo.append((key, st, p))
        if not todo:
            return 0
        from workbench.core.lint.batch import parallel_ok as _parallel_ok

        cpus = os.cpu_count() or 1
        if self.pool is not None:  # processes started before any thread (``core.parsepool``)
            parsed = self.pool([k for k, _, _ in todo])
        else:
            if jobs is None:
                jobs = min(cpus, 8) if len(todo) >= PREFETCH_MIN and cpus > 1 and _parallel_ok() else 1
            if jobs <= 1 or not _parallel_ok():
                return 0
            parsed = _facts_parallel([k for k, _, _ in todo], jobs)
        if parsed is None:
            return 0
        n = 0
        for (key, st, path), facts in zip(todo, parsed):
            if facts is None:
                continue
            sf = skillfile_from_facts(path, facts)
            if sf.size != st.st_size or sf.mtime_ns != st.st_mtime_ns:
                continue  # changed while we read it: ``get`` reads it again
            if self.store is not None:
                self.store.put_facts(key, facts, st)
            with self._lock:
                self._table[key] = ((st.st_size, st.st_mtime_ns), sf)
            n += 1
        return n

    def save(self) -> None:
        """Write the persistent parse facts and folder listings when they changed (no-op for an
        in-memory cache)."""
        if self.store is not None:
            self.store.save()
        self.dirs.save()

    def file_id(self, path: Path | str) -> tuple[int, int] | None:
        """(st_dev, st_ino) recorded by the last ``get`` of ``path`` (identifies a file reached
        through symlinks or duplicate roots without a realpath call), or None."""
        return self._ids.get(str(path))

    def invalidate(self, path: Path | str | None = None) -> None:
        """Forget one path (or everything when None)."""
        with self._lock:
            if path is None:
                self._table.clear()
                self._ids.clear()
            else:
                self._table.pop(str(path), None)
                self._ids.pop(str(path), None)
        if path is not None:
            self.dirs.forget(os.path.dirname(str(path)))

    def __len__(self) -> int:
        return len(self._table)


#: ``ParseCache.prefetch`` stays serial below this many unparsed files (a pool costs ~50 ms).
PREFETCH_MIN = 200


def _facts_chunk(paths: list[str]) -> list[tuple[Any, ...] | None]:
    """Worker entry point: ``skillfile_facts`` for each path (None when not marshal-able)."""
    import marshal

    out: list[tuple[Any, ...] | None] = []
    for p in paths:
        f: tuple[Any, ...] | None = skillfile_facts(read_skill_file(p))
        try:
            marshal.dumps(f)
        except ValueError:
            f = None
        out.append(f)
    return out


def _facts_parallel(paths: list[str], jobs: int) -> list[tuple[Any, ...] | None] | None:
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    size = max(25, -(-len(paths) // (jobs * 4)))
    chunks = [paths[i : i + size] for i in range(0, len(paths), size)]
    try:
        with ProcessPoolExecutor(max_workers=jobs, mp_context=multiprocessing.get_context("fork")) as ex:
            got = list(ex.map(_facts_chunk, chunks))
    except Exception:  # noqa: BLE001 - BrokenProcessPool, OSError: parse serially instead
        log.debug("parse pool failed; parsing serially", exc_info=True)
        return None
    return [f for chunk in got for f in chunk]


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


def _finder(
    profile: ClientProfile, env: Environment, walks: dict[Any, Any] | None, dirs: DirCache | None = None
) -> Callable[[Root], Iterable[Found]]:
    """``profile.find``, memoised per (root, walk rules) inside one ``scan_all`` pass when the
    profile uses the common walk (extra roots are walked identically for every client); the
    common walk reads folder listings through ``dirs`` (the cache's ``DirCache``); the profile's
    ``CommonProfile.after_walk`` then applies its own changes (OpenClaw's)."""
    if not isinstance(profile, CommonProfile) or type(profile).find is not CommonProfile.find:
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
        return profile.after_walk(root, got, env)

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
    sk = Skill(path=found.path, root=root, name="", file=sf, depth=found.depth)
    if not root.verified:
        sk.unverified.append(f"root {root.label or root.path} is unverified ({root.note})")
    if found.skip_reason:
        sk.name = best_name(sf, found.path)
        sk.status, sk.reason, sk.parse_mode = SkillStatus.SKIPPED, found.skip_reason, "failed"
        return sk, None
    try:
        rr = profile.read(sf, found, root, env)
    except Exception as exc:  # noqa: BLE001 - a profile bug must not lose the file
        log.warning("%s: reading %s failed (a profile bug)", profile.id, found.path, exc_info=True)
        sk.name = best_name(sf, found.path)
        sk.status, sk.reason, sk.parse_mode = (
            SkillStatus.SKIPPED,
            f"internal error reading: {exc!r}",
            "failed",
        )
        return sk, None
    sk.name = read_name(rr, sf, found.path)
    if rr.ok and root.namespace:
        sk.name = f"{root.namespace}:{sk.name}"
    sk.description = rr.description
    sk.when_to_use = rr.when_to_use
    sk.fields = rr.fields
    sk.parse_mode = rr.mode
    sk.parse_note = rr.note
    sk.unverified.extend(u for u in rr.unverified if u not in sk.unverified)
    if not rr.ok:
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


def _scan(
    env: Environment, client_id: str, cache: ParseCache | None, _walks: dict[Any, Any] | None
) -> Catalog:
    t0 = time.perf_counter()
    profile = get_profile(client_id)
    cache = cache if cache is not None else ParseCache()
    notes: list[str] = []
    roots = _dedupe_roots(
        collection_roots(profile.roots(env), env, notes), getattr(profile, "dedupe_roots", True), notes
    )
    skills: list[Skill] = []
    find = _finder(profile, env, _walks, getattr(cache, "dirs", None))
    seen_files: dict[object, Skill] = {}
    dedupe_files = getattr(profile, "dedupe_files", True)
    found_per_root = [(root, find(root) if root.exists else []) for root in roots]
    if isinstance(profile, CommonProfile) and any(is_installed_extra(r) for r in roots):
        # Extra roots: the skills as if installed in this client's root, minus files one of
        # the client's own roots reports already (``clients.walk.installed_view``).
        covered = [_real(r.path) for r in roots if r.exists and not is_installed_extra(r)]
        rules = profile.installed_rules()
        real_dir = _walks.setdefault("real_dir", real_dir_memo()) if _walks is not None else None
        views = _walks.setdefault("installed", {}) if _walks is not None else None
        found_per_root = [
            (
                r,
                (
                    installed_view(
                        fl if isinstance(fl, list) else list(fl), r.path, rules, covered, real_dir, views
                    )
                    if is_installed_extra(r)
                    else fl
                ),
            )
            for r, fl in found_per_root
        ]
    # One parse per file for the whole ``scan_all`` pass: the first client's ``cache.get`` (a
    # stat and a lock) fills ``files``, the others find the same SkillFile there.
    files: dict[str, SkillFile] = _walks.setdefault("files", {}) if _walks is not None else {}
    counted = isinstance(getattr(cache, "hits", None), int)
    prefetch = getattr(cache, "prefetch", None)
    if prefetch is not None:  # cold: parse in both cores first (a no-op when all are cached)
        todo = [f.path for _, fl in found_per_root for f in fl if str(f.path) not in files]
        if todo:
            prefetch(todo)
    for root, found_list in found_per_root:
        if not root.exists:
            continue
        for found in found_list:
            key = str(found.path)
            sf = files.get(key)
            if sf is None:
                sf = files[key] = cache.get(found.path)
            elif counted:
                cache.hits += 1  # served without a parse, as ``get`` would count it
            sk, note = read_skill(profile, sf, found, root, env)
            if note is None:
                skills.append(sk)
                continue
            real = (cache.file_id(found.path) or _real(found.path)) if dedupe_files else ""
            if dedupe_files and real in seen_files:
                first = seen_files[real]
                sk.status, sk.shadowed_by = SkillStatus.SHADOWED, first.path
                sk.reason = f"the same file as {first.path} (deduplicated by real path)"
                skills.append(sk)
                continue
            if dedupe_files:
                seen_files[real] = sk
            set_status(profile, sk, note, env)
            skills.append(sk)
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
        return {cid: scan(env, cid, cache, _walks=walks) for cid in CLIENT_IDS}


# ----------------------------------------------------------------------------------------
# the workspace as an extra root
