"""Claude Code's nested ``.claude/skills`` search (``nested_skill_parents``) is memoised per
workspace while the folders keep their mtimes: the same answer as a fresh search after any
change."""

from __future__ import annotations

from pathlib import Path

from tests.helpers import backdate
from workbench.core.clients.claude_code import profile as cc


def _fresh(ws: Path) -> list[str]:
    cc._NESTED_MEMO.pop(str(ws), None)
    return cc.nested_skill_parents(str(ws))


def test_memo_follows_changes(tmp_path):
    ws = tmp_path / "ws"
    (ws / "apps/web/.claude/skills").mkdir(parents=True)
    (ws / "apps/api/.claude").mkdir(parents=True)  # no skills folder yet
    (ws / ".claude/skills").mkdir(parents=True)  # the workspace's own: not nested
    (ws / "node_modules/x/.claude/skills").mkdir(parents=True)
    backdate(ws)
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
    backdate(ws)
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


def test_search_reuses_the_snapshot_dir_cache(tmp_path):
    """Inside ``fscache.snapshot(dirs=d)`` the search lists folders through ``d`` (the scan CLI:
    the extra root's walk already listed them), with the same answer."""
    from workbench.core.cache.fscache import DirCache, listing, scan_listing, snapshot
    from workbench.core.clients.walk import EXTRA_RULES, walk

    ws = tmp_path / "ws"
    (ws / "apps/web/.claude/skills").mkdir(parents=True)
    (ws / "apps/web/SKILL.md").write_text("---\nname: web\n---\n")
    backdate(ws)
    want = _fresh(ws)
    d = DirCache(persist=False)
    with snapshot(dirs=d):
        walk(ws, EXTRA_RULES, dirs=d)
        hits, misses = d.hits, d.misses
        assert _fresh(ws) == want
        assert d.hits > hits and d.misses == misses  # every folder from d
        assert listing(str(ws)) == listing(str(ws))
    assert listing(str(ws)) == scan_listing(str(ws))  # outside: no cache
    with snapshot(), snapshot(dirs=d):  # a nested block may bring the cache
        before = d.hits
        listing(str(ws))
        assert d.hits == before + 1


def test_search_depth_limit_and_memo_with_or_without_the_dir_cache(tmp_path):
    """A ``.claude/skills`` as deep as ``NESTED_SEARCH_DEPTH`` is found, one level deeper is
    not, dot-folders and ``node_modules`` are not entered; the same folders and mtimes are
    remembered whether the listings come from a snapshot's ``DirCache`` or from ``scandir``."""
    from workbench.core.cache.fscache import DirCache, snapshot

    ws = tmp_path / "ws"
    deep = ws
    for i in range(cc.NESTED_SEARCH_DEPTH + 1):
        deep = deep / f"d{i}"
        (deep / ".claude/skills").mkdir(parents=True)
    (ws / ".hidden/p/.claude/skills").mkdir(parents=True)
    (ws / "node_modules/p/.claude/skills").mkdir(parents=True)
    backdate(ws)
    got = _fresh(ws)
    assert sorted(len(Path(d).relative_to(ws).parts) for d in got) == list(
        range(1, cc.NESTED_SEARCH_DEPTH + 1)
    )
    plain = cc._NESTED_MEMO[str(ws)]
    with snapshot(dirs=DirCache(persist=False)):
        assert _fresh(ws) == got
    assert cc._NESTED_MEMO[str(ws)] == plain
