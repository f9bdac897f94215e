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

Workspace as an extra root (HACKING.md, "Discovery"): ``workspace_root_candidate(env)`` returns
the workspace when it holds skill folders but no client has a project-level root inside it;
``use_workspace_as_root(env)`` then appends it to ``env.extra_roots`` and returns True, so the
CLI/GUI can add it and say so.
"""

from __future__ import annotations

import gc
import os
import threading
import time
from pathlib import Path

from workbench.core.clients import get_profile
from workbench.core.clients.common import EXTRA_RULES, CommonProfile, best_name, walk
from workbench.core.model import CLIENT_IDS, Catalog, Environment, Root, Skill
from workbench.core.skillfile import SkillFile, read_skill_file

__all__ = ["ParseCache", "scan", "scan_all", "workspace_root_candidate", "use_workspace_as_root"]


class ParseCache:
    """Parsed ``SkillFile`` per path, reused while the file's (size, mtime_ns) is unchanged.

    Shared across clients and rescans. Thread-safe: a lock guards the table (parsing itself runs
    outside the lock, so two threads may parse the same new file once each; harmless).

    Attributes:
        hits, misses: counters (for benchmarks and tests).
    """

    def __init__(self) -> None:
        self._table: dict[str, tuple[tuple[int, int], SkillFile]] = {}
        self._ids: dict[str, tuple[int, int]] = {}
        self._lock = threading.Lock()
        self.hits = 0
        self.misses = 0

    def get(self, path: Path | str) -> SkillFile:
        """The parsed file at ``path`` (never raises; an unreadable file gives state "unreadable")."""
        key = str(path)
        try:
            st = os.stat(key)
        except OSError:
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
        sf = read_skill_file(key)
        with self._lock:
            self.misses += 1
            self._table[key] = (ident, sf)
        return sf

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

    def __len__(self) -> int:
        return len(self._table)


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


def _finder(profile, env: Environment, walks: dict | None):
    """``profile.find``, memoised per (root, walk rules) inside one ``scan_all`` pass when the
    profile uses the common walk (extra roots are walked identically for every client)."""
    if walks is None or not isinstance(profile, CommonProfile) or \
            type(profile).find is not CommonProfile.find:
        return lambda root: profile.find(root, env)

    def find(root: Root):
        if not root.exists:
            return []
        key = (str(root.path), profile.rules_for(root))
        got = walks.get(key)
        if got is None:
            got = walks[key] = walk(root.path, key[1])
        return got
    return find


def scan(env: Environment, client_id: str, cache: ParseCache | None = None,
         *, _walks: dict | None = None) -> Catalog:
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
    gc_was_enabled = gc.isenabled()
    gc.disable()
    try:
        return _scan(env, client_id, cache, _walks)
    finally:
        if gc_was_enabled:
            gc.enable()


def _scan(env: Environment, client_id: str, cache: ParseCache | None, _walks: dict | None) -> Catalog:
    t0 = time.perf_counter()
    profile = get_profile(client_id)
    cache = cache if cache is not None else ParseCache()
    notes: list[str] = []
    roots = _dedupe_roots(profile.roots(env), getattr(profile, "dedupe_roots", True), notes)
    skills: list[Skill] = []
    find = _finder(profile, env, _walks)
    seen_files: dict[object, Skill] = {}
    dedupe_files = getattr(profile, "dedupe_files", True)
    for root in roots:
        if not root.exists:
            continue
        for found in find(root):
            sf = cache.get(found.path)
            sk = Skill(path=found.path, root=root, name="", file=sf, depth=found.depth)
            if not root.verified:
                sk.unverified.append(f"root {root.label or root.path} is unverified ({root.note})")
            if found.skip_reason:
                sk.name = best_name(sf, found.path)
                sk.status, sk.reason, sk.parse_mode = "skipped", found.skip_reason, "failed"
                skills.append(sk)
                continue
            try:
                rr = profile.read(sf, found, root, env)
            except Exception as exc:  # noqa: BLE001 - a profile bug must not lose the file
                sk.name = best_name(sf, found.path)
                sk.status, sk.reason, sk.parse_mode = "skipped", f"internal error reading: {exc!r}", "failed"
                skills.append(sk)
                continue
            sk.name = rr.name or best_name(sf, found.path)
            if rr.ok and root.namespace:
                sk.name = f"{root.namespace}:{sk.name}"
            sk.description = rr.description
            sk.when_to_use = rr.when_to_use
            sk.fields = rr.fields
            sk.parse_mode = rr.mode
            sk.parse_note = rr.note
            sk.unverified.extend(u for u in rr.unverified if u not in sk.unverified)
            if not rr.ok:
                sk.status, sk.reason = "skipped", rr.reason or "skipped by the client"
                skills.append(sk)
                continue
            real = (cache.file_id(found.path) or _real(found.path)) if dedupe_files else ""
            if dedupe_files and real in seen_files:
                first = seen_files[real]
                sk.status, sk.shadowed_by = "shadowed", first.path
                sk.reason = f"the same file as {first.path} (deduplicated by real path)"
                skills.append(sk)
                continue
            if dedupe_files:
                seen_files[real] = sk
            if not root.active:
                sk.status = profile.inactive_status(root, env) if hasattr(profile, "inactive_status") \
                    else "conditional"
                sk.reason = root.condition or "its root is not active"
            else:
                g = profile.gate(sk, env)
                if g:
                    sk.status, sk.reason = g
                else:
                    sk.status = "listed"
                    sk.reason = rr.note or "frontmatter read normally"
            skills.append(sk)
    profile.resolve_collisions(skills, env)
    return Catalog(client=client_id, env=env, roots=roots, skills=skills,
                   scan_seconds=time.perf_counter() - t0, notes=notes)


def scan_all(env: Environment, cache: ParseCache | None = None) -> dict[str, Catalog]:
    """``scan`` for every client in ``CLIENT_IDS`` order, sharing one ``ParseCache``."""
    cache = cache if cache is not None else ParseCache()
    walks: dict = {}
    return {cid: scan(env, cid, cache, _walks=walks) for cid in CLIENT_IDS}


# ----------------------------------------------------------------------------------------
# the workspace as an extra root


def _has_skill(folder: Path, max_depth: int) -> bool:
    """True when some SKILL.md lies within ``max_depth`` levels (BFS, stops at the first)."""
    level = [str(folder)]
    for _depth in range(max_depth + 1):
        nxt: list[str] = []
        for d in level:
            try:
                with os.scandir(d) as it:
                    for e in it:
                        if e.name == "SKILL.md":
                            if e.is_file():
                                return True
                        elif e.name not in (".git", "node_modules") and e.is_dir():
                            nxt.append(e.path)
            except OSError:
                continue
        level = nxt
        if not level:
            break
    return False


def _inside(p: Path, folder: Path) -> bool:
    return p == folder or folder in p.parents


def workspace_root_candidate(env: Environment) -> Path | None:
    """The workspace, when it should be scanned as an extra root; else None.

    Rule (decision, HACKING.md "Discovery"): the workspace (or a folder below it) holds a
    SKILL.md within 8 levels, no client has an existing project-level root (scope project or
    nested) inside the workspace, and the workspace is not already (inside) an extra root.
    User-level roots in the home folder do not count: opening a folder of skills should show
    them whatever is installed at home.
    """
    ws = env.workspace
    if any(_inside(ws, r) for r in env.extra_roots):
        return None
    for cid in CLIENT_IDS:
        for r in get_profile(cid).roots(env):
            if r.scope in ("project", "nested") and r.exists and _inside(r.path, ws):
                return None
    if not _has_skill(ws, EXTRA_RULES.max_depth or 8):
        return None
    return ws


def use_workspace_as_root(env: Environment) -> bool:
    """Append the workspace to ``env.extra_roots`` when ``workspace_root_candidate`` says so.
    Returns True when it was added (the caller should tell the user)."""
    ws = workspace_root_candidate(env)
    if ws is None:
        return False
    env.extra_roots.append(ws)
    return True
