"""File-system state shared by one operation, and a persistent cache of folder listings.

Two speed levers for scanning and linting large trees (HACKING.md "Performance"):

* ``snapshot()``: inside ``with snapshot():`` every ``stat()`` of the same path is answered once
  (a per-thread memo). Discovery and lint open one for each call, and a caller that does both
  (``workbench bench``'s scan + lint) wraps them in one, so a tree is stat'ed once, not once per
  consumer. Outside a snapshot ``stat()`` is a plain ``os.stat``. Decision (spec silent): a
  snapshot assumes the tree does not change while it is open; it only lives as long as one
  scan/lint call, the same assumption a single directory walk already makes.

* ``DirCache``: the listing of each folder (is there a ``SKILL.md``, which sub-folders, which
  entries are symlinks) keyed by the folder's ``mtime_ns``. Adding, removing or renaming an entry
  changes its folder's mtime (POSIX, NTFS), so an unchanged mtime means an unchanged listing and a
  walk costs one ``stat`` per folder instead of one ``scandir`` per folder (≈4x cheaper; the same
  idea as git's untracked cache). What a listing cannot vouch for is re-checked every time:
  symlinks (their targets may change without touching the folder) are stat'ed again, and
  listings of folders modified less than ``RACY_NS`` before they were read are not kept (a later
  change in the same clock tick could keep the mtime). Persisted with ``marshal`` under
  ``appdirs.cache_dir()/fs/dirs.marshal`` (``cachefile.write_cache_file``: temp file + rename); a cache
  file that cannot be read, is incomplete or has another format is ignored (and rebuilt).

Listing shape (``DirCache.listing(path)``, indexed): ``Listing(skill, dirs, links)`` where ``skill`` is
``SKILL_NONE``/``SKILL_FILE``/``SKILL_LINK``/``SKILL_DIR``/``SKILL_OTHER`` (what the ``SKILL.md``
entry is, symlinks not followed), ``dirs`` the names of real sub-folders (not symlinks) and
``links`` the names of symlinked entries (any target; the caller stats them when it needs to).
"""

from __future__ import annotations

import logging
import os
import stat as _stat
import threading
import time
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, NamedTuple

from workbench.core.cache.cachefile import RACY_NS, load_cache_file, trim_oldest, write_cache_file

log = logging.getLogger(__name__)

__all__ = [
    "snapshot",
    "listing",
    "is_symlink",
    "is_file",
    "stat",
    "mtime",
    "fast_path",
    "fast_paths",
    "abskey",
    "current_memo",
    "DirCache",
    "Listing",
    "read_entry",
    "default_dir_cache",
    "RACY_NS",
    "SKILL_NONE",
    "SKILL_FILE",
    "SKILL_LINK",
    "SKILL_DIR",
    "SKILL_OTHER",
]

#: Layout version of the persisted listing cache.
FORMAT = 3
#: Folders kept in the persisted cache (the least recently stored beyond this are dropped).
MAX_DIRS = 400_000

SKILL_NONE, SKILL_FILE, SKILL_LINK, SKILL_DIR, SKILL_OTHER = range(5)

_local = threading.local()
_os_stat = os.stat


# ----------------------------------------------------------------------------------------
# the per-operation stat memo


@contextmanager
def snapshot(dirs: DirCache | None = None) -> Iterator[dict[str, Any]]:
    """Memoise ``stat()`` for this thread until the block ends (nested blocks share the outer
    memo). Yields the memo (path str -> ``os.stat_result`` or None). ``dirs``: a ``DirCache``
    that ``listing()`` answers from inside the block (a search without a cache argument, e.g.
    Claude Code's nested-root search, then reuses the listings of the scan's walks); a nested
    block's ``dirs`` applies when the outer block gave none."""
    memo = getattr(_local, "memo", None)
    if memo is not None:
        if dirs is None or getattr(_local, "dirs", None) is not None:
            yield memo
            return
        _local.dirs = dirs
        try:
            yield memo
        finally:
            _local.dirs = None
        return
    memo = _local.memo = {}
    _local.dirs = dirs
    try:
        yield memo
    finally:
        _local.memo = None
        _local.dirs = None


