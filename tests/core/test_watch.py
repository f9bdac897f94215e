"""workbench.core.watch.RootWatcher: skill-file events from a real watchfiles worker."""

from __future__ import annotations

import os
import queue
import time

import pytest

from workbench.core.safefile import atomic_write
from workbench.core.watch import RootWatcher, is_skill_file


def _collect(q: queue.Queue, until, timeout: float = 10.0) -> list:
    """Drain batches until ``until(events)`` holds or ``timeout`` s pass; returns all events."""
    events: list = []
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            events.extend(q.get(timeout=0.1))
        except queue.Empty:
            pass
        if until(events):
            break
    return events


@pytest.fixture()
def root(tmp_path):
    r = tmp_path / "skills"
    r.mkdir()
    return r


@pytest.fixture()
def watcher(root):
    q: queue.Queue = queue.Queue()
    w = RootWatcher([root], q.put, debounce_ms=100, step_ms=20)
    assert w.wait_ready()
    yield w, q
    w.stop()
    assert not w.running


def test_is_skill_file(tmp_path):
    s = tmp_path / "root" / "pdf"
    (s / "references").mkdir(parents=True)
    (s / "SKILL.md").write_text("x")
    assert is_skill_file(s / "SKILL.md")
    assert is_skill_file(tmp_path / "nowhere" / "SKILL.md")  # by name, even when gone
    assert is_skill_file(s / "references" / "forms.md", [tmp_path / "root"])
    assert not is_skill_file(tmp_path / "root" / "README.md", [tmp_path / "root"])
    assert not is_skill_file(s / ".SKILL.md.abc123.tmp")
    assert not is_skill_file(tmp_path / "root" / "skill.md", [tmp_path / "root"])


def test_add_modify_delete(watcher, root):
    w, q = watcher
    skill = root / "demo"
    skill.mkdir()
    f = skill / "SKILL.md"
    f.write_text("---\nname: demo\n---\n")
    ev = _collect(q, lambda e: ("added", str(f)) in e)
    assert ("added", str(f)) in ev
    with open(f, "a") as fh:
        fh.write("more\n")
    ev = _collect(q, lambda e: ("modified", str(f)) in e)
    assert ("modified", str(f)) in ev
    f.unlink()
    ev = _collect(q, lambda e: ("deleted", str(f)) in e)
    assert ("deleted", str(f)) in ev


def test_support_files_reported_other_files_not(watcher, root):
    w, q = watcher
    skill = root / "demo"
    (skill / "references").mkdir(parents=True)
    (skill / "SKILL.md").write_text("x")
    _collect(q, lambda e: any(p.endswith("SKILL.md") for _, p in e))
    (root / "notes.txt").write_text("not a skill")
    ref = skill / "references" / "api.md"
    ref.write_text("ref")
    ev = _collect(q, lambda e: any(p == str(ref) for _, p in e))
    paths = {p for _, p in ev}
    assert str(ref) in paths
    assert str(root / "notes.txt") not in paths


def test_own_atomic_save_is_suppressed(watcher, root):
    w, q = watcher
    skill = root / "demo"
    skill.mkdir()
    f = skill / "SKILL.md"
    f.write_text("v1")
    # wait for a marker written after v1: then every event of the v1 write has been delivered
    # (a batch holds everything that happened before its last event)
    pre = root / "pre" / "SKILL.md"
    pre.parent.mkdir()
    pre.write_text("pre")
    _collect(q, lambda e: any(p == str(pre) for _, p in e))
    with w.suppress(f):
        atomic_write(f, b"v2 written by the app")
    # a marker change after the save: once it arrives, everything before it has been delivered
    (skill / "other").mkdir()
    m = skill / "other" / "SKILL.md"
    m.write_text("marker")
    ev = _collect(q, lambda e: any(p == str(m) for _, p in e))
    assert any(p == str(m) for _, p in ev)
    assert not any(p == str(f) for _, p in ev), ev
    assert not any(p.endswith(".tmp") for _, p in ev)
    # a later foreign change of the same file is reported again
    f.write_text("v3 from another program")
    ev = _collect(q, lambda e: any(p == str(f) for _, p in e))
    assert any(p == str(f) for _, p in ev)


def test_update_paths_and_missing_root(tmp_path):
    q: queue.Queue = queue.Queue()
    missing = tmp_path / "not-yet"
    w = RootWatcher([missing], q.put, debounce_ms=100, step_ms=20)
    assert not w.running  # nothing to watch is not an error
    missing.mkdir()
    w.update_paths([missing])
    assert w.wait_ready() and w.running
    (missing / "SKILL.md").write_text("x")
    ev = _collect(q, lambda e: bool(e))
    assert ("added", str(missing / "SKILL.md")) in ev
    w.stop()


def test_listener_errors_do_not_stop_the_watcher(root):
    q: queue.Queue = queue.Queue()

    def bad(_batch):
        raise RuntimeError("listener bug")

    w = RootWatcher([root], bad, debounce_ms=100, step_ms=20)
    w.subscribe(q.put)
    assert w.wait_ready()
    (root / "SKILL.md").write_text("a")
    assert _collect(q, lambda e: bool(e))
    (root / "SKILL.md").write_text("b")
    assert _collect(q, lambda e: bool(e))
    assert w.running
    w.stop()
    assert os.path.isdir(root)


def test_files_inside_a_new_folder_are_reported_even_if_inotify_missed_them(tmp_path):
    # inotify adds a watch for a new folder only after seeing it, so a SKILL.md written right
    # after mkdir can be missed; an "added" folder is listed once to close the race.
    import watchfiles

    from workbench.core.watch import _expand_new_dirs

    d = tmp_path / "new-skill"
    (d / "references").mkdir(parents=True)
    (d / "SKILL.md").write_text("x")
    (d / "references" / "a.md").write_text("y")
    got = _expand_new_dirs({(watchfiles.Change.added, str(d))})
    assert (watchfiles.Change.added, str(d / "SKILL.md")) in got
    assert (watchfiles.Change.added, str(d / "references" / "a.md")) in got
    assert _expand_new_dirs({(watchfiles.Change.modified, str(d))}) == set()
