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