def listing(path: str) -> Listing | tuple[Any, ...] | None:
    """The listing of folder ``path`` (``DirCache.listing``'s shape): from the ``DirCache`` of
    the open ``snapshot(dirs=)`` on this thread, else ``scan_listing``. None when it cannot be
    listed."""
    dirs = getattr(_local, "dirs", None)
    return dirs.listing(path) if dirs is not None else scan_listing(path)


def stat(path: str) -> os.stat_result | None:
    """``os.stat(path)`` (follows symlinks) or None when it fails; memoised inside ``snapshot()``."""
    memo = getattr(_local, "memo", None)
    if memo is None:
        try:
            return _os_stat(path)
        except (OSError, ValueError):
            return None
    try:
        got: os.stat_result | None = memo[path]
        return got
    except KeyError:
        try:
            st = _os_stat(path)
        except (OSError, ValueError):
            st = None
        memo[path] = st
        return st


def current_memo() -> dict[str, Any] | None:
    """The memo of the open ``snapshot()`` on this thread, or None."""
    return getattr(_local, "memo", None)


def abskey(s: str) -> str:
    """``os.path.abspath(s)`` for a str, without the work when ``s`` is already absolute and
    normalised (the usual case for walk results)."""
    if s[:1] == "/" and "//" not in s and "/." not in s and s[-1:] != "/" and os.sep == "/":
        return s
    return os.path.abspath(s)


def mtime(path: str) -> int:
    """``st_mtime_ns`` of ``path``, or -1 when it does not exist / cannot be stat'ed."""
    st = stat(path)
    return -1 if st is None else st.st_mtime_ns


def _same_path(q: Path, r: Path) -> bool:
    """``q`` behaves as ``r`` (equal, same str, parts, parent, name, hash and type): the import-time
    check of ``fast_paths`` against pathlib's own."""
    return (
        q == r
        and str(q) == str(r)
        and q.parts == r.parts
        and q.parent == r.parent
        and q.name == r.name
        and hash(q) == hash(r)
        and type(q) is type(r)
    )


def fast_paths(strs: Iterable[str]) -> list[Path]:
    """``[Path(s) for s in strs]``, ~3x cheaper for absolute normalised str paths (a walk's 10k
    results): pathlib's parsing is skipped and its private slots set directly (CPython 3.8-3.11;
    checked against ``Path`` at import, else plain ``Path``)."""
    if _new_posix is None:
        return [Path(s) for s in strs]
    out: list[Path] = []
    add = out.append
    new = object.__new__
    for s in strs:
        if s[:1] != "/" or "//" in s or "/./" in s or "/../" in s or s.endswith(("/", "/.", "/..")):
            add(Path(s))
            continue
        parts = s.split("/")
        parts[0] = "/"
        p = new(_new_posix)
        p._drv = ""  # type: ignore[attr-defined]  # what pathlib's own parsing sets (3.8-3.11)
        p._root = "/"  # type: ignore[attr-defined]
        p._parts = parts  # type: ignore[attr-defined]
        p._str = s  # type: ignore[attr-defined]  # what ``str(p)`` would compute (pathlib caches it there)
        add(p)
    return out


def fast_path(s: str) -> Path:
    """``Path(s)`` for one str path (``fast_paths``)."""
    return fast_paths((s,))[0]


def _posix_for_fast_paths() -> type[Path] | None:
    """``PosixPath`` when ``fast_paths``' construction gives ``Path``'s objects here (pathlib's
    private slots of CPython 3.8-3.11), else None (plain ``Path``)."""
    global _new_posix
    from pathlib import PosixPath

    _new_posix = PosixPath if os.name == "posix" else None
    slots = ("_drv", "_root", "_parts")
    try:
        for probe in ("/a/b/SKILL.md", "/x", "/tmp/é/ü.md"):
            if _new_posix is None:
                break
            (q,) = fast_paths([probe])
            r = Path(probe)
            if not _same_path(q, r) or [getattr(q, a) for a in slots] != [getattr(r, a) for a in slots]:
                _new_posix = None
    except Exception:  # noqa: BLE001 - other pathlib internals: use Path
        log.debug("inline Path construction unavailable; using Path", exc_info=True)
        _new_posix = None
    return _new_posix


_new_posix: type[Path] | None = None
_posix_for_fast_paths()


