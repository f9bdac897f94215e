"""A crash or failure at every step of apply/rollback leaves old-or-new, never a mix, and the
store consistent after reopening (journal recovery)."""

from __future__ import annotations

import os
import signal
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
APPLY_STEPS = [
    "rollback-data",
    "journal",
    "dirs",
    "file:0",
    "file:1",
    "file:2",
    "file:3",
    "files",
    "committed",
]
ROLLBACK_STEPS = [
    "rollback-journal",
    "restore:0",
    "restore:1",
    "restore:2",
    "restore:3",
    "restored",
    "rollback-committed",
]


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
def test_in_process_failure_is_undone_at_once(ws, alpha, step, caplog):
    old = snapshot(alpha.parent)
    s = WorkshopStore(ws)
    p = s.propose_update(alpha, NEW, FILES)
    s.fault_hook = _crash_at(step, OSError)
    with pytest.raises(ApplyError, match="restored to its previous state"), caplog.at_level("WARNING"):
        s.apply(p.id)
    assert [r.exc_info[0] for r in caplog.records if r.name.endswith("workshop.apply")] == [OSError]
    assert snapshot(alpha.parent) == old
    assert s.get(p.id).state == "pending" and _journal_rows(s) == 0
    assert s.events(p.id)[-1].kind == "apply-failed"


@pytest.mark.parametrize("where", ["copy_folder", "exchange"])
def test_disk_error_while_staging_or_switching_is_undone(ws, alpha, monkeypatch, where):
    """A disk error while the new folder is staged (copy) or switched (rename) leaves the live
    skill as it was and no staging folder beside it."""
    import workbench.core.workshop.apply as st

    old = snapshot(alpha.parent.parent)
    s = WorkshopStore(ws)
    p = s.propose_update(alpha, NEW, FILES)
    real = getattr(st, where)

    def flaky(*a, **kw):
        if where == "copy_folder":
            real(*a, **kw)
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(st, where, flaky)
    with pytest.raises(ApplyError, match="No space left"):
        s.apply(p.id)
    monkeypatch.setattr(st, where, real)
    assert snapshot(alpha.parent.parent) == old  # the skill and its root: no staging folder left
    assert s.get(p.id).state == "pending" and _journal_rows(s) == 0


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


def test_rollback_failure_keeps_applied_version(ws, alpha, caplog):
    s = WorkshopStore(ws)
    p = s.propose_update(alpha, NEW, FILES)
    s.apply(p.id)
    new = snapshot(alpha.parent)
    s.fault_hook = _crash_at("restore:1", OSError)
    with pytest.raises(ApplyError, match="applied version was kept"), caplog.at_level("WARNING"):
        s.rollback(p.id)
    assert [r.exc_info[0] for r in caplog.records if r.name.endswith("workshop.apply")] == [OSError]
    assert snapshot(alpha.parent) == new
    assert s.get(p.id).state == "applied"


def _run_apply_in_subprocess(ws: Path, wb_home: Path, pid: str, hook: str, kill_after: float | None = None):
    """Apply ``pid`` in a child process whose fault hook is ``hook`` (Python source of a lambda of
    ``step``); with ``kill_after`` the child is SIGKILLed after that many seconds."""
    script = textwrap.dedent(f"""
        import os, sys, time
        from workbench.core.workshop import WorkshopStore
        s = WorkshopStore({str(ws)!r})
        s.fault_hook = {hook}
        s.apply({pid!r})
    """)
    repo = Path(__file__).resolve().parents[2]
    proc = subprocess.Popen(
        [sys.executable, "-c", script],
        cwd=repo,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "WORKBENCH_HOME": str(wb_home)},
    )
    if kill_after is not None:
        try:
            proc.wait(timeout=kill_after)
        except subprocess.TimeoutExpired:
            proc.send_signal(signal.SIGKILL)
    _out, err = proc.communicate(timeout=60)
    return proc.returncode, err


def _leftovers(root: Path) -> list[str]:
    """Staging folders and temp files anywhere under a skills root."""
    return [
        p.relative_to(root).as_posix()
        for p in root.rglob("*")
        if ".wb-stage-" in p.name or ".wb-prev-" in p.name or p.name.endswith(".tmp")
    ]


NEW_FILES = {
    "SKILL.md": NEW.encode(),
    "scripts/run.sh": b"echo new\n",
    "references/deep/x.md": b"# x\n",
    "README.txt": b"r\n",
}


def _is_new(snap: dict[str, bytes]) -> bool:
    return all(snap.get(k) == v for k, v in NEW_FILES.items())


