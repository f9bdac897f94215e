"""A persistent cache of per-file lint results, so that linting an unchanged tree costs a ``stat``
per file and a table look-up instead of read + parse + rules.

What is stored (one file per profile under ``appdirs.cache_dir()/results/``, written atomically
with ``cachefile.write_cache_file``, format ``marshal`` of plain tuples/dicts/str/int/bytes):

* per SKILL.md (key: absolute path string) an ``Entry`` tuple: its identity ``(size, mtime_ns,
  st_ino)``, the identity of every other path the result depends on (the skill folder and the
  sub-folders the structure rules listed, the parent folders of link targets,
  ``agents/openai.yaml``), the name and description the catalog sees, the severity counts of the
  per-file diagnostics, and two ``marshal`` blobs decoded only when needed: the per-file
  diagnostics and the facts the catalog rules need (``workbench.core.lint.runner.lint_record``);
  plus the catalog rules' diagnostics for this file and the fingerprint of the catalog they were
  computed against (``put_catalog``), with the file's rendered ``--format json`` text when
  ``lint_paths(render_json=True)`` made it (``lint.records.escaped_json``);
* the key of the whole file: a hash of the lint/skillfile source code (``rules_version``: any code
  change invalidates everything) and of the profile's settings (``profile_fingerprint``).

Catalog rules (duplicate names/descriptions, listing budget share: ``lint.runner.CATALOG_RULES``) depend
on every file linted together. Their results are reused only when the file's entry is valid *and*
the catalog fingerprint (a hash of every ``(path, name, description)`` of the run's catalog) is
the one they were computed against; otherwise the engine recomputes them from the cached facts.
Editing a body keeps the fingerprint (one file recomputed); renaming/adding/removing a skill or
changing a name/description changes it (the catalog rules run again for every file, ~50 µs each).

Validity (decisions, the spec was silent):

* a cached entry is used only when the SKILL.md's ``(size, mtime_ns, inode)`` and every
  dependency's ``mtime_ns`` (or absence) are unchanged;
* "racily clean" results are never stored: when the SKILL.md or a dependency was modified less than
  ``RACY_NS`` (2 s, coarse file-system clocks) before the run started, a later change within the
  same clock tick could keep the same identity, so the result is recomputed next time instead;
  this is why the content sha is kept but does not need to be compared on look-up;
* a cache file that cannot be read, has another format, version or profile, or holds a malformed
  entry is ignored (and rebuilt on save): never an exception to the caller.

Typical use (``lint_paths(..., cache=True)`` does this)::

    cache = ResultCache(profile)          # loads lazily
    rec = cache.get("/abs/skill/SKILL.md")   # record or None
    cache.put(path, rec, size, mtime_ns, sha256, deps)
    cache.save()                            # only writes when something changed

The engine uses the faster ``lookup(key, st)`` (raw ``Entry``, no decoding) inside an
``fscache.snapshot()`` so that folder dependencies already stat'ed by the walk cost nothing.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import logging
import marshal
import os
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Literal, NamedTuple

from workbench.core.cache.cachefile import EntryFile, load_entries, trim_oldest, write_cache_file
from workbench.core.cache.fscache import DirCache, default_dir_cache
from workbench.core.cache.fscache import current_memo as _current_memo
from workbench.core.cache.fscache import mtime as _fs_mtime
from workbench.core.cache.fscache import stat as _fs_stat
from workbench.core.lint.records import severity_counts

__all__ = [
    "ResultCache",
    "CacheEntry",
    "rules_version",
    "profile_fingerprint",
    "FORMAT",
    "RACY_NS",
    "MAX_ENTRIES",
    "make_entry",
    "catalog_result",
]

log = logging.getLogger(__name__)

#: Bumped when the layout of the stored records changes.
FORMAT = 3


class CatalogResult(NamedTuple):
    """The catalog rules' diagnostics of one entry (``CacheEntry.cat``; a plain tuple on disk)."""

    errors: int
    warnings: int
    infos: int
    diags: bytes  #: marshal blob of ``lint.records.DiagTuple``s
    #: the file's whole ``--format json`` text without its path (``lint.records.escaped_json``
    #: of its per-file and catalog diagnostics), or None when not rendered yet
    json: bytes | None

    @property
    def counts(self) -> tuple[int, int, int]:
        return (self.errors, self.warnings, self.infos)


