"""``core.forkrun``: work split with one forked child gives exactly the result of doing it alone."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from workbench.core import forkrun
from workbench.core.lint import catalogpass, lint_paths

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork")


def test_split_map_equals_the_plain_map(monkeypatch):
    monkeypatch.setattr(forkrun, "fork_ok", lambda: True)
    parent = os.getpid()
    seen: list[int] = []

    def fn(items):
        seen.append(os.getpid())
        return [(i, i * i) for i in items]

    items = list(range(101))
    assert forkrun.split_map(fn, items, 10) == fn(items)
    assert seen.count(parent) == 2  # the parent's half, then the whole list above
    assert forkrun.split_map(fn, items[:5], 10) == fn(items[:5])  # below min: no fork


@pytest.mark.parametrize("fork", [True, False])
def test_split_map_gives_each_part_as_it_is_done(monkeypatch, fork):
    """``each(start, results)``: this process's half before the child is waited for, then the
    child's; one call with everything when nothing is forked."""
    monkeypatch.setattr(forkrun, "fork_ok", lambda: fork)
    events: list[tuple] = []
    real = forkrun.fork_call

    def fork_call(fn, in_child=None):
        wait = real(fn, in_child)
        return lambda: (events.append(("waited",)), wait())[1]

    monkeypatch.setattr(forkrun, "fork_call", fork_call)
    items = list(range(11))
    got = forkrun.split_map(lambda xs: [x * 2 for x in xs], items, 2, lambda i, r: events.append((i, r)))
    assert got == [x * 2 for x in items]
    if fork:
        assert events == [(0, got[:5]), ("waited",), (5, got[5:])]
    else:
        assert events == [(0, got)]


def test_a_failing_child_has_its_half_redone(monkeypatch):
    monkeypatch.setattr(forkrun, "fork_ok", lambda: True)
    parent = os.getpid()

    def fn(items):
        if os.getpid() != parent:
            raise RuntimeError("child breaks")
        return [str(i) for i in items]

    assert forkrun.split_map(fn, list(range(50)), 2) == [str(i) for i in range(50)]

    def bad_length(items):  # a child returning the wrong number of results is ignored too
        return [0] if os.getpid() != parent else [1] * len(items)

    assert forkrun.split_map(bad_length, list(range(9)), 2) == [1] * 9


def _flat(res: dict) -> list:
    return [(str(p), [d.to_json() for d in ds]) for p, ds in res.items()]


@pytest.mark.parametrize("profile", ["agentskills", "claude-code"])
def test_catalog_rules_split_equals_alone(corpus: Path, monkeypatch, profile):
    dirs = sorted(p for p in corpus.iterdir() if p.is_dir())[:4]
    monkeypatch.setattr(forkrun, "fork_ok", lambda: False)
    alone = _flat(lint_paths(dirs, profile, jobs=1))
    monkeypatch.setattr(forkrun, "fork_ok", lambda: True)
    monkeypatch.setattr(catalogpass, "CATALOG_SPLIT_MIN", 2)
    calls = []
    real = forkrun.fork_call
    monkeypatch.setattr(forkrun, "fork_call", lambda fn, in_child=None: calls.append(1) or real(fn, in_child))
    split = _flat(lint_paths(dirs, profile, jobs=1))
    assert calls, "the catalog work was not split"
    assert split == alone
    assert any(d["code"] in ("DESC009", "CAT001", "CAT002") for _p, ds in alone for d in ds)


def test_forbid_stops_every_later_fork(monkeypatch):
    monkeypatch.setattr(forkrun, "_forbidden", None)
    monkeypatch.setattr(forkrun.os, "cpu_count", lambda: 2)
    assert forkrun.fork_ok() in (True, False)  # other threads of the test run may exist
    forkrun.forbid("Qt threads")
    assert forkrun.fork_ok() is False
    assert forkrun.split_map(lambda xs: [x + 1 for x in xs], list(range(10)), 2) == list(range(1, 11))


@pytest.mark.parametrize("fork", [True, False])
def test_split_map_then_runs_then_in_the_child(monkeypatch, tmp_path, fork):
    """``split_map_then``: the results of the plain map; ``then`` gets every result in order in
    the child (which writes them here), and ``wait`` says it completed; without a fork nothing
    runs ``then`` (``wait`` None: the caller does it)."""
    monkeypatch.setattr(forkrun, "fork_ok", lambda: fork)
    out = tmp_path / "then.txt"
    events: list[tuple] = []

    def then(results):
        out.write_text(repr((os.getpid(), results)))

    items = list(range(23))
    got, wait = forkrun.split_map_then(
        lambda xs: [x * 3 for x in xs], items, 2, then, lambda i, r: events.append((i, r))
    )
    assert got == [x * 3 for x in items]
    if not fork:
        assert wait is None and not out.exists() and events == [(0, got)]
        return
    assert events == [(0, got[:11]), (11, got[11:])]
    assert wait is not None and wait() is True and wait() is True
    pid, results = eval(out.read_text())  # noqa: S307 - our own repr
    assert pid != os.getpid() and results == got


