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
