"""The editor pane and the disk: conflicts, live reload, own saves, crash recovery, the dialogs."""

from __future__ import annotations

import gc
import hashlib

import pytest
from PySide6.QtCore import QTimer
from PySide6.QtGui import QTextCursor
from PySide6.QtWidgets import QApplication

from workbench.app.editor import EditorPane
from workbench.app.editor.conflict import CANCEL, KEEP_MINE, RELOAD, ConflictDialog, unified_diff
from workbench.app.editor.recoverydialog import DISCARD, RESTORE, RecoveryDialog
from workbench.core.recovery import RecoveryStore
from workbench.core.watch import RootWatcher

pytestmark = pytest.mark.gui

SKILL = "---\nname: demo\ndescription: Use when testing.\n---\n# Demo\n\nline 7\nline 8\n"


class Prompt:
    """A stub conflict prompt: records calls and answers with ``answer``."""

    def __init__(self, answer: str) -> None:
        self.answer = answer
        self.calls: list[tuple[str, str, str | None]] = []

    def __call__(self, parent, path, mine, theirs):
        self.calls.append((path, mine, theirs))
        return self.answer


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
        pane.resize(900, 600)
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


def opened(qtbot, pane, path):
    with qtbot.waitSignal(pane.lint_applied, timeout=5000):
        assert pane.open_file(path)
    w = pane.disk.active() or pane.disk.shared
    assert w.wait_ready()
    return pane


def type_at_end(qtbot, pane, text):
    pane.editor.moveCursor(QTextCursor.MoveOperation.End)
    qtbot.keyClicks(pane.editor, text)


# --------------------------------------------------------------------------- save conflicts


def test_save_after_external_change_asks_and_cancel_writes_nothing(qtbot, make_pane, skill_file):
    prompt = Prompt(CANCEL)
    pane = make_pane(conflict_prompt=prompt)
    pane.open_file(skill_file)
    pane.disk.release()  # no watcher: the hash check at save time must catch it alone
    type_at_end(qtbot, pane, "mine")
    skill_file.write_text("theirs\n", encoding="utf-8")
    assert pane.save() is False
    assert len(prompt.calls) == 1 and prompt.calls[0][2] == "theirs\n"
    assert skill_file.read_text(encoding="utf-8") == "theirs\n"
    assert pane.has_unsaved_changes()


def test_keep_mine_overwrites_deliberately(qtbot, make_pane, skill_file):
    prompt = Prompt(KEEP_MINE)
    pane = make_pane(conflict_prompt=prompt)
    pane.open_file(skill_file)
    pane.disk.release()
    type_at_end(qtbot, pane, "mine")
    skill_file.write_text("theirs\n", encoding="utf-8")
    assert pane.save() is True
    assert skill_file.read_text(encoding="utf-8") == SKILL + "mine"
    assert len(prompt.calls) == 1


def test_reload_choice_takes_the_disk_version(qtbot, make_pane, skill_file):
    prompt = Prompt(RELOAD)
    pane = make_pane(conflict_prompt=prompt)
    pane.open_file(skill_file)
    pane.disk.release()
    type_at_end(qtbot, pane, "mine")
    skill_file.write_text("theirs\n", encoding="utf-8")
    assert pane.save() is False
    assert pane.text() == "theirs\n" and not pane.has_unsaved_changes()
    assert skill_file.read_text(encoding="utf-8") == "theirs\n"


def test_deleted_on_disk_then_save_recreates(qtbot, make_pane, skill_file):
    prompt = Prompt(KEEP_MINE)
    pane = opened(qtbot, make_pane(conflict_prompt=prompt), skill_file)
    skill_file.unlink()
    qtbot.waitUntil(lambda: pane.banner.isVisible() and "deleted" in pane.banner.text(), timeout=5000)
    assert pane.has_unsaved_changes() and pane.text() == SKILL
    assert pane.save()
    assert skill_file.read_text(encoding="utf-8") == SKILL
    assert prompt.calls == []


# --------------------------------------------------------------------------- live reload


