"""Work split with one forked child process: the one place that forks a helper by hand.

Used where the work after a pool is done (or instead of a pool) is big enough to share with the
second core but too entangled to pickle into a ``ProcessPoolExecutor``: the child inherits the
parent's memory (indexes, parsed files) by ``fork`` and sends only its result back through a
pipe, as one ``marshal`` blob (so results must be marshal-able: tuples, lists, dicts, str, int,
float, bytes, None, bool).

Callers: the lint catalog rules (``lint.catalogpass.with_catalog``, whose child may also write
the result cache once it has every result: ``split_map_then``).
A fork + pipe costs ~10-20 ms on this 2-core machine with a 200 MB heap; callers only fork
above a size where the halved work pays for that.

``WorkQueue``: tasks shared with forked workers as they are found (the lint pool,
``lint.batch.LintFeed``; the cold scan's parse pool, ``parsecache.Prefetcher``; the clients of
``workbench scan --client all``, ``commands/scan._split``), without the threads a
``ProcessPoolExecutor`` runs in the parent.
Nothing else may fork while a queue is open: a child would hold the queue's write end, and
``drain()`` would wait for that child to exit.
"""

from __future__ import annotations

import logging
import marshal
import os
import struct
import sys
import threading
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

log = logging.getLogger(__name__)

T = TypeVar("T")


#: Why this process must not fork any more (``forbid``), or None.
_forbidden: str | None = None


def forbid(reason: str) -> None:
    """From now on ``fork_ok()`` is False in this process: it runs threads that ``threading``
    does not count (the window: Qt's own threads and a scan on a Qt worker thread). Forking then
    may copy a lock another thread holds and deadlock the child. The window forks its parse
    processes before that (``core.parsepool``)."""
    global _forbidden
    _forbidden = reason


def fork_ok() -> bool:
    """Whether this process may fork a helper: ``fork`` exists, there is more than one core, no
    other thread runs (a thread holding a lock at the fork would deadlock the child) and
    ``forbid`` was not called."""
    return (
        _forbidden is None
        and hasattr(os, "fork")
        and (os.cpu_count() or 1) > 1
        and threading.active_count() == 1
    )