class CacheEntry(NamedTuple):
    """One SKILL.md's stored entry (kept as a plain tuple in the file: ``marshal`` stores no
    named tuples; ``lookup`` returns this view of it)."""

    size: int  #: the SKILL.md's size in bytes when linted
    mtime_ns: int  #: its mtime
    ino: int  #: its inode
    deps: tuple[Any, ...]  #: (path, mtime_ns or -1, path, mtime_ns, ...) of every dependency
    cat_name: str  #: the name the catalog sees
    cat_desc: str  #: the description the catalog sees
    counts: tuple[int, int, int]  #: severity counts of the per-file diagnostics
    diags: bytes  #: marshal blob of the per-file diagnostics (``lint.records.DiagTuple``s)
    facts: bytes  #: marshal blob of the file's ``lint.facts.LintFacts`` (as a plain tuple)
    cat_fp: str | None  #: the catalog fingerprint ``cat`` was computed for
    cat: tuple[Any, ...] | None  #: a ``CatalogResult`` (as a plain tuple)


#: Files (and folders) modified less than this many nanoseconds before a run are not cached.
RACY_NS = 2_000_000_000
#: Entries kept per cache file (the least recently stored beyond this are dropped on save).
MAX_ENTRIES = 200_000

_PKG = Path(__file__).resolve().parent.parent  # workbench/core
_version: str | None = None


#: What besides ``lint/`` a lint result depends on (relative to ``workbench/core``): the reading
#: and parsing (``skillfile`` and its parts), the tables and helpers the rules use, the model the
#: client readings run in, the stored JSON text's escaping, and ``clients/`` as a whole
#: (``rules/_util.client_reading`` runs a client's own reading). ``tests/core/test_resultcache.py``
#: checks that every module ``lint/`` and ``skillfile`` import is here or in ``UNHASHED``.
HASHED = (
    "skillfile.py",
    "skillyaml.py",
    "fileread.py",
    "lineparse.py",
    "spans.py",
    "riskpatterns.py",
    "tokens.py",
    "model.py",
    "text.py",
    "jsontext.py",
    "clients",
)
#: Modules ``lint/`` imports that change no file's result: the caches (this module is hashed),
#: the walker (which files are linted, not what is said of them) and the process helpers.
UNHASHED = ("cache", "skillwalk", "forkrun")


def rules_version() -> str:
    """A hex hash of the source of everything a lint result depends on: ``workbench/core/lint/``
    (engine, context, profiles, every rule), the modules of ``HASHED`` and this one. Computed
    once per process (~170 small files, ~4 ms)."""
    global _version
    if _version is None:
        h = hashlib.sha256(str(FORMAT).encode())
        files = sorted((_PKG / "lint").rglob("*.py"))
        for rel in HASHED:
            p = _PKG / rel
            files += sorted(p.rglob("*.py")) if p.suffix != ".py" else [p]
        files.append(_PKG / "cache" / "resultcache.py")  # this module
        for f in files:
            try:
                data = f.read_bytes()
            except OSError:
                data = b""
            h.update(f.relative_to(_PKG).as_posix().encode() + b"\0" + data + b"\0")
        _version = h.hexdigest()
    return _version


def profile_fingerprint(profile: Any) -> str:
    """A hex hash of a lint ``Profile``'s settings (id and every option; sets sorted so the hash
    does not depend on string hashing)."""

    def norm(v: Any) -> Any:
        if isinstance(v, (set, frozenset)):
            return sorted(map(str, v))
        if isinstance(v, dict):
            return {str(k): norm(x) for k, x in v.items()}
        if isinstance(v, (list, tuple)):
            return [norm(x) for x in v]
        return v if isinstance(v, (str, int, float, bool, type(None))) else repr(v)

    if dataclasses.is_dataclass(profile):
        d = {f.name: norm(getattr(profile, f.name)) for f in dataclasses.fields(profile)}
    else:
        d = {"id": str(profile)}
    return hashlib.sha256(json.dumps(d, sort_keys=True).encode()).hexdigest()


