"""Faults reported by real users, each reproduced on a hand-made catalog (or a tmp workspace)."""

from __future__ import annotations

import math
import re
from pathlib import Path

from workbench.core.listing import render_listing
from workbench.core.model import Catalog, Environment, Root, Skill


def env(**kw) -> Environment:
    return Environment(workspace=Path("/ws"), home=Path("/home/u"), env=kw.pop("env", {}), **kw)


ROOT = Root(Path("/ws/.claude/skills"), "project", 0, True)


def sk(name, desc="", r=ROOT, **kw) -> Skill:
    return Skill(r.path / name / "SKILL.md", r, name, desc, **kw)


def test_claude_code_81_descriptions_dropped_names_stay():
    # 113 skills, 200-char descriptions, 200k context -> 8,000 chars: 32 full, 81 name-only
    # (without Claude Code's own built-ins).
    skills = [sk(f"skill-{i:03d}", "d" * 200) for i in range(113)]
    rep = render_listing(Catalog("claude-code", env(), [ROOT], skills), 200_000, {"builtins": False})
    c = rep.counts()
    assert (c["full"], c["name-only"], c["omitted"]) == (32, 81, 0)
    assert rep.budget_limit == 8000 and rep.budget_used <= 8000
    assert rep.warnings[0].startswith("Skill listing is over budget: 81 of your descriptions dropped")
    for s in skills:  # every name is still listed
        assert f"- {s.name}" in rep.text
    # later entries lose their descriptions first (listing order); most-used go ahead
    assert rep.skills[-1].state == "name-only" and rep.skills[0].state == "full"
    rep2 = render_listing(
        Catalog("claude-code", env(most_used=["skill-112"]), [ROOT], skills), 200_000, {"builtins": False}
    )
    assert rep2.state_of("skill-112").state == "full"


def test_claude_code_builtins_take_the_budget():
    # Issue 11: with Claude Code 2.1.328's built-ins, at 200k only a few of 60 project skills keep
    # their descriptions (the pinned built-ins take ~6,000 of the 8,000 chars; lab budget-80-*).
    skills = [sk(f"skill-{i:03d}", "d" * 150) for i in range(60)]
    rep = render_listing(Catalog("claude-code", env(), [ROOT], skills), 200_000)
    c = rep.counts()
    assert 0 < c["full"] <= 8 and c["name-only"] == 60 - c["full"]
    assert [b.name for b in rep.builtins][:2] == ["dataviz", "update-config"]
    assert "⟦Claude Code 2.1.328 built-in 'dataviz', 1436 chars⟧" in rep.text
    line = next(x for x in rep.text.split("\n") if x.startswith("- dataviz: "))
    assert len(line) == len("- dataviz: ") + 1436  # placeholder of the stored length
    assert rep.client_version == "2.1.328"


def test_claude_code_budget_rules():
    skills = [sk("a", "x" * 100)]
    cat = Catalog("claude-code", env(), [ROOT], skills)
    assert render_listing(cat, None).budget_limit == 8000  # fallback
    assert render_listing(cat, 1_000_000).budget_limit == 40_000  # 1 % x 4 chars/token
    cat_env = Catalog("claude-code", env(env={"SLASH_COMMAND_TOOL_CHAR_BUDGET": "1234"}), [ROOT], skills)
    assert render_listing(cat_env, 1_000_000).budget_limit == 1234  # env var overrides
    assert any("4 chars/token" in a for a in render_listing(cat, 200_000).assumptions)


def _vscode_entry_overhead(name: str, path: str) -> int:
    return (
        len(
            "\n".join(
                [
                    "<skill>",
                    f"<name>{name}</name>",
                    "<description></description>",
                    f"<file>{path}</file>",
                    "</skill>",
                ]
            )
        )
        + 1
    )


def test_vscode_63_found_about_21_invocable():
    names = [f"team-skill-{i:02d}" for i in range(63)]
    over = _vscode_entry_overhead(names[0], str(ROOT.path / names[0] / "SKILL.md"))
    per_entry = 700  # 21 * 700 = 14,700 <= 15,000 < 22 * 700
    skills = [sk(n, "w" * (per_entry - over)) for n in names]
    rep = render_listing(Catalog("vscode-copilot", env(), [ROOT], skills), 200_000)
    c = rep.counts()
    assert c["full"] == 21 and c["name-only"] == 42 and c["omitted"] == 0
    assert "Additional skills available (invoke by name): team-skill-21, team-skill-22" in rep.text
    assert "63 skills are listable but only 21 fit" in rep.warnings[0]
    # without the skill tool there is no cap
    rep2 = render_listing(Catalog("vscode-copilot", env(), [ROOT], skills), 200_000, {"skill_tool": False})
    assert rep2.counts()["full"] == 63 and rep2.budget_limit is None


