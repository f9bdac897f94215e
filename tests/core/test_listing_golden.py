"""Golden tests: each client's listing text and budget outcome on small hand-made catalogs, at the
boundaries (exactly fits, one character over, all names only, some omitted).

Golden files live in ``tests/golden/<case>.txt``: the exact model-visible text, then a report
section (budget, per-skill states, warnings). Regenerate after an intended change with
``WB_UPDATE_GOLDEN=1 .venv/bin/python -m pytest -q tests/core/test_listing_golden.py`` and review
the diff.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from workbench.core.clients.codex import listing as codex
from workbench.core.listing import ListingReport, js_len, render_listing
from workbench.core.model import Catalog, Environment, Root, Skill

GOLDEN = Path(__file__).resolve().parents[1] / "golden"
UPDATE = os.environ.get("WB_UPDATE_GOLDEN") == "1"
#: Budget arithmetic on the user's skills alone (the clients' built-ins are tested elsewhere).
NO_BUILTINS = {"builtins": False}


def env(**kw) -> Environment:
    return Environment(workspace=Path("/ws"), home=Path("/home/u"), env=kw.pop("env", {}), **kw)


def root(path="/ws/.claude/skills", scope="project", prec=0) -> Root:
    return Root(Path(path), scope, prec, True)


def sk(name, desc="", r=None, when=None, **flags) -> Skill:
    r = r or root()
    return Skill(r.path / name / "SKILL.md", r, name, desc, when_to_use=when, flags=flags)


def cat(client, skills, e=None) -> Catalog:
    return Catalog(client, e or env(), [s.root for s in skills], skills)


BASIC = [
    ("pdf", "Fill & extract PDF forms <fast>. Use when the user says \"PDF\" or 'form'."),
    ("xlsx", "Spreadsheets: formulas, charts, pivots."),
    ("brand-guidelines", "Apply the brand's colours and type to documents."),
]


def basic(**kw):
    return [sk(n, d, **kw) for n, d in BASIC]


def claude_full_cost(skills):
    from workbench.core.clients.claude_code.listing import entry_description

    return sum(len(f"- {s.name}: {entry_description(s)}") + 1 for s in skills)


def _codex_alias_path(s):
    """The line's path as Codex 0.169.0 writes it: relative to its root's alias (r0: one root)."""
    return "r0/" + str(s.path.relative_to(s.root.path))


def codex_full_chars(skills):
    return sum(len(codex._Line(s.name, s.description, _codex_alias_path(s)).render()) + 1 for s in skills)


def codex_min_chars(skills):
    return sum(len(codex._Line(s.name, s.description, _codex_alias_path(s)).render(0)) + 1 for s in skills)


def _openclaw_max_for(skills, compact_cap=None):
    from workbench.core.clients.openclaw import listing as oc

    ordered = oc.listing_order(skills)
    b = oc._Bounded(ordered, 10**9, None)
    if compact_cap is None:
        n = js_len(b.build(ordered, False, 0, True))
        assert n == b.length(len(ordered), False, 0, True)  # fast length == real length
        return n
    n = js_len(b.build(ordered, True, compact_cap, True))
    assert n == b.length(len(ordered), True, compact_cap, True)
    return n


def _cases():
    c = {}
    s = basic()
    full = claude_full_cost(s)
    budget = "SLASH_COMMAND_TOOL_CHAR_BUDGET"
    c["claude_code_exact_fit"] = (cat("claude-code", s, env(env={budget: str(full)})), None, NO_BUILTINS)
    c["claude_code_one_over"] = (cat("claude-code", s, env(env={budget: str(full - 1)})), None, NO_BUILTINS)
    c["claude_code_most_used_kept"] = (
        cat("claude-code", s, env(env={budget: str(full - 1)}, most_used=["brand-guidelines"])),
        None,
        NO_BUILTINS,
    )
    c["claude_code_names_only"] = (cat("claude-code", s, env(env={budget: "40"})), None, NO_BUILTINS)
    c["claude_code_when_to_use_and_cap"] = (
        cat("claude-code", [sk("long", "d" * 1600), sk("wtu", "Does X.", when="Use when X is asked.")]),
        200_000,
        {},
    )
    c["claude_code_empty"] = (cat("claude-code", []), 200_000, {})

    s = basic()
    fc = codex_full_chars(s)
    mc = codex_min_chars(s)
    c["codex_exact_fit"] = (cat("codex", s), None, {"budget_chars": fc, "builtins": False})
    c["codex_one_over_round_robin"] = (cat("codex", s), None, {"budget_chars": fc - 1, "builtins": False})
    c["codex_half_round_robin"] = (cat("codex", s), None, {"budget_chars": mc + 40, "builtins": False})
    c["codex_all_names_only"] = (cat("codex", s), None, {"budget_chars": mc, "builtins": False})
    c["codex_some_omitted"] = (cat("codex", s), None, {"budget_chars": mc - 1, "builtins": False})
    c["codex_full_text_tokens"] = (cat("codex", basic() + [sk("nodesc", "")]), 128_000, {})
    order = [
        sk("u-skill", "User scope.", r=root("/home/u/.agents/skills", "user", 3)),
        sk("r-skill", "Repo scope.", r=root("/ws/.agents/skills", "project", 1)),
        sk("s-skill", "System scope.", r=root("/home/u/.codex/skills/.system", "system", 2)),
        sk("a-skill", "Admin scope.", r=root("/etc/codex/skills", "admin", 4)),
    ]
    c["codex_scope_order"] = (cat("codex", order), 128_000, {"builtins": False})
    long_root = root(
        "/home/u/work/a-very-long-shared-prefix/for-a-collection/of-skills-with-long-paths", "user", 0
    )
    many = [sk(f"shared-root-skill-{i}", "", r=long_root) for i in range(12)]
    lines = [codex._Line(x.name, "", f"r0/{x.name}/SKILL.md") for x in many]
    alias_min = sum(ln.min_chars for ln in lines)  # Codex 0.169.0: the roots table is not counted
    c["codex_alias_plan"] = (cat("codex", many), None, {"budget_chars": alias_min, "builtins": False})

    s = basic() + [sk("zeta", "Last by name.", location_note="Read via the node proxy.")]
    mx = _openclaw_max_for(s)
    names_max = _openclaw_max_for(s, 0)
    c["openclaw_exact_fit"] = (cat("openclaw", s), None, {"max_skills_prompt_chars": mx, **NO_BUILTINS})
    c["openclaw_one_over_compact"] = (
        cat("openclaw", s),
        None,
        {"max_skills_prompt_chars": mx - 1, **NO_BUILTINS},
    )
    c["openclaw_names_only"] = (
        cat("openclaw", s),
        None,
        {"max_skills_prompt_chars": names_max, **NO_BUILTINS},
    )
    c["openclaw_some_omitted"] = (
        cat("openclaw", s),
        None,
        {"max_skills_prompt_chars": names_max - 60, **NO_BUILTINS},
    )
    c["openclaw_small_context"] = (
        cat("openclaw", [sk(f"s{i}", "word " * 60) for i in range(3)]),
        4000,
        NO_BUILTINS,
    )
    c["openclaw_empty"] = (cat("openclaw", []), None, {})

    c["gemini_cli_basic"] = (cat("gemini-cli", basic()), None, {})
    c["copilot_cli_basic"] = (cat("copilot-cli", basic()), None, {})
    c["gemini_cli_empty"] = (cat("gemini-cli", []), None, {})
    c["opencode_sorted"] = (
        cat("opencode", basic() + [sk("Alpha", "Capital A."), sk("no-desc", "")]),
        None,
        {},
    )
    c["opencode_empty"] = (cat("opencode", []), None, {})
    c["vscode_read_file"] = (
        cat("vscode-copilot", basic() + [sk("tagged", "Uses <b>bold</b> tags.")]),
        None,
        {"skill_tool": False},
    )
    vs = [sk(f"skill-{i:02d}", "x" * 400) for i in range(40)]
    c["vscode_skill_tool_cap"] = (cat("vscode-copilot", vs), None, {"skill_tool": True})
    c["agentskills_basic"] = (cat("agentskills", basic()), None, {})
    c["agentskills_empty"] = (cat("agentskills", []), None, {})
    c["cursor_guess"] = (cat("cursor", basic()), None, {})
    return c


CASES = _cases()


def dump(rep: ListingReport) -> str:
    lines = [
        rep.text,
        "",
        "===== report (not model-visible) =====",
        f"client: {rep.client}",
        f"context_tokens: {rep.context_tokens}",
        f"budget: {rep.budget_used} / {rep.budget_limit} {rep.budget_unit}",
        f"counts: {rep.counts()}",
    ]
    for s in rep.skills:
        lines.append(f"  {s.state:<9} {s.shown_chars}/{s.description_chars}  {s.name}")
    for w in rep.warnings:
        lines.append(f"warning: {w}")
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("case", sorted(CASES))
def test_golden(case):
    catalog, ctx, opts = CASES[case]
    got = dump(render_listing(catalog, ctx, opts))
    path = GOLDEN / f"{case}.txt"
    if UPDATE or not path.exists():
        GOLDEN.mkdir(parents=True, exist_ok=True)
        path.write_text(got, encoding="utf-8")
        if not UPDATE:
            pytest.fail(f"golden file {path.name} was missing; written, review and re-run")
    assert got == path.read_text(encoding="utf-8")


# -- the boundary semantics the golden files pin, asserted directly as well --------------


def _states(case):
    catalog, ctx, opts = CASES[case]
    return render_listing(catalog, ctx, opts)


def test_claude_boundaries():
    assert set(_states("claude_code_exact_fit").counts().items()) >= {("full", 3)}
    r = _states("claude_code_one_over")
    assert [s.state for s in r.skills] == ["full", "full", "name-only"]  # the last one that fits
    r = _states("claude_code_most_used_kept")
    assert r.state_of("brand-guidelines").state == "full"
    assert r.budget_used <= r.budget_limit
    assert _states("claude_code_names_only").counts()["name-only"] == 3


def test_codex_boundaries():
    assert _states("codex_exact_fit").counts()["full"] == 3
    r = _states("codex_one_over_round_robin")
    assert r.counts() == {"full": 2, "truncated": 1, "name-only": 0, "omitted": 0}
    assert r.budget_used == r.budget_limit
    assert _states("codex_all_names_only").counts()["name-only"] == 3
    r = _states("codex_some_omitted")
    assert r.counts()["omitted"] == 1 and r.warnings[0].startswith("Exceeded skills context budget.")
    r = _states("codex_alias_plan")
    assert "### Skill roots" in r.text and "(file: r0/shared-root-skill-0/SKILL.md)" in r.text
    assert r.counts()["omitted"] == 0


def test_openclaw_boundaries():
    assert _states("openclaw_exact_fit").counts()["full"] == 4
    r = _states("openclaw_one_over_compact")
    assert "⚠️ Skills catalog using compact format (descriptions" in r.text  # cap >= 64 or none
    assert r.budget_used <= r.budget_limit
    r = _states("openclaw_names_only")
    assert r.counts()["name-only"] == 4 and "descriptions omitted" in r.text
    r = _states("openclaw_some_omitted")
    assert "⚠️ Skills truncated: included" in r.text and r.counts()["omitted"] >= 1


def test_codex_round_robin_matches_render_rs_unit_tests():
    """Expectations ported from render.rs's own tests (equal cuts; unused share redistributed)."""

    def run(pairs, extra):
        skills = [sk(n, d) for n, d in pairs]
        budget = codex_min_chars(skills) + extra
        rep = render_listing(cat("codex", skills), None, {"budget_chars": budget, "builtins": False})
        return {e.name: e.shown_chars for e in rep.skills}, rep

    shown, rep = run([("beta-skill", "uvwxyz"), ("alpha-skill", "abcdef")], 6)
    assert shown == {"alpha-skill": 2, "beta-skill": 2} and not rep.warnings
    shown, _ = run([("short-skill", "x"), ("long-skill", "abcdefghi")], 11)
    assert shown == {"long-skill": 8, "short-skill": 1}
    shown, rep = run([("long-skill", "a" * 250), ("empty-skill", "")], 49)
    assert shown["long-skill"] == 48 and rep.warnings == [codex.WARN_SHORTENED]
