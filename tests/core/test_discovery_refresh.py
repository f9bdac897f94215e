"""``rediscover.refresh`` / ``refresh_all``: an incremental update gives what a full ``scan`` gives."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.helpers import write_skill
from workbench.core.discovery import ParseCache, scan, scan_all
from workbench.core.model import Catalog, Environment
from workbench.core.rediscover import refresh, refresh_all

#: Where the test skills live: (folder relative to the workspace or "~" for the home, skill dir).
#: Several clients' roots, a personal root clashing with a project one, a folder too deep for
#: some clients and a symlinked duplicate (deduplicated by real path).
FILES = (
    ".claude/skills/one",
    ".claude/skills/two",
    ".agents/skills/three",
    ".github/skills/four",
    "~/.claude/skills/five",
    ".claude/skills/group/deep/six",
    "skills/seven",
)

NAMES = ("alpha", "beta", "gamma")


def project(cat: Catalog) -> list[tuple[object, ...]]:
    """What a user sees of a catalog (everything but parse objects and timings)."""
    return [
        (
            str(s.path),
            s.name,
            s.status,
            s.reason,
            str(s.shadowed_by),
            s.description,
            s.when_to_use,
            s.parse_mode,
            s.parse_note,
            s.depth,
            tuple(s.unverified),
        )
        for s in cat.skills
    ]


def skill_text(name: str, desc: str, broken: bool) -> str:
    value = f"Use when {desc}: colons: break YAML" if broken else f"Use when {desc}."
    return f"---\nname: {name}\ndescription: {value}\n---\n# {name}\n"


@pytest.fixture()
def tree(tmp_path: Path) -> tuple[Environment, dict[str, Path]]:
    ws, home = tmp_path / "ws", tmp_path / "home"
    (ws / ".git").mkdir(parents=True)
    home.mkdir()
    paths = {}
    for i, rel in enumerate(FILES):
        folder = home / rel[2:] if rel.startswith("~/") else ws / rel
        paths[rel] = write_skill(folder, raw=skill_text(NAMES[i % len(NAMES)], f"testing {rel}", False))
    link = ws / ".claude" / "skills" / "linked"
    os.symlink(ws / ".claude" / "skills" / "one", link)
    env = Environment(workspace=ws, home=home, bins=set(), env={"PATH": ""})
    return env, paths


def assert_same_as_scan(env: Environment, got: dict[str, Catalog]) -> None:
    fresh = scan_all(env, ParseCache())
    assert set(got) == set(fresh)
    for cid, cat in fresh.items():
        assert project(got[cid]) == project(cat), cid


def test_refresh_matches_a_full_scan_after_each_kind_of_change(tree):
    env, paths = tree
    cache = ParseCache()
    cats = scan_all(env, cache)
    edits = [
        (".claude/skills/one", skill_text("beta", "renamed into a clash", False)),  # new collision
        ("~/.claude/skills/five", skill_text("beta", "personal wins?", False)),  # personal vs project
        (".claude/skills/two", skill_text("beta", "broken yaml", True)),  # fallback / rejected
        (".claude/skills/two", skill_text("delta", "fixed again", False)),  # clash resolved
        (".claude/skills/group/deep/six", skill_text("alpha", "deep", False)),  # walk-skipped stays
        (".agents/skills/three", "no frontmatter at all\n"),  # rejected by every client
        ("skills/seven", skill_text("gamma", "a collection folder", False)),
    ]
    for rel, text in edits:
        paths[rel].write_text(text, encoding="utf-8")
        before = {cid: project(c) for cid, c in cats.items()}
        new = refresh_all(cats, [paths[rel]], cache)
        assert new is not None, rel
        assert {cid: project(c) for cid, c in cats.items()} == before  # old catalogs untouched
        assert_same_as_scan(env, new)
        cats = new


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    st.lists(
        st.tuples(st.sampled_from(FILES), st.sampled_from(NAMES + ("delta",)), st.booleans()),
        min_size=1,
        max_size=4,
    )
)
def test_refresh_after_random_edits_equals_scan(tree, edits):
    env, paths = tree
    originals = {rel: p.read_text(encoding="utf-8") for rel, p in paths.items()}
    try:
        cache = ParseCache()
        cats = scan_all(env, cache)
        for rel, name, broken in edits:
            paths[rel].write_text(skill_text(name, f"editing {rel}", broken), encoding="utf-8")
        new = refresh_all(cats, {paths[rel] for rel, _n, _b in edits}, cache)
        assert new is not None
        assert_same_as_scan(env, new)
    finally:
        for rel, text in originals.items():
            paths[rel].write_text(text, encoding="utf-8")


def test_a_new_or_deleted_file_needs_a_scan(tree):
    env, paths = tree
    cache = ParseCache()
    cats = scan_all(env, cache)
    new = write_skill(env.workspace / ".claude" / "skills" / "new", "new", "Use when new.")
    assert refresh_all(cats, [new], cache) is None
    assert refresh(cats["claude-code"], [new], cache) is None
    paths[".claude/skills/two"].unlink()
    assert refresh_all(cats, [paths[".claude/skills/two"]], cache) is None


def test_an_unsaved_buffer_may_be_missing_on_disk(tree):
    """A path listed in ``buffers`` is served by the cache (an editor buffer): no rescan."""
    env, paths = tree
    cat = scan(env, "claude-code")
    p = paths[".claude/skills/two"]
    p.unlink()
    got = refresh_all({"claude-code": cat}, [p], None, buffers={str(p)})
    assert got is not None and len(got["claude-code"].skills) == len(cat.skills)


def test_unchanged_catalogs_are_the_same_objects(tree):
    env, paths = tree
    cache = ParseCache()
    cats = scan_all(env, cache)
    p = paths["~/.claude/skills/five"]
    new = refresh_all(cats, [p], cache)
    assert new is not None
    for cid, cat in cats.items():
        holds = any(s.path == p for s in cat.skills)
        assert (new[cid] is cat) is not holds, cid


def test_without_a_cache_aliases_are_found_by_real_path(tree):
    env, paths = tree
    cats = scan_all(env)
    paths[".claude/skills/one"].write_text(skill_text("beta", "edited without a cache", False), "utf-8")
    new = refresh_all(cats, [paths[".claude/skills/one"]])
    assert new is not None
    assert_same_as_scan(env, new)