def test_split_map_then_failures(monkeypatch, tmp_path):
    """A ``then`` that raises: ``wait()`` False (the caller redoes it). A child failing before its
    half: the half redone here, ``wait`` None. Below ``min_items``: no fork."""
    monkeypatch.setattr(forkrun, "fork_ok", lambda: True)
    parent = os.getpid()

    def boom(results):
        raise RuntimeError("then breaks")

    got, wait = forkrun.split_map_then(lambda xs: [x + 1 for x in xs], list(range(10)), 2, boom)
    assert got == list(range(1, 11)) and wait is not None and wait() is False

    def fn(items):
        if os.getpid() != parent:
            raise RuntimeError("child breaks")
        return [str(i) for i in items]

    ran = tmp_path / "ran"
    got, wait = forkrun.split_map_then(fn, list(range(9)), 2, lambda r: ran.write_text("x"))
    assert got == [str(i) for i in range(9)] and wait is None and not ran.exists()
    got, wait = forkrun.split_map_then(fn, list(range(3)), 10, lambda r: ran.write_text("x"))
    assert got == ["0", "1", "2"] and wait is None and not ran.exists()


def _cache_files(home: Path) -> dict[str, object]:
    """The saved caches under ``home``, decoded (catalog blobs decoded too: equal content, not
    equal bytes; marshal's reference flags depend on reference counts)."""
    import marshal

    out: dict[str, object] = {}
    for f in sorted(home.rglob("*.marshal")):
        obj = marshal.loads(f.read_bytes())
        if "results" in f.parts:
            obj["entries"] = {
                k: (*e[:10], None if e[10] is None else (*e[10][:3], marshal.loads(e[10][3]), e[10][4]))
                for k, e in obj["entries"].items()
            }
        out[str(f.relative_to(home))] = obj
    return out


@pytest.mark.parametrize("helper_fails", [False, True])
def test_catalog_helper_saves_the_caches(corpus: Path, monkeypatch, tmp_path, helper_fails):
    """``lint_paths(hand_off=True)``: the catalog pass's forked child writes the result cache,
    its listings and parse store; ``cache.save()`` waits for it. The files equal those of an
    in-process save; a helper whose save fails has them written here."""
    from workbench.core.cache.parsestore import ParseStore
    from workbench.core.cache.resultcache import ResultCache

    dirs = sorted(p for p in corpus.iterdir() if p.is_dir())[:12]
    monkeypatch.setattr(catalogpass, "CATALOG_SPLIT_MIN", 2)

    def run(home: Path, hand_off: bool) -> tuple[list, ResultCache]:
        cache = ResultCache("agentskills", home / "results", parse_store=ParseStore(home / "parse"))
        res = _flat(
            lint_paths(
                dirs, "agentskills", jobs=1, cache=cache, save=False, render_json=True, hand_off=hand_off
            )
        )
        return res, cache

    monkeypatch.setattr(forkrun, "fork_ok", lambda: False)
    alone, cache = run(tmp_path / "a", False)
    cache.save()
    monkeypatch.setattr(forkrun, "fork_ok", lambda: True)
    parent = os.getpid()
    real_save = ResultCache.save

    def save(self):
        if helper_fails and os.getpid() != parent:
            raise OSError("disk full in the helper")
        return real_save(self)

    monkeypatch.setattr(ResultCache, "save", save)
    split, cache = run(tmp_path / "b", True)
    assert split == alone
    assert cache._helper is not None and cache.needs_save
    cache.save()
    assert cache._helper is None and not cache.needs_save
    assert _cache_files(tmp_path / "b") == _cache_files(tmp_path / "a") != {}


def test_a_large_result_comes_back_whole(monkeypatch):
    """Results far larger than a pipe's buffer come back whole (``_Message``: an anonymous file,
    then its length through the pipe), in both directions of ``split_map_then``."""
    monkeypatch.setattr(forkrun, "fork_ok", lambda: True)
    big = [bytes([i % 251]) * 70_000 for i in range(100)]  # ~7 MB
    assert forkrun.fork_call(lambda: big)() == big
    got, wait = forkrun.split_map_then(lambda xs: [big[x] for x in xs], list(range(100)), 2, lambda r: None)
    assert got == big and wait is not None and wait() is True


def _pid_and_square(i: int, fail_in_worker: int = -1, parent: int = 0) -> tuple[int, int]:
    if os.getpid() != parent and i == fail_in_worker:
        raise ValueError("a task failing in the worker")
    return os.getpid(), i * i


