"""A persistent cache of per-file lint results, so that linting an unchanged tree costs a ``stat``
per file and a table look-up instead of read + parse + rules.

What is stored (one file per profile under ``appdirs.cache_dir()/results/``, written atomically
with ``safefile.atomic_write``, format ``marshal`` of plain tuples/dicts/str/int):

* per SKILL.md (key: absolute path string): its identity ``(size, mtime_ns, st_ino)``, its sha256,
  the identity of every other path the result depends on (the skill folder and the sub-folders the
  structure rules listed, the parent folders of link targets, ``agents/openai.yaml``), the
  diagnostics of the per-file rules and the facts the catalog rules need
  (``workbench.core.lint.engine.lint_record``);
* the key of the whole file: a hash of the lint/skillfile source code (``rules_version``: any code
  change invalidates everything) and of the profile's settings (``profile_fingerprint``).

Catalog rules (duplicate names/descriptions, listing budget share: ``engine.CATALOG_RULES``) are
never cached: the engine recomputes them from the cached facts on every run.

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
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import marshal
import os
import time
from pathlib import Path
from typing import Any

from workbench.core.safefile import atomic_write

__all__ = ["ResultCache", "rules_version", "profile_fingerprint", "FORMAT", "RACY_NS", "MAX_ENTRIES"]

#: Bumped when the layout of the stored records changes.
FORMAT = 1
#: Files (and folders) modified less than this many nanoseconds before a run are not cached.
RACY_NS = 2_000_000_000
#: Entries kept per cache file (the least recently stored beyond this are dropped on save).
MAX_ENTRIES = 200_000

_PKG = Path(__file__).resolve().parent
_version: str | None = None


def rules_version() -> str:
    """A hex hash of the source of everything a lint result depends on: ``workbench/core/lint/``
    (engine, context, profiles, every rule), ``skillfile.py`` and this module. Computed once per
    process (~90 small files)."""
    global _version
    if _version is None:
        h = hashlib.sha256(str(FORMAT).encode())
        files = sorted((_PKG / "lint").rglob("*.py")) + [_PKG / "skillfile.py", Path(__file__).resolve()]
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
    """mtime_ns of a dependency, or -1 when it does not exist / cannot be stat'ed."""
    try:
        return os.stat(path).st_mtime_ns
    except OSError:
        return -1


class ResultCache:
    """Per-file lint records for one profile, persisted under ``folder`` (default
    ``appdirs.cache_dir()/results``).

    Attributes:
        path: the cache file.
        hits, misses: look-up counters (for benchmarks and tests).
        stored: entries put in this session.
        notes: human-readable notes (e.g. "cache file unreadable; rebuilt").
    """

    def __init__(self, profile: Any, folder: Path | str | None = None):
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
        self.notes: list[str] = []
        self._entries: dict[str, tuple] | None = None
        self._dirty = False
        self._t0 = time.time_ns()

    # -- loading -------------------------------------------------------------------------
    def _load(self) -> dict[str, tuple]:
        if self._entries is None:
            self._entries = {}
            try:
                with open(self.path, "rb") as fh:
                    blob = fh.read()
            except OSError:
                return self._entries
            try:
                obj = marshal.loads(blob)
                if (isinstance(obj, dict) and obj.get("format") == FORMAT and obj.get("rules") == self.version
                        and obj.get("profile") == self.profile_key and isinstance(obj.get("entries"), dict)):
                    self._entries = obj["entries"]
                else:
                    self.notes.append(f"{self.path}: written by another version; rebuilt")
                    self._dirty = True
            except (ValueError, EOFError, TypeError):
                self.notes.append(f"{self.path}: unreadable cache file ignored; rebuilt")
                self._dirty = True
        return self._entries

    def __len__(self) -> int:
        return len(self._load())

    # -- look-up -------------------------------------------------------------------------
    def get(self, path: str) -> tuple | None:
        """The cached record for the SKILL.md at ``path`` (absolute or relative: the key is the
        absolute path), or None when absent or no longer valid. Never raises."""
        key = os.path.abspath(path)
        ent = self._load().get(key)
        if ent is None:
            self.misses += 1
            return None
        try:
            size, mtime_ns, ino, _sha, deps, rec = ent
            st = os.stat(key)
            if st.st_size != size or st.st_mtime_ns != mtime_ns or st.st_ino != ino:
                self.misses += 1
                return None
            for dep, dm in deps:
                if _ident(dep) != dm:
                    self.misses += 1
                    return None
        except (OSError, ValueError, TypeError):  # a malformed entry counts as a miss
            self.misses += 1
            return None
        self.hits += 1
        return rec

    def put(self, path: str, record: tuple, size: int, mtime_ns: int, sha256: str,
            deps: tuple[str, ...] | list[str] = ()) -> bool:
        """Store a freshly computed record. ``size``/``mtime_ns`` are those the file had when it was
        read. Returns False (nothing stored) for a file that is gone, changed since it was read, or
        racily new (see the module docstring)."""
        key = os.path.abspath(path)
        racy = self._t0 - RACY_NS
        try:
            st = os.stat(key)
        except OSError:
            return False
        if st.st_size != size or st.st_mtime_ns != mtime_ns or mtime_ns >= racy:
            return False
        dep_ids = []
        for d in deps:
            m = _ident(d)
            if m >= racy:
                return False
            dep_ids.append((d, m))
        self._load()[key] = (size, mtime_ns, st.st_ino, sha256, tuple(dep_ids), record)
        self._dirty = True
        self.stored += 1
        return True

    def save(self) -> bool:
        """Write the cache file atomically when something changed. Returns True when written;
        an OSError (read-only cache folder, disk full) is noted and swallowed."""
        if not self._dirty:
            return False
        entries = self._load()
        if len(entries) > MAX_ENTRIES:  # dicts keep insertion order: drop the oldest
            for k in list(entries)[: len(entries) - MAX_ENTRIES]:
                del entries[k]
        blob = marshal.dumps({"format": FORMAT, "rules": self.version, "profile": self.profile_key,
                              "entries": entries})
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            atomic_write(self.path, blob)
        except (OSError, ValueError) as exc:
            self.notes.append(f"{self.path}: cache not saved ({exc})")
            return False
        self._dirty = False
        return True

    def clear(self) -> None:
        """Forget every entry (and delete the cache file)."""
        self._entries = {}
        self._dirty = False
        try:
            self.path.unlink()
        except OSError:
            pass
