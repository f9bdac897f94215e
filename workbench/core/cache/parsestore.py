"""A persistent store of parse facts, so that a new process scanning an unchanged tree does not
read or parse any SKILL.md (HACKING.md "Performance").

What is stored (one file, ``appdirs.cache_dir()/parse/facts.marshal``, ``marshal`` of plain
values, written atomically): per SKILL.md (key: the path string as discovery found it) its
identity ``(size, mtime_ns, st_ino)`` and a ``marshal`` blob of ``skillfile.skillfile_facts``
(state, message, error span, BOM, delimiters, the strict YAML ``data``, ...). The blob is decoded
only when the file is looked up. ``get`` rebuilds a ``SkillFile`` whose other attributes (raw,
text, body, fields, line parser) are read on first use (``skillfile.skillfile_from_facts``).

Validity (decisions, the spec was silent): an entry is used while the file's ``(size, mtime_ns,
inode)`` is unchanged; files modified less than ``RACY_NS`` before the store was opened are not
stored (a later change in the same clock tick could keep the identity); files whose YAML holds a
value ``marshal`` cannot store (a timestamp) are not stored; the whole store is dropped when
``skillfile.py`` or this module changes (``parse_version``) or the file is unreadable/malformed.

Typical use (``discovery.ParseCache(persist=True)`` does this)::

    store = ParseStore()                 # loads lazily
    sf = store.get(path, os.stat(path))  # SkillFile or None
    store.put(path, read_skill_file(path), st)
    store.save()
"""

from __future__ import annotations

import hashlib
import marshal
import os
import threading
import time
from pathlib import Path
from typing import Any, NamedTuple

from workbench.core.cache.cachefile import EntryFile, load_entries, trim_oldest, write_cache_file
from workbench.core.cache.skillfacts import skillfile_facts, skillfile_from_facts
from workbench.core.skillfile import SkillFile

__all__ = ["ParseStore", "parse_version", "stored_facts", "FORMAT", "RACY_NS", "MAX_ENTRIES"]


class StoredFacts(NamedTuple):
    """One stored SKILL.md (a plain tuple in the file: ``marshal`` stores no named tuples)."""

    size: int  #: bytes, when its facts were taken
    mtime_ns: int
    ino: int
    blob: bytes  #: marshal of ``cache.skillfacts.skillfile_facts``


FORMAT = 1
RACY_NS = 2_000_000_000
MAX_ENTRIES = 200_000

_PKG = Path(__file__).resolve().parent.parent  # workbench/core
_version: str | None = None


def parse_version() -> str:
    """A hex hash of ``skillfile.py`` and this module (any change drops the store)."""
    global _version
    if _version is None:
        h = hashlib.sha256(str(FORMAT).encode())
        for f in (_PKG / "skillfile.py", Path(__file__).resolve()):
            try:
                h.update(f.read_bytes())
            except OSError:
                pass
            h.update(b"\0")
        _version = h.hexdigest()
    return _version


class ParseStore(EntryFile):
    """Persisted parse facts (module docstring).

    Args:
        folder: where ``facts.marshal`` lives (default ``appdirs.cache_dir()/parse``).

    Attributes: ``path``, ``hits``, ``misses``, ``stored``, ``notes``. Thread-safe.
    """

    def __init__(self, folder: Path | str | None = None):
        if folder is None:
            from workbench.core.appdirs import cache_dir

            folder = cache_dir() / "parse"
        self.folder = Path(folder)
        self.path = self.folder / "facts.marshal"
        self.version = parse_version()
        self.hits = 0
        self.misses = 0
        self.stored = 0
        self.notes: list[str] = []
        self._entries: dict[str, tuple[Any, ...]] | None = None
        self._dirty = False
        self._lock = threading.Lock()
        self._t0 = time.time_ns()

    def _load(self) -> dict[str, tuple[Any, ...]]:
        if self._entries is None:
            header = {"format": FORMAT, "version": self.version}
            self._entries, rebuild = load_entries(self.path, header, self.notes)
            self._dirty = self._dirty or rebuild
        return self._entries

    def get(self, path: str, st: os.stat_result, path_obj: Path | None = None) -> SkillFile | None:
        """The ``SkillFile`` for ``path`` when stored with the identity of ``st`` (the caller's
        fresh ``os.stat``), else None (``path_obj``: the same path as a ``Path``, saves building
        one). Never raises."""
        ent = (self._entries if self._entries is not None else self._load()).get(path)
        if ent is not None:
            try:
                e = StoredFacts._make(ent)
                if e.size == st.st_size and e.mtime_ns == st.st_mtime_ns and e.ino == st.st_ino:
                    sf = skillfile_from_facts(path if path_obj is None else path_obj, marshal.loads(e.blob))
                    self.hits += 1
                    return sf
            except (ValueError, TypeError, IndexError, EOFError):
                pass
        self.misses += 1
        return None

    def put(self, path: str, sf: SkillFile, st: os.stat_result) -> bool:
        """Store the facts of a freshly read ``sf`` (``st``: the stat taken before reading).
        Returns False (nothing stored) when the file changed meanwhile, is racily new, or its
        facts cannot be marshalled."""
        if sf.state in ("unreadable",) or st.st_mtime_ns >= self._t0 - RACY_NS:
            return False
        if sf.size != st.st_size or sf.mtime_ns != st.st_mtime_ns:
            return False
        return self.put_facts(path, skillfile_facts(sf), st)

    def put_facts(
        self, path: str, facts: tuple[Any, ...], st: os.stat_result, blob: bytes | None = None
    ) -> bool:
        """Store already computed ``skillfile_facts`` (e.g. from a lint worker process);
        ``blob``: ``marshal.dumps(facts)`` when the caller has it (a parse worker made it)."""
        ent = stored_facts(facts, st, self.racy_ns, blob)
        if ent is None:
            return False
        self.put_entry(path, ent)
        return True

    def save(self) -> bool:
        """Write the store atomically when it changed. True when written; an OSError is noted."""
        if not self._dirty:
            return False
        with self._lock:
            entries = self._load()
            trim_oldest(entries, MAX_ENTRIES)
            obj = {"format": FORMAT, "version": self.version, "entries": entries}
            self._dirty = False
        return write_cache_file(self.path, obj, self.notes)


def stored_facts(
    facts: tuple[Any, ...], st: os.stat_result, racy_ns: int, blob: bytes | None = None
) -> tuple[Any, ...] | None:
    """The entry ``ParseStore.put_entry`` takes for ``skillfile_facts`` ``facts`` of a file whose
    stat (matching what was read) is ``st``, or None when it must not be stored: modified at or
    after ``racy_ns`` (``ParseStore.racy_ns``), or facts ``marshal`` cannot store (a YAML
    timestamp). ``blob``: ``marshal.dumps(facts)`` when the caller has it. Pure: a lint worker
    process builds its entries itself."""
    if st.st_mtime_ns >= racy_ns:
        return None
    if blob is None:
        try:
            blob = marshal.dumps(facts)
        except ValueError:
            return None
    return tuple(StoredFacts(st.st_size, st.st_mtime_ns, st.st_ino, blob))