def is_symlink(path: str) -> bool:
    """``os.path.islink(path)``, answered without a system call from the listing of its folder
    in the open ``snapshot(dirs=)``'s ``DirCache`` when that holds it (unchanged mtime), else by
    ``lstat``. ``path``: an absolute normalised str (a walk's result)."""
    dirs = getattr(_local, "dirs", None)
    if dirs is not None:
        folder, _, name = path.rpartition("/")
        ent = dirs.cached_listing(folder) if folder and os.sep == "/" else None
        if ent is not None:
            if name == "SKILL.md":
                return bool(ent[0] == SKILL_LINK)
            return name in ent[2]
    return os.path.islink(path)


def is_file(path: str) -> bool:
    """``os.path.isfile(path)``; False without a system call when the open ``snapshot(dirs=)``'s
    ``DirCache`` holds the listing of the folder above ``path``'s folder and that folder is not
    among its sub-folders or symlinks (e.g. ``<skill>/agents/openai.yaml`` of a skill folder
    without ``agents/``: the walk listed the skill folder). ``path``: an absolute normalised str."""
    dirs = getattr(_local, "dirs", None)
    if dirs is not None and os.sep == "/":
        folder = path.rpartition("/")[0]
        top, _, name = folder.rpartition("/")
        ent = dirs.cached_listing(top) if top and name else None
        if ent is not None and name not in ent[1] and name not in ent[2]:
            return False
    return os.path.isfile(path)


# ----------------------------------------------------------------------------------------
# folder listings


class Listing(NamedTuple):
    """One folder's entries as the walks need them (see the module docstring)."""

    skill: int
    dirs: tuple[str, ...]
    links: tuple[str, ...]


def scan_listing(path: str) -> Listing | None:
    """List ``path`` with ``os.scandir`` (no cache). None when it cannot be listed."""
    got = _scan(path)
    return None if got is None else Listing(*got)


def _scan(path: str, mtime_ns: int = -1) -> tuple[int, tuple[str, ...], tuple[str, ...]] | None:
    """``scan_listing`` as a plain tuple (no ``Listing``: a Python-level ``__new__`` per folder
    of a cold walk)."""
    skill = SKILL_NONE
    dirs: list[str] = []
    links: list[str] = []
    table = getattr(_local, "skill_folders", None)
    files: list[str] | None = [] if table is not None else None  # the other names (None: not kept)
    try:
        with os.scandir(path) as it:
            for e in it:
                name = e.name
                # not a symlink: is_dir()/is_file() then answer as with follow_symlinks=False
                # (from the entry's type, without the keyword's parsing per entry)
                try:
                    if e.is_symlink():
                        links.append(name)
                        if name == "SKILL.md":
                            skill = SKILL_LINK
                        continue
                    is_dir = e.is_dir()
                except OSError:
                    files = None
                    continue
                if name == "SKILL.md":
                    if is_dir:
                        skill = SKILL_DIR
                    else:
                        try:
                            skill = SKILL_FILE if e.is_file() else SKILL_OTHER
                        except OSError:
                            skill = SKILL_OTHER
                if is_dir:
                    dirs.append(name)
                elif files is not None:
                    files.append(name)
    except OSError:
        return None
    if files is not None and skill == SKILL_FILE and not links and table is not None:
        table[path] = (tuple(files), tuple(dirs), mtime_ns)
    return skill, tuple(dirs), tuple(links)


@contextmanager
def skill_folders(table: dict[str, tuple[Any, ...]] | None) -> Iterator[None]:
    """While the block runs, every folder this thread lists with ``scandir`` (``DirCache``
    misses, ``scan_listing``) whose ``SKILL.md`` is a regular file (not a symlink) and which
    holds no symlink and no entry that failed is put in ``table``: folder -> ``(file names,
    folder names, mtime_ns)``, the names in listing order, ``mtime_ns`` the folder's, stat'ed
    before it was listed (-1: not known). ``workbench lint``'s walk hands them to the lint
    workers (``batch.LintFeed``), which then list no skill folder again. None: nothing kept."""
    was = getattr(_local, "skill_folders", None)
    _local.skill_folders = table
    try:
        yield
    finally:
        _local.skill_folders = was