def test_vscode_name_list_overflow_counts_the_rest():
    skills = [sk(f"{'n' * 50}-{i:03d}", "d" * 1000) for i in range(200)]
    rep = render_listing(Catalog("vscode-copilot", env(), [ROOT], skills), None)
    c = rep.counts()
    assert c["full"] + c["name-only"] + c["omitted"] == 200 and c["omitted"] > 0
    assert f"... and {c['omitted']} more" in rep.text


def test_openclaw_user_skill_cut_note_only_for_the_model():
    bundled = Root(Path("/opt/openclaw/skills"), "bundled", 5, True)
    skills = [sk(f"bundled-{i:03d}", "A bundled skill.", r=bundled) for i in range(159)]
    mine = sk("zz-my-report", "Builds my weekly report.", r=Root(Path("/ws/skills"), "project", 0, True))
    rep = render_listing(Catalog("openclaw", env(), [], skills + [mine]), None, {"builtins": False})
    assert rep.state_of("zz-my-report").state == "omitted"  # sorted last, past the 150 cap
    assert "zz-my-report" not in rep.text
    assert re.search(r"⚠️ Skills truncated: included 1\d\d of 160", rep.text)  # model-only notice
    assert any("zz-my-report" in w and "model sees" in w for w in rep.warnings)


def test_cjk_description_measured_in_characters_not_bytes():
    desc = "日本語の説明文" * 48 + "説明文説明文"  # 342 characters
    assert len(desc) == 342 and len(desc.encode("utf-8")) == 1026
    s = sk("cjk", desc)
    for client in (
        "claude-code",
        "codex",
        "openclaw",
        "gemini-cli",
        "opencode",
        "vscode-copilot",
        "cursor",
        "agentskills",
    ):
        rep = render_listing(Catalog(client, env(), [ROOT], [s]), 200_000)
        e = rep.state_of("cjk")
        assert e.description_chars == 342, client
        assert e.state == "full" and e.shown_chars == 342, client
    # Claude Code's char budget counts characters: the line is 2 + 3 + 2 + 342 + 1 chars
    rep = render_listing(Catalog("claude-code", env(), [ROOT], [s]), 200_000, {"builtins": False})
    assert rep.budget_used == len("- cjk: ") + 342 + 1
    # Codex is the documented exception: tokens estimated from UTF-8 bytes
    rep = render_listing(Catalog("codex", env(), [ROOT], [s]), 128_000, {"builtins": False})
    line = f"- cjk: {desc} (file: r0/cjk/SKILL.md)\n"  # Codex 0.169.0: paths via the roots table
    assert rep.budget_used == math.ceil(len(line.encode("utf-8")) / 4)


def test_codex_round_robin_cuts_cjk_by_characters():
    desc = "説" * 100
    s1, s2 = sk("a", desc), sk("b", "x" * 100)
    rep = render_listing(
        Catalog("codex", env(), [ROOT], [s1, s2]),
        None,
        {
            "budget_chars": 2 + len("- a: (file: r0/a/SKILL.md)") + len("- b: (file: r0/b/SKILL.md)") + 20,
            "builtins": False,
        },
    )
    a, b = rep.state_of("a"), rep.state_of("b")
    assert a.state == b.state == "truncated"
    assert 0 < a.shown_chars < 100 and ("説" * a.shown_chars + " (file:") in rep.text


def test_1077_char_description_cut_by_codex_and_others(tmp_path):
    from workbench.core.discovery import scan
    from workbench.core.explain import explain_catalog

    desc = ("Generate quarterly reports from the finance warehouse. " * 20)[:1077]
    assert len(desc) == 1077
    folder = tmp_path / "skills" / "quarterly-report"
    folder.mkdir(parents=True)
    (folder / "SKILL.md").write_text(
        f"---\nname: quarterly-report\ndescription: {desc}\n---\n# Q\n", encoding="utf-8"
    )
    e = Environment(
        workspace=tmp_path / "ws", home=tmp_path / "home", env={}, extra_roots=[tmp_path / "skills"]
    )
    (tmp_path / "ws").mkdir()
    (tmp_path / "home").mkdir()
    codex = scan(e, "codex")
    sk_codex = [s for s in codex.skills if s.path == folder / "SKILL.md"][0]
    # Codex 0.169.0 (lab: long-description) cuts the description to 1,024 characters
    assert sk_codex.status == "listed" and sk_codex.description == desc[:1021] + "..."
    assert "to 1024 characters" in sk_codex.parse_note
    assert explain_catalog(codex, "quarterly-report").level != "error"
    vs = scan(e, "vscode-copilot")
    rep = render_listing(vs, 200_000, {"skill_tool": False})
    entry = rep.state_of(str(folder / "SKILL.md"))
    assert entry is not None and entry.state in ("full", "truncated")
    assert "<description>" + desc[:1024] + "</description>" in rep.text
    assert desc not in rep.text  # VS Code cuts to 1,024
    cc = render_listing(scan(e, "claude-code"), 200_000)
    assert cc.state_of(str(folder / "SKILL.md")).state == "full"  # under Claude's 1,536 cap
