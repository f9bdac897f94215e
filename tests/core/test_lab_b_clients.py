"""Codex CLI, Gemini CLI and GitHub Copilot CLI as the conformance lab found them (no real client
needed: these pin the rules the lab checked on Codex 0.169.0, Gemini CLI 0.61.0, Copilot CLI 1.0.102).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tests.core.test_clients_rules import mkenv
from tests.helpers import write_skill
from workbench.core.capture.recorder import RecordedRequest
from workbench.core.clients.copilot_cli.builtins import BUILTINS as COPILOT_BUILTINS
from workbench.core.clients.gemini_cli.profile import simple_frontmatter
from workbench.core.discovery import scan
from workbench.core.listing import render_listing


def write_raw(root: Path, files: dict[str, str]) -> None:
    """``root/<folder>/SKILL.md`` with each text verbatim."""
    for folder, text in files.items():
        write_skill(root / folder, raw=text)


def by_name(cat, name):
    return [s for s in cat.skills if s.name == name]


def one(cat, name):
    found = by_name(cat, name)
    assert len(found) == 1, [(s.name, s.status, str(s.path)) for s in cat.skills]
    return found[0]


# -- Gemini CLI ----------------------------------------------------------------------------------


def test_gemini_load_order_and_override_in_place(tmp_path):
    env = mkenv(tmp_path)
    for root, tag in ((env.home / ".gemini/skills", "hg"), (env.workspace / ".agents/skills", "wa")):
        for n in ("alpha", "zulu", "Mike"):
            write_skill(root / f"{n}-{tag}", f"{n}-{tag}")
    write_skill(env.home / ".gemini/skills/shared", "shared", "user copy")
    write_skill(env.workspace / ".agents/skills/shared", "shared", "workspace copy")
    cat = scan(env, "gemini-cli")
    rep = render_listing(cat)
    names = [s.name for s in rep.skills]
    # tiers lowest first, folders in reverse code-point order, the override keeps the first place
    assert names == ["zulu-hg", "shared", "alpha-hg", "Mike-hg", "zulu-wa", "alpha-wa", "Mike-wa"]
    # only the override carries the first copy's load position (issue 14: memory per skill)
    keyed = sorted(s.name for s in cat.skills if "_gemini_load_key" in s.flags)
    assert keyed == ["shared"]
    assert "workspace copy" in rep.text and "user copy" not in rep.text
    # the built-ins open the listing (placeholders without a capture)
    assert [b.name for b in rep.builtins] == ["skill-creator", "antigravity-support"]
    assert rep.text.index("skill-creator") < rep.text.index("zulu-hg")
    assert "⟦built-in skill-creator" in rep.text


def test_gemini_same_root_clash_first_folder_wins(tmp_path):
    env = mkenv(tmp_path)
    write_skill(env.workspace / ".gemini/skills/dup-a", "dup", "first folder")
    write_skill(env.workspace / ".gemini/skills/dup-b", "dup", "second folder")
    cat = scan(env, "gemini-cli")
    listed = [s for s in by_name(cat, "dup") if s.status == "listed"]
    assert [s.path.parent.name for s in listed] == ["dup-a"]


def test_gemini_line_parser_and_fence(tmp_path):
    env = mkenv(tmp_path)
    write_raw(
        env.workspace / ".agents/skills",
        {
            "tabs": "---\nname: tabs\n\tdescription: Tab indented.\n---\n",
            "listdesc": "---\nname: listdesc\ndescription:\n  - a\n  - b\n---\n",
            "booldesc": "---\nname: booldesc\ndescription: true\n---\n",
            "empty": '---\nname: empty\ndescription: ""\n---\n',
            "fence": "---  \nname: fence\ndescription: Spaces after the fence.\n---\n",
        },
    )
    cat = scan(env, "gemini-cli")
    assert (one(cat, "tabs").description, one(cat, "tabs").parse_mode) == ("Tab indented.", "fallback")
    assert one(cat, "listdesc").description == "- a - b"
    assert one(cat, "booldesc").description == "true"
    assert one(cat, "empty").status == "listed" and one(cat, "empty").description == ""
    fence = [s for s in cat.skills if s.path.parent.name == "fence"][0]
    assert fence.status == "skipped" and "regex" in fence.reason
    assert simple_frontmatter("name: x\n") is None
    assert simple_frontmatter("  name:  n \ndescription: a\n\tb\n") == ("n", "a b")


def test_gemini_capture_texts_fill_the_builtins(tmp_path):
    env = mkenv(tmp_path)
    write_skill(env.workspace / ".gemini/skills/a", "a", "A.")
    texts = {
        "builtins": [
            {
                "name": "skill-creator",
                "description": "made-up text",
                "location": "/pkg/bundle/builtin/skill-creator/SKILL.md",
            }
        ]
    }
    rep = render_listing(scan(env, "gemini-cli"), None, {"client_texts": texts})
    assert "<description>made-up text</description>" in rep.text
    assert "/pkg/bundle/builtin/skill-creator/SKILL.md" in rep.text
    assert "⟦built-in antigravity-support" in rep.text  # not captured: still a placeholder


def test_gemini_runner_extracts_builtins():
    from workbench.core.clients.gemini_cli.runner import RUNNER

    listing = (
        "# Available Agent Skills\n\nIntro.\n\n<available_skills>\n"
        "  <skill>\n    <name>b1</name>\n    <description>D1</description>\n"
        "    <location>/x/bundle/builtin/b1/SKILL.md</location>\n  </skill>\n"
        "  <skill>\n    <name>mine</name>\n    <description>D2</description>\n"
        "    <location>/ws/.gemini/skills/mine/SKILL.md</location>\n  </skill>\n"
        "</available_skills>"
    )
    body = {
        "systemInstruction": {"parts": [{"text": "Before.\n\n" + listing + "\n\nAfter."}]},
        "tools": [{"functionDeclarations": [{"name": "activate_skill"}]}],
    }
    req = RecordedRequest(
        0,
        "POST",
        "/v1beta/models/m:streamGenerateContent",
        {},
        {},
        json.dumps(body).encode(),
        "gemini-stream",
        0.0,
    )
    ex = RUNNER.extract(req)
    assert ex.listing == listing and ex.skills == ["b1", "mine"] and ex.builtins == ["b1"]
    assert ex.tool == {"name": "activate_skill"}
    assert ex.client_texts["builtins"][0]["location"] == "/x/bundle/builtin/b1/SKILL.md"
    assert ex.client_texts["prose"] == {"intro": "Intro."}


# -- Codex CLI -----------------------------------------------------------------------------------


def test_codex_reading(tmp_path):
    env = mkenv(tmp_path)
    root = env.workspace / ".agents/skills"
    write_raw(
        root,
        {
            "colon": "---\nname: colon\ndescription: Use this: when colons.\n---\n",
            "num": "---\nname: 12345\ndescription: Numeric name.\n---\n",
            "bool": "---\nname: bool\ndescription: true\n---\n",
            "tabs": "---\nname: tabs\n\tdescription: Tab.\n---\n",
            "listdesc": "---\nname: listdesc\ndescription:\n  - a\n---\n",
        },
    )
    target = write_skill(tmp_path / "elsewhere/real", "filelink", "Linked file.")
    (root / "filelink").mkdir()
    os.symlink(target, root / "filelink/SKILL.md")
    cat = scan(env, "codex")
    assert one(cat, "colon").description == "Use this: when colons."
    assert one(cat, "colon").parse_mode == "fallback"
    assert one(cat, "12345").status == "listed"
    assert one(cat, "bool").description == "true"
    for folder in ("tabs", "listdesc", "filelink"):
        s = [s for s in cat.skills if s.path.parent.name == folder][0]
        assert s.status == "skipped", folder
    assert "symlink" in [s for s in cat.skills if s.path.parent.name == "filelink"][0].reason


def test_codex_listing_roots_table_and_system_skills(tmp_path):
    env = mkenv(tmp_path)
    write_skill(env.workspace / ".agents/skills/alpha", "alpha", "Alpha.")
    write_skill(env.home / ".agents/skills/gamma", "gamma", "Gamma.")
    rep = render_listing(scan(env, "codex"), 272_000)
    lines = rep.text.split("\n")
    sysroot = f"{env.home}/.codex/skills/.system"
    # the roots table in root order (user ~/.agents, system, repo), every time
    assert lines[3:7] == [
        "### Skill roots",
        f"- `r0` = `{env.home}/.agents/skills`",
        f"- `r1` = `{sysroot}`",
        f"- `r2` = `{env.workspace}/.agents/skills`",
    ]
    assert "How to use skills" not in rep.text and lines[-1] == "</skills_instructions>"
    # system skills first (placeholders of the stored lengths), then repo, then user
    names = [ln.split(":")[0][2:] for ln in lines if ln.startswith("- ") and "(file: " in ln]
    assert names == ["imagegen", "openai-docs", "skill-creator", "skill-installer", "alpha", "gamma"]
    assert "⟦system skill imagegen" in rep.text and len(rep.builtins) == 4
    assert "- alpha: Alpha. (file: r2/alpha/SKILL.md)" in lines


def test_codex_budget_ignores_the_roots_table(tmp_path):
    env = mkenv(tmp_path)
    for i in range(30):
        write_skill(env.workspace / f".agents/skills/s-{i:02d}", f"s-{i:02d}", "x" * 300)
    rep = render_listing(scan(env, "codex"), 32_000)
    assert rep.budget_unit == "tokens" and rep.budget_limit == 640
    lines = [ln for ln in rep.text.split("\n") if ln.startswith("- ") and "(file: " in ln]
    assert sum((len(ln.encode()) + 1 + 3) // 4 for ln in lines) <= 640
    assert rep.budget_used == sum((len(ln.encode()) + 1 + 3) // 4 for ln in lines)


# -- GitHub Copilot CLI --------------------------------------------------------------------------


def test_copilot_roots_precedence_and_order(tmp_path):
    env = mkenv(tmp_path)
    ws, home = env.workspace, env.home
    for rel in (".github/skills", ".agents/skills", ".claude/skills"):
        write_skill(ws / rel / "dup", "dup", f"from ws {rel}")
    write_skill(ws / ".claude/skills/zed", "zed", "Z.")
    write_skill(ws / ".github/skills/Upper", "Upper", "U.")
    write_skill(home / ".copilot/skills/mine", "mine", "M.")
    write_skill(home / ".agents/skills/agent", "agent", "A.")
    write_skill(home / ".claude/skills/ignored", "ignored", "I.")
    cat = scan(env, "copilot-cli")
    assert not by_name(cat, "ignored")
    rep = render_listing(cat)
    assert [s.name for s in rep.skills] == ["Upper", "dup", "zed", "mine", "agent"]
    assert "from ws .github/skills" in rep.text
    assert rep.text.count("<location>project</location>") == 3
    assert [b.name for b in rep.builtins] == [n for n, _ in COPILOT_BUILTINS["1.0.102"]]
    untrusted = scan(mkenv(tmp_path, trusted=False), "copilot-cli")  # trust does not gate skills
    assert len(untrusted.listed()) == len(cat.listed())


def test_copilot_reading(tmp_path):
    env = mkenv(tmp_path)
    root = env.workspace / ".github/skills"
    write_raw(
        root,
        {
            "colon": "---\nname: colon\ndescription: Use this: when.\n---\n",
            "twice": "---\nname: twice\ndescription: a\ndescription: b\n---\n",
            "num": "---\nname: 5\ndescription: n\n---\n",
            "nodesc": "---\nname: nodesc\n---\nFirst line.\n\nSecond.\n",
        },
    )
    write_skill(root / "noname", description="No name.")
    write_skill(root / "spaced", "My Fancy Skill", "Spaces.")
    write_skill(root / "long", "long", "x" * 1025)
    write_skill(root / "listfm", raw="---\n- a\n---\nBody text.\n")
    write_skill(root / "manual", "manual", "Only by hand.", extra="disable-model-invocation: true")
    cat = scan(env, "copilot-cli")
    status = {s.path.parent.name: s.status for s in cat.skills}
    assert {k: status[k] for k in ("colon", "twice", "num", "long")} == dict.fromkeys(
        ("colon", "twice", "num", "long"), "skipped"
    )
    assert one(cat, "nodesc").description == "First line. Second."
    assert one(cat, "noname").status == "listed"
    assert one(cat, "My-Fancy-Skill").status == "listed"
    assert one(cat, "listfm").description == "Body text."
    assert one(cat, "manual").status == "hidden"


def test_copilot_walk(tmp_path):
    env = mkenv(tmp_path)
    root = env.workspace / ".github/skills"
    write_skill(root / "node_modules/pkg", "pkg", "Under node_modules.")
    write_skill(root / "a/b/c/deep", "deep", "Deep.")
    write_skill(root / ".hidden/h", "h", "Hidden.")
    write_skill(root / "outer", "outer", "Outer.")
    write_skill(root / "outer/inner", "inner", "Inner.")
    names = {s.name for s in scan(env, "copilot-cli").listed()}
    assert names == {"pkg", "deep", "outer"}
    write_skill(root, "rooty", "A SKILL.md in the root itself hides everything below.")
    assert {s.name for s in scan(env, "copilot-cli").listed()} == {"rooty"}


def test_copilot_budget_edge_and_overflow_line(tmp_path):
    env = mkenv(tmp_path)
    root = env.workspace / ".github/skills"

    def desc(entry_plus_one: int) -> str:  # a 5-char name: entry + 1 = 99 + len(description)
        return "d" * (entry_plus_one - 99)

    for i in range(36):
        write_skill(root / f"s-{i:03d}", f"s-{i:03d}", desc(399))
    write_skill(root / "s-036", "s-036", desc(636))
    write_skill(root / "s-037", "s-037", "Small.")
    rep = render_listing(scan(env, "copilot-cli"))
    assert rep.budget_used == 15_000
    assert rep.text.endswith(
        "Additional skills available (invoke by name): s-037, "
        "customize-cloud-agent, github-pr-media\n</available_skills>"
    )
    assert [b.state for b in rep.builtins] == ["name-only", "name-only"]
    write_skill(root / "s-036", "s-036", desc(637))
    rep = render_listing(scan(env, "copilot-cli"))
    assert rep.budget_used == 14_364
    assert "(invoke by name): s-036, s-037," in rep.text
    assert rep.state_of("s-036").state == "name-only"


@pytest.mark.parametrize("extra", [0, 1])
def test_copilot_name_line_counts_its_prefix(tmp_path, extra):
    """Lab (Copilot CLI 1.0.102, copilot-names-cap-exact / -one-over): the 5,000-char cap of the
    "invoke by name" line counts its 46-char prefix but not the "... and N more" tail."""
    env = mkenv(tmp_path)
    root = env.workspace / ".github/skills"
    for i in range(36):
        write_skill(root / f"s-{i:03d}", f"s-{i:03d}", "d" * 300)
    write_skill(root / "s-036", "s-036", "d" * 537)
    names = [(f"t-{i:02d}-" + "n" * 64)[:n] for i, n in enumerate([64] * 75 + [4 + extra])]
    for n in names:
        write_skill(root / n, n, "Past the entry budget.")
    rep = render_listing(scan(env, "copilot-cli"))
    line = next(ln for ln in rep.text.splitlines() if ln.startswith("Additional skills"))
    head = line.split("... and ")[0]
    assert rep.budget_used == 15_000 and not any("5,000" in a for a in rep.assumptions)
    if extra == 0:
        assert len(head) == 5_000 and head.endswith(names[-1]) and line.endswith("... and 2 more")
    else:
        assert head.endswith(names[-2]) and line.endswith("... and 3 more")
        assert rep.state_of(names[-1]).state == "omitted"


def test_copilot_escaping_and_captured_builtins(tmp_path):
    env = mkenv(tmp_path)
    write_skill(env.workspace / ".github/skills/x", "x", "'Tags <b> & \"q\" it''s'")
    texts = {"builtins": [{"name": "customize-cloud-agent", "description": "made up", "location": "builtin"}]}
    rep = render_listing(scan(env, "copilot-cli"), None, {"client_texts": texts})
    assert "<description>Tags &lt;b&gt; &amp; &quot;q&quot; it&apos;s</description>" in rep.text
    assert "<description>made up</description>" in rep.text
    assert "⟦built-in github-pr-media" in rep.text


def test_copilot_runner_extract():
    from workbench.core.clients.copilot_cli.runner import RUNNER

    listing = (
        "<available_skills>\n<skill>\n  <name>mine</name>\n  <description>D</description>\n"
        "  <location>project</location>\n</skill>\n<skill>\n  <name>b1</name>\n"
        "  <description>B</description>\n  <location>builtin</location>\n</skill>\n"
        "Additional skills available (invoke by name): later, customize-cloud-agent\n"
        "</available_skills>"
    )
    body = {
        "system": [{"type": "text", "text": "A"}, {"type": "text", "text": f"<skill>\n{listing}\n</skill>"}],
        "messages": [{"role": "user", "content": "hello"}],
        "tools": [{"name": "skill"}],
    }
    req = RecordedRequest(
        0, "POST", "/v1/messages", {}, {}, json.dumps(body).encode(), "anthropic-messages", 0.0
    )
    assert RUNNER.is_listing_request(req)
    ex = RUNNER.extract(req)
    assert ex.listing == listing and ex.placement.block_index == 1
    assert ex.skills == ["mine", "b1", "later", "customize-cloud-agent"]
    assert ex.builtins == ["b1", "customize-cloud-agent"] and ex.tool == {"name": "skill"}


def test_codex_runner_extract_and_config(tmp_path):
    from workbench.core.capture.runner import RunContext
    from workbench.core.clients.codex.runner import RUNNER

    ctx = RunContext(
        home=tmp_path,
        workspace=tmp_path / "ws",
        base_url="http://127.0.0.1:1",
        exe=Path("/bin/codex"),
        options={"codex_config": "model_context_window = 32000"},
    )
    spec = RUNNER.prepare(ctx)
    import tomllib

    cfg = tomllib.loads((tmp_path / ".codex/config.toml").read_text())
    assert cfg["model_context_window"] == 32000 and cfg["model_provider"] == "standin"
    assert cfg["projects"][str(tmp_path / "ws")]["trust_level"] == "trusted"
    assert spec.env["CODEX_HOME"] == str(tmp_path / ".codex")
    write_skill(tmp_path / ".codex/skills/.system/imagegen", "imagegen", "Made-up  text.")
    listing = (
        "<skills_instructions>\n## Skills\nIntro.\n### Skill roots\n- `r0` = `/r`\n"
        "### Available skills\n- imagegen: Made-up text. (file: r0/imagegen/SKILL.md)\n"
        "- a: b: c (file: r0/a/SKILL.md)\n</skills_instructions>"
    )
    body = {
        "input": [
            {"type": "message", "role": "developer", "content": [{"type": "input_text", "text": listing}]}
        ]
    }
    ex = RUNNER.extract(
        RecordedRequest(
            0, "POST", "/v1/responses", {}, {}, json.dumps(body).encode(), "openai-responses", 0.0
        )
    )
    assert ex.listing == listing and ex.skills == ["imagegen", "a"] and ex.builtins == ["imagegen"]
    assert ex.client_texts["builtins"][0]["description"] == "Made-up text."
    assert ex.client_texts["prose"] == {"intro": "Intro."}
    env = mkenv(tmp_path)
    write_skill(env.workspace / ".agents/skills/a", "a", "A.")
    rep = render_listing(scan(env, "codex"), None, {"client_texts": ex.client_texts, "builtins": False})
    assert rep.text.split("\n")[2] == "Intro."
    rep = render_listing(scan(env, "codex"), None, {"builtins": False})
    assert rep.text.split("\n")[2].startswith("⟦Codex intro") and len(rep.text.split("\n")[2]) == 261


def test_gemini_empty_name_is_listed_empty(tmp_path):
    env = mkenv(tmp_path)
    write_skill(env.workspace / ".gemini/skills/blank", raw='---\nname: ""\ndescription: Empty name.\n---\n')
    rep = render_listing(scan(env, "gemini-cli"))
    assert "    <name></name>\n    <description>Empty name.</description>" in rep.text
    assert [s.name for s in rep.skills] == [""]


def test_codex_quoted_retry_and_walk(tmp_path):
    from workbench.core.clients.codex.profile import retry_quoted

    assert retry_quoted("name: a\ndescription: [unclosed") == {"name": "a", "description": "[unclosed"}
    assert retry_quoted('name: a\ndescription: "never closed') is None
    assert retry_quoted("name: a\ndescription: x\ndescription: y") is None
    env = mkenv(tmp_path)
    root = env.workspace / ".agents/skills"
    write_skill(root / "node_modules/pkg", "pkg", "Under node_modules.")
    write_skill(root / "bad", raw="---\nname: bad\ndescription: Fine.\n  metadata: x\n bad: y\n---\n")
    write_skill(root / "long", "long", "word " * 300)
    cat = scan(env, "codex")
    assert one(cat, "pkg").status == "listed"
    assert [s for s in cat.skills if s.path.parent.name == "bad"][0].status == "skipped"
    assert len(one(cat, "long").description) == 1024


def test_gemini_racy_order_is_warned_and_accepted_by_the_lab(tmp_path):
    from tests.conformance.lab import racy_order

    env = mkenv(tmp_path)
    for n in ("a", "b", "c"):
        write_skill(env.workspace / f".gemini/skills/{n}", n, f"{n}.")
    rep = render_listing(scan(env, "gemini-cli"))
    assert any("racy" in w for w in rep.warnings)
    lines = rep.text.split("\n")
    i = lines.index("    <name>c</name>") - 1  # swap the first two entries (5 lines each)
    swapped = "\n".join(lines[:i] + lines[i + 5 : i + 10] + lines[i : i + 5] + lines[i + 10 :])
    assert racy_order("gemini-cli", rep, swapped, ["b", "c", "a"], ["c", "b", "a"])
    assert (
        racy_order("gemini-cli", rep, swapped.replace("b.", "x."), ["b", "c", "a"], ["c", "b", "a"]) is None
    )
    assert racy_order("copilot-cli", rep, swapped, ["b", "c", "a"], ["c", "b", "a"]) is None


def test_copilot_budget_counts_utf16_units(tmp_path):
    env = mkenv(tmp_path)
    desc = "🚀" * 100  # 100 code points, 200 UTF-16 units
    for i in range(80):
        write_skill(env.workspace / f".github/skills/u-{i:02d}", f"u-{i:02d}", desc)
    rep = render_listing(scan(env, "copilot-cli"))
    full = [e for e in rep.skills if e.state == "full"]
    per_entry = 97 + 200 + 1  # a 4-char name's entry is 97 units + the description; + 1
    assert len(full) == 15_000 // per_entry
    assert rep.budget_used == len(full) * per_entry