def _ident(path: str) -> int:
    """mtime_ns of a dependency, or -1 when it does not exist / cannot be stat'ed (memoised
    inside an ``fscache.snapshot()``)."""
    return _fs_mtime(path)


class ResultCache(EntryFile):
    """Per-file lint records for one profile, persisted under ``folder`` (default
    ``appdirs.cache_dir()/results``).

    Args:
        profile: the lint ``Profile``.
        folder: where the cache file lives.
        parse_store: a ``workbench.core.cache.parsestore.ParseStore`` that receives the parse facts of
            every file linted from scratch (so a later scan in a new process parses nothing), or
            None.

    Attributes:
        path: the cache file.
        hits, misses: look-up counters (for benchmarks and tests).
        stored: entries put in this session.
        current: keys whose entry was looked up valid or stored in this session (their entry
            describes the file as this session linted it; ``current_entries``).
        catalog_hits: files whose catalog-rule results were reused (same catalog fingerprint).
        notes: human-readable notes (e.g. "cache file unreadable; rebuilt").
        dirs: the ``fscache.DirCache`` that ``lint_paths`` walks folders with
            (``<folder>/../fs``, shared with a persistent ``discovery.ParseCache``).
    """

    def __init__(self, profile: Any, folder: Path | str | None = None, *, parse_store: Any = None):
        if folder is None:
            from workbench.core.appdirs import cache_dir

            folder = cache_dir() / "results"
        self.folder = Path(folder)
        self.version = rules_version()
        self.profile_key = profile_fingerprint(profile)
        pid = getattr(profile, "id", "profile")
        self.path = self.folder / f"lint-{pid}-{self.profile_key[:12]}.marshal"
        self.hits = 0
        self.misses = 0
        self.stored = 0
        self.catalog_hits = 0
        self.current: set[str] = set()
        self.notes: list[str] = []
        self.parse_store = parse_store
        self._dirs: DirCache | None = None
        self._entries: dict[str, tuple[Any, ...]] | None = None
        self._dirty = False
        self._lock = threading.Lock()
        self._t0 = time.time_ns()
        #: (wait, redo, and whether this cache, its listings, its parse store were unsaved)
        #: while a forked helper writes them (``saved_by``)
        self._helper: tuple[Callable[[], bool], Callable[[], None] | None, bool, bool, bool] | None = None

    @property
    def dirs(self) -> DirCache:
        if self._dirs is None:
            self._dirs = default_dir_cache(self.folder.parent / "fs")
        return self._dirs

    # -- loading -------------------------------------------------------------------------
    def _load(self) -> dict[str, tuple[Any, ...]]:
        if self._entries is None:
            header = {"format": FORMAT, "rules": self.version, "profile": self.profile_key}
            self._entries, rebuild = load_entries(self.path, header, self.notes)
            self._dirty = self._dirty or rebuild
        return self._entries

    # -- look-up -------------------------------------------------------------------------
    def lookup(self, key: str, st: os.stat_result | None = None) -> CacheEntry | None:
        """The raw stored entry for the absolute path ``key`` when still valid, else None
        (counts a hit or a miss). ``st``: the file's fresh ``os.stat`` when the caller has it.
        Dependencies are stat'ed through ``fscache`` (memoised inside a snapshot). Never raises."""
        raw = (self._entries if self._entries is not None else self._load()).get(key)
        if raw is None:
            self.misses += 1
            return None
        try:
            ent = CacheEntry._make(raw)
            if st is None:
                st = _fs_stat(key)
                if st is None:
                    self.misses += 1
                    return None
            if st.st_size != ent.size or st.st_mtime_ns != ent.mtime_ns or st.st_ino != ent.ino:
                self.misses += 1
                return None
            deps = ent.deps
            memo = _current_memo()
            for i in range(0, len(deps), 2):
                d = deps[i]
                dst: os.stat_result | None | Literal[False] = (
                    memo.get(d, False) if memo is not None else False
                )
                m = _fs_mtime(d) if dst is False else (-1 if dst is None else dst.st_mtime_ns)
                if m != deps[i + 1]:
                    self.misses += 1
                    return None
        except (ValueError, TypeError, IndexError, AttributeError):  # a malformed entry is a miss
            self.misses += 1
            return None
        self.hits += 1
        self.current.add(key)
        return ent

    def put_entry(self, key: str, entry: tuple[Any, ...]) -> None:
        """Store an entry already built (e.g. in a lint worker process) under ``key``."""
        super().put_entry(key, entry)
        self.current.add(key)

    def current_entries(self, keys: list[str]) -> list[tuple[Any, ...]] | None:
        """The stored entries of ``keys`` (``CacheEntry``s as plain tuples) when every one is
        current (``current``: looked up valid or stored in this session), else None."""
        if not self.current.issuperset(keys):
            return None
        return list(map(self._load().__getitem__, keys))

    def get(self, path: str) -> tuple[Any, ...] | None:
        """The cached record ``(per-file diagnostics as tuples, facts)`` for the SKILL.md at
        ``path`` (absolute or relative: the key is the absolute path), or None when absent or no
        longer valid. Never raises."""
        ent = self.lookup(os.path.abspath(path))
        if ent is None:
            return None
        try:
            return (marshal.loads(ent.diags), marshal.loads(ent.facts))
        except (ValueError, EOFError, TypeError):
            return None

    def put(
        self,
        path: str,
        record: tuple[Any, ...],
        size: int,
        mtime_ns: int,
        sha256: str = "",
        deps: tuple[str, ...] | list[str] = (),
        *,
        cat: tuple[str, str] | None = None,
    ) -> bool:
        """Store a freshly computed record ``(diagnostic tuples, facts)``. ``size``/``mtime_ns``
        are those the file had when it was read; ``cat``: the (name, description) the catalog
        sees (default: taken from the facts). ``sha256`` is accepted for compatibility and not
        stored (the identity decides). Returns False (nothing stored) for a file that is gone,
        changed since it was read, or racily new (see the module docstring)."""
        key = os.path.abspath(path)
        try:
            st = os.stat(key)
        except OSError:
            return False
        ent = make_entry(st, record, size, mtime_ns, deps, cat, self.racy_ns)
        if ent is None:
            return False
        self.put_entry(key, ent)
        return True

    def put_catalog(
        self,
        key: str,
        fingerprint: str,
        diags: tuple[Any, ...],
        json: bytes | None = None,
    ) -> None:
        """Remember the catalog rules' diagnostics (as tuples) of the entry at ``key`` for the
        catalog ``fingerprint`` (stored as a plain ``CatalogResult``), and ``json``: the file's
        ``lint.records.escaped_json`` (per-file and catalog diagnostics) when rendered. No-op
        when the entry is gone."""
        cat = catalog_result(diags, json)
        if cat is not None:
            self.put_catalog_result(key, fingerprint, cat)

    def put_catalog_result(self, key: str, fingerprint: str, cat: tuple[Any, ...]) -> None:
        """``put_catalog`` of a ``catalog_result`` already made (e.g. in a forked helper)."""
        with self._lock:
            entries = self._load()
            ent = entries.get(key)
            if ent is None or len(ent) != len(CacheEntry._fields):
                return
            if ent[9] == fingerprint and ent[10] == cat:  # CacheEntry's cat_fp, cat
                return
            entries[key] = ent[:9] + (fingerprint, cat)
            self._dirty = True

    def saved_by(self, wait: Callable[[], bool], redo: Callable[[], None] | None = None) -> None:
        """A forked helper is writing this cache, its listings and its parse store as they are
        now (``catalogpass.with_catalog(hand_off=True)``): they count as saved. ``wait()`` waits
        for it and says whether it succeeded; ``save()`` calls it first and, when it failed,
        calls ``redo()`` (what the helper was to store that this process left out: the
        catalog results, ``put_catalog_result``) and writes what the helper was to write itself."""
        store, dirs = self.parse_store, self._dirs
        self._helper = (
            wait,
            redo,
            self._dirty,
            dirs is not None and dirs._dirty,
            bool(store is not None and getattr(store, "_dirty", False)),
        )
        self._dirty = False
        if dirs is not None:
            dirs._dirty = False
        if store is not None and hasattr(store, "_dirty"):
            store._dirty = False

    def _wait_helper(self) -> None:
        helper, self._helper = self._helper, None
        if helper is None or helper[0]():
            return
        log.debug("the catalog helper did not save %s; saving here", self.path)
        if helper[1] is not None:
            helper[1]()  # (marks this cache dirty when it stores anything)
        self._dirty = self._dirty or helper[2]
        if helper[3] and self._dirs is not None:
            self._dirs._dirty = True
        if helper[4] and self.parse_store is not None:
            self.parse_store._dirty = True

    @property
    def needs_save(self) -> bool:
        """Whether ``save()`` would write anything (this cache, its listings or parse store)."""
        store = self.parse_store
        return (
            self._dirty
            or self._helper is not None
            or (self._dirs is not None and self._dirs._dirty)
            or bool(store is not None and getattr(store, "_dirty", False))
        )

    def save(self) -> bool:
        """Write the cache file atomically when something changed. Returns True when written;
        an OSError (read-only cache folder, disk full) is noted and swallowed. Also saves the
        folder listings and the parse store when they changed. Waits first for a helper
        writing them (``saved_by``)."""
        if self._helper is not None:
            self._wait_helper()
        if self._dirs is not None:
            self._dirs.save()
        if self.parse_store is not None:
            self.parse_store.save()
        if not self._dirty:
            return False
        with self._lock:
            entries = self._load()
            trim_oldest(entries, MAX_ENTRIES)
            obj = {"format": FORMAT, "rules": self.version, "profile": self.profile_key, "entries": entries}
            self._dirty = False
        if not write_cache_file(self.path, obj, self.notes):
            self._dirty = True
            return False
        return True


