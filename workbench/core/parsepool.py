"""A parse pool started before any thread: the window's cold scan parses on both cores (issue 14).

``ParseCache.prefetch`` forks its own process pool only when no other thread runs
(``forkrun.fork_ok``): forking a process that runs threads may copy a lock another thread
holds. The window scans on a worker thread while the GUI thread builds the window, so its first
scan parsed 10,000 files serially (~1.2 s of CPU sharing one GIL with the GUI) while the tree
waited. ``ParsePool.start`` forks the worker processes at start-up, while the process still has
one thread (before Qt is imported), and may at once have them walk the workspace and parse its
SKILL.md files (``speculate``: the start-up process only lists its top folders and hands them
out; each task's walk is bounded): they do so while the window is built. Later
``ParsePool.listings`` gives the scan the folder listings those walks read (for its
``DirCache``: the scan then lists no folder again) and ``ParsePool.blobs`` (from any thread;
``ParseCache.pool``) serves the parse results and sends the files it lacks to the same, already
running, processes: nothing forks after threads exist.

No Qt here. Results are ``cache.skillfacts.skillfile_facts`` tuples as ``marshal`` bytes, keyed
by the path string as the caller gives it; ``ParseCache`` checks each file's size and mtime
before adopting one, so a speculative result for a file changed since is parsed again.
"""

from __future__ import annotations

import logging
import marshal
import os
import sys
import time
from concurrent.futures import Future, ProcessPoolExecutor
from pathlib import Path
from typing import Any

from workbench.core.cache.fscache import SKILL_FILE, SKILL_LINK, read_entry
from workbench.core.clients.common import NEVER_WALKED
from workbench.core.forkrun import fork_ok
from workbench.core.model import gc_paused
from workbench.core.parsecache import PREFETCH_MIN, _blobs_chunk, fact_blobs

log = logging.getLogger(__name__)

#: The speculative walk stops at this many SKILL.md files (over all its tasks) and this many
#: seconds after ``ParsePool.start`` (a home folder opened by mistake; a task started later walks
#: nothing: the scan lists the rest itself and asks the pool for the files it needs that the
#: speculation did not parse).
SPECULATE_MAX = 50_000
SPECULATE_WALK_S = 2.0
#: The start-up process lists the workspace's folders level by level (at most ``SPLIT_DEPTH``
#: levels) until it has this many folders per process to hand out as walk tasks.
SPLIT_PER_JOB = 8
SPLIT_DEPTH = 3
#: Seconds ``blobs`` waits for the speculative parse before parsing without it.
SPECULATE_WAIT_S = 20.0
#: Files per task sent to the processes for the paths the speculation lacked.
CHUNK = 200
#: Niceness added to the worker processes: the GUI thread building the window comes first.
NICE = 0

#: A file's parse facts as the processes send them: ``marshal`` bytes (``parsecache.fact_blobs``).
Blob = bytes


def _list_into(folder: str, listings: dict[str, tuple[Any, ...]], now_ns: int) -> tuple[Any, ...] | None:
    """``folder``'s ``DirCache`` entry (``fscache.read_entry``), kept in ``listings`` unless
    racily new; None when it cannot be stat'ed or listed."""
    try:
        st = os.stat(folder)
    except (OSError, ValueError):
        return None
    ent, keep = read_entry(folder, st, now_ns)
    if keep and ent is not None:
        listings[folder] = ent
    return ent


def _below(folder: str, ent: tuple[Any, ...], files: list[str], stack: list[str]) -> None:
    """Note ``folder``'s SKILL.md (a file or a symlink, as ``os.walk`` lists it) in ``files`` and
    push its real sub-folders but ``NEVER_WALKED`` on ``stack``."""
    if ent[0] == SKILL_FILE or ent[0] == SKILL_LINK:
        files.append(os.path.join(folder, "SKILL.md"))
    stack.extend(os.path.join(folder, n) for n in reversed(ent[1]) if n not in NEVER_WALKED)


def _walk_chunk(tops: list[str], files: list[str], max_files: int, deadline: float) -> bytes:
    """Worker (or a task taken back): walk ``tops`` (symlinked folders not entered,
    ``NEVER_WALKED`` skipped) until ``deadline`` (``time.monotonic``: the same clock in every
    process) or until ``max_files`` SKILL.md files were found, then parse them after ``files``. Returns the ``marshal`` bytes of
    ``(listings, paths, blobs)``: the ``DirCache`` entries of the folders listed (racily new ones
    left out), ``files`` + the files found, and their ``parsecache.fact_blobs``."""
    listings: dict[str, tuple[Any, ...]] = {}
    paths = list(files)
    now = time.time_ns()
    stack = list(reversed(tops))
    while stack and len(paths) < max_files and time.monotonic() <= deadline:
        d = stack.pop()
        ent = _list_into(d, listings, now)
        if ent is not None:
            _below(d, ent, paths, stack)
    return marshal.dumps((listings, paths, fact_blobs(paths)))


