"""The parse cache shared by every client's scan: ``ParseCache`` (one parse per SKILL.md per
(size, mtime_ns), in memory or persisted) and its ``Prefetcher`` (cold scans parse in forked
processes, ``PREFETCH_MIN`` files or more, in ``PREFETCH_CHUNK``-file chunks). Moved out of
``discovery`` (which re-exports both) to keep each module under 600 lines.
"""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from workbench.core.cache.fscache import DirCache, default_dir_cache, fast_path
from workbench.core.cache.fscache import stat as _fs_stat
from workbench.core.cache.skillfacts import skillfile_facts, skillfile_from_facts
from workbench.core.forkrun import WorkQueue, fork_ok
from workbench.core.skillfile import SkillFile, read_skill_file

log = logging.getLogger(__name__)

__all__ = ["PREFETCH_CHUNK", "PREFETCH_MIN", "ParseCache", "Prefetcher"]


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
        self._deferred = False
        self.store = None
        #: ``prefetch`` parses through this when set, even while other threads run: a
        #: ``core.parsepool.ParsePool.blobs`` (processes forked before any thread: per path the
        #: ``marshal`` bytes of its parse facts, or None), or None.
        self.pool: Callable[[list[str]], list[bytes | None] | None] | None = None
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

    def prefetch(self, paths: Iterable[Path | str], jobs: int | None = None) -> int:
        """Parse the files of ``paths`` that are neither in memory nor in the store in ``jobs``
        forked processes (None = both cores from ``PREFETCH_MIN`` files, when the caller runs no
        other thread; through ``self.pool`` when set). Workers send back compact parse facts; the ``SkillFile``s built from them
        read their text lazily (``skillfile.skillfile_from_facts``). Returns how many files were
        parsed in workers (0 = nothing to do or serial; ``get`` then parses as usual).
        ``prefetcher`` does the same in steps (files added while others are parsed)."""
        if self.pool is not None:  # processes started before any thread (``core.parsepool``)
            return self._prefetch_pooled(paths)
        pf = self.prefetcher(jobs)
        pf.add(paths)
        return pf.finish()

    def _prefetch_pooled(self, paths: Iterable[Path | str]) -> int:
        """``prefetch`` through ``self.pool``: the unparsed files' facts from those processes."""
        stored = self.store._load() if self.store is not None else {}
        todo: list[tuple[str, os.stat_result, Path | str]] = []
        for p in paths:
            key = str(p)
            st = self._unparsed(key, stored)
            if st is not None:
                todo.append((key, st, p))
        pool = self.pool
        parsed = pool([k for k, _, _ in todo]) if todo and pool is not None else None
        if parsed is None:
            return 0
        return self._put_blobs(todo, parsed)

    def _put_blobs(
        self, todo: list[tuple[str, os.stat_result, Path | str]], blobs: list[bytes | None]
    ) -> int:
        """Keep the workers' ``fact_blobs`` for ``todo`` (``(key, stat, path)`` per file, in the
        same order; a None blob is skipped); returns how many were kept (``_put_facts``)."""
        import marshal

        n = 0
        put, loads = self._put_facts, marshal.loads
        for (key, st, path), blob in zip(todo, blobs):
            if blob is not None and put(key, st, path, loads(blob), blob):
                n += 1
        return n

    def prefetcher(self, jobs: int | None = None) -> Prefetcher:
        """A ``Prefetcher`` for this cache: ``add(paths)`` as they are found (the parse starts in
        forked workers once ``PREFETCH_MIN`` files wait), then ``finish()``."""
        return Prefetcher(self, jobs)

    def _unparsed(self, key: str, stored: dict[str, Any]) -> os.stat_result | None:
        """The stat of ``key`` when it is neither in memory nor in the store (else None)."""
        st = _fs_stat(key)
        if st is None:
            return None
        ent = self._table.get(key)
        if ent is not None and ent[0] == (st.st_size, st.st_mtime_ns):
            return None
        got = stored.get(key)
        if got is not None and type(got) is tuple and got[:3] == (st.st_size, st.st_mtime_ns, st.st_ino):
            return None  # ``get`` rebuilds it from the store
        return st

    def _put_facts(
        self,
        key: str,
        st: os.stat_result,
        path: Path | str,
        facts: tuple[Any, ...],
        blob: bytes | None = None,
    ) -> bool:
        """Keep a worker's parse facts of ``key`` (False when the file changed meanwhile);
        ``blob``: their ``marshal`` bytes when the worker sent them (stored as they are)."""
        sf = skillfile_from_facts(path, facts)
        if sf.size != st.st_size or sf.mtime_ns != st.st_mtime_ns:
            return False  # changed while we read it: ``get`` reads it again
        if self.store is not None:
            self.store.put_facts(key, facts, st, blob)
        with self._lock:
            self._table[key] = ((st.st_size, st.st_mtime_ns), sf)
        return True

    def save(self) -> None:
        """Write the persistent parse facts and folder listings when they changed (no-op for an
        in-memory cache, or after ``defer_saves`` until ``save_async``)."""
        if not self._deferred:
            self._write()

    def _write(self) -> None:
        if self.store is not None:
            self.store.save()
        self.dirs.save()

    def defer_saves(self) -> None:
        """``save`` does nothing from now on: the caller saves once with ``save_async`` (the
        scan CLI, on a thread while the helper finishes and the report is written)."""
        self._deferred = True

    def save_async(self) -> Callable[[], None]:
        """Write what ``save`` would on a new thread; returns a function that waits for it (call
        it before the process exits). ``save`` stays deferred. Start it only where no fork
        follows (``forkrun.fork_ok`` refuses to fork while another thread runs)."""
        t = threading.Thread(target=self._write, name="workbench-cache-save")
        t.start()
        return t.join

    def detach(self) -> None:
        """Stop persisting: ``save`` writes nothing from now on (a forked helper process that
        shares this cache with its parent; the parent saves)."""
        self.store = None
        self.dirs = DirCache(persist=False)

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