def catalog_result(diags: Sequence[Any], json: bytes | None = None) -> tuple[Any, ...] | None:
    """The ``CatalogResult`` (a plain tuple: severity counts, the diagnostics' marshal blob,
    ``json``) ``put_catalog`` stores for the catalog rules' encoded diagnostics ``diags``; None
    when marshal cannot hold them. Pure: the catalog pass's forked half makes its own."""
    try:
        blob = marshal.dumps(tuple(diags))
    except ValueError:
        return None
    return (*severity_counts(diags), blob, json)


def make_entry(
    st: os.stat_result,
    record: tuple[Any, ...],
    size: int,
    mtime_ns: int,
    deps: tuple[str, ...] | list[str],
    cat: tuple[str, str] | None,
    racy_ns: int,
    known: tuple[str, int] | None = None,
) -> tuple[Any, ...] | None:
    """A ``CacheEntry`` (as the plain tuple the file stores) for a SKILL.md linted from scratch,
    or None when it must not be stored: ``st`` (its ``os.stat`` after reading) no longer matches
    the ``size``/``mtime_ns`` read, it or a dependency was modified at or after ``racy_ns``, or
    the record cannot be marshalled. ``record``: ``(diagnostic tuples, facts)``; ``cat``: the
    (name, description) the catalog sees (None: from the facts). ``known``: ``(folder,
    mtime_ns)`` of a dependency whose listing the rules read, stat'ed before it was listed (the
    walk's: ``fscache.skill_folders``): recorded as is, not stat'ed again (a change since then
    makes the entry miss). Pure apart from stat'ing the dependencies (through ``fscache``): a
    lint worker process builds its entries itself."""
    if st.st_size != size or st.st_mtime_ns != mtime_ns or mtime_ns >= racy_ns:
        return None
    dep_ids: list[Any] = []
    for d in deps:
        m = known[1] if known is not None and d == known[0] else _ident(d)
        if m >= racy_ns:
            return None
        dep_ids += (d, m)
    diags, facts = record
    facts = tuple(facts)  # a ``LintFacts``: marshal stores plain tuples only
    if cat is None:
        from workbench.core.lint.facts import cat_desc, cat_name

        cat = (cat_name(facts), cat_desc(facts))
    counts = severity_counts(diags)
    try:
        return (
            size,
            mtime_ns,
            st.st_ino,
            tuple(dep_ids),
            cat[0],
            cat[1],
            tuple(counts),
            marshal.dumps(tuple(diags)),
            marshal.dumps(facts),
            None,
            None,
        )
    except ValueError:
        return None