def test_external_change_while_editing_prompts_and_never_overwrites(qtbot, make_pane, skill_file):
    prompt = Prompt(CANCEL)
    pane = opened(qtbot, make_pane(conflict_prompt=prompt), skill_file)
    type_at_end(qtbot, pane, "my edit")
    skill_file.write_text(SKILL + "their edit\n", encoding="utf-8")
    qtbot.waitUntil(lambda: len(prompt.calls) == 1, timeout=5000)
    qtbot.wait(300)  # a second event for the same disk version must not ask again
    assert len(prompt.calls) == 1
    path, mine, theirs = prompt.calls[0]
    assert path == str(skill_file) and mine.endswith("my edit") and theirs.endswith("their edit\n")
    assert skill_file.read_text(encoding="utf-8") == SKILL + "their edit\n"
    assert pane.text().endswith("my edit")
    # saving later asks again; Cancel still writes nothing
    assert pane.save() is False and len(prompt.calls) == 2
    assert skill_file.read_text(encoding="utf-8") == SKILL + "their edit\n"
    # "Keep mine" is the only way to overwrite
    prompt.answer = KEEP_MINE
    assert pane.save() is True
    assert skill_file.read_text(encoding="utf-8") == SKILL + "my edit"


def test_external_change_keep_mine_on_prompt_then_save(qtbot, make_pane, skill_file):
    prompt = Prompt(KEEP_MINE)
    pane = opened(qtbot, make_pane(conflict_prompt=prompt), skill_file)
    type_at_end(qtbot, pane, "mine")
    skill_file.write_text("theirs\n", encoding="utf-8")
    qtbot.waitUntil(lambda: len(prompt.calls) == 1, timeout=5000)
    assert skill_file.read_text(encoding="utf-8") == "theirs\n"  # nothing written yet
    assert pane.save() and len(prompt.calls) == 1
    assert skill_file.read_text(encoding="utf-8") == SKILL + "mine"


def test_unmodified_buffer_reloads_silently_keeping_the_cursor(qtbot, make_pane, skill_file):
    prompt = Prompt(CANCEL)
    pane = opened(qtbot, make_pane(conflict_prompt=prompt), skill_file)
    pane.editor.goto_line(8, 4)
    with qtbot.waitSignal(pane.file_reloaded, timeout=5000):
        skill_file.write_text(SKILL.replace("# Demo", "# Demo, renamed"), encoding="utf-8")
    assert prompt.calls == []
    assert "# Demo, renamed" in pane.text() and not pane.has_unsaved_changes()
    cur = pane.editor.textCursor()
    assert (cur.blockNumber() + 1, cur.positionInBlock() + 1) == (8, 4)


def test_own_save_causes_no_reload_or_prompt(qtbot, make_pane, skill_file, tmp_path):
    prompt = Prompt(CANCEL)
    shared = RootWatcher([tmp_path / "skills"], debounce_ms=100, step_ms=20)
    assert shared.wait_ready()
    seen = []
    shared.subscribe(seen.extend)
    try:
        pane = opened(qtbot, make_pane(conflict_prompt=prompt, watcher=shared), skill_file)
        assert pane.disk.active() is pane.disk.shared  # the shared watcher covers the file
        reloads = []
        pane.file_reloaded.connect(reloads.append)
        type_at_end(qtbot, pane, "x")
        assert pane.save()
        # a foreign marker file: once its event arrived, the save's events were delivered too
        marker = tmp_path / "skills" / "other" / "SKILL.md"
        marker.parent.mkdir()
        marker.write_text("m")
        qtbot.waitUntil(lambda: any(p == str(marker) for _, p in seen), timeout=5000)
        qtbot.wait(50)
        assert not any(p == str(skill_file) for _, p in seen), seen
        assert reloads == [] and prompt.calls == []
        assert skill_file.read_text(encoding="utf-8") == SKILL + "x"
    finally:
        pane.shutdown()
        shared.stop()


# --------------------------------------------------------------------------- recovery


def test_recovery_after_simulated_crash(qtbot, make_pane, store, skill_file):
    pane = make_pane()
    pane.open_file(skill_file)
    type_at_end(qtbot, pane, "unsaved work ")  # QTest types ASCII only
    pane.editor.insertPlainText("\u00e9\U0001f600")
    expected = pane.text()
    qtbot.waitUntil(lambda: store.get(skill_file) is not None, timeout=5000)  # ~1 s debounce
    pane.flush_recovery()
    assert store.get(skill_file).text == expected
    assert EditorPane.recoverable(store) == []  # held by a live pane: not offered
    # "crash": the pane goes away without saving or closing the buffer
    pane.shutdown()
    pane.setParent(None)
    pane.deleteLater()
    QApplication.processEvents()
    del pane
    gc.collect()
    entries = EditorPane.recoverable(store)
    assert [e.path for e in entries] == [str(skill_file)]
    pane2 = make_pane()
    assert pane2.restore(entries[0])
    assert pane2.text() == expected and pane2.has_unsaved_changes()
    assert skill_file.read_text(encoding="utf-8") == SKILL  # restoring writes nothing
    assert pane2.save()
    assert skill_file.read_text(encoding="utf-8") == expected
    pane2.flush_recovery()
    assert store.get(skill_file) is None


