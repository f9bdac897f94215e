"""``core.parsepool``: the window's parse processes, forked before any thread (issue 14)."""

from __future__ import annotations

import marshal
import threading

import pytest

from tests.helpers import write_skill
from workbench.core import parsepool
from workbench.core.cache.skillfacts import skillfile_facts
from workbench.core.discovery import ParseCache
from workbench.core.parsepool import ParsePool
from workbench.core.skillfile import read_skill_file


@pytest.fixture()
def tree(tmp_path):
    for i in range(30):
        write_skill(tmp_path / "coll" / f"s{i:02d}", f"s{i:02d}", f"Use when testing {i}.")
    return tmp_path / "coll"


@pytest.fixture()
def forkable(monkeypatch):
    """The test process may run threads (Qt workers of other tests): allow the fork here."""

    monkeypatch.setattr(parsepool, "fork_ok", lambda: True)
    monkeypatch.setattr(parsepool, "CHUNK", 4)


def _paths(tree) -> list[str]:
    return sorted(str(p) for p in tree.glob("*/SKILL.md"))


def test_not_started_while_another_thread_runs(tree):
    stop = threading.Event()
    t = threading.Thread(target=stop.wait)
    t.start()
    try:
        assert ParsePool.start(speculate=tree, jobs=2) is None  # forking now could copy a held lock
    finally:
        stop.set()
        t.join()
    assert ParsePool.start(speculate=tree, jobs=1) is None  # one process: nothing to gain


def test_speculative_parse_gives_the_same_facts(tree, forkable):
    pool = ParsePool.start(speculate=tree, jobs=2)
    assert pool is not None
    try:
        paths = _paths(tree)
        got = pool.blobs(paths)
        assert got is not None and all(got)
        assert [marshal.loads(b) for b in got if b] == [skillfile_facts(read_skill_file(p)) for p in paths]
        # every file came from the speculation: walked and parsed in the processes, or in the
        # tasks taken back here
        assert pool.speculated == 30 and 0 <= pool.stolen <= 2 * parsepool.SPLIT_PER_JOB
    finally:
        pool.shutdown()
    assert pool.blobs(paths) is None  # shut down: the caller parses


def test_parse_cache_adopts_pool_facts_and_rereads_a_changed_file(tree, forkable):
    pool = ParsePool.start(speculate=tree, jobs=2)
    assert pool is not None
    try:
        paths = _paths(tree)
        pool._speculation()  # the speculation is done ...
        write_skill(tree / "s03", "s03", "Use when the file changed after the speculation.")
        cache = ParseCache()
        cache.pool = pool.blobs
        assert cache.prefetch(paths) == 29  # ... so the changed file is not adopted
        assert cache.get(paths[3]).data["description"] == "Use when the file changed after the speculation."
        assert [cache.get(p).data["name"] for p in paths] == [f"s{i:02d}" for i in range(30)]
    finally:
        pool.shutdown()


def test_files_outside_the_speculation_are_parsed_in_the_processes(tree, tmp_path, forkable, monkeypatch):
    monkeypatch.setattr(parsepool, "PREFETCH_MIN", 2)
    other = [str(write_skill(tmp_path / "home" / f"h{i}", f"h{i}", "Use when testing h.")) for i in range(5)]
    pool = ParsePool.start(speculate=tree, jobs=2)
    assert pool is not None
    try:
        got = pool.blobs(other + _paths(tree)[:2])
        assert got is not None and all(f is not None for f in got)
        assert pool.speculated == 2
    finally:
        pool.shutdown()


def test_the_speculative_walk_is_bounded(tree, forkable, monkeypatch):
    """A huge folder opened by mistake: the walk stops at ``SPECULATE_MAX`` files over all its
    tasks, and ``SPECULATE_WALK_S`` after the start (here: at once, nothing walked)."""
    monkeypatch.setattr(parsepool, "SPECULATE_MAX", 7)
    pool = ParsePool.start(speculate=tree, jobs=2)
    assert pool is not None
    try:
        assert len(pool._spec) == 2 * parsepool.SPLIT_PER_JOB and len(pool._speculation()) == 7
    finally:
        pool.shutdown()
    monkeypatch.setattr(parsepool, "SPECULATE_WALK_S", -1.0)
    pool = ParsePool.start(speculate=tree, jobs=2)
    assert pool is not None
    try:
        assert len(pool._speculation()) == 0 and pool.listings() == {}
    finally:
        pool.shutdown()


def test_release_drops_the_results_nobody_asked_for(tree, forkable):
    """After the first scan (a warm start asks for none) the speculative results are dropped:
    they stayed alive through the window's whole pass (issue 14, peak RSS)."""
    pool = ParsePool.start(speculate=tree, jobs=2)
    assert pool is not None
    try:
        paths = _paths(tree)
        assert all(pool.blobs(paths[:1]) or [None])
        pool.release()
        assert pool._spec_done == {}
        assert pool.blobs(paths[1:3]) == [None, None]  # fewer than PREFETCH_MIN: the caller parses
    finally:
        pool.shutdown()


def test_the_walks_listings_are_the_dir_caches_own(tree, forkable):
    """``listings()``: the folders the processes walked, as ``DirCache`` would list them (only
    folders old enough to be kept: ``RACY_NS``), handed over once."""
    import os
    import time

    from workbench.core.cache.fscache import DirCache

    old = time.time() - 3600
    folders = [str(tree), *(str(p) for p in tree.iterdir())]
    for d in folders:
        os.utime(d, (old, old))
    os.utime(tree / "s05", None)  # racily new: not kept
    pool = ParsePool.start(speculate=tree, jobs=2)
    assert pool is not None
    try:
        got = pool.listings()
        assert pool.listings() == {}  # handed over once
    finally:
        pool.shutdown()
    mine = DirCache(persist=False)
    assert set(got) == set(folders) - {str(tree / "s05")}
    assert all(got[d] == mine.listing(d) for d in got)
    mine.adopt(got)
    assert mine.hits == 0 and mine.listing(str(tree / "s01")) == got[str(tree / "s01")] and mine.hits == 1
    mine._dirty = False
    mine.adopt(dict(got))  # the same entries again (a warm start): nothing to save
    assert not mine._dirty


def test_workers_end_with_a_parent_that_leaves_by_os_exit(tree):
    """benchwindow (and a crash) leave by ``os._exit`` before the pool's shutdown reaches its
    idle workers: they must not stay behind (they held a pipe's reader open: a hung bench)."""
    import os
    import subprocess
    import sys
    import time

    code = (
        "import os\n"
        "from workbench.core.parsepool import ParsePool\n"
        f"pool = ParsePool.start(speculate={str(tree)!r}, jobs=2)\n"
        "pool.blobs([])\n"
        "print(' '.join(str(p) for p in pool._ex._processes), flush=True)\n"
        "os._exit(0)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    pids = [int(p) for p in out.stdout.split()]
    assert len(pids) == 2, out.stderr

    def alive(pid: int) -> bool:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return False
        with open(f"/proc/{pid}/stat", encoding="ascii") as fh:  # a zombie is gone too
            return fh.read().split()[2] != "Z"

    deadline = time.monotonic() + 10
    while any(alive(p) for p in pids) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not any(alive(p) for p in pids)