@pytest.mark.parametrize("step", ["dirs", "file:1", "files", "switched", "committed", "cleaned"])
def test_killed_process_mid_apply_leaves_old_or_new(ws, alpha, wb_home, step):
    """Issue 12 item 6: a process killed at any step of apply leaves the live skill folder all-old
    or all-new (even before any workbench process opens the workspace again), never a temp file
    inside it; the next open removes the staging folder beside it."""
    root = alpha.parent.parent
    old = snapshot(alpha.parent)
    p = WorkshopStore(ws).propose_update(alpha, NEW, FILES)
    hook = f"lambda step: os._exit(9) if step == {step!r} else None"
    rc, err = _run_apply_in_subprocess(ws, wb_home, p.id, hook)
    assert rc == 9, err
    now = snapshot(alpha.parent)
    assert now == old or _is_new(now), step  # never a mix
    if step in ("dirs", "file:1", "files"):
        assert now == old and _leftovers(root), step  # the staging folder is beside, not inside
    assert not [x for x in _leftovers(root) if x.startswith("alpha/")]
    s2 = WorkshopStore(ws)  # next open: recovery
    assert _leftovers(root) == []
    if step in ("committed", "cleaned"):
        assert s2.get(p.id).state == "applied" and _is_new(snapshot(alpha.parent))
    else:
        assert s2.get(p.id).state == "pending" and snapshot(alpha.parent) == old
        assert s2.apply(p.id).state == "applied" and _is_new(snapshot(alpha.parent))
    assert _leftovers(root) == []


def test_sigkill_at_random_moments_never_shows_a_mix(ws, alpha, wb_home):
    """SIGKILL an applying process at several moments (each step sleeps a little so the kill lands
    inside the apply); the live folder is always all-old or all-new, and after reopening the store's
    record agrees with it."""
    root = alpha.parent.parent
    old = snapshot(alpha.parent)
    for delay in (0.3, 0.6, 0.9, 1.2, 1.5, 2.0):
        s = WorkshopStore(ws)
        p = s.propose_update(alpha, NEW, FILES) if s.proposals("pending") == [] else s.proposals("pending")[0]
        _run_apply_in_subprocess(ws, wb_home, p.id, "lambda step: time.sleep(0.08)", kill_after=delay)
        now = snapshot(alpha.parent)
        assert now == old or _is_new(now), delay
        s2 = WorkshopStore(ws)
        assert _leftovers(root) == []
        st = s2.get(p.id).state
        assert (st == "applied" and _is_new(snapshot(alpha.parent))) or (
            st == "pending" and snapshot(alpha.parent) == old
        ), (delay, st)
        if st == "applied":
            s2.rollback(p.id)
            assert snapshot(alpha.parent) == old


def test_stale_temp_files_in_the_live_folder_are_cleaned_by_apply(ws, alpha):
    """An ``atomic_write`` temp file a killed process left inside the skill folder (the old apply
    wrote in place) is not carried into the new version."""
    junk = alpha.parent / ".SKILL.md.ab12cd34.tmp"
    junk.write_bytes(b"half")
    s = WorkshopStore(ws)
    p = s.propose_update(alpha, NEW, FILES)
    s.apply(p.id)
    assert not junk.exists() and _is_new(snapshot(alpha.parent))


def test_apply_keeps_the_executable_bit(ws, alpha, tmp_path):
    """Issue 12 item 13: a proposed script keeps its executable bit; an updated script keeps its
    live mode; a rollback restores the old mode."""
    run = alpha.parent / "scripts" / "run.sh"
    os.chmod(run, 0o755)
    s = WorkshopStore(ws)
    p = s.propose_update(
        alpha,
        NEW,
        {"scripts/run.sh": b"echo new\n", "scripts/new.py": b"print(1)\n", "references/a.md": b"# a\n"},
        executable={"scripts/new.py"},
    )
    assert p.files["scripts/new.py"].get("executable") and "executable" not in p.files["references/a.md"]
    s.apply(p.id)

    def mode(rel: str) -> int:
        return (alpha.parent / rel).stat().st_mode & 0o777

    assert mode("scripts/new.py") == 0o755 and mode("scripts/run.sh") == 0o755
    assert mode("references/a.md") == 0o644
    # a create from a folder with an executable script (the CLI's --proposal DIR)
    src = tmp_path / "draft"
    (src / "scripts").mkdir(parents=True)
    (src / "SKILL.md").write_text("---\nname: beta\ndescription: b\n---\n")
    (src / "scripts" / "go.sh").write_bytes(b"#!/bin/sh\necho go\n")
    os.chmod(src / "scripts" / "go.sh", 0o755)
    from workbench.core.workshop.paths import executable_files, files_from_folder

    text, files = files_from_folder(src)
    q = s.propose_create("beta", text, files, executable=executable_files(src))
    s.apply(q.id)
    assert (q.target_dir / "scripts" / "go.sh").stat().st_mode & 0o777 == 0o755
    s.rollback(p.id)
    assert run.stat().st_mode & 0o777 == 0o755 and not (alpha.parent / "scripts" / "new.py").exists()


def test_symlinked_skill_folder_is_switched_behind_its_link(ws, tmp_path):
    """A skill folder that is a symlink keeps its link: the real folder it points to is switched."""
    real = tmp_path / "elsewhere" / "gamma"
    real.mkdir(parents=True)
    (real / "SKILL.md").write_text("---\nname: gamma\ndescription: g\n---\nold\n")
    link = ws / ".claude" / "skills" / "gamma"
    link.symlink_to(real, target_is_directory=True)
    s = WorkshopStore(ws)
    p = s.propose_update(link / "SKILL.md", "---\nname: gamma\ndescription: g\n---\nnew\n")
    s.apply(p.id)
    assert link.is_symlink() and (real / "SKILL.md").read_text().endswith("new\n")
    assert _leftovers(real.parent) == [] and _leftovers(link.parent) == []
    s.rollback(p.id)
    assert (real / "SKILL.md").read_text().endswith("old\n") and link.is_symlink()
