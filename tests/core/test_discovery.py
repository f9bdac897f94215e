"""Discovery core: statuses, reasons, ParseCache, the demo, the corpus, user-reported faults."""

from __future__ import annotations

import os
import shutil
import threading
from pathlib import Path

from tests.helpers import write_skill
from workbench.core.demo import demo_environment
from workbench.core.discovery import (
    ParseCache,
    scan,
    scan_all,
    use_workspace_as_root,
    workspace_root_candidate,
)
from workbench.core.model import STATUSES, Environment


def mkenv(tmp_path: Path, **kw) -> Environment:
    ws = tmp_path / "ws"
    home = tmp_path / "home"
    ws.mkdir(parents=True, exist_ok=True)
    home.mkdir(parents=True, exist_ok=True)
    (ws / ".git").mkdir(exist_ok=True)
    kw.setdefault("bins", set())
    kw.setdefault("env", {"PATH": ""})
    env = Environment(workspace=ws, home=home, **kw)
    return env


def one(cat, name=None, path_part=None):
    got = [
        s
        for s in cat.skills
        if (name is None or s.name == name) and (path_part is None or path_part in str(s.path))
    ]
    assert len(got) == 1, [(s.name, str(s.path), s.status) for s in cat.skills]
    return got[0]


# ---------------------------------------------------------------------------------- cache


def test_parse_cache_parses_each_file_once_across_clients(tmp_path):
    env = mkenv(tmp_path)
    write_skill(env.home / ".agents/skills/a", "a")
    write_skill(env.home / ".claude/skills/b", "b")
    cache = ParseCache()
    scan_all(env, cache)
    assert cache.misses == 2
    scan_all(env, cache)
    assert cache.misses == 2 and cache.hits > 2


def test_parse_cache_invalidates_on_change(tmp_path):
    p = write_skill(tmp_path / "s", "s", description="one")
    cache = ParseCache()
    assert cache.get(p).data["description"] == "one"
    p.write_text("---\nname: s\ndescription: two, longer\n---\n")
    os.utime(p, ns=(1, 10**18))
    assert cache.get(p).data["description"] == "two, longer"
    p.unlink()
    assert cache.get(p).state == "unreadable"