def fork_call(fn: Callable[[], Any], in_child: Callable[[], None] | None = None) -> Callable[[], Any | None]:
    """Start ``fn()`` in a forked child; return a function that waits for the child and gives
    ``fn()``'s result, or None when the child failed (it raised, was killed, or returned
    something ``marshal`` cannot hold). ``in_child`` runs first in the child (e.g. to detach
    from caches it must not write). Raises OSError when the fork itself fails. The child
    never returns into the caller's code: it ends with ``os._exit``."""
    r, w = os.pipe()
    sys.stdout.flush()
    sys.stderr.flush()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child (its result is checked by the callers' tests)
        code = 1
        try:
            os.close(r)
            if in_child is not None:
                in_child()
            data = marshal.dumps(fn())
            with os.fdopen(w, "wb") as f:
                f.write(data)
            code = 0
        except BaseException:  # noqa: BLE001 - the parent redoes the work
            log.debug("forked helper failed", exc_info=True)
        finally:
            os._exit(code)
    os.close(w)

    def result() -> Any | None:
        with os.fdopen(r, "rb") as f:
            data = f.read()
        _, status = os.waitpid(pid, 0)
        if status != 0 or not data:
            return None
        try:
            return marshal.loads(data)
        except (EOFError, ValueError, TypeError):
            return None

    return result


def split_map(
    fn: Callable[[Sequence[T]], list[Any]],
    items: Sequence[T],
    min_items: int,
    each: Callable[[int, list[Any]], None] | None = None,
) -> list[Any]:
    """``fn(items)`` (a list with one result per item, in order), with the second half of
    ``items`` done by a forked child when there are at least ``min_items`` and ``fork_ok()``.
    A child that fails (or returns a list of the wrong length) has its half redone here, so the
    result is always ``fn(items)``. ``each(start, results)``: called with each part's results
    (those of ``items[start:start + len(results)]``) as soon as it is done, in order: the first
    half's before the child's is waited for, so the caller uses them while the child works."""
    if len(items) < max(2, min_items) or not fork_ok():
        return _alone(fn, items, each)
    half = len(items) // 2
    mine, theirs = items[:half], items[half:]
    try:
        helper = fork_call(lambda: fn(theirs))
    except OSError:
        log.debug("fork failed; working alone", exc_info=True)
        return _alone(fn, items, each)
    out = fn(mine)
    if each is not None:
        each(0, out)
    back = helper()
    if not isinstance(back, list) or len(back) != len(theirs):
        back = fn(theirs)
    if each is not None:
        each(half, back)
    return out + back


def _read_all(fd: int) -> bytes:
    with os.fdopen(fd, "rb") as f:
        return f.read()


def split_map_then(
    fn: Callable[[Sequence[T]], list[Any]],
    items: Sequence[T],
    min_items: int,
    then: Callable[[list[Any]], None],
    each: Callable[[int, list[Any]], None] | None = None,
) -> tuple[list[Any], Callable[[], bool] | None]:
    """``split_map(fn, items, min_items, each)``, and ``then(results)`` (every result, in order)
    run by the forked child once it has them all, while this process goes on: the child sends
    its half's results, this process reads them and sends its own half's back (each side writes
    its message whole before reading the other's, so neither waits on the other's pipe), then
    takes both (``each``) while the child runs ``then`` and exits (e.g. to write a cache those
    results complete: the second core's share of the work after the split).

    Returns ``(results, wait)``: ``wait`` is None when no child ran ``then`` (too few items, no
    fork, a child that failed before it, or results of this half ``marshal`` cannot hold: the
    caller does what ``then`` stands for itself), else a function that waits for the child to
    end and returns whether ``then`` completed there (call it before relying on what ``then``
    does, e.g. before the process exits; later calls return the same answer)."""
    if len(items) < max(2, min_items) or not fork_ok():
        return _alone(fn, items, each), None
    half = len(items) // 2
    mine, theirs = items[:half], items[half:]
    fds: list[int] = []
    try:
        r1, w1 = os.pipe()  # child -> this process: the child's half
        fds += (r1, w1)
        r2, w2 = os.pipe()  # this process -> child: this half, for ``then``
        fds += (r2, w2)
        sys.stdout.flush()
        sys.stderr.flush()
        pid = os.fork()
    except OSError:
        log.debug("fork failed; working alone", exc_info=True)
        for fd in fds:
            os.close(fd)
        return _alone(fn, items, each), None
    if pid == 0:  # pragma: no cover - the child (its work is checked by the callers' tests)
        code = 1
        try:
            os.close(r1)
            os.close(w2)
            res = fn(theirs)
            with os.fdopen(w1, "wb") as f:
                f.write(marshal.dumps(res))
            got = _read_all(r2)
            first = marshal.loads(got) if got else None
            if isinstance(first, list) and len(first) == half:
                then(first + res)
                code = 0
        except BaseException:  # noqa: BLE001 - the parent does the work itself
            log.debug("forked helper failed", exc_info=True)
        finally:
            os._exit(code)
    os.close(w1)
    os.close(r2)
    out = fn(mine)
    back: Any = None
    sent = False
    try:
        data = _read_all(r1)
        back = marshal.loads(data) if data else None
    except (OSError, EOFError, ValueError, TypeError):
        back = None
    try:
        if isinstance(back, list) and len(back) == len(theirs):
            try:
                payload = marshal.dumps(out)
            except ValueError:
                payload = b""
            if payload:
                with os.fdopen(w2, "wb") as f:
                    w2 = -1
                    f.write(payload)
                sent = True
    except OSError:  # the child is gone (a broken pipe): it runs nothing
        sent = False
    finally:
        if w2 >= 0:
            os.close(w2)
    if not isinstance(back, list) or len(back) != len(theirs):
        back = fn(theirs)
    if each is not None:
        each(0, out)
        each(half, back)
    status: list[bool] = []

    def wait() -> bool:
        if not status:
            try:
                _, st = os.waitpid(pid, 0)
            except ChildProcessError:
                st = 1
            status.append(sent and st == 0)
        return status[0]

    if not sent:
        wait()  # (the child ends at once: its pipe is closed)
        return out + back, None
    return out + back, wait


def _alone(
    fn: Callable[[Sequence[T]], list[Any]], items: Sequence[T], each: Callable[[int, list[Any]], None] | None
) -> list[Any]:
    out = fn(items)
    if each is not None:
        each(0, out)
    return out


class WorkQueue:
    """Tasks shared by this process and ``workers`` forked workers, without threads: the lint
    pool (``lint.batch.LintFeed``) and the scan's parse pool (``parsecache.Prefetcher``). ``put(*args)`` queues ``fn(*args)``; the workers take the
    tasks in order as they come and each appends its results (``marshal`` blobs) to its own
    shared in-memory file, so a worker never waits for this process. (A ``ProcessPoolExecutor`` worker does: the parent's
    threads take each result out of a 64 KB pipe and send the next task, and they need the GIL,
    which the parent's walk or its own linting holds for up to the 5 ms switch interval at a
    time: ~1-5 ms idle per 50-file chunk.) ``drain()`` closes the queue, runs here the tasks no
    worker has taken (from the same queue: each task is done once), waits for the workers and
    returns every result. A task a worker did not finish (it raised, died, or its result is not
    marshal-able) is run here too, so ``drain()`` gives ``fn(*args)`` for every task.

    The queue is a pipe of fixed-size records (task number, offset, length in a shared file that
    holds the pickled arguments); a record is written and read whole (smaller than
    ``PIPE_BUF``), so every process can take from it. Raises OSError when no worker can be
    started. ``in_child()`` runs first in each worker (e.g. to detach from caches it must not
    write; a worker whose ``in_child`` raises takes no task). Use from one thread; call
    ``drain()`` once."""

    _REC = struct.Struct("=QQQ")
    _HEAD = struct.Struct("=QQ")

    def __init__(
        self, fn: Callable[..., Any], workers: int = 1, in_child: Callable[[], None] | None = None
    ) -> None:
        import pickle  # here: a process that never forks a queue does not import it

        self._pickle = pickle
        self.fn = fn
        self._in_child = in_child
        self._args: list[tuple[Any, ...]] = []
        self._later: list[int] = []  # tasks not queued (the pipe was full): run by drain()
        self._fds: list[int] = []
        self._tasks = _shared_file(self._fds)
        self._results = [_shared_file(self._fds) for _ in range(max(1, workers))]
        self._read = [0] * len(self._results)  # how far each worker's results were read
        self._r, self._w = os.pipe()
        self._fds += [self._r, self._w]
        try:  # Linux: room for ~40k queued tasks (64 KB: 2,730)
            import fcntl

            fcntl.fcntl(self._w, fcntl.F_SETPIPE_SZ, 1 << 20)
        except (ImportError, AttributeError, OSError):
            pass
        os.set_blocking(self._w, False)  # a full queue never blocks put(): the worker closes its copy
        self._offset = 0
        sys.stdout.flush()
        sys.stderr.flush()
        self._pids: list[int] = []
        for out in self._results:
            try:
                pid = os.fork()
            except OSError:
                if self._pids:
                    break  # fewer workers
                self._close()
                raise
            if pid == 0:  # pragma: no cover - a worker (its results are checked by the callers' tests)
                self._serve(out)
            self._pids.append(pid)

    def put(self, *args: Any) -> None:
        """Queue ``fn(*args)`` (``args`` picklable). When the queue is full (tens of thousands of
        tasks waiting) or cannot be written, the task is kept for ``drain()`` to run here."""
        i = len(self._args)
        self._args.append(args)
        if self._w < 0:
            self._later.append(i)
            return
        data = self._pickle.dumps((i, args), self._pickle.HIGHEST_PROTOCOL)
        off = self._offset
        try:
            _write_all(self._tasks, data)
        except OSError:  # no room for the task file: nothing more is queued
            os.close(self._w)
            self._fds.remove(self._w)
            self._w = -1
            self._later.append(i)
            return
        self._offset = off + len(data)
        try:
            os.write(self._w, self._REC.pack(i, off, len(data)))  # a record is written whole or not
        except OSError:  # BlockingIOError: the queue is full
            self._later.append(i)

    def drain(self, each: Callable[[int, Any], object] | None = None) -> list[Any]:
        """Close the queue and return ``[fn(*args) for each task]`` in ``put`` order: the tasks
        still queued are run here while the workers finish theirs; the workers' results are
        read as they come (between this process's tasks, so little is left to read once the
        last worker has exited). ``each(i, result)``: called here once per task (``i``: its
        number in ``put`` order) as soon as its result is known, the workers' results before
        this process takes its next task (``parsecache.Prefetcher`` keeps each chunk's facts
        while the workers parse the last chunks)."""
        n = len(self._args)
        out: list[Any] = [None] * n
        done = [False] * n
        try:
            if self._w >= 0:
                os.close(self._w)
                self._fds.remove(self._w)
                self._w = -1
            fn, size = self.fn, self._REC.size
            while True:  # EOF once the queue is empty: no writer is left
                got = self._gather(out, done)
                if each is not None:
                    for i in got:
                        each(i, out[i])
                rec = os.read(self._r, size)
                if len(rec) != size:
                    break
                i = self._REC.unpack(rec)[0]
                out[i], done[i] = fn(*self._args[i]), True
                if each is not None:
                    each(i, out[i])
            for i in self._later:  # never queued (the queue was full)
                out[i], done[i] = fn(*self._args[i]), True
                if each is not None:
                    each(i, out[i])
            for pid in self._pids:
                os.waitpid(pid, 0)
            got = self._gather(out, done)
            if each is not None:
                for i in got:
                    each(i, out[i])
        finally:
            self._close()
        for i in range(n):
            if not done[i]:  # a worker failed it: done here
                out[i] = self.fn(*self._args[i])
                if each is not None:
                    each(i, out[i])
        return out

    def _gather(self, out: list[Any], done: list[bool]) -> list[int]:
        """Take the complete results the workers have appended since the last call (a record
        still being written is left for the next); returns their task numbers."""
        head, hs, n = self._HEAD, self._HEAD.size, len(out)
        got: list[int] = []
        for w, fd in enumerate(self._results):
            pos = self._read[w]
            if pos < 0:
                continue
            end = os.fstat(fd).st_size - pos
            if end < hs:
                continue
            data = os.pread(fd, end, pos)
            view, end, p = memoryview(data), len(data), 0
            while p + hs <= end:
                i, k = head.unpack_from(data, p)
                if i >= n:  # not a record: stop reading this worker's file
                    pos, p = -1, 0
                    break
                if p + hs + k > end:
                    break  # still being written
                try:
                    out[i], done[i] = marshal.loads(view[p + hs : p + hs + k]), True
                    got.append(i)
                except (EOFError, ValueError, TypeError):
                    pass
                p += hs + k
            self._read[w] = pos + p if pos >= 0 else -1
        return got

    def _serve(self, out: int) -> None:  # pragma: no cover - runs in a worker
        code = 1
        try:
            os.close(self._w)
            if self._in_child is not None:
                self._in_child()
            size, fn = self._REC.size, self.fn
            while True:
                rec = os.read(self._r, size)
                if len(rec) != size:
                    break
                i, off, k = self._REC.unpack(rec)
                try:
                    j, args = self._pickle.loads(os.pread(self._tasks, k, off))
                    blob = marshal.dumps(fn(*args))
                except Exception:  # noqa: BLE001 - the parent runs the task again
                    log.debug("work queue task failed", exc_info=True)
                    continue
                _write_all(out, self._HEAD.pack(j, len(blob)) + blob)
            code = 0
        except BaseException:  # noqa: BLE001 - the parent runs what is missing
            log.debug("work queue worker failed", exc_info=True)
        finally:
            os._exit(code)

    def _close(self) -> None:
        for fd in self._fds:
            try:
                os.close(fd)
            except OSError:
                pass
        self._fds = []
        self._w = -1


def _shared_file(fds: list[int]) -> int:
    """A new unnamed file both processes of a fork share (``memfd_create``: in memory; else an
    unlinked temporary file); its descriptor is added to ``fds``."""
    if hasattr(os, "memfd_create"):
        fd = os.memfd_create("workbench-queue", getattr(os, "MFD_CLOEXEC", 0))
    else:  # pragma: no cover - not Linux
        import tempfile

        fd = os.dup(tempfile.TemporaryFile().fileno())
    fds.append(fd)
    return fd


def _write_all(fd: int, data: bytes) -> None:
    """Append all of ``data`` to ``fd`` (OSError when it cannot)."""
    view = memoryview(data)
    while view:
        k = os.write(fd, view)
        if k <= 0:
            raise OSError("short write")
        view = view[k:]