def _split(
    folder: str, want: int, deadline: float
) -> tuple[list[str], list[str], dict[str, tuple[Any, ...]]]:
    """``(tops, files, listings)``: ``folder`` listed level by level (``SPLIT_DEPTH`` levels at
    most, until ``deadline``) until ``want`` folders are left to walk (``tops``), the SKILL.md
    files of the levels listed and their ``DirCache`` entries."""
    listings: dict[str, tuple[Any, ...]] = {}
    files: list[str] = []
    level = [folder]
    now = time.time_ns()
    for _ in range(SPLIT_DEPTH):
        if len(level) >= want:
            break
        nxt: list[str] = []
        for j, d in enumerate(level):
            if time.monotonic() > deadline:
                return nxt + level[j:], files, listings  # the rest is walked by the tasks
            ent = _list_into(d, listings, now)
            if ent is not None:
                below: list[str] = []
                _below(d, ent, files, below)
                nxt.extend(reversed(below))
        level = nxt
    return level, files, listings


def _noop() -> None:
    """Worker: nothing (submitted at start so that every process is forked at once)."""


def _worker_init(parent: int) -> None:
    """Worker initializer: ``os.nice(NICE)``, so the window being built keeps its core; on
    Linux, ``prctl(PR_SET_PDEATHSIG, SIGTERM)``: the worker ends with ``parent`` even when that
    leaves by ``os._exit`` (benchwindow, a crash) before the pool's shutdown reached it (an
    idle worker otherwise waits forever: its siblings hold the task pipe open)."""
    try:
        os.nice(NICE)
    except (AttributeError, OSError):  # pragma: no cover - not on this platform
        pass
    if sys.platform.startswith("linux"):
        try:
            import ctypes
            import signal

            ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGTERM)  # 1 = PR_SET_PDEATHSIG
        except (OSError, AttributeError):  # pragma: no cover - no libc prctl
            pass
    if os.getppid() != parent:  # the parent already left before the line above
        os._exit(0)