def test_restore_after_disk_changed_asks_before_saving(qtbot, make_pane, store, skill_file):
    store.write(skill_file, "recovered\n", base_sha256=hashlib.sha256(b"older").hexdigest())
    prompt = Prompt(CANCEL)
    pane = make_pane(conflict_prompt=prompt)
    entry = EditorPane.recoverable(store)[0]
    assert pane.restore(entry)
    assert pane.text() == "recovered\n"
    assert pane.save() is False and len(prompt.calls) == 1
    assert skill_file.read_text(encoding="utf-8") == SKILL


def test_close_without_saving_removes_recovery(qtbot, make_pane, store, skill_file):
    pane = make_pane()
    pane.open_file(skill_file)
    type_at_end(qtbot, pane, "x")
    pane.write_recovery_now()
    pane.flush_recovery()
    assert store.get(skill_file) is not None
    assert pane.close_buffer() is False  # unsaved: refused without discard
    assert pane.close_buffer(discard=True) is True
    pane.flush_recovery()
    assert store.get(skill_file) is None


def test_undo_back_to_saved_state_removes_recovery(qtbot, make_pane, store, skill_file):
    pane = make_pane()
    pane.open_file(skill_file)
    type_at_end(qtbot, pane, "x")
    pane.write_recovery_now()
    pane.flush_recovery()
    assert store.get(skill_file) is not None
    pane.editor.undo()
    assert not pane.has_unsaved_changes()
    pane.flush_recovery()
    assert store.get(skill_file) is None


# --------------------------------------------------------------------------- real dialogs


def test_conflict_dialog_buttons_and_diff(qtbot):
    dlg = ConflictDialog("/x/SKILL.md", "a\nmine\n", "a\ntheirs\n")
    qtbot.addWidget(dlg)
    diff = dlg.show_diff()
    text = diff.view.toPlainText()
    assert "-theirs" in text and "+mine" in text
    diff.close()
    dlg.keep_button.click()
    assert dlg.choice == KEEP_MINE
    gone = ConflictDialog("/x/SKILL.md", "a", None)
    qtbot.addWidget(gone)
    assert not gone.reload_button.isEnabled()
    assert unified_diff("same\n", "same\n", "p") == ""


def test_real_conflict_dialog_through_the_pane(qtbot, make_pane, skill_file):
    pane = make_pane()  # default prompt: the modal ConflictDialog
    pane.open_file(skill_file)
    pane.disk.release()
    type_at_end(qtbot, pane, "mine")
    skill_file.write_text("theirs\n", encoding="utf-8")
    clicked = []

    def answer():
        dlg = QApplication.activeModalWidget()
        if isinstance(dlg, ConflictDialog):
            clicked.append(dlg)
            dlg.reload_button.click()
        else:
            QTimer.singleShot(20, answer)

    QTimer.singleShot(0, answer)
    assert pane.save() is False
    assert clicked and pane.text() == "theirs\n"


def test_recovery_dialog_choices(qtbot, store, tmp_path):
    store.write(tmp_path / "a" / "SKILL.md", "a")
    store.write(tmp_path / "b" / "SKILL.md", "b")
    (store.folder / "broken.json").write_text("{", encoding="utf-8")
    entries = store.entries()
    dlg = RecoveryDialog(entries)
    qtbot.addWidget(dlg)
    assert dlg.list.count() == 3
    dlg.restore_button.click()
    choices = dict((e.key, a) for e, a in dlg.choices())
    assert choices["broken"] == "keep"  # a bad entry cannot be restored
    assert sorted(a for k, a in choices.items() if k != "broken") == [RESTORE, RESTORE]
    dlg2 = RecoveryDialog(entries)
    qtbot.addWidget(dlg2)
    dlg2.discard_button.click()
    assert [a for _e, a in dlg2.choices()].count(DISCARD) == 2  # the broken one is unchecked


def test_editor_decodes_with_the_core_decoder():
    """``decode_file`` is the core decoder plus the editor's read-only rule (issue 15 item 5)."""
    from workbench.app.editor.document import decode_file

    text, bom, newline, problem = decode_file(b"\xef\xbb\xbfname\r\n\xffx\r\n")
    assert (text, bom, newline) == ("name\n\ufffdx\n", True, "\r\n")
    assert "line 2" in problem and "read-only" in problem
    assert decode_file(b"a\rb\r\n")[0] == "a\nb\n"  # a lone CR is a line break in the buffer
