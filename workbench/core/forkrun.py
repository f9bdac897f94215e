"""Work split with one forked child process: the one place that forks a helper by hand.

Used where the work after a pool is done (or instead of a pool) is big enough to share with the
second core but too entangled to pickle into a ``ProcessPoolExecutor``: the child inherits the
parent's memory (indexes, parsed files) by ``fork`` and sends only its result back through a
pipe, as one ``marshal`` blob (so results must be marshal-able: tuples, lists, dicts, str, int,
float, bytes, None, bool).

Callers: ``workbench scan --client all`` (half the clients' scan + listing + JSON,
``commands/scan._split``) and the lint catalog rules (``lint.catalogpass.with_catalog``, whose
child may also write the result cache once it has every result: ``split_map_then``).
A fork + pipe costs ~10-20 ms on this 2-core machine with a 200 MB heap; callers only fork
above a size where the halved work pays for that.
"""

from __future__ import annotations

import logging
import marshal
import os
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