def read_entry(path: str, st: os.stat_result, now_ns: int) -> tuple[tuple[Any, ...] | None, bool]:
    """``(entry, keep)``: a ``DirCache`` entry for folder ``path`` listed now (``_scan``'s
    listing plus ``st.st_mtime_ns``; ``st``: its ``stat`` taken before) and whether it may be
    kept: ``st`` is a folder's and its mtime is not racily new at ``now_ns`` (``RACY_NS``).
    ``(None, False)`` when it cannot be listed."""
    m = st.st_mtime_ns
    got = _scan(path, m)
    if got is None:
        return None, False
    return (*got, m), m < now_ns - RACY_NS and _stat.S_ISDIR(st.st_mode)


class DirCache:
    """Folder listings keyed by the folder's ``mtime_ns`` (module docstring).

    Args:
        folder: where ``dirs.marshal`` lives (default ``appdirs.cache_dir()/fs``); None with
            ``persist=False`` keeps everything in memory (a GUI session, tests).
        persist: load from / ``save()`` to disk.

    Attributes: ``hits``, ``misses`` (listings answered from the cache / read with scandir),
    ``notes`` (e.g. "cache file unreadable; rebuilt"). Thread-safe for concurrent walks (a lock
    guards the table; scandir runs outside it).
    """

    def __init__(self, folder: Path | str | None = None, *, persist: bool = True):
        self.persist = persist
        if persist and folder is None:
            from workbench.core.appdirs import cache_dir

            folder = cache_dir() / "fs"
        self.folder = Path(folder) if folder is not None else None
        self.path = self.folder / "dirs.marshal" if self.folder is not None else None
        self.hits = 0
        self.misses = 0
        self.notes: list[str] = []
        self._table: dict[str, tuple[Any, ...]] | None = None
        self._walks: dict[str, tuple[Any, ...]] = {}
        self._dirty = False
        self._lock = threading.Lock()

    def _load(self) -> dict[str, tuple[Any, ...]]:
        if self._table is None:
            table: dict[str, tuple[Any, ...]] = {}
            walks: dict[str, tuple[Any, ...]] = {}
            if self.persist and self.path is not None:
                obj, rebuild = load_cache_file(
                    self.path,
                    lambda o: (
                        o.get("format") == FORMAT
                        and isinstance(o.get("dirs"), dict)
                        and isinstance(o.get("walks"), dict)
                    ),
                    self.notes,
                )
                if obj is not None:
                    table, walks = obj["dirs"], obj["walks"]
                self._dirty = self._dirty or rebuild
            self._table = table
            self._walks = walks
        return self._table

    # -- whole walks -----------------------------------------------------------------------
    def walk_result(self, key: str) -> list[Any] | None:
        """The result stored by ``put_walk`` under ``key`` when every folder that walk visited
        still has the same mtime (one ``stat`` each, memoised in the snapshot), else None."""
        got = self.stored_walk(key)
        if got is None:
            return None
        self.hits += len(got[0])
        return list(got[2])

    def stored_walk(self, key: str) -> tuple[Sequence[str], Sequence[int], Sequence[Any]] | None:
        """``(visited folders, their mtimes, result)`` that ``put_walk`` stored under ``key`` when
        every visited folder still has that mtime (``walk_result``'s test), else None."""
        self._load()
        ent = self._walks.get(key)
        if ent is None:
            return None
        try:
            visited, mtimes, result = ent
            memo = getattr(_local, "memo", None)
            if memo is None:
                now = [mtime(p) for p in visited]
            else:
                now = []
                add = now.append
                get = memo.get
                for p in visited:
                    st = get(p, False)
                    if st is False:
                        try:
                            st = _os_stat(p)
                        except (OSError, ValueError):
                            st = None
                        memo[p] = st
                    add(-1 if st is None else st.st_mtime_ns)
            if now != list(mtimes):
                return None
        except (TypeError, ValueError):
            return None
        return visited, mtimes, result

    def put_walk(self, key: str, visited: list[str], mtimes: list[int], result: Sequence[Any]) -> None:
        """Remember a whole walk (``key``: the caller's description of root + rules; ``visited``:
        every folder listed, with the mtimes the listings had; ``result``: plain marshal-able
        values). Not stored when a folder is racily new or gone."""
        limit = time.time_ns() - RACY_NS
        if any(m < 0 or m >= limit for m in mtimes):
            return
        with self._lock:
            self._load()
            self._walks[key] = (tuple(visited), tuple(mtimes), result)
            self._dirty = True

    def listing(self, path: str) -> Listing | tuple[Any, ...] | None:
        """The listing of folder ``path`` (a str), from the cache when the folder's mtime is
        unchanged, else from ``scandir`` (and remembered unless racily new). None when the folder
        cannot be stat'ed or listed. The result is a plain tuple whose first three items are a
        ``Listing``'s (index it: ``[0]`` skill, ``[1]`` dirs, ``[2]`` links; ``[3]`` is the
        folder's mtime_ns)."""
        memo = getattr(_local, "memo", None)
        if memo is not None:
            st = memo.get(path, False)
            if st is False:  # (a cold walk: not stat'ed yet; no KeyError raised per folder)
                try:
                    st = _os_stat(path)
                except (OSError, ValueError):
                    st = None
                memo[path] = st
        else:
            st = stat(path)
        if st is None:
            return None
        table = self._table if self._table is not None else self._load()
        m = st.st_mtime_ns
        ent = table.get(path)
        if ent is not None and type(ent) is tuple and len(ent) == 4 and ent[3] == m:
            self.hits += 1
            return ent
        ent, keep = read_entry(path, st, time.time_ns())
        self.misses += 1
        if keep and ent is not None:
            with self._lock:
                table[path] = ent
                self._dirty = True
        return ent

    def adopt(self, entries: dict[str, tuple[Any, ...]]) -> None:
        """Keep ``entries`` (folder -> ``read_entry``'s entry, read by another process: the
        window's start-up parse pool, ``core.parsepool``) as if this cache had listed them; each
        is still checked against its folder's mtime when asked for."""
        with self._lock:
            table = self._load()
            new = {k: v for k, v in entries.items() if table.get(k) != v}
            if new:  # a warm start adopts what the cache file holds: nothing to write again
                table.update(new)
                self._dirty = True

    def cached_listing(self, path: str) -> tuple[Any, ...] | None:
        """The stored listing of folder ``path`` when its mtime (``stat``, memoised in the
        snapshot) is the one it was stored with, else None (never lists the folder)."""
        table = self._table if self._table is not None else self._load()
        ent = table.get(path)
        if ent is None or type(ent) is not tuple or len(ent) != 4:
            return None
        st = stat(path)
        return ent if st is not None and ent[3] == st.st_mtime_ns else None

    def forget(self, path: str | None = None) -> None:
        """Drop one folder's listing (or every listing when None)."""
        with self._lock:
            if path is None:
                self._table = {}
                self._walks = {}
            else:
                self._load().pop(path, None)
            self._dirty = True

    def __len__(self) -> int:
        return len(self._load())

    def save(self) -> bool:
        """Write the cache atomically when it changed (persistent caches only). True when written;
        an OSError is noted and swallowed."""
        if not (self.persist and self._dirty and self.path is not None and self.folder is not None):
            return False
        with self._lock:
            table = self._load()
            trim_oldest(table, MAX_DIRS)
            obj = {"format": FORMAT, "dirs": table, "walks": self._walks}
            self._dirty = False
        return write_cache_file(self.path, obj, self.notes)

    def clear(self) -> None:
        """Forget everything and delete the cache file."""
        with self._lock:
            self._table = {}
            self._walks = {}
            self._dirty = False
        if self.path is not None:
            try:
                self.path.unlink()
            except OSError:
                pass


_defaults: dict[str, DirCache] = {}
_defaults_lock = threading.Lock()


def default_dir_cache(folder: Path | str | None = None) -> DirCache:
    """The process-wide persistent ``DirCache`` for ``folder`` (default
    ``appdirs.cache_dir()/fs``): one instance per folder, so repeated calls share the table."""
    if folder is None:
        from workbench.core.appdirs import cache_dir

        folder = cache_dir() / "fs"
    key = str(folder)
    with _defaults_lock:
        got = _defaults.get(key)
        if got is None:
            got = _defaults[key] = DirCache(folder)
        return got
