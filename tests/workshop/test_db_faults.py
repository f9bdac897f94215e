"""A corrupt, missing or locked database: a clear message, nothing lost."""

from __future__ import annotations

import sqlite3

import pytest

from workbench.core.workshop import StoreBusyError, WorkshopStore

NEW = "---\nname: alpha\ndescription: New.\n---\nNew body\n"


def _populate(ws, alpha):
    s = WorkshopStore(ws)
    a = s.propose_update(alpha, NEW, {"scripts/run.sh": b"echo new\n"})
    b = s.propose_create("beta", "---\nname: beta\ndescription: b\n---\n", target_root=ws / "skills")
    c = s.propose_create("gamma", "---\nname: gamma\ndescription: c\n---\n", target_root=ws / "skills")
    s.revise(c.id, "---\nname: gamma\ndescription: c2\n---\n")
    s.apply(a.id)
    s.reject(b.id, "dup")
    return s, a, b, c


def test_corrupt_database_moved_aside_and_rebuilt(ws, alpha):
    original = b"---\nname: alpha\ndescription: Use when testing alpha.\n---\n# Alpha\n\nRun `ls`.\n"
    s, a, b, c = _populate(ws, alpha)
    before = {p.id: (p.state, p.generation) for p in s.proposals()}
    s.db_path.write_bytes(b"this is not a database" * 100)
    s2 = WorkshopStore(ws)
    assert any("damaged" in n and "moved to" in n for n in s2.notices)
    aside = list(s2.dir.glob("workshop.db.corrupt-*"))
    assert len(aside) == 1 and aside[0].read_bytes().startswith(b"this is not")
    assert {p.id: (p.state, p.generation) for p in s2.proposals()} == before
    # the rebuilt records still hold the rollback data: the applied proposal rolls back exactly
    s2.rollback(a.id)
    assert alpha.read_bytes() == original
    assert s2.generation_files(c.id)["SKILL.md"].endswith(b"c2\n---\n")


def test_truncated_database_header(ws, alpha):
    s, a, *_ = _populate(ws, alpha)
    data = s.db_path.read_bytes()
    s.db_path.write_bytes(data[:100] + b"\x00" * (len(data) - 100))
    s2 = WorkshopStore(ws)
    assert s2.notices
    assert s2.get(a.id).state == "applied"


def test_deleted_database_restored_from_event_log(ws, alpha):
    s, a, b, c = _populate(ws, alpha)
    s.db_path.unlink()
    s2 = WorkshopStore(ws)
    assert any("restored" in n for n in s2.notices)
    assert s2.get(b.id).state == "rejected" and s2.get(b.id).reason == "dup"


def test_damaged_event_log_line_is_skipped(ws, alpha):
    s, a, b, c = _populate(ws, alpha)
    with open(s.log_path, "a") as fh:
        fh.write('{"proposal_id": "x", "kind": "appl')  # a crash mid-append
    s.db_path.unlink()
    s2 = WorkshopStore(ws)
    assert any("skipped" in n for n in s2.notices)
    assert len(s2.proposals()) == 3


def test_locked_database_gives_retryable_error(ws, alpha):
    s = WorkshopStore(ws, timeout=0.2)
    p = s.propose_update(alpha, NEW)
    blocker = sqlite3.connect(s.db_path, isolation_level=None)
    blocker.execute("BEGIN EXCLUSIVE")
    try:
        with pytest.raises(StoreBusyError, match="try again"):
            s.proposals()
        with pytest.raises(StoreBusyError, match="try again"):
            s.apply(p.id)
        with pytest.raises(StoreBusyError):
            WorkshopStore(ws, timeout=0.2)
        assert alpha.read_text() != NEW  # nothing changed
    finally:
        blocker.execute("ROLLBACK")
        blocker.close()
    assert s.apply(p.id).state == "applied"  # retry works


def test_apply_lock_held_by_other_process_is_busy(ws, alpha):
    import fcntl

    s = WorkshopStore(ws, timeout=0.2)
    p = s.propose_update(alpha, NEW)
    fh = open(s.dir / "apply.lock", "a+b")
    fcntl.flock(fh.fileno(), fcntl.LOCK_EX)
    try:
        with pytest.raises(StoreBusyError, match="try again"):
            s.apply(p.id)
    finally:
        fcntl.flock(fh.fileno(), fcntl.LOCK_UN)
        fh.close()
    assert s.apply(p.id).state == "applied"
