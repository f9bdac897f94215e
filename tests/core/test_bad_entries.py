"""Broken SKILL.md entries never vanish from discovery and never hang it (QA fault h13 #2).

A dangling symlink named SKILL.md, a FIFO named SKILL.md, a folder named SKILL.md, a symlink to a
folder, a file whose read fails, a symlinked skill folder that loops or dangles: each is a
``skipped`` skill with a one-line reason, for every client, cold and warm (the folder-listing and
parse caches must not lose them either); ``workbench lint`` reports them as ``STR003``. A FIFO is
never opened (opening one for reading blocks until a writer comes).
"""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path

import pytest

from tests.helpers import backdate
from workbench.cli import main
from workbench.core.cache import fscache
from workbench.core.clients.common import EXTRA_RULES, WalkRules, load_json_file, memo_file, walk
from workbench.core.discovery import ParseCache, scan, scan_all
from workbench.core.lint import find_skill_files, lint_paths
from workbench.core.model import CLIENT_IDS, Environment
from workbench.core.skillfile import read_skill_file, special_file_problem

pytestmark = pytest.mark.skipif(
    not hasattr(os, "mkfifo") or os.name != "posix", reason="FIFOs and symlinks need POSIX"
)

GOOD = "---\nname: good\ndescription: A good skill. Use when testing broken entries.\n---\n# Good\n"

#: folder -> the reason discovery must give (prefix; a target path may follow)
EXPECTED = {
    "dangling": "SKILL.md is a broken symlink to ",
    "fifo": "SKILL.md is not a regular file (FIFO)",
    "folder": "SKILL.md is a folder, not a file",
    "to-folder": "SKILL.md is a symlink to a folder (",
    "to-fifo": "SKILL.md is not a regular file (a symlink to a FIFO)",
    "self-loop": "SKILL.md is a symlink that loops (",
    "loop": "the skill folder loop/ is a symlink that loops (loop -> loop)",
    "gone": "the skill folder gone/ is a broken symlink to ",
}


def make_bad_root(base: Path) -> Path:
    """A root with one good skill and one of every broken entry kind (see ``EXPECTED``)."""
    root = base / "skills"
    for name in ("good", "dangling", "fifo", "folder", "to-folder", "to-fifo", "self-loop"):
        (root / name).mkdir(parents=True)
    (root / "good" / "SKILL.md").write_text(GOOD)
    os.symlink(base / "nowhere" / "SKILL.md", root / "dangling" / "SKILL.md")
    os.mkfifo(root / "fifo" / "SKILL.md")
    (root / "folder" / "SKILL.md").mkdir()
    (base / "a-folder").mkdir()
    os.symlink(base / "a-folder", root / "to-folder" / "SKILL.md")
    os.mkfifo(base / "a-fifo")
    os.symlink(base / "a-fifo", root / "to-fifo" / "SKILL.md")
    os.symlink("SKILL.md", root / "self-loop" / "SKILL.md")
    os.symlink("loop", root / "loop")  # a skill folder that loops
    os.symlink(base / "deleted-skill", root / "gone")  # a skill folder whose target is gone
    backdate(base)
    return root


def _env(base: Path, root: Path) -> Environment:
    (base / "ws").mkdir(exist_ok=True)
    (base / "home").mkdir(exist_ok=True)
    return Environment(workspace=base / "ws", home=base / "home", extra_roots=[root], env={}, bins=set())


def _in_thread(fn, *args):
    """Run ``fn`` in a daemon thread: a regression (a FIFO opened for reading) fails the test
    instead of hanging the whole run. Generous limit; this is a hang guard, not a timing test."""
    box: dict = {}

    def target():
        box["value"] = fn(*args)

    t = threading.Thread(target=target, daemon=True)
    t.start()
    t.join(60)
    assert not t.is_alive(), f"{fn.__name__} blocked (opened a FIFO?)"
    return box["value"]


@pytest.fixture(autouse=True)
def _fresh_dir_caches():
    fscache._defaults.clear()
    yield
    fscache._defaults.clear()


def _reasons(cat) -> dict[str, tuple[str, str]]:
    return {s.path.parent.name: (s.status, s.reason) for s in cat.skills}


def _check(cat) -> None:
    got = _reasons(cat)
    assert sorted(got) == sorted({"good", *EXPECTED}), cat.client  # each entry once, nothing else
    assert len(cat.skills) == len(got)
    assert got["good"][0] != "skipped", (cat.client, got["good"])
    for folder, reason in EXPECTED.items():
        assert folder in got, f"{cat.client}: {folder} vanished"
        status, why = got[folder]
        assert status == "skipped" and why.startswith(reason), (cat.client, folder, why)
        assert "\n" not in why


