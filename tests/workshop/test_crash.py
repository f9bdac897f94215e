"""A crash or failure at every step of apply/rollback leaves old-or-new, never a mix, and the
store consistent after reopening (journal recovery)."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from tests.workshop.conftest import SimulatedCrash, snapshot
from workbench.core.workshop import ApplyError, WorkshopStore

NEW = "---\nname: alpha\ndescription: New.\n---\nNew body\n"
FILES = {"scripts/run.sh": b"echo new\n", "references/deep/x.md": b"# x\n", "README.txt": b"r\n"}
# the plan writes support files sorted, then SKILL.md last: 4 files -> file:0..file:3
APPLY_STEPS = ["rollback-data", "journal", "dirs", "file:0", "file:1", "file:2", "file:3", "files", "committed"]
ROLLBACK_STEPS = ["rollback-journal", "restore:0", "restore:1", "restore:2", "restore:3", "restored",
                  "rollback-committed"]


def _crash_at(step: str, exc: type[BaseException] = SimulatedCrash):
    def hook(s: str) -> None:
        if s == step:
            raise exc(f"injected at {s}")
    return hook


def _journal_rows(store: WorkshopStore) -> int:
    conn = sqlite3.connect(store.db_path)
    try:
        return conn.execute("SELECT COUNT(*) FROM journal").fetchone()[0]
    finally:
        conn.close()


@pytest.mark.parametrize("step", APPLY_STEPS)
def test_update_crash_at_each_apply_step(ws, alpha, step):
    old = snapshot(alpha.parent)
    s1 = WorkshopStore(ws)
    p = s1.propose_update(alpha, NEW, FILES)
    s1.fault_hook = _crash_at(step)
    with pytest.raises(SimulatedCrash):
        s1.apply(p.id)
    s2 = WorkshopStore(ws)  # "next start": recovery runs here
    now = snapshot(alpha.parent)
    state = s2.get(p.id).state
    assert _journal_rows(s2) == 0
    if step == "committed":
        assert state == "applied"
        assert now["SKILL.md"] == NEW.encode() and now["scripts/run.sh"] == b"echo new\n"
        s2.rollback(p.id)
        assert snapshot(alpha.parent) == old
    else:
        assert state == "pending", step
        assert now == old, step  # never a mix
        if step not in ("rollback-data",):
            assert any("interrupted" in n for n in s2.notices)
            assert s2.events(p.id)[-1].kind == "apply-interrupted"
        assert s2.apply(p.id).state == "applied"  # and it can simply be applied again


@pytest.mark.parametrize("step", APPLY_STEPS[:-1])
def test_create_crash_at_each_apply_step(ws, step):
    root = ws / "new-root"
    s1 = WorkshopStore(ws)
    p = s1.propose_create("beta", "---\nname: beta\ndescription: b\n---\n", FILES, target_root=root)
    s1.fault_hook = _crash_at(step)
    with pytest.raises(SimulatedCrash):
        s1.apply(p.id)
    s2 = WorkshopStore(ws)
    assert not root.exists(), step  # created files and folders removed
    assert s2.get(p.id).state == "pending"


@pytest.mark.parametrize("step", ["dirs", "file:0", "file:2", "files"])
def test_in_process_failure_is_undone_at_once(ws, alpha, step):
    old = snapshot(alpha.parent)
    s = WorkshopStore(ws)
    p = s.propose_update(alpha, NEW, FILES)
    s.fault_hook = _crash_at(step, OSError)
    with pytest.raises(ApplyError, match="restored to its previous state"):
        s.apply(p.id)
    assert snapshot(alpha.parent) == old
    assert s.get(p.id).state == "pending" and _journal_rows(s) == 0
    assert s.events(p.id)[-1].kind == "apply-failed"


def test_disk_error_from_atomic_write_is_undone(ws, alpha, monkeypatch):
    import workbench.core.workshop.store as st
    old = snapshot(alpha.parent)
    s = WorkshopStore(ws)
    p = s.propose_update(alpha, NEW, FILES)
    real = st.atomic_write
    calls = {"n": 0}

    def flaky(path, data, expected_sha256=None, **kw):
        if Path(path).is_relative_to(alpha.parent):
            calls["n"] += 1
            if calls["n"] == 3:
                raise OSError(28, "No space left on device")
        return real(path, data, expected_sha256, **kw)
    monkeypatch.setattr(st, "atomic_write", flaky)
    with pytest.raises(ApplyError, match="No space left"):
        s.apply(p.id)
    monkeypatch.setattr(st, "atomic_write", real)
    assert snapshot(alpha.parent) == old


@pytest.mark.parametrize("step", ROLLBACK_STEPS)
def test_crash_at_each_rollback_step(ws, alpha, step):
    old = snapshot(alpha.parent)
    s1 = WorkshopStore(ws)
    p = s1.propose_update(alpha, NEW, FILES)
    s1.apply(p.id)
    new = snapshot(alpha.parent)
    s1.fault_hook = _crash_at(step)
    with pytest.raises(SimulatedCrash):
        s1.rollback(p.id)
    s2 = WorkshopStore(ws)
    assert _journal_rows(s2) == 0
    # the person decided to roll back: an interrupted rollback is completed
    assert snapshot(alpha.parent) == old, step
    assert s2.get(p.id).state == "pending"
    assert new != old


def test_rollback_failure_keeps_applied_version(ws, alpha):
    s = WorkshopStore(ws)
    p = s.propose_update(alpha, NEW, FILES)
    s.apply(p.id)
    new = snapshot(alpha.parent)
    s.fault_hook = _crash_at("restore:1", OSError)
    with pytest.raises(ApplyError, match="applied version was kept"):
        s.rollback(p.id)
    assert snapshot(alpha.parent) == new
    assert s.get(p.id).state == "applied"


def test_killed_process_mid_apply_recovered(ws, alpha, wb_home):
    """A real process dies (os._exit) between two file writes; the next open restores."""
    old = snapshot(alpha.parent)
    s = WorkshopStore(ws)
    p = s.propose_update(alpha, NEW, FILES)
    script = textwrap.dedent(f"""
        import os, sys
        from workbench.core.workshop import WorkshopStore
        s = WorkshopStore({str(ws)!r})
        s.fault_hook = lambda step: os._exit(9) if step == "file:1" else None
        s.apply({p.id!r})
    """)
    repo = Path(__file__).resolve().parents[2]
    r = subprocess.run([sys.executable, "-c", script], cwd=repo, capture_output=True, text=True,
                       env={**__import__("os").environ, "WORKBENCH_HOME": str(wb_home)})
    assert r.returncode == 9, r.stderr
    assert snapshot(alpha.parent) != old  # it really stopped half way
    s2 = WorkshopStore(ws)
    assert snapshot(alpha.parent) == old
    assert s2.get(p.id).state == "pending"
