"""Claude Code's nested ``.claude/skills`` search (``nested_skill_parents``) is memoised per
workspace while the folders keep their mtimes: the same answer as a fresh search after any
change."""

from __future__ import annotations

import os
import time
from pathlib import Path

from workbench.core.clients.claude_code import profile as cc


def _age(root: Path) -> None:
    old = time.time() - 60
    for d, dirs, _ in os.walk(root):
        for x in dirs:
            os.utime(os.path.join(d, x), (old, old))
    os.utime(root, (old, old))


def _fresh(ws: Path) -> list[str]:
    cc._NESTED_MEMO.pop(str(ws), None)
    return cc.nested_skill_parents(str(ws))


def test_memo_follows_changes(tmp_path):
    ws = tmp_path / "ws"
    (ws / "apps/web/.claude/skills").mkdir(parents=True)
    (ws / "apps/api/.claude").mkdir(parents=True)  # no skills folder yet
    (ws / ".claude/skills").mkdir(parents=True)  # the workspace's own: not nested
    (ws / "node_modules/x/.claude/skills").mkdir(parents=True)
    _age(ws)
    want = [str(ws / "apps/web")]
    assert cc.nested_skill_parents(str(ws)) == want
    assert str(ws) in cc._NESTED_MEMO  # old folders: remembered
    assert cc.nested_skill_parents(str(ws)) == want
    (ws / "apps/api/.claude/skills").mkdir()  # only .claude's mtime changes: checked each call
    assert (
        sorted(cc.nested_skill_parents(str(ws)))
        == sorted(_fresh(ws))
        == sorted([*want, str(ws / "apps/api")])
    )
    _age(ws)
    cc.nested_skill_parents(str(ws))
    (ws / "libs/ui/.claude/skills").mkdir(parents=True)  # a new folder: its parent's mtime changes
    got = cc.nested_skill_parents(str(ws))
    assert str(ws / "libs/ui") in got and sorted(got) == sorted(_fresh(ws))


def test_racy_folders_are_not_remembered(tmp_path):
    ws = tmp_path / "ws"
    (ws / "pkg/.claude/skills").mkdir(parents=True)
    cc._NESTED_MEMO.pop(str(ws), None)
    assert cc.nested_skill_parents(str(ws)) == [str(ws / "pkg")]
    assert str(ws) not in cc._NESTED_MEMO
