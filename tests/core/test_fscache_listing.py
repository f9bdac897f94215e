"""``fscache.is_symlink`` / ``is_file`` answer from the listings of ``snapshot(dirs=)``'s
``DirCache`` (no system call) and agree with ``os.path`` everywhere."""

from __future__ import annotations

import os
import time

from workbench.core.cache.fscache import DirCache, is_file, is_symlink, snapshot
from workbench.core.clients.walk import EXTRA_RULES, walk


def _tree(tmp_path):
    root = tmp_path / "root"
    (root / "plain").mkdir(parents=True)
    (root / "plain" / "SKILL.md").write_text("---\nname: a\n---\n")
    (root / "withagents" / "agents").mkdir(parents=True)
    (root / "withagents" / "SKILL.md").write_text("---\nname: b\n---\n")
    (root / "withagents" / "agents" / "openai.yaml").write_text("policy: {}\n")
    (root / "linked").mkdir()
    (root / "linked" / "SKILL.md").symlink_to(root / "plain" / "SKILL.md")
    (root / "agentsfile").mkdir()
    (root / "agentsfile" / "agents").write_text("not a folder")
    old = time.time() - 60  # not racily new: the listings are kept
    for d, dirs, _ in os.walk(root):
        for x in dirs:
            os.utime(os.path.join(d, x), (old, old))
    os.utime(root, (old, old))
    return root


def _paths(root):
    out = []
    for sub in ("plain", "withagents", "linked", "agentsfile", "missing"):
        out.append(f"{root}/{sub}/SKILL.md")
        out.append(f"{root}/{sub}/agents/openai.yaml")
    return out


def test_same_answers_as_os_path(tmp_path):
    root = _tree(tmp_path)
    d = DirCache(persist=False)
    with snapshot(dirs=d):
        walk(root, EXTRA_RULES, dirs=d)
        for p in _paths(root):
            assert is_symlink(p) == os.path.islink(p), p
            assert is_file(p) == os.path.isfile(p), p
    for p in _paths(root):  # no snapshot: plain os.path
        assert is_symlink(p) == os.path.islink(p)
        assert is_file(p) == os.path.isfile(p)


def test_answered_from_the_listing(tmp_path, monkeypatch):
    root = _tree(tmp_path)
    d = DirCache(persist=False)
    with snapshot(dirs=d):
        walk(root, EXTRA_RULES, dirs=d)

        def boom(_p):
            raise AssertionError("a system call")

        monkeypatch.setattr(os.path, "islink", boom)
        monkeypatch.setattr(os.path, "isfile", boom)
        assert is_symlink(f"{root}/linked/SKILL.md") is True
        assert is_symlink(f"{root}/plain/SKILL.md") is False
        assert is_file(f"{root}/plain/agents/openai.yaml") is False


def test_listing_read_then_stored_gives_the_same_tuple(tmp_path):
    """``DirCache.listing``: the listing it reads (a cold walk) is the tuple it stores and later
    answers from the cache (skill, dirs, links, the folder's mtime_ns), equal to
    ``scan_listing``'s three items; the folder's stat is the snapshot's (one per folder: the
    walk's stored mtimes take it from there)."""
    from workbench.core.cache.fscache import SKILL_FILE, scan_listing
    from workbench.core.skillwalk import find_skill_files, stored_walk

    root = _tree(tmp_path)
    d = str(root / "withagents")
    dirs = DirCache(tmp_path / "fs")
    with snapshot() as memo:
        first = dirs.listing(d)
        assert memo[d].st_mtime_ns == first[3] == os.stat(d).st_mtime_ns
    assert first[:3] == tuple(scan_listing(d)) and first[0] == SKILL_FILE and first[1] == ("agents",)
    with snapshot():
        assert dirs.listing(d) == first and dirs.hits == 1
    assert dirs.listing(str(root / "missing")) is None
    plain = tmp_path / "plain"
    for sub in ("a", "b/c"):
        (plain / sub).mkdir(parents=True)
        (plain / sub / "SKILL.md").write_text("---\nname: x\n---\n")
    old = time.time() - 60
    for p in [plain, plain / "a", plain / "b", plain / "b" / "c"]:
        os.utime(p, (old, old))
    fresh = DirCache(tmp_path / "fs2")
    with snapshot():
        found = find_skill_files(plain, dirs=fresh)
        got = stored_walk(plain, fresh)
    assert got is not None and list(got[1]) == [os.stat(p).st_mtime_ns for p in got[0]]
    assert sorted(got[2]) == sorted(map(str, found))
