"""Issue 12 items 4 and 5: a single edit is saved for recovery; saves keep links and modes."""

from __future__ import annotations

import os
import stat
import sys

import pytest

from workbench.app.editor.pane import EditorPane
from workbench.core.recovery import RecoveryStore
from workbench.core.safefile import ReadOnlyError, atomic_write, sha256_of

SKILL = "---\nname: demo\ndescription: Use when testing.\n---\n# Demo\n"


@pytest.fixture()
def store(tmp_path, monkeypatch):
    monkeypatch.setenv("WORKBENCH_HOME", str(tmp_path / "wbhome"))
    return RecoveryStore(tmp_path / "recovery")


@pytest.fixture()
def make_pane(qtbot, store):
    panes = []

    def make(**kw):
        kw.setdefault("recovery_store", store)
        pane = EditorPane(**kw)
        qtbot.addWidget(pane)
        pane.show()
        panes.append(pane)
        return pane

    yield make
    for p in panes:
        p.shutdown()


@pytest.fixture()
def skill_file(tmp_path):
    f = tmp_path / "skills" / "demo" / "SKILL.md"
    f.parent.mkdir(parents=True)
    f.write_text(SKILL, encoding="utf-8")
    return f


# -- item 4 ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("how", ["paste", "replace-all", "after-save"])
def test_one_edit_after_open_or_save_is_saved_for_recovery(qtbot, make_pane, store, skill_file, how):
    pane = make_pane()
    assert pane.open_file(skill_file)
    if how == "after-save":
        pane.editor.insertPlainText("x")
        assert pane.save()
        qtbot.waitUntil(lambda: store.get(skill_file) is None, timeout=5000)
    if how == "replace-all":
        cur = pane.editor.textCursor()
        cur.select(cur.SelectionType.Document)
        cur.insertText(SKILL.replace("Demo", "Replaced"))  # one edit replacing everything
    else:
        pane.editor.insertPlainText("pasted block\n")  # one edit, like a paste
    expected = pane.text()
    qtbot.waitUntil(lambda: store.get(skill_file) is not None, timeout=5000)
    pane.flush_recovery()
    assert store.get(skill_file).text == expected


# -- item 5 ------------------------------------------------------------------------------------------

posix = pytest.mark.skipif(sys.platform == "win32", reason="POSIX links and modes")


@posix
def test_atomic_write_through_symlink_chain_keeps_links_and_mode(tmp_path):
    real = tmp_path / "dotfiles" / "SKILL.md"
    real.parent.mkdir()
    real.write_text("old\n")
    real.chmod(0o640)
    mid = tmp_path / "mid.md"
    mid.symlink_to(real)
    link = tmp_path / "skill" / "SKILL.md"
    link.parent.mkdir()
    link.symlink_to(os.path.relpath(mid, link.parent))
    sha = atomic_write(link, b"new\n", expected_sha256=sha256_of(link))
    assert link.is_symlink() and mid.is_symlink()
    assert real.read_bytes() == b"new\n" and sha == sha256_of(real)
    assert stat.S_IMODE(real.stat().st_mode) == 0o640
    assert not [p for p in real.parent.iterdir() if p.name != "SKILL.md"]  # no temp left


@posix
def test_atomic_write_hard_link_written_in_place(tmp_path):
    a = tmp_path / "a.md"
    a.write_text("old\n")
    b = tmp_path / "b.md"
    os.link(a, b)
    atomic_write(a, b"new\n", expected_sha256=sha256_of(a))
    assert b.read_bytes() == b"new\n" and a.stat().st_ino == b.stat().st_ino
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.md", "b.md"]  # backup removed


@posix
def test_atomic_write_read_only_asks(tmp_path):
    f = tmp_path / "SKILL.md"
    f.write_text("old\n")
    f.chmod(0o444)
    with pytest.raises(ReadOnlyError):
        atomic_write(f, b"new\n")
    assert f.read_bytes() == b"old\n"
    atomic_write(f, b"new\n", allow_read_only=True)
    assert f.read_bytes() == b"new\n" and stat.S_IMODE(f.stat().st_mode) == 0o444


@posix
def test_conflict_check_still_applies_through_a_link(tmp_path):
    from workbench.core.safefile import ConflictError

    real = tmp_path / "real.md"
    real.write_text("old\n")
    link = tmp_path / "SKILL.md"
    link.symlink_to(real)
    before = sha256_of(link)
    real.write_text("changed elsewhere\n")
    with pytest.raises(ConflictError):
        atomic_write(link, b"mine\n", expected_sha256=before)


@posix
def test_sha256_of_a_fifo_does_not_block(tmp_path):
    fifo = tmp_path / "SKILL.md"
    os.mkfifo(fifo)
    with pytest.raises(OSError):
        sha256_of(fifo)


@posix
@pytest.mark.parametrize("answer", [True, False])
def test_editor_save_symlink_and_read_only(qtbot, make_pane, tmp_path, answer):
    real = tmp_path / "dotfiles" / "SKILL.md"
    real.parent.mkdir()
    real.write_text(SKILL)
    real.chmod(0o444)
    link = tmp_path / "skills" / "demo" / "SKILL.md"
    link.parent.mkdir(parents=True)
    link.symlink_to(real)
    asked = []
    pane = make_pane(read_only_prompt=lambda parent, path: asked.append(path) or answer)
    assert pane.open_file(link)
    pane.editor.insertPlainText("edit\n")
    assert pane.save() is answer
    assert asked == [str(real)]
    assert link.is_symlink()
    assert (real.read_text() != SKILL) is answer
    assert stat.S_IMODE(real.stat().st_mode) == 0o444
    if not answer:
        assert "read-only" in pane.banner.text()
