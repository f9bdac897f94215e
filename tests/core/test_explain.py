"""Explain: the chain of findings per client, on hand-built catalogs and real tmp workspaces."""

from __future__ import annotations

from pathlib import Path

from workbench.core.explain import STEPS, explain, explain_catalog, format_text
from workbench.core.model import Catalog, Environment, Root, Skill
from workbench.core.similarity import jaccard, top_overlaps, words


def env(**kw) -> Environment:
    return Environment(workspace=Path("/ws"), home=Path("/home/u"), env=kw.pop("env", {}), **kw)


ROOT = Root(Path("/ws/.claude/skills"), "project", 0, True, label="project (.claude/skills)")


def sk(name, desc="", r=ROOT, **kw) -> Skill:
    return Skill(r.path / name / "SKILL.md", r, name, desc, **kw)


def steps(exp):
    return [f.step for f in exp.findings]


def test_full_chain_for_a_listed_skill_with_overlaps():
    skills = [
        sk("pdf-forms", "Fill and extract PDF forms and text"),
        sk("pdf-reader", "Extract text from PDF files"),
        sk("xlsx", "Spreadsheet formulas and charts"),
    ]
    exp = explain_catalog(Catalog("claude-code", env(), [ROOT], skills), "pdf-forms", 200_000)
    assert steps(exp) == list(STEPS)
    assert exp.listing_state == "full" and exp.level in ("ok", "info", "warn")
    assert exp.overlaps[0].name == "pdf-reader"
    assert "Jaccard" in next(f for f in exp.findings if f.step == "overlap").detail  # labelled as lexical
    j = exp.to_json()
    assert j["findings"][0]["level"] in ("ok", "info") and "similarity" in j


def test_not_found_says_where_to_move_it():
    exp = explain_catalog(Catalog("claude-code", env(), [ROOT], []), "ghost")
    assert exp.level == "error" and exp.findings[0].step == "found"
    assert exp.findings[0].fix == "Move it to /ws/.claude/skills/ghost/SKILL.md"


def test_truncated_listing_suggests_a_length_that_fits():
    skills = [sk(f"s{i}", "word " * 80) for i in range(4)]
    cat = Catalog("codex", env(), [ROOT], skills)
    exp = explain_catalog(cat, "s1", 2_000)  # 40 tokens: names only or round-robin cuts
    listed = [f for f in exp.findings if f.step == "listed"][0]
    assert listed.level in ("warn", "error")
    assert "Codex CLI at 2k" in listed.title


def test_fit_length_is_a_real_fit():
    import dataclasses

    from workbench.core.explain import _fit_length
    from workbench.core.listing import render_listing

    skills = [sk(f"s{i}", "d" * 300) for i in range(40)]
    cat = Catalog("claude-code", env(), [ROOT], skills)
    target = skills[5]
    n = _fit_length(cat, target, 200_000, None)
    rep = render_listing(cat, 200_000)
    assert rep.state_of("s5").state == "full" or n is None or n < 300
    if n:
        clone = dataclasses.replace(target, description="d" * n)
        cat2 = dataclasses.replace(cat, skills=[clone if s is target else s for s in skills])
        assert render_listing(cat2, 200_000).state_of("s5").state == "full"


def test_claude_name_only_suggests_a_fitting_length():
    # Claude Code 2.1.328 grants descriptions greedily (a later, shorter one still fits: lab
    # budget-80-short), so shortening the description is the fix.
    skills = [sk(f"skill-{i:03d}", "d" * 200) for i in range(113)]
    exp = explain_catalog(Catalog("claude-code", env(), [ROOT], skills), "skill-112", 200_000)
    listed = [f for f in exp.findings if f.step == "listed"][0]
    assert exp.listing_state == "name-only" and "Shorten the description to" in listed.fix


def test_shadowed_and_gated_and_fallback():
    winner = sk("deploy", "Deploy the app", r=Root(Path("/home/u/.claude/skills"), "user", 0, True))
    loser = sk("deploy", "Deploy (project copy)", status="shadowed", shadowed_by=winner.path)
    gated = sk("mac-only", "Mac things", status="gated", reason="requires os darwin")
    fb = sk("loose", "Loose yaml", parse_mode="fallback", parse_note="unquoted colon recovered")
    cat = Catalog("openclaw", env(), [ROOT], [winner, loser, gated, fb])
    e1 = explain_catalog(cat, str(loser.path))
    assert e1.path == str(loser.path) and any(
        f.step == "shadowed" and f.level == "error" for f in e1.findings
    )
    e2 = explain_catalog(cat, "deploy")  # the winner, by name
    assert e2.path == str(winner.path) and any("Shadows 1" in f.title for f in e2.findings)
    e3 = explain_catalog(cat, "mac-only")
    assert [f for f in e3.findings if f.step == "gated"][0].level == "error"
    e4 = explain_catalog(cat, "loose")
    assert [f for f in e4.findings if f.step == "parsed"][0].level == "warn"


def test_real_workspace_too_deep_and_bad_yaml(tmp_path):
    ws = tmp_path / "ws"
    (tmp_path / "home").mkdir()
    deep = ws / ".claude" / "skills" / "group" / "deep-one"
    deep.mkdir(parents=True)
    (deep / "SKILL.md").write_text("---\nname: deep-one\ndescription: Deploys to staging\n---\n# D\n")
    bad = ws / ".claude" / "skills" / "bad-yaml"
    bad.mkdir(parents=True)
    (bad / "SKILL.md").write_text("---\nname: bad-yaml\ndescription: Deploy: the app\n---\nDeploy things.\n")
    e = Environment(workspace=ws, home=tmp_path / "home", env={})
    [cc] = explain(e, "deep-one", ["claude-code"], 200_000)
    assert cc.findings[0].level == "error" and "too deep" in cc.findings[0].title
    assert cc.findings[0].fix == f"Move it to {ws / '.claude' / 'skills'}/deep-one/"
    [cc2] = explain(e, "bad-yaml", ["claude-code"], 200_000)
    parsed = [f for f in cc2.findings if f.step == "parsed"][0]
    assert parsed.level == "warn" and "Quote the description" in parsed.fix
    text = format_text(explain(e, "bad-yaml", None, 200_000))
    assert "== Claude Code (claude-code)" in text and "== Agent Skills spec" in text


def test_similarity_is_plain_jaccard():
    assert jaccard("a b", "") == 0.0
    assert words("The Skills use PDFs") == frozenset({"pdf"})
    ov = top_overlaps("deploy the web app", [("1", "x", "deploy web"), ("2", "y", "cook pasta")])
    assert [o.name for o in ov] == ["x"]
