"""Per-client roots, precedence, depth, skip rules and parse fallbacks, and the faults users
reported (each a test)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.helpers import write_skill
from workbench.core.clients import get_profile
from workbench.core.clients.base import ClientProfile
from workbench.core.clients.gemini_cli.profile import sanitise_name
from workbench.core.discovery import scan, scan_all
from workbench.core.model import CLIENT_IDS, Environment


def mkenv(tmp_path: Path, **kw) -> Environment:
    ws, home = tmp_path / "ws", tmp_path / "home"
    ws.mkdir(parents=True, exist_ok=True)
    home.mkdir(parents=True, exist_ok=True)
    (ws / ".git").mkdir(exist_ok=True)
    kw.setdefault("bins", set())
    kw.setdefault("env", {"PATH": ""})
    return Environment(workspace=ws, home=home, **kw)


def status(cat, name=None, part=None):
    got = [
        s for s in cat.skills if (name is None or s.name == name) and (part is None or part in str(s.path))
    ]
    assert len(got) == 1, [(s.name, str(s.path), s.status, s.reason) for s in cat.skills]
    return got[0]


def all_clients(env):
    return scan_all(env)


@pytest.mark.parametrize("cid", CLIENT_IDS)
def test_profiles_follow_the_contract(cid, tmp_path):
    prof = get_profile(cid)
    assert isinstance(prof, ClientProfile) and prof.id == cid and prof.__doc__
    env = mkenv(tmp_path, extra_roots=[tmp_path / "extra"])
    roots = prof.roots(env)
    assert roots and any(r.scope == "extra" for r in roots)
    assert [r.precedence for r in roots] == sorted(r.precedence for r in roots) or cid == "codex"


# ---------------------------------------------------------------------------------- faults


def test_description_wrapped_by_a_formatter(tmp_path):
    env = mkenv(tmp_path)
    write_skill(
        env.home / ".agents/skills/wrap",
        raw="---\nname: wrap\ndescription: Use when the user asks\n  to wrap lines.\n---\n# x\n",
    )
    write_skill(
        env.home / ".claude/skills/wrap",
        raw="---\nname: wrap\ndescription: Use when the user asks\n  to wrap lines.\n---\n# x\n",
    )
    for cid, cat in all_clients(env).items():
        for s in cat.skills:
            if s.status != "skipped":
                assert "to wrap lines." in s.description, cid


def test_wrapped_description_with_colon_line_parsers(tmp_path):
    env = mkenv(tmp_path)
    write_skill(
        env.home / ".agents/skills/wc",
        raw="---\nname: wc\ndescription: Use when: the user asks\n  to wrap.\n---\n",
    )
    cats = all_clients(env)
    assert status(cats["gemini-cli"], "wc").description == "Use when: the user asks to wrap."
    oc = status(cats["openclaw"], "wc")
    assert oc.parse_mode == "fallback" and oc.description == "Use when: the user asks"  # single-line parser


def test_unquoted_colon_in_description(corpus, tmp_path):
    env = mkenv(tmp_path)
    import shutil

    shutil.copytree(corpus / "openclaw/skills/discord", env.home / ".agents/skills/discord")
    shutil.copytree(corpus / "openclaw/skills/discord", env.home / ".claude/skills/discord")
    cats = all_clients(env)
    # Codex 0.169.0 (lab: yaml-unquoted-colon) parses again with the values quoted
    assert status(cats["codex"], "discord").status == "listed"
    assert status(cats["codex"], "discord").parse_mode == "fallback"
    assert status(cats["gemini-cli"], "discord").parse_mode == "fallback"
    assert status(cats["gemini-cli"], "discord").description.startswith(
        "Use when you need to control Discord"
    )
    assert status(cats["openclaw"], "discord").parse_mode == "fallback"
    ag = status(cats["agentskills"], "discord")
    assert ag.status == "listed" and ag.parse_mode == "fallback" and "discord tool: send" in ag.description
    # Claude Code 2.1.328 retries with the value quoted (lab: yaml-unquoted-colon)
    cc = status(cats["claude-code"], "discord")
    assert cc.status == "listed" and cc.parse_mode == "fallback"
    assert cc.description.startswith("Use when you need to control Discord")
    for cid in ("vscode-copilot", "cursor"):
        assert all(s.status == "skipped" for s in cats[cid].skills if "discord" in str(s.path))
    # OpenCode 1.18.33 reads it with its line reader (lab: yaml-unquoted-colon)
    oc = cats["opencode"].skills
    assert {s.status for s in oc} == {"listed", "shadowed"} and {s.parse_mode for s in oc} == {"fallback"}


def test_food_order_colon(corpus, tmp_path):
    env = mkenv(tmp_path, bins={"ordercli"})
    import shutil

    shutil.copytree(corpus / "openclaw/skills/food-order", env.workspace / "skills/food-order")
    oc = status(scan(env, "openclaw"), "food-order")
    assert oc.status == "listed" and "Triggers: order food" in oc.description


def test_bom(tmp_path):
    env = mkenv(tmp_path)
    for root in (".agents/skills", ".claude/skills"):
        p = env.home / root / "bom" / "SKILL.md"
        p.parent.mkdir(parents=True)
        p.write_bytes(b"\xef\xbb\xbf---\nname: bom\ndescription: Has a BOM.\n---\n# x\n")
    cats = all_clients(env)
    cx = status(cats["codex"], "bom")
    assert cx.status == "skipped" and "BOM" in cx.reason  # checked on Codex 0.169.0 by the lab
    assert status(cats["gemini-cli"], "bom").status == "skipped"
    assert status(cats["openclaw"], "bom").status == "listed"
    cc = status(cats["claude-code"], "bom")  # lab: bom (Claude Code 2.1.328 strips it)
    assert cc.status == "listed" and cc.description == "Has a BOM."


def test_no_frontmatter_canvas(corpus, tmp_path):
    import shutil

    env = mkenv(tmp_path)
    for root in (".claude/skills", ".agents/skills", ".copilot/skills", ".cursor/skills"):
        shutil.copytree(corpus / "openclaw/skills/canvas", env.home / root / "canvas")
    cats = all_clients(env)
    cc = status(cats["claude-code"], "canvas")
    assert cc.status == "listed" and cc.parse_mode == "dropped" and cc.description == "Canvas Skill"
    for cid in ("codex", "openclaw", "gemini-cli", "opencode", "cursor", "agentskills"):
        assert all(s.status == "skipped" for s in cats[cid].skills), cid
    vs = [s for s in cats["vscode-copilot"].skills if s.status != "skipped" and s.status != "shadowed"]
    assert vs and all(s.status == "hidden" for s in vs)  # kept but not listed: no description


def test_name_differs_from_folder(tmp_path):
    env = mkenv(tmp_path)
    write_skill(env.home / ".agents/skills/folder-x", "other-name")
    write_skill(env.home / ".claude/skills/folder-x", "other-name")
    write_skill(env.home / ".cursor/skills/folder-x", "other-name")
    cats = all_clients(env)
    # Claude Code 2.1.328 names a skill by its folder (lab: name-differs)
    assert status(cats["claude-code"], "folder-x").status == "listed"
    assert status(cats["codex"], "other-name").status == "listed"
    vs = [s for s in cats["vscode-copilot"].skills if s.status == "listed"]
    assert {s.name for s in vs} == {"folder-x"} and vs[0].unverified
    ag = status(cats["agentskills"], "other-name")
    assert ag.status == "listed" and "differs" in ag.reason
    assert all(s.status == "skipped" for s in cats["cursor"].skills)


def test_same_name_personal_and_project(tmp_path):
    env = mkenv(tmp_path)
    personal = write_skill(env.home / ".claude/skills/dup", "dup", description="personal")
    project = write_skill(env.workspace / ".claude/skills/dup", "dup", description="project")
    cc = scan(env, "claude-code")
    assert status(cc, part=str(personal)).status == "listed"
    lost = status(cc, part=str(project))
    assert lost.status == "shadowed" and lost.shadowed_by == personal
    oc = scan(env, "opencode")  # last scanned (project) wins
    assert status(oc, part=str(personal)).shadowed_by == project
    vs = scan(env, "vscode-copilot")  # workspace first
    assert status(vs, part=str(personal)).shadowed_by == project


def test_grouping_folder_two_levels_down(tmp_path):
    env = mkenv(tmp_path)
    for root in (env.home / ".claude/skills", env.home / ".agents/skills", env.workspace / "skills"):
        write_skill(root / "group" / "deep", "deep")
    cats = all_clients(env)
    cc = status(cats["claude-code"], "deep")
    assert cc.status == "skipped" and "too deep" in cc.reason
    assert status(cats["codex"], "deep").status == "listed"
    assert [s.status for s in cats["openclaw"].skills if s.name == "deep"].count("listed") == 1
    assert status(cats["gemini-cli"], "deep").status == "skipped"


def test_symlinked_claude_skills(tmp_path):
    env = mkenv(tmp_path)
    real = tmp_path / "dotfiles" / "skills"
    write_skill(real / "linked", "linked")
    (env.home / ".claude").mkdir()
    os.symlink(real, env.home / ".claude" / "skills")
    assert status(scan(env, "claude-code"), "linked").status == "listed"


def test_nested_monorepo_skills_only_once_touched(tmp_path):
    env = mkenv(tmp_path)
    write_skill(env.workspace / ".claude/skills/deploy", "deploy")
    write_skill(env.workspace / "apps/web/.claude/skills/deploy", "deploy")
    cc = scan(env, "claude-code")
    n = status(cc, part="apps/web")
    assert n.status == "conditional" and "apps/web" in n.reason
    env2 = mkenv(tmp_path, touched=[env.workspace / "apps/web/src/x.ts"])
    cc2 = scan(env2, "claude-code")
    n2 = status(cc2, part="apps/web")
    assert n2.status == "listed" and n2.name == "apps/web:deploy"
    assert status(cc2, "deploy").status == "listed"


# ---------------------------------------------------------------------------------- per client


def test_claude_code_paths_globs(tmp_path):
    env = mkenv(tmp_path, touched=[])
    write_skill(env.workspace / ".claude/skills/api", "api", extra="paths: [\"src/**/*.ts\"]")
    assert status(scan(env, "claude-code"), "api").status == "conditional"
    env2 = mkenv(tmp_path, touched=[env.workspace / "src/a/b.ts"])
    assert status(scan(env2, "claude-code"), "api").status == "listed"
    env3 = mkenv(tmp_path, touched=[env.workspace / "docs/b.md"])
    assert status(scan(env3, "claude-code"), "api").status == "conditional"


def test_claude_code_disable_model_invocation_and_plugins(tmp_path):
    env = mkenv(tmp_path)
    write_skill(env.workspace / ".claude/skills/manual", "manual", extra="disable-model-invocation: true")
    plug = env.home / ".claude/plugins/cache/mk/tools"
    (plug / ".claude-plugin").mkdir(parents=True)
    (plug / ".claude-plugin/plugin.json").write_text('{"name": "tools"}')
    write_skill(plug / "skills/fmt", "fmt")
    write_skill(env.workspace / ".claude/skills/fmt", "fmt")
    cc = scan(env, "claude-code")
    assert status(cc, "manual").status == "hidden"
    p = status(cc, "tools:fmt")
    assert p.status == "listed" and p.root.scope == "plugin" and p.unverified
    assert status(cc, "fmt").status == "listed"


def test_claude_code_root_skill_md_and_no_agents(tmp_path):
    env = mkenv(tmp_path)
    write_skill(env.home / ".claude/skills", "flat")
    write_skill(env.home / ".agents/skills/x", "x")
    cc = scan(env, "claude-code")
    assert status(cc, "flat").status == "skipped"
    assert not cc.by_name("x")


def test_codex_roots_and_rules(tmp_path):
    ch = tmp_path / "codexhome"
    env = mkenv(tmp_path, env={"CODEX_HOME": str(ch)}, cwd=None)
    sub = env.workspace / "pkg"
    sub.mkdir()
    env = mkenv(tmp_path, env={"CODEX_HOME": str(ch)}, cwd=sub)
    write_skill(ch / "skills/u", "u")
    write_skill(ch / "skills/.system/sys", "sys")
    write_skill(env.workspace / ".agents/skills/top", "same")
    write_skill(sub / ".agents/skills/near", "same")
    write_skill(env.workspace / ".agents/skills/a/b/c/d/e/six", "six")
    write_skill(env.workspace / ".agents/skills/a/b/c/d/e/f/seven", "seven")
    write_skill(env.workspace / ".agents/skills/.hidden/h", "h")
    write_skill(env.workspace / ".agents/skills/top/inner", "inner")
    write_skill(env.workspace / ".agents/skills/long", "x" * 65)
    write_skill(env.workspace / ".agents/skills/nodesc", "nodesc", description=None)
    write_skill(env.workspace / ".agents/skills/bigdesc", "bigdesc", description="word " * 300)
    cx = scan(env, "codex")
    assert status(cx, "u").status == "listed"
    assert status(cx, "sys").root.scope == "system"
    assert [s.status for s in cx.by_name("same")] == ["listed", "listed"]  # keep both
    assert status(cx, "six").status == "listed"
    assert "too deep" in status(cx, "seven").reason
    assert "dot-folder" in status(cx, "h").reason
    assert status(cx, "inner").status == "listed"  # nested skills load too
    assert "64" in status(cx, part="/long/").reason
    assert status(cx, part="nodesc").reason == "missing field `description`"
    assert "1024" in status(cx, "bigdesc").reason
    order = [s.name for s in get_profile("codex").listing_order(cx.listed())]
    assert order[0] == "sys"


def test_codex_config_disable_and_untrusted(tmp_path):
    ch = tmp_path / "ch"
    ch.mkdir()
    (ch / "config.toml").write_text('[[skills.config]]\nname = "quiet"\nenabled = false\n')
    env = mkenv(tmp_path, env={"CODEX_HOME": str(ch)}, trusted=False)
    write_skill(ch / "skills/quiet", "quiet")
    write_skill(env.workspace / ".codex/skills/proj", "proj")
    cx = scan(env, "codex")
    assert status(cx, "quiet").status == "hidden"
    assert status(cx, "proj").status == "gated"


def test_openclaw_rules(tmp_path):
    env = mkenv(tmp_path, bins={"present"}, os_name="linux", env={"TOKEN": "x"})
    ws = env.workspace / "skills"
    write_skill(
        ws / "ok", "ok", extra='metadata: {"openclaw": {"requires": {"bins": ["present"], "env": ["TOKEN"]}}}'
    )
    write_skill(ws / "mac", "mac", extra='metadata: {"clawdbot": {"os": ["darwin"]}}')
    write_skill(ws / "any", "any", extra='metadata: {"moltbot": {"requires": {"anyBins": ["a", "b"]}}}')
    write_skill(ws / "env", "env", extra='metadata: {"openclaw": {"requires": {"env": ["MISSING"]}}}')
    write_skill(
        ws / "always",
        "always",
        extra='metadata: {"openclaw": {"always": true, "requires": {"bins": ["zz"]}}}',
    )
    write_skill(ws / "nodesc", "nodesc", description=None)
    write_skill(ws / "outer", "outer")
    write_skill(ws / "outer" / "inner", "inner")
    write_skill(ws / ".dot" / "d", "d")
    write_skill(env.home / ".agents/skills/ok", "ok")
    outside = tmp_path / "outside"
    write_skill(outside / "ext", "ext")
    os.symlink(outside, ws / "linked")
    oc = scan(env, "openclaw")
    assert status(oc, "ok", "/ws/").status == "listed"
    assert status(oc, "ok", "/home/").status == "shadowed"
    assert status(oc, "mac").status == "gated"
    assert status(oc, "any").status == "gated"
    assert "MISSING" in status(oc, "env").reason
    assert status(oc, "always").status == "listed"
    assert status(oc, "nodesc").status == "skipped"
    assert "inside the skill folder" in status(oc, "inner").reason
    assert "dot-folder" in status(oc, "d").reason
    assert "outside the root" in status(oc, "ext").reason


def test_openclaw_config_entries(tmp_path):
    """``openclaw.json`` ``skills.entries``: disabled by name or by ``metadata.openclaw.skillKey``,
    an entry's ``env`` or ``apiKey`` (for ``primaryEnv``) meets ``requires.env``; without entries
    (or metadata) nothing is hidden."""
    import json

    env = mkenv(tmp_path)
    (env.home / ".openclaw").mkdir()
    cfg = {
        "skills": {
            "entries": {
                "quiet": {"enabled": False},
                "keyed": {"enabled": False},
                "tok": {"env": {"TOKEN": "x"}},
                "api": {"apiKey": "k"},
            }
        }
    }
    (env.home / ".openclaw/openclaw.json").write_text(json.dumps(cfg))
    ws = env.workspace / "skills"
    write_skill(ws / "quiet", "quiet")
    write_skill(ws / "k", "k", extra='metadata: {"openclaw": {"skillKey": "keyed"}}')
    write_skill(ws / "tok", "tok", extra='metadata: {"openclaw": {"requires": {"env": ["TOKEN"]}}}')
    write_skill(ws / "notok", "notok", extra='metadata: {"openclaw": {"requires": {"env": ["TOKEN"]}}}')
    write_skill(
        ws / "api", "api", extra='metadata: {"openclaw": {"primaryEnv": "KEY", "requires": {"env": ["KEY"]}}}'
    )
    write_skill(ws / "plain", "plain")
    oc = scan(env, "openclaw")
    assert status(oc, "quiet").reason == "skills.entries.quiet.enabled = false in openclaw.json"
    assert status(oc, "k").reason == "skills.entries.keyed.enabled = false in openclaw.json"
    assert [status(oc, n).status for n in ("tok", "notok", "api", "plain")] == [
        "listed",
        "gated",
        "listed",
        "listed",
    ]
    (env.home / ".openclaw/openclaw.json").write_text("{}")
    backdate = os.utime(env.home / ".openclaw/openclaw.json", ns=(1, 1))  # a new (size, mtime)
    assert backdate is None and status(scan(env, "openclaw"), "quiet").status == "listed"


def test_gemini_rules(tmp_path):
    env = mkenv(tmp_path)
    write_skill(env.workspace / ".gemini/skills", "rootlevel")
    write_skill(env.workspace / ".agents/skills/a", "a:b/c")
    write_skill(env.workspace / ".agents/skills/num", raw="---\nname: 5\ndescription: x\n---\n")
    write_skill(
        env.workspace / ".agents/skills/folded",
        raw="---\nname: folded\ndescription: >\n  Folded text.\n---\n",
    )
    write_skill(env.home / ".gemini/skills/dup", "dup")
    write_skill(env.workspace / ".agents/skills/dup", "dup")
    g = scan(env, "gemini-cli")
    assert status(g, "rootlevel").status == "listed"
    assert status(g, "a-b-c").status == "listed"
    # Gemini CLI 0.61.0 (lab): a number is not a string for js-yaml, so the line parser reads it
    num = status(g, part="/num/")
    assert (num.status, num.name, num.parse_mode) == ("listed", "5", "fallback")
    assert status(g, "folded").description == "Folded text.\n"
    assert status(g, "dup", "/home/").status == "shadowed"
    assert sanitise_name('a:b\\c/d<e>f*g?h"i|j') == "a-b-c-d-e-f-g-h-i-j"


def test_opencode_env_flags_and_description(tmp_path):
    env = mkenv(tmp_path)
    write_skill(env.home / ".claude/skills/c", "c")
    write_skill(env.home / ".agents/skills/a", "a")
    write_skill(env.home / ".config/opencode/skill/cfg", "cfg", description=None)
    write_skill(env.workspace / ".agents/skills/x/y/z/w/deep", "deep")
    o = scan(env, "opencode")
    assert status(o, "c").status == "listed"
    assert status(o, "cfg").status == "hidden"
    assert status(o, "deep").status == "listed"
    o2 = scan(mkenv(tmp_path, env={"OPENCODE_DISABLE_CLAUDE_CODE_SKILLS": "1"}), "opencode")
    assert not o2.by_name("c") and o2.by_name("a")
    o3 = scan(mkenv(tmp_path, env={"OPENCODE_DISABLE_EXTERNAL_SKILLS": "1"}), "opencode")
    assert not o3.by_name("a") and o3.by_name("cfg")


def test_opencode_config_dir_env(tmp_path):
    cfg = tmp_path / "ocd"
    write_skill(cfg / "skills/mine", "mine")
    o = scan(mkenv(tmp_path, env={"OPENCODE_CONFIG_DIR": str(cfg)}), "opencode")
    assert status(o, "mine").status == "listed"


def test_vscode_rules(tmp_path):
    env = mkenv(tmp_path)
    write_skill(env.workspace / ".github/skills/t", "t", description="<b>bold</b> " + "x" * 1100)
    write_skill(env.workspace / ".github/skills/n", "n", description=None)
    write_skill(env.home / ".copilot/skills/t", "t")
    v = scan(env, "vscode-copilot")
    t = status(v, "t", "/ws/")
    assert t.description.startswith("bold ") and len(t.description) == 1024
    assert status(v, "t", "/home/").status == "shadowed"
    assert status(v, "n").status == "hidden"


def test_agentskills_rules(tmp_path):
    env = mkenv(tmp_path, trusted=False)
    write_skill(env.workspace / ".agents/skills/p", "p")
    write_skill(env.home / ".agents/skills/u", "u", description="")
    write_skill(env.home / ".agents/skills/bad", raw="---\nname: bad\ndescription: [unclosed\n---\n")
    a = scan(env, "agentskills")
    assert status(a, "p").status == "gated"
    assert status(a, "u").status == "skipped"
    assert status(a, "bad").status == "skipped"


def test_cursor_is_marked_unverified(tmp_path):
    env = mkenv(tmp_path)
    write_skill(env.workspace / ".cursor/skills/c", "c")
    c = status(scan(env, "cursor"), "c")
    assert c.status == "listed" and c.unverified and not c.root.verified


def test_symlink_duplicate_deduped_codex(tmp_path):
    env = mkenv(tmp_path)
    write_skill(env.home / ".agents/skills/real", "real")
    os.symlink(env.home / ".agents/skills/real", env.home / ".agents/skills/alias")
    cx = scan(env, "codex")
    sts = sorted(s.status for s in cx.by_name("real"))
    assert sts == ["listed", "shadowed"]
