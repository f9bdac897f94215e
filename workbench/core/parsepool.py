"""A parse pool started before any thread: the window's cold scan parses on both cores (issue 14).

``ParseCache.prefetch`` forks its own process pool only when no other thread runs
(``forkrun.fork_ok``): forking a process that runs threads may copy a lock another thread
holds. The window scans on a worker thread while the GUI thread builds the window, so its first
scan parsed 10,000 files serially (~1.2 s of CPU sharing one GIL with the GUI) while the tree
waited. ``ParsePool.start`` forks the worker processes at start-up, while the process still has
one thread (before Qt is imported), and may at once give them the SKILL.md files under the
workspace to parse (``speculate``: a bounded walk): they walk and parse it while the window is built. Later
``ParsePool.facts`` (from any thread; ``ParseCache.pool``) serves those results and sends the
files it lacks to the same, already running, processes: nothing forks after threads exist.

No Qt here. Results are ``cache.skillfacts.skillfile_facts`` tuples (plain, marshal-able), keyed
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

from workbench.core.forkrun import fork_ok
from workbench.core.parsecache import PREFETCH_MIN, _facts_chunk
from workbench.core.skillwalk import walk_tree

log = logging.getLogger(__name__)

#: The speculative walk stops at this many SKILL.md files or after this many seconds (the scan
#: asks the pool for the files it needs that the speculation did not parse).
SPECULATE_MAX = 50_000
SPECULATE_WALK_S = 0.5
#: Seconds ``facts`` waits for the speculative parse before parsing without it.
SPECULATE_WAIT_S = 20.0
#: Files per task sent to the processes for the paths the speculation lacked.
CHUNK = 200
#: Niceness added to the worker processes: the GUI thread building the window comes first.
NICE = 0

Facts = tuple[Any, ...]


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
    ``facts`` may be called from any thread; ``shutdown`` ends the processes (idempotent).

    Attributes:
        jobs: number of worker processes.
        speculated: how many speculative results ``facts`` adopted so far (tests, bench).
        stolen: files of speculative chunks no process had started when ``facts`` was first
            called (parsed in the calling thread instead).
    """

    def __init__(self, executor: ProcessPoolExecutor, jobs: int) -> None:
        self._ex: ProcessPoolExecutor | None = executor
        self.jobs = jobs
        self._spec: list[tuple[list[str], Future[bytes]]] = []
        self._spec_done: dict[str, Facts | None] | None = None
        self.speculated = 0
        self.stolen = 0

    @classmethod
    def start(cls, speculate: Path | str | None = None, jobs: int | None = None) -> ParsePool | None:
        """Fork ``jobs`` worker processes now (default: one per CPU, at most 8) and, when
        ``speculate`` is a folder, have them parse the SKILL.md files under it right away.

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
        """Send the SKILL.md files under ``folder`` (``skillwalk.walk_tree``: symlinked folders
        not followed) to the processes in chunks of ``CHUNK``. The walk runs before the window
        exists: it stops at ``SPECULATE_MAX`` files or after ``SPECULATE_WALK_S`` (a home folder
        opened by mistake), and what it found so far is sent."""
        assert self._ex is not None
        paths: list[str] = []
        deadline = time.monotonic() + SPECULATE_WALK_S
        for dirpath, _dirs, files in walk_tree(folder):
            if "SKILL.md" in files:
                paths.append(os.path.join(dirpath, "SKILL.md"))
            if len(paths) >= SPECULATE_MAX or time.monotonic() > deadline:
                break
        for j in range(0, len(paths), CHUNK):
            chunk = paths[j : j + CHUNK]
            self._spec.append((chunk, self._ex.submit(_facts_chunk, chunk)))

    def _speculation(self) -> dict[str, Facts | None]:
        """The speculative results (path str -> facts), collected once. The chunks no process
        has started yet are taken back, last first, and parsed here, on this thread's core,
        while the processes finish theirs (on a loaded machine they may be far behind); the
        others are waited for (``SPECULATE_WAIT_S`` at most each; a failed or late chunk
        counts as nothing: the caller parses those files)."""
        if self._spec_done is None:
            got: dict[str, Facts | None] = {}
            for chunk, fut in reversed(self._spec):
                if not fut.cancel():
                    break  # started: so are the ones before it (first in, first out)
                got.update(zip(chunk, marshal.loads(_facts_chunk(chunk))))
                self.stolen += len(chunk)
            for chunk, fut in self._spec:
                if fut.cancelled():
                    continue
                try:
                    got.update(zip(chunk, marshal.loads(fut.result(timeout=SPECULATE_WAIT_S))))
                except Exception:  # noqa: BLE001 - late (TimeoutError) or failed: only saves time
                    log.debug("speculative parse failed", exc_info=True)
            self._spec_done, self._spec = got, []
        return self._spec_done

    def facts(self, paths: list[str]) -> list[Facts | None] | None:
        """Parse facts for ``paths`` (path strings), in order: the speculative result when there
        is one, else parsed in the worker processes. None entries = not parsed here (the
        caller parses those itself); None = the pool is shut down or broken. Fewer than
        ``parsecache.PREFETCH_MIN`` files the speculation lacks are left to the caller."""
        if self._ex is None:
            return None
        spec = self._speculation()
        out: list[Facts | None] = [None] * len(paths)
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
                    self._ex.submit(_facts_chunk, todo[j : j + CHUNK]) for j in range(0, len(todo), CHUNK)
                ]
                parsed = [f for fut in futs for f in marshal.loads(fut.result())]
            except Exception:  # noqa: BLE001 - BrokenProcessPool, OSError: the caller parses
                log.debug("parse pool failed; parsing serially", exc_info=True)
                self.shutdown()
                return out
            for i, f in zip(missing, parsed):
                out[i] = f
        return out

    def shutdown(self) -> None:
        """End the worker processes (without waiting for them); later ``facts`` return None."""
        ex, self._ex = self._ex, None
        self._spec, self._spec_done = [], {}
        if ex is not None:
            ex.shutdown(wait=False, cancel_futures=True)