# ---- read_skill_file -----------------------------------------------------------------------


def test_read_skill_file_never_opens_special_files(tmp_path, monkeypatch):
    root = make_bad_root(tmp_path)
    opened: list[str] = []
    real_open = os.open

    def spy(path, flags, *a, **kw):
        opened.append(os.fspath(path))
        return real_open(path, flags, *a, **kw)

    monkeypatch.setattr(os, "open", spy)
    for folder, reason in EXPECTED.items():
        sf = _in_thread(read_skill_file, root / folder / "SKILL.md")
        assert sf.state == "unreadable" and sf.error_span is not None
        if not folder.startswith(("loop", "gone")):
            assert sf.message.startswith(reason), (folder, sf.message)
    assert opened == []


def test_special_file_problem_messages(tmp_path):
    root = make_bad_root(tmp_path)
    assert special_file_problem(root / "good" / "SKILL.md") is None
    assert (
        special_file_problem(root / "dangling" / "SKILL.md")
        == f"SKILL.md is a broken symlink to {tmp_path / 'nowhere' / 'SKILL.md'}"
    )
    assert (
        special_file_problem(root / "to-folder" / "SKILL.md")
        == f"SKILL.md is a symlink to a folder ({tmp_path / 'a-folder'})"
    )
    assert (
        special_file_problem(root / "self-loop" / "SKILL.md") == "SKILL.md is a symlink that loops (SKILL.md)"
    )


def test_unreadable_regular_file_is_skipped_by_every_client(tmp_path, monkeypatch):
    # As root, permissions do not stop a read: simulate EACCES on open() of that one file.
    root = tmp_path / "skills"
    (root / "good").mkdir(parents=True)
    (root / "good" / "SKILL.md").write_text(GOOD)
    (root / "locked").mkdir()
    locked = root / "locked" / "SKILL.md"
    locked.write_text(GOOD.replace("name: good", "name: locked"))
    real_open = os.open

    def deny(path, flags, *a, **kw):
        if os.fspath(path) == str(locked):
            raise PermissionError(13, "Permission denied", str(path))
        return real_open(path, flags, *a, **kw)

    monkeypatch.setattr(os, "open", deny)
    sf = read_skill_file(locked)
    assert sf.state == "unreadable" and sf.message == "cannot read: Permission denied"
    for cid, cat in scan_all(_env(tmp_path, root), ParseCache()).items():
        got = _reasons(cat)
        assert got["locked"][0] == "skipped" and "Permission denied" in got["locked"][1], (cid, got["locked"])
        assert got["good"][0] != "skipped"


# ---- discovery -----------------------------------------------------------------------------


def test_every_client_reports_every_broken_entry(tmp_path):
    env = _env(tmp_path, make_bad_root(tmp_path))
    cats = _in_thread(scan_all, env, ParseCache())
    assert set(cats) == set(CLIENT_IDS)
    for cat in cats.values():
        _check(cat)


def test_native_root_reports_broken_entries(tmp_path):
    # Not only extra roots: a client's own root (Claude Code project skills) walks the same way.
    (tmp_path / "ws" / ".claude").mkdir(parents=True)
    root = make_bad_root(tmp_path / "ws" / ".claude")
    env = Environment(workspace=tmp_path / "ws", home=tmp_path / "home", env={}, bins=set())
    (tmp_path / "home").mkdir()
    cat = _in_thread(scan, env, "claude-code", ParseCache())
    assert any(r.path == root for r in cat.roots)
    _check(cat)


def test_cold_and_warm_persistent_caches_keep_broken_entries(tmp_path):
    env = _env(tmp_path, make_bad_root(tmp_path))
    cold = scan_all(env, ParseCache(persist=tmp_path / "c"))
    fscache._defaults.clear()  # as a new process
    warm = scan_all(env, ParseCache(persist=tmp_path / "c"))
    for cid in CLIENT_IDS:
        _check(warm[cid])
        assert warm[cid].to_json() == cold[cid].to_json()