def test_work_queue_gives_every_result_in_order_from_both_processes():
    """``WorkQueue``: the worker and this process take tasks from one queue; ``drain`` gives
    ``fn(*args)`` for each task in ``put`` order, whoever ran it."""
    import time

    parent = os.getpid()

    def slow(i: int) -> tuple[int, int]:
        time.sleep(0.002)
        return _pid_and_square(i)

    q = forkrun.WorkQueue(slow)
    for i in range(200):
        q.put(i)
    got = q.drain()
    assert [sq for _, sq in got] == [i * i for i in range(200)]
    pids = {pid for pid, _ in got}
    assert parent in pids and len(pids) == 2  # both took tasks


def test_work_queue_redoes_what_a_worker_failed_here():
    """A task that raises in the worker, a result ``marshal`` cannot hold and a worker that dies
    are all run again in this process."""
    parent = os.getpid()
    q = forkrun.WorkQueue(_pid_and_square)
    for i in range(50):
        q.put(i, 3, parent)
    got = q.drain()
    assert [sq for _, sq in got] == [i * i for i in range(50)]
    assert got[3][0] == parent

    q = forkrun.WorkQueue(lambda i: object() if os.getpid() != parent else i)
    for i in range(20):
        q.put(i)
    assert q.drain() == list(range(20))

    def dies(i: int) -> int:
        if os.getpid() != parent and i == 5:
            os._exit(3)
        return i

    q = forkrun.WorkQueue(dies, workers=2)
    for i in range(40):
        q.put(i)
    assert q.drain() == list(range(40))


def test_work_queue_drain_each_once_per_task_as_results_come():
    """``drain(each)`` calls ``each(i, result)`` once per task (in any order), also for one a
    worker failed (run here again)."""
    import time

    parent = os.getpid()
    seen: list[tuple[int, object]] = []

    def fn(i: int) -> int:
        if os.getpid() != parent and i == 7:
            raise ValueError("redo here")
        time.sleep(0.002)
        return i * i

    q = forkrun.WorkQueue(fn)
    for i in range(100):
        q.put(i)
    got = q.drain(lambda i, r: seen.append((i, r)))
    assert got == [i * i for i in range(100)]
    assert sorted(seen) == [(i, i * i) for i in range(100)]


def test_work_queue_in_child_runs_in_the_worker_first():
    """``in_child`` runs in each worker before its first task (here: the worker's tasks see its
    mark); one that raises leaves every task to this process."""
    import time

    parent = os.getpid()
    mark: list[int] = []

    def fn(i: int) -> tuple[int, bool]:
        time.sleep(0.002)
        return os.getpid(), bool(mark)

    q = forkrun.WorkQueue(fn, in_child=lambda: mark.append(1))
    for i in range(100):
        q.put(i)
    got = q.drain()
    assert not mark and all(marked == (pid != parent) for pid, marked in got)
    assert any(pid != parent for pid, _ in got)

    def boom() -> None:
        raise RuntimeError("no start")

    q = forkrun.WorkQueue(fn, in_child=boom)
    for i in range(20):
        q.put(i)
    assert [pid for pid, _ in q.drain()] == [parent] * 20


def test_work_queue_keeps_what_does_not_fit_for_drain(monkeypatch):
    """A full queue (``put`` never blocks): the task is run by ``drain`` here."""
    parent = os.getpid()
    q = forkrun.WorkQueue(_pid_and_square)
    real_write = os.write
    calls = []

    def write(fd, data):
        calls.append(fd)
        if fd == q._w and len([c for c in calls if c == q._w]) > 2:
            raise BlockingIOError("full")
        return real_write(fd, data)

    monkeypatch.setattr(os, "write", write)
    for i in range(10):
        q.put(i)
    monkeypatch.undo()
    got = q.drain()
    assert [sq for _, sq in got] == [i * i for i in range(10)]
    assert all(pid == parent for pid, _ in got[2:])  # never queued: done here


def test_work_queue_reads_a_result_once_it_is_whole():
    """Results are read while the workers go on (``_gather``): a record still being written is
    left for the next read; a record that is not one ends the reading of that file."""
    import marshal

    q = forkrun.WorkQueue(_pid_and_square)
    try:
        blob = marshal.dumps((1, 2))
        rec = q._HEAD.pack(1, len(blob)) + blob
        fd = q._results[0]
        out, done = [None, None], [False, False]
        os.write(fd, rec[:-3])
        q._gather(out, done)
        assert done == [False, False]
        os.write(fd, rec[-3:])
        q._gather(out, done)
        assert done == [False, True] and out[1] == (1, 2)
        os.write(fd, q._HEAD.pack(7, 1) + b"x")  # task 7 of 2: garbage
        q._gather(out, done)
        assert q._read[0] == -1
    finally:
        assert q.drain() == []