#: Files per task of the parse pool: small enough that no core idles long at the end (a task
#: of 1,250 files left one core idle ~0.1 s at 10,000), large enough to amortise a task.
PREFETCH_CHUNK = 200


def fact_blobs(paths: list[str]) -> list[bytes | None]:
    """Per path, the ``marshal`` bytes of its ``skillfile_facts`` (None for facts ``marshal``
    cannot hold: a YAML timestamp): what a parse worker sends back (``Prefetcher``'s task),
    so that the parent keeps each file's bytes in the parse store as they are (no
    ``marshal.dumps`` per file in the parent) and decodes them for its ``SkillFile``."""
    import marshal

    out: list[bytes | None] = []
    for p in paths:
        try:
            out.append(marshal.dumps(skillfile_facts(read_skill_file(p))))
        except ValueError:
            out.append(None)
    return out


def _blobs_chunk(paths: list[str]) -> bytes:
    """Worker entry point (``core.parsepool``): ``marshal`` bytes of
    ``fact_blobs(paths)`` (one message: cheaper to send and to read than pickled tuples)."""
    import marshal

    return marshal.dumps(fact_blobs(paths))


class Prefetcher:
    """A cold parse in forked workers fed while the caller still finds files (``discovery
    .prepare``: the first client's files are parsed while the other clients' roots are walked).

    ``add(paths)`` keeps the files not parsed yet (memory, store) and hands them to the pool
    ``PREFETCH_CHUNK`` at a time once ``PREFETCH_MIN`` wait; ``finish()`` adds what is left,
    parses the chunks no worker took yet here, keeps every result in the cache and returns how
    many files the pool parsed (0 when too few files, one core, another thread, or ``jobs`` <=
    1: ``get`` then parses as usual). The pool is a ``forkrun.WorkQueue`` with ``jobs - 1``
    workers (a worker never waits for this process: the ``ProcessPoolExecutor`` it replaces
    left each worker idle ~0.06-0.5 s per 10k-file scan, waiting for the parent's threads).
    Nothing else may fork between the first ``add`` and ``finish``. A failed pool leaves the
    rest to ``get``. Use one from one thread."""

    def __init__(self, cache: ParseCache, jobs: int | None = None) -> None:
        self.cache = cache
        self.jobs = jobs
        self._stored: dict[str, Any] = cache.store._load() if cache.store is not None else {}
        self._seen: set[str] = set()
        self._waiting: list[tuple[str, os.stat_result, Path | str]] = []
        self._tasks: list[list[tuple[str, os.stat_result, Path | str]]] = []  # chunks put, in order
        self._pool: WorkQueue | None = None
        self._off = False

    def add(self, paths: Iterable[Path | str]) -> None:
        """Queue the files of ``paths`` that still need a parse (a path is considered once)."""
        for p in paths:
            key = str(p)
            if key in self._seen:
                continue
            self._seen.add(key)
            st = self.cache._unparsed(key, self._stored)
            if st is not None:
                self._waiting.append((key, st, p))
        self._submit(final=False)

    def add_one(self, path: str, path_obj: Path | None = None) -> None:
        """``add([path])`` for one path (the walk's ``on_file``); ``path_obj``: the same path as
        a ``Path`` (the walk's: its ``SkillFile`` then shares it)."""
        if path in self._seen:
            return
        self._seen.add(path)
        st = self.cache._unparsed(path, self._stored)
        if st is not None:
            self._waiting.append((path, st, fast_path(path) if path_obj is None else path_obj))
            if len(self._waiting) >= PREFETCH_CHUNK:
                self._submit(final=False)

    def _submit(self, final: bool) -> None:
        if self._off:
            return
        if self._pool is None:
            if not final and len(self._waiting) < PREFETCH_MIN:
                return
            self._pool = self._start()
            if self._pool is None:
                self._off = True
                return
        pool = self._pool
        while self._waiting and (final or len(self._waiting) >= PREFETCH_CHUNK):
            chunk, self._waiting = self._waiting[:PREFETCH_CHUNK], self._waiting[PREFETCH_CHUNK:]
            pool.put([k for k, _, _ in chunk])
            self._tasks.append(chunk)

    def _start(self) -> WorkQueue | None:
        n = len(self._waiting)
        cpus = os.cpu_count() or 1
        jobs = self.jobs
        if jobs is None:
            jobs = min(cpus, 8) if n >= PREFETCH_MIN and cpus > 1 else 1
        if jobs <= 1 or not n or not fork_ok():
            return None
        try:  # ``jobs - 1`` workers: this process parses too, in ``finish`` (``WorkQueue.drain``)
            return WorkQueue(fact_blobs, jobs - 1)
        except OSError:  # no processes: ``get`` parses serially
            log.debug("parse pool failed; parsing serially", exc_info=True)
            return None

    def finish(self) -> int:
        """Parse what is left (this process takes the chunks still queued), keep every result in
        the cache (each chunk's as soon as it is known: while a worker parses the last chunks);
        the number of files the pool parsed and kept."""
        self._submit(final=True)
        pool, self._pool = self._pool, None
        tasks, self._tasks = self._tasks, []
        if pool is None:
            return 0
        kept = [0]

        def keep(i: int, got: list[bytes | None]) -> None:  # each chunk as soon as it is parsed
            kept[0] += self.cache._put_blobs(tasks[i], got)

        try:
            pool.drain(keep)
        except Exception:  # noqa: BLE001 - OSError: ``get`` parses the rest
            log.debug("parse pool failed; parsing serially", exc_info=True)
        return kept[0]