def test_walk_without_symlinks_is_remembered_with_its_reasons(tmp_path):
    # A tree with no symlink: the whole walk is cached (DirCache.put_walk) and must replay the
    # FIFO and the folder named SKILL.md with their reasons.
    root = tmp_path / "skills"
    (root / "fifo").mkdir(parents=True)
    os.mkfifo(root / "fifo" / "SKILL.md")
    (root / "folder" / "SKILL.md").mkdir(parents=True)
    backdate(tmp_path)
    dc = fscache.DirCache(tmp_path / "fs")
    first = walk(root, EXTRA_RULES, dirs=dc)
    again = walk(root, EXTRA_RULES, dirs=dc)
    assert dc.hits and first == again
    assert [(f.path.parent.name, f.skip_reason) for f in again] == [
        ("fifo", "SKILL.md is not a regular file (FIFO)"),
        ("folder", "SKILL.md is a folder, not a file"),
    ]


def test_broken_folder_links_reported_only_where_skill_folders_live(tmp_path):
    root = tmp_path / "skills"
    (root / "group").mkdir(parents=True)
    os.symlink(tmp_path / "missing", root / "group" / "deep-gone")  # depth 2: not reported
    os.symlink(tmp_path / "missing", root / ".hidden")  # dot-name: not reported
    os.symlink("deep-loop", root / "group" / "deep-loop")  # a loop at depth 2
    one_level = WalkRules(max_depth=1, client="X")
    assert walk(root, one_level) == []  # X only looks 1 level deep
    got = {f.path.parent.name: f.skip_reason for f in walk(root, EXTRA_RULES)}
    assert got == {
        "deep-loop": "the skill folder deep-loop/ is a symlink that loops (deep-loop -> deep-loop)"
    }


def test_rescan_after_fixing_a_broken_entry(tmp_path):
    root = make_bad_root(tmp_path)
    env = _env(tmp_path, root)
    cache = ParseCache()
    assert _reasons(scan(env, "agentskills", cache))["dangling"][0] == "skipped"
    target = tmp_path / "nowhere"
    target.mkdir()
    (target / "SKILL.md").write_text(GOOD.replace("name: good", "name: dangling"))
    got = _reasons(scan(env, "agentskills", cache))
    assert got["dangling"][0] == "listed"  # the unreadable verdict was not cached


# ---- config files next to skills -------------------------------------------------------------


def test_config_readers_do_not_open_fifos(tmp_path):
    fifo = tmp_path / "openclaw.json"
    os.mkfifo(fifo)
    assert _in_thread(load_json_file, fifo) is None
    assert _in_thread(memo_file, fifo, "test-fifo", lambda p: open(p).read()) is None  # noqa: SIM115


# ---- lint ----------------------------------------------------------------------------------


def test_lint_reports_broken_skill_md_entries(tmp_path):
    root = make_bad_root(tmp_path)
    files = {p.parent.name for p in find_skill_files(root)}
    # lint does not follow symlinked folders (loop, gone); every broken SKILL.md entry is listed
    assert files == {"good", "dangling", "fifo", "folder", "to-folder", "to-fifo", "self-loop"}
    res = _in_thread(lint_paths, [root])
    for p, ds in res.items():
        codes = [d.code for d in ds]
        if p.parent.name == "good":
            assert "STR003" not in codes
            continue
        (d,) = [d for d in ds if d.code == "STR003"]
        assert d.message.startswith(EXPECTED[p.parent.name]) and (d.line, d.column) == (1, 1)
        assert not any(d.code == "STR005" and "SKILL.md/" in d.message for d in ds)


def test_cli_lint_and_scan_on_broken_entries(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("WORKBENCH_HOME", str(tmp_path / "wbhome"))
    root = make_bad_root(tmp_path)
    rc = _in_thread(main, ["lint", str(root), "--no-cache"])
    out, err = capsys.readouterr()
    assert rc == 1 and out.count("error STR003") == 6
    for folder in ("fifo", "folder", "to-folder"):  # an explicit SKILL.md path: the same verdict
        assert _in_thread(main, ["lint", str(root / folder / "SKILL.md"), "--no-cache"]) == 1
        out, err = capsys.readouterr()
        assert f"error STR003 {EXPECTED[folder]}" in out and "1 file: 1 error" in err
    (tmp_path / "ws2").mkdir()
    (tmp_path / "home").mkdir()
    rc = _in_thread(
        main,
        [
            "scan",
            str(tmp_path / "ws2"),
            "--home",
            str(tmp_path / "home"),
            "--client",
            "all",
            "--root",
            str(root),
            "--format",
            "json",
            "--no-cache",
        ],
    )
    out, err = capsys.readouterr()
    assert rc == 0
    data = json.loads(out)["clients"]
    for cid in CLIENT_IDS:
        skipped = {
            Path(s["path"]).parent.name: s["reason"] for s in data[cid]["skills"] if s["status"] == "skipped"
        }
        assert set(skipped) == set(EXPECTED), cid
