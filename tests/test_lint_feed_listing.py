"""Issue 14 round 8: the lint workers take each skill folder's listing from ``workbench lint``'s
walk (``fscache.skill_folders``, sent with the chunk) instead of listing it again, and open a
SKILL.md the walk saw as a regular file without a ``stat`` first. Same rows either way, also
when the folder or the file changes between the walk and the lint."""

from __future__ import annotations

import os
import shutil
import time
from pathlib import Path

import pytest

from workbench.core.cache.fscache import skill_folders
from workbench.core.lint import batch
from workbench.core.lint.profiles import lint_profile
from workbench.core.skillfile import MAX_FILE_BYTES, read_skill_file
from workbench.core.skillwalk import find_skill_files

GOOD = "---\nname: {n}\ndescription: Does {n} things. Use when {n} is asked for.\n---\n\n# {n}\n\nBody.\n"


def _tree(root: Path) -> Path:
    """Skill folders of every kind the walk meets, with old mtimes (cache entries are kept)."""
    for n in ("plain", "extra", "subs", "linked", "fifo", "dangling", "folder", "big"):
        (root / n).mkdir(parents=True)
    for n in ("plain", "extra", "subs", "linked"):
        (root / n / "SKILL.md").write_text(GOOD.format(n=n))
    (root / "extra" / "README.md").write_text("x")  # STR004
    (root / "subs" / "scripts").mkdir()
    (root / "subs" / "scripts" / "run.sh").write_text("echo")
    (root / "subs" / "notes").mkdir()  # STR005
    (root / "linked" / "refs").symlink_to(root / "subs" / "scripts")  # a symlink: no listing sent
    os.mkfifo(root / "fifo" / "SKILL.md")
    (root / "dangling" / "SKILL.md").symlink_to(root / "nowhere")
    (root / "folder" / "SKILL.md").mkdir()
    (root / "big" / "SKILL.md").write_bytes(b"a" * (MAX_FILE_BYTES + 1))
    old = time.time() - 60
    for p in [root, *root.rglob("*")]:
        os.utime(p, (old, old), follow_symlinks=False)
    return root


def _walk(root: Path) -> tuple[list[str], dict[str, tuple]]:
    table: dict[str, tuple] = {}
    with skill_folders(table):
        found = [os.fspath(f) for f in find_skill_files(root)]
    return found, table


def _rows(paths: list[str], listed=None) -> list[tuple]:
    racy = time.time_ns()
    return batch.records_chunk(paths, lint_profile("agentskills"), racy, racy, True, listed)


def _diags(row: tuple) -> tuple:
    """A row's (diagnostics, facts, json text), stored in its cache entry or not."""
    ent = row[2]
    if ent is None:
        return tuple(row[3]), tuple(row[4]), row[6]
    return batch.marshal.loads(ent[7]), batch.marshal.loads(ent[8]), row[6]


def test_walk_keeps_the_listing_of_plain_skill_folders(tmp_path):
    root = _tree(tmp_path / "t")
    found, table = _walk(root)
    assert len(found) == 8
    assert sorted(os.path.basename(d) for d in table) == ["big", "extra", "plain", "subs"]
    files, dirs, mtime_ns = table[str(root / "subs")]
    assert sorted(files) == ["SKILL.md"] and sorted(dirs) == ["notes", "scripts"]
    assert mtime_ns == -1  # no DirCache: the folder was not stat'ed
    with skill_folders(None):
        assert find_skill_files(root) and len(table) == 4  # nothing kept outside the block


def test_rows_from_the_walks_listing_equal_the_workers_own(tmp_path):
    root = _tree(tmp_path / "t")
    found, table = _walk(root)
    listed = []
    for f in found:
        h = table.get(os.path.dirname(f))
        listed.append(None if h is None else (h[0], h[1], os.stat(os.path.dirname(f)).st_mtime_ns))
    assert sum(h is not None for h in listed) == 4
    own = _rows(found)
    assert _rows(found, listed) == own
    assert sum(r[2] is not None for r in own) == 5  # the 4 listed + linked: cache entries
    codes = {os.path.basename(os.path.dirname(p)): r for p, r in zip(found, own)}
    for n in ("fifo", "dangling", "folder"):
        assert b"STR003" in codes[n][6]
    assert b"STR004" in codes["extra"][6]


@pytest.mark.parametrize("change", ["new file", "fifo", "gone", "big"])
def test_a_change_after_the_walk(tmp_path, change):
    """The folder changed after the walk: the rows are the walk's view (a new file is not seen)
    and their cache entry records the folder's mtime as listed (so it misses); the file changed: it is read as without the listing (STR003, the
    unreadable and too-large cases stay)."""
    root = _tree(tmp_path / "t")
    d = root / "plain"
    f = str(d / "SKILL.md")
    _, table = _walk(root)
    h = table[str(d)]
    hint = [(h[0], h[1], d.stat().st_mtime_ns)]
    before = _rows([f])
    if change == "new file":
        (d / "README.md").write_text("x")
        got = _rows([f], hint)
        ent = got[0][2]  # stored with the folder's mtime as listed: the next look-up misses
        assert ent is not None and ent[3][ent[3].index(str(d)) + 1] == hint[0][2] != d.stat().st_mtime_ns
        assert _diags(got[0])[0] == batch.marshal.loads(before[0][2][7]) and got[0][6] == before[0][6]
        from workbench.core.cache.resultcache import ResultCache

        cache = ResultCache("agentskills", tmp_path / "rc")
        cache.put_entry(f, ent)
        assert cache.lookup(f) is None and cache.misses == 1
        assert b"STR004" in _rows([f])[0][6]
        return
    os.remove(f)
    if change == "fifo":
        os.mkfifo(f)
    elif change == "big":
        Path(f).write_bytes(b"a" * (MAX_FILE_BYTES + 1))
    assert _diags(_rows([f], hint)[0]) == _diags(_rows([f])[0])
    assert read_skill_file(f, regular=True).message == read_skill_file(f).message


def test_fed_cli_run_equals_serial(tmp_path, capsys, monkeypatch):
    from workbench.cli import main

    root = _tree(tmp_path / "t")
    for i in range(30):
        shutil.copytree(root / "subs", root / f"more{i}")
    monkeypatch.setattr(batch, "PARALLEL_MIN_FILES", 5)
    outs = []
    for jobs, home in (("1", "h1"), ("2", "h2")):
        monkeypatch.setenv("WORKBENCH_HOME", str(tmp_path / home))
        main(["lint", str(root), "--format", "json", "--jobs", jobs])
        outs.append(capsys.readouterr().out)
    assert outs[0] == outs[1] and "STR003" in outs[0]