class ParsePool:
    """Worker processes forked at start-up that parse SKILL.md files into parse facts.

    Build it with ``ParsePool.start`` (None when processes cannot be used here). Thread-safe:
    ``blobs`` may be called from any thread; ``shutdown`` ends the processes (idempotent).

    Attributes:
        jobs: number of worker processes.
        speculated: how many speculative results ``blobs`` adopted so far (tests, bench).
        stolen: speculative walk tasks no process had started when the speculation was asked
            for (walked and parsed in the calling thread instead).
    """

    def __init__(self, executor: ProcessPoolExecutor, jobs: int) -> None:
        self._ex: ProcessPoolExecutor | None = executor
        self.jobs = jobs
        # the speculation's walk tasks: (tops, files, max_files, deadline) and their future
        self._spec: list[tuple[tuple[list[str], list[str], int, float], Future[bytes]]] = []
        self._spec_done: dict[str, Blob | None] | None = None
        self._listings: dict[str, tuple[Any, ...]] = {}
        self.speculated = 0
        self.stolen = 0

    @classmethod
    def start(cls, speculate: Path | str | None = None, jobs: int | None = None) -> ParsePool | None:
        """Fork ``jobs`` worker processes now (default: one per CPU, at most 8) and, when
        ``speculate`` is a folder, have them walk it and parse its SKILL.md files right away.

        Returns None (nothing started) when this process already runs another thread, ``fork``
        is not available, there is a single CPU or ``jobs`` < 2: the caller then parses as
        before. Call it from the main thread before any thread is started (before Qt)."""
        import multiprocessing

        cpus = os.cpu_count() or 1
        jobs = min(cpus, 8) if jobs is None else jobs
        if jobs < 2 or not fork_ok():
            return None
        try:
            ex = ProcessPoolExecutor(
                max_workers=jobs,
                mp_context=multiprocessing.get_context("fork"),
                initializer=_worker_init,
                initargs=(os.getpid(),),
            )
            ex.submit(_noop)  # forks every worker now, while this is the only thread
        except Exception:  # noqa: BLE001 - no processes: the caller parses as before
            log.debug("parse pool not started", exc_info=True)
            return None
        pool = cls(ex, jobs)
        if speculate is not None and os.path.isdir(speculate):
            pool._speculate(str(speculate))
        return pool

    def _speculate(self, folder: str) -> None:
        """Hand ``folder`` out to the processes: its top levels listed here (``_split``: a few
        folders, before the window exists), the folders below walked and their SKILL.md files
        parsed in the processes, ``SPLIT_PER_JOB`` walk tasks per process (``_walk_chunk``:
        bounded by ``SPECULATE_WALK_S`` and a share of ``SPECULATE_MAX`` files: a home folder
        opened by mistake)."""
        assert self._ex is not None
        deadline = time.monotonic() + SPECULATE_WALK_S
        tops, files, self._listings = _split(folder, SPLIT_PER_JOB * self.jobs, deadline)
        n = max(1, min(len(tops), SPLIT_PER_JOB * self.jobs))
        for i in range(n):
            share = SPECULATE_MAX // n + (i < SPECULATE_MAX % n)  # the shares add up to the max
            task = (tops[i::n], files if i == 0 else [], share, deadline)
            self._spec.append((task, self._ex.submit(_walk_chunk, *task)))

    def _speculation(self) -> dict[str, Blob | None]:
        """The speculative results (path str -> facts blob), collected once (the walks' listings
        into ``_listings``). The tasks no process has started yet are taken back, last first,
        and run here, on this thread's core, while the processes finish theirs (on a loaded
        machine they may be far behind); the others are waited for (``SPECULATE_WAIT_S`` at
        most each; a failed or late task counts as nothing: the caller lists those folders and
        parses those files)."""
        if self._spec_done is None:
            # 10,000 files' facts and listings, no cycles: the GC's passes over them (and over
            # the window's objects) cost more than decoding them
            with gc_paused():
                got: dict[str, Blob | None] = {}
                results: list[bytes] = []
                for task, fut in reversed(self._spec):
                    if not fut.cancel():
                        break  # started: so are the ones before it (first in, first out)
                    results.append(_walk_chunk(*task))
                    self.stolen += 1
                for _task, fut in self._spec:
                    if fut.cancelled():
                        continue
                    try:
                        results.append(fut.result(timeout=SPECULATE_WAIT_S))
                    except Exception:  # noqa: BLE001 - late (TimeoutError) or failed: only saves time
                        log.debug("speculative parse failed", exc_info=True)
                while results:  # each blob freed once read
                    listings, paths, blobs = marshal.loads(results.pop())
                    self._listings.update(listings)
                    got.update(zip(paths, blobs))
            self._spec_done, self._spec = got, []
        return self._spec_done

    def listings(self) -> dict[str, tuple[Any, ...]]:
        """The folder listings the speculation read (``fscache.DirCache`` entries, for
        ``DirCache.adopt``), waiting for it as ``blobs`` does; handed over once ({} after, and
        without a speculation or once shut down)."""
        if self._ex is None:
            return {}
        self._speculation()
        got, self._listings = self._listings, {}
        return got

    def blobs(self, paths: list[str]) -> list[Blob | None] | None:
        """The parse facts of ``paths`` (path strings) as ``marshal`` bytes
        (``parsecache.fact_blobs``), in order: the speculative result when there is one, else
        parsed in the worker processes. None entries = not parsed here (the
        caller parses those itself); None = the pool is shut down or broken. Fewer than
        ``parsecache.PREFETCH_MIN`` files the speculation lacks are left to the caller."""
        if self._ex is None:
            return None
        spec = self._speculation()
        out: list[Blob | None] = [None] * len(paths)
        missing: list[int] = []
        for i, p in enumerate(paths):
            if p in spec:
                out[i] = spec.pop(p)
                self.speculated += 1
            else:
                missing.append(i)
        if len(missing) >= PREFETCH_MIN:
            todo = [paths[i] for i in missing]
            try:
                futs = [
                    self._ex.submit(_blobs_chunk, todo[j : j + CHUNK]) for j in range(0, len(todo), CHUNK)
                ]
                parsed = [f for fut in futs for f in marshal.loads(fut.result())]
            except Exception:  # noqa: BLE001 - BrokenProcessPool, OSError: the caller parses
                log.debug("parse pool failed; parsing serially", exc_info=True)
                self.shutdown()
                return out
            for i, f in zip(missing, parsed):
                out[i] = f
        return out

    def release(self) -> None:
        """Drop the speculative results nobody asked for (the first scan is done): a warm start
        asks for none (the parse store has them), and they stayed alive through the window's
        whole scan pass (~5 MB of 10,000 files' blobs: its peak RSS 198 -> 201.5 MB). Later
        ``blobs`` calls parse in the processes."""
        if self._spec_done is not None:
            self._spec_done = {}

    def shutdown(self) -> None:
        """End the worker processes (without waiting for them); later ``blobs`` return None."""
        ex, self._ex = self._ex, None
        self._spec, self._spec_done, self._listings = [], {}, {}
        if ex is not None:
            ex.shutdown(wait=False, cancel_futures=True)