def test_parse_cache_threads(tmp_path):
    paths = [write_skill(tmp_path / f"s{i}", f"s{i}") for i in range(30)]
    cache = ParseCache()
    errs = []

    def work():
        try:
            for p in paths:
                assert cache.get(p).ok
        except Exception as exc:  # pragma: no cover
            errs.append(exc)

    ts = [threading.Thread(target=work) for _ in range(4)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    assert not errs and len(cache) == 30


# ---------------------------------------------------------------------------------- contract


def test_every_skill_has_status_and_reason(tmp_path):
    env = demo_environment()
    for cid, cat in scan_all(env).items():
        assert cat.client == cid
        assert [r.precedence for r in cat.roots] == sorted(r.precedence for r in cat.roots)
        for s in cat.skills:
            assert s.status in STATUSES
            assert s.reason and "\n" not in s.reason
            if s.status == "shadowed":
                assert s.shadowed_by is not None
            d = s.to_json()
            assert {"name", "path", "root", "scope", "status", "reason", "shadowed_by"} <= set(d)


def test_demo_exercises_every_status():
    cats = scan_all(demo_environment())
    seen = {s.status for c in cats.values() for s in c.skills}
    assert seen == set(STATUSES)
    cc = cats["claude-code"]
    assert one(cc, "code-review", "/home/").status == "listed"
    proj = one(cc, "code-review", "/workspace/")
    assert proj.status == "shadowed" and "/home/" in str(proj.shadowed_by)
    assert one(cc, "api-conventions").status == "conditional"
    assert one(cc, path_part="packages/web").status == "conditional"
    assert one(cc, "pdf-extract").status == "skipped"
    assert one(cats["openclaw"], "disk-report").status == "gated"
    assert one(cats["codex"], "quiet-helper").status == "hidden"
    assert one(cats["codex"], "csv-to-chart").status == "listed"


def test_demo_touched_activates_paths_and_nested():
    d = demo_environment()
    env = demo_environment(
        touched=[d.workspace / "src/api/users.ts", d.workspace / "packages/web/src/app.ts"]
    )
    cc = scan(env, "claude-code")
    assert one(cc, "api-conventions").status == "listed"
    nested = one(cc, path_part="packages/web")
    assert nested.status == "listed" and nested.name == "packages/web:deploy"
    assert one(cc, "deploy").status == "hidden"  # the project's own, unscoped


def test_demo_untrusted_gates_project_layers():
    env = demo_environment(trusted=False)
    assert one(scan(env, "codex"), "ci-fix").status == "gated"
    g = scan(env, "gemini-cli")
    assert one(g, "data-cleanup").status == "gated"
    assert one(g, "release-notes").status == "listed"


# ---------------------------------------------------------------------------------- corpus


def test_corpus_as_extra_root_every_client_sees_every_file(corpus, tmp_path):
    env = mkenv(tmp_path, extra_roots=[corpus])
    n = sum(1 for _ in corpus.rglob("SKILL.md"))
    assert n == 1241
    for cid, cat in scan_all(env).items():
        assert len(cat.skills) == n, cid
        assert cat.counts()["listed"] > 1000, (cid, cat.counts())


def _copy(corpus: Path, rel: str, dest: Path) -> Path:
    shutil.copytree(corpus / rel, dest)
    return dest / "SKILL.md"


def test_corpus_installed_in_temp_home(corpus, tmp_path):
    env = mkenv(tmp_path)
    cs = env.home / ".claude/skills"
    ag = env.home / ".agents/skills"
    _copy(corpus, "obra-superpowers/skills/brainstorming", cs / "brainstorming")
    _copy(corpus, "openclaw/skills/canvas", cs / "canvas")
    _copy(corpus, "openclaw/skills/discord", ag / "discord")
    _copy(corpus, "openclaw/skills/food-order", ag / "food-order")
    _copy(corpus, "anthropics-skills/skills/mcp-builder", env.workspace / ".agents/skills/mcp-builder")
    # a monorepo package with its own .claude/skills
    _copy(
        corpus,
        "anthropics-skills/skills/webapp-testing",
        env.workspace / "packages/app/.claude/skills/webapp-testing",
    )
    cats = scan_all(env)
    cc = cats["claude-code"]
    assert one(cc, "brainstorming").status == "listed"
    assert one(cc, "canvas").parse_mode == "dropped"
    assert one(cc, path_part="webapp-testing").status == "conditional"
    assert not [s for s in cc.skills if "discord" in str(s.path)]  # CC has no .agents/skills
    oc = cats["openclaw"]
    assert one(oc, "discord").parse_mode == "fallback"
    assert one(oc, "food-order").status == "gated"  # ordercli not on PATH
    assert one(oc, "mcp-builder").status == "listed"
    codex = cats["codex"]
    assert one(codex, "discord").status == "listed"  # Codex 0.169.0 quotes and parses again
    assert one(codex, "mcp-builder").status == "listed"
    env2 = mkenv(tmp_path, bins={"ordercli"}, touched=[env.workspace / "packages/app/x.ts"])
    cats2 = scan_all(env2)
    assert one(cats2["openclaw"], "food-order").status == "listed"
    assert one(cats2["claude-code"], path_part="webapp-testing").status == "listed"


def test_corpus_scan_never_raises_on_odd_files(tmp_path):
    env = mkenv(tmp_path)
    root = env.home / ".agents/skills"
    write_skill(root / "bin", raw="")
    (root / "bin" / "SKILL.md").write_bytes(b"\x00\x01---")
    write_skill(root / "latin1", raw="")
    (root / "latin1" / "SKILL.md").write_bytes(b"---\nname: latin1\ndescription: caf\xe9\n---\n")
    write_skill(root / "list", raw="---\n- a\n- b\n---\n")
    write_skill(root / "unclosed", raw="---\nname: unclosed\n")
    write_skill(root / "empty", raw="---\n---\n")
    write_skill(root / "tabs", raw="---\nname: tabs\n\tdescription: x\n---\n")
    write_skill(root / "nums", raw="---\nname: 12\ndescription: 3\n---\n")
    for cid, cat in scan_all(env).items():
        assert len([s for s in cat.skills if "/.agents/" in str(s.path)]) in (0, 7), cid


# ---------------------------------------------------------------------------------- workspace root


def test_workspace_as_extra_root(tmp_path):
    ws = tmp_path / "collection"
    write_skill(ws / "group" / "alpha", "alpha")
    env = Environment(workspace=ws, home=tmp_path / "h", bins=set(), env={})
    assert workspace_root_candidate(env) == ws
    assert use_workspace_as_root(env) is True
    assert env.extra_roots == [ws]
    assert use_workspace_as_root(env) is False  # already there
    assert one(scan(env, "claude-code"), "alpha").root.scope == "extra"


def test_workspace_with_client_roots_is_not_extra(tmp_path):
    env = mkenv(tmp_path)
    write_skill(env.workspace / ".claude/skills/a", "a")
    assert workspace_root_candidate(env) is None
    empty = mkenv(tmp_path / "e")
    assert workspace_root_candidate(empty) is None  # no skills at all


def test_extra_root_duplicate_of_client_root_is_dropped(tmp_path):
    env = mkenv(tmp_path)
    root = env.home / ".claude/skills"
    write_skill(root / "a", "a")
    env.extra_roots.append(root)
    cat = scan(env, "claude-code")
    assert len(cat.by_name("a")) == 1
    assert any("scanned once" in n for n in cat.notes)


def _catalog_json(cat) -> dict:
    d = cat.to_json()
    d["notes"] = list(cat.notes)
    return d


def test_prepare_defer_views_gives_the_same_catalogs_and_counts(tmp_path):
    """``prepare(defer_views=True)`` (the scan CLI) leaves each client's ``after_walk`` and
    installed views to its ``scan``: the same catalogs as a scan from scratch, and counts equal
    to each catalog's size, also where a client's own root holds the extra root's files (its
    views drop them: not deferred) and for OpenClaw's symlinked SKILL.md (``after_walk``)."""
    from workbench.core.discovery import prepare
    from workbench.core.model import CLIENT_IDS

    env = mkenv(tmp_path)
    col = tmp_path / "col"
    write_skill(col / "a", "a")
    write_skill(col / "g" / "b", "b")
    write_skill(col / "a" / "deep" / "c", "c")
    outside = tmp_path / "outside"
    write_skill(outside, "o")
    (col / "s").mkdir()
    os.symlink(outside / "SKILL.md", col / "s" / "SKILL.md")
    inner = env.home / ".claude/skills/pack"  # inside Claude Code's personal root
    write_skill(inner / "d", "d")
    env.extra_roots.extend([col, inner])
    for defer in (False, True):
        walks: dict = {}
        cache = ParseCache()
        counts = prepare(env, CLIENT_IDS, cache, walks, defer_views=defer)
        if defer:  # Claude Code's own root covers ``inner`` (OpenCode's, ... too): its views
            # made here; the first deferred client's too (the views' shared part), the others'
            # in their ``scan``
            assert ("found", "claude-code") in walks and ("found", "codex") in walks
            assert ("walked", "openclaw") in walks and ("found", "openclaw") not in walks
        for cid in CLIENT_IDS:
            got = scan(env, cid, cache, _walks=walks)
            assert counts[cid] == len(got.skills), (defer, cid)
            assert _catalog_json(got) == _catalog_json(scan(env, cid)), (defer, cid)
