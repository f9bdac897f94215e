"""Issue 13 items 1 and 3: opening any folder shows its skills; extra roots follow the client's walk.

Item 1: a collection whose top-level ``skills/`` is one client's root (OpenClaw) showed 0 skills
for every other client. Item 3: ``scan . --root .`` over a tree holding a client root reported
the same file twice (skipped by the client root, listed by the extra root) and listed nested
skills the client never loads.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.helpers import write_skill
from workbench.core.discovery import (
    WORKSPACE_MODES,
    apply_workspace_mode,
    scan,
    scan_all,
    workspace_root_candidate,
    workspace_treatment,
)
from workbench.core.model import CLIENT_IDS, Environment


def mkenv(tmp_path: Path, ws: Path, **kw) -> Environment:
    home = tmp_path / "home"
    home.mkdir(exist_ok=True)
    return Environment(workspace=ws, home=home, env={}, bins=set(), **kw)


def statuses(cat, part: str) -> list[str]:
    return [s.status for s in cat.skills if part in str(s.path)]


# ---------------------------------------------------------------- item 1: collections


@pytest.mark.parametrize("layout", ["skills/{n}", "skills/.curated/{n}", "{n}", "plugins/p/skills/{n}"])
def test_a_collection_shows_its_skills_for_every_client(tmp_path, layout):
    ws = tmp_path / "collection"
    for n in ("alpha", "beta"):
        write_skill(ws / layout.format(n=n), n, f"Use when {n}.")
    env = mkenv(tmp_path, ws)
    t = apply_workspace_mode(env)
    assert t.mode == "collection" and env.collection and env.extra_roots == [ws]
    assert "Showing collection as a collection" in t.banner
    assert t.toggle_label == "Open as a project" and t.other == "project"
    for cid, cat in scan_all(env).items():
        assert sorted(s.name for s in cat.listed()) == ["alpha", "beta"], (cid, cat.counts())
        assert len(cat.skills) == 2, (cid, [(s.path, s.status) for s in cat.skills])


def test_a_project_with_a_client_dot_root_stays_a_project(tmp_path):
    ws = tmp_path / "proj"
    write_skill(ws / ".claude" / "skills" / "alpha", "alpha")
    env = mkenv(tmp_path, ws)
    assert workspace_root_candidate(env) is None
    t = apply_workspace_mode(env)
    assert t.mode == "project" and not env.collection and env.extra_roots == []
    assert t.toggle_label == "Show as a collection" and "as a project" in t.banner
    # the user's one-click choice wins, and switching back undoes it
    t = apply_workspace_mode(env, "collection")
    assert t.mode == "collection" and env.extra_roots == [ws]
    assert [s.name for s in scan(env, "codex").listed()] == ["alpha"]
    assert apply_workspace_mode(env, "project").mode == "project" and env.extra_roots == []


def test_auto_is_idempotent_on_rescans(tmp_path):
    ws = tmp_path / "c"
    write_skill(ws / "skills" / "alpha", "alpha")
    env = mkenv(tmp_path, ws)
    apply_workspace_mode(env)
    assert apply_workspace_mode(env).mode == "collection" and env.extra_roots == [ws]


def test_workspace_modes_are_checked(tmp_path):
    env = mkenv(tmp_path, tmp_path)
    assert WORKSPACE_MODES == ("auto", "project", "collection")
    with pytest.raises(ValueError, match="workspace mode 'folder'"):
        workspace_treatment(env, "folder")


def test_project_with_skills_no_client_sees_says_so(tmp_path):
    ws = tmp_path / "p"
    write_skill(ws / "docs" / "alpha", "alpha")
    env = mkenv(tmp_path, ws)
    t = workspace_treatment(env, "project")
    assert "no client sees them" in t.banner


def test_collection_drops_project_roots_inside_it(tmp_path):
    """OpenClaw's skills/ root would report skills/.curated/x as skipped and the extra root as
    listed: as a collection, the folder is not scanned as a project."""
    ws = tmp_path / "openai-skills"
    write_skill(ws / "skills" / ".curated" / "gh-fix-ci", "gh-fix-ci")
    env = mkenv(tmp_path, ws)
    apply_workspace_mode(env)
    cat = scan(env, "openclaw")
    assert [(s.name, s.status, s.root.scope) for s in cat.skills] == [("gh-fix-ci", "listed", "extra")]
    assert any("not scanned as such" in n and "./skills" in n for n in cat.notes)


# ---------------------------------------------------------------- item 3: extra roots vs the client's walk


def _tree(tmp_path: Path) -> Path:
    ws = tmp_path / "ws"
    write_skill(ws / ".claude" / "skills" / "inst", "inst")
    write_skill(ws / ".claude" / "skills" / "inst" / "sub" / "deep", "deep")  # CC: too deep
    write_skill(ws / "lib" / "outer", "outer")
    write_skill(ws / "lib" / "outer" / "inner", "inner")  # a skill inside another skill folder
    write_skill(ws / "lib" / "outer" / ".hidden" / "dot", "dot")
    return ws


def test_extra_root_never_reports_a_file_a_client_root_covers(tmp_path):
    ws = _tree(tmp_path)
    env = mkenv(tmp_path, ws, extra_roots=[ws])  # `scan . --root .`
    for cid, cat in scan_all(env).items():
        paths = [s.path for s in cat.skills]
        assert len(paths) == len(set(paths)), cid
        assert not [s for s in cat.skills if "deduplicated by real path" in s.reason], cid
    cc = scan(env, "claude-code")
    inst = [s for s in cc.skills if s.name in ("inst", "deep")]
    assert {(s.name, s.status, s.root.scope) for s in inst} == {
        ("inst", "listed", "project"),
        ("deep", "skipped", "project"),
    }


def test_extra_root_applies_the_clients_depth_and_nesting(tmp_path):
    ws = _tree(tmp_path)
    env = mkenv(tmp_path, ws, extra_roots=[ws / "lib"])
    cc = scan(env, "claude-code")  # one level deep
    assert statuses(cc, "outer/SKILL.md") == ["listed"]
    assert statuses(cc, "inner") == ["skipped"]
    inner = next(s for s in cc.skills if s.name == "inner")
    assert "nested in the skill folder outer/" in inner.reason and "1 level deep" in inner.reason
    oc = scan(env, "openclaw")  # stops at a folder holding a SKILL.md
    assert statuses(oc, "inner") == ["skipped"]
    assert "does not look below a folder that holds a SKILL.md" in next(
        s.reason for s in oc.skills if s.name == "inner"
    )
    codex = scan(env, "codex")  # 6 levels, skips dot-folders
    assert statuses(codex, "inner") == ["listed"]
    assert statuses(codex, ".hidden") == ["skipped"]
    assert "dot-folder .hidden/" in next(s.reason for s in codex.skills if ".hidden" in str(s.path))
    oc_code = scan(env, "opencode")  # unlimited depth; dot-folders skipped (lab: OpenCode 1.18.33)
    assert statuses(oc_code, "inner") == ["listed"] and statuses(oc_code, ".hidden") == ["skipped"]


def test_a_root_that_is_one_skill_folder(tmp_path):
    ws = tmp_path / "ws"
    one = write_skill(tmp_path / "solo", "solo").parent
    env = mkenv(tmp_path, ws, extra_roots=[one])
    ws.mkdir()
    for cid in CLIENT_IDS:
        assert [s.name for s in scan(env, cid).listed()] == ["solo"], cid


def test_symlinked_collection_files_are_not_reported_twice(tmp_path):
    ws = tmp_path / "ws"
    write_skill(ws / ".claude" / "skills" / "alpha", "alpha")
    os.symlink(ws / ".claude" / "skills", tmp_path / "link")
    env = mkenv(tmp_path, ws, extra_roots=[tmp_path / "link"])
    cat = scan(env, "claude-code")
    assert [(s.name, s.status) for s in cat.skills] == [("alpha", "listed")]
