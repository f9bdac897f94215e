"""workbench.core.recovery: the recovery-file store."""

from __future__ import annotations

import os

from workbench.core.recovery import RecoveryStore, recovery_key


def test_default_folder_under_state_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("WORKBENCH_HOME", str(tmp_path))
    store = RecoveryStore()
    assert store.folder == tmp_path / "state" / "recovery"
    assert store.folder.is_dir()


def test_write_get_remove_round_trip(tmp_path):
    store = RecoveryStore(tmp_path / "rec")
    target = tmp_path / "skills" / "a" / "SKILL.md"
    text = "---\nname: a\n---\nnbsp:\u00a0 emoji: \U0001f600 lone surrogate-free\n"
    f = store.write(target, text, base_sha256="abc", has_bom=True, newline="\r\n")
    assert f.parent == store.folder and f.suffix == ".json"
    e = store.get(target)
    assert e is not None and e.ok
    assert (e.path, e.text, e.base_sha256, e.has_bom, e.newline) == (str(target), text, "abc", True, "\r\n")
    assert e.pid == os.getpid()
    assert [x.key for x in store.entries()] == [recovery_key(target)]
    assert store.remove(target) is True
    assert store.get(target) is None
    assert store.remove(target) is False


def test_rewrite_replaces_and_leaves_no_temp(tmp_path):
    store = RecoveryStore(tmp_path)
    store.write(tmp_path / "x.md", "one")
    store.write(tmp_path / "x.md", "two")
    assert store.get(tmp_path / "x.md").text == "two"
    assert len(list(tmp_path.iterdir())) == 1


def test_key_is_stable_and_path_based(tmp_path):
    assert recovery_key(tmp_path / "a") == recovery_key(str(tmp_path / "a"))
    assert recovery_key(tmp_path / "a") != recovery_key(tmp_path / "b")
    assert len(recovery_key("x")) == 20


def test_malformed_entries_are_reported_not_raised(tmp_path):
    store = RecoveryStore(tmp_path)
    (tmp_path / "bad.json").write_text("{not json", encoding="utf-8")
    (tmp_path / "list.json").write_text("[1, 2]", encoding="utf-8")
    store.write(tmp_path / "ok.md", "fine")
    entries = store.entries()
    bad = {e.key: e for e in entries if not e.ok}
    assert set(bad) == {"bad", "list"}
    assert all(e.error for e in bad.values())
    assert [e.text for e in entries if e.ok] == ["fine"]
    assert store.discard("bad") and not (tmp_path / "bad.json").exists()
