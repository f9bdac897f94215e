"""Issue 17: what happens after a skill loads — one small input per case, per affected client,
through lint (positioned diagnostics) and explain (the ``invoked`` step)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.helpers import write_skill
from workbench.core.explain import explain
from workbench.core.lint import lint_file
from workbench.core.model import Environment


@pytest.fixture()
def ws(tmp_path: Path) -> Path:
    w = tmp_path / "ws"
    w.mkdir()
    subprocess.run(["git", "init", "-q", str(w)], check=True)
    (tmp_path / "home").mkdir()
    return w


def _env(ws: Path) -> Environment:
    return Environment(workspace=ws, home=ws.parent / "home", env={}, bins=set())


def _invoked(ws: Path, name: str, client: str):
    (exp,) = explain(_env(ws), name, clients=[client], context_tokens=200_000)
    return [f for f in exp.findings if f.step == "invoked"], exp


def _codes(path: Path, profile: str) -> dict[str, list]:
    out: dict[str, list] = {}
    for d in lint_file(path, profile=profile):
        out.setdefault(d.code, []).append(d)
    return out


# 1. argument substitution in code -------------------------------------------------------------
def test_dollar_one_in_awk_is_flagged_with_escape_fix(ws: Path) -> None:
    p = write_skill(
        ws / ".claude/skills/tally",
        "tally",
        "Sums a CSV column. Use when asked for a total.",
        extra="argument-hint: <file> <label>",
        body="\n```sh\nawk -F, '{ total += $1 } END { print total }' data.csv\n```\n",
    )
    (d,) = _codes(p, "claude-code")["CC013"]
    assert (d.line, d.column, d.severity) == (8, 21, "warning")
    assert "2nd argument" in d.message and "\\$1" in d.message
    assert d.fix.edits[0].new_text == "\\" and (d.fix.edits[0].line, d.fix.edits[0].column) == (8, 21)
    assert "CC013" not in _codes(p, "codex")  # Codex does no substitution
    inv, _ = _invoked(ws, "tally", "claude-code")
    assert any(f.title.startswith("CC013") and f.level == "warn" for f in inv)


# 2. context: fork ----------------------------------------------------------------------------
def test_fork_explained_and_conversation_reference_flagged(ws: Path) -> None:
    p = write_skill(
        ws / ".claude/skills/finish",
        "finish",
        "Finishes tasks. Use when the user asks to finish up.",
        extra="context: fork\nagent: general-purpose",
        body="\nTake the tasks the user mentioned earlier in this conversation and finish each.\n",
    )
    codes = _codes(p, "claude-code")
    msgs = [d.message for d in codes["CC014"]]
    assert any("does not see the conversation" in m for m in msgs)
    assert any("never uses $ARGUMENTS" in m for m in msgs)
    inv, _ = _invoked(ws, "finish", "claude-code")
    assert inv[0].title.startswith("Runs as a subagent (general-purpose)")
    assert "does not see the conversation" in inv[0].detail and "Skill tool" in inv[0].detail


# 3. a built-in command name --------------------------------------------------------------------
def test_status_takes_over_the_builtin_command(ws: Path) -> None:
    p = write_skill(ws / ".claude/skills/status", "status", "Reports the deploy state. Use when asked.")
    (d,) = _codes(p, "claude-code")["CC015"]
    assert "typing /status runs this skill instead of the built-in" in d.message and d.line == 2
    inv, _ = _invoked(ws, "status", "claude-code")
    assert any("CC015" in f.title for f in inv)
    ok = write_skill(ws / ".claude/skills/deploy-status", "deploy-status", "Reports deploys. Use when asked.")
    assert "CC015" not in _codes(ok, "claude-code")


# 4. Codex and disable-model-invocation -----------------------------------------------------------
def test_codex_ignores_disable_model_invocation_and_explain_names_the_cause(ws: Path) -> None:
    p = write_skill(
        ws / ".agents/skills/deploy",
        "deploy",
        "Deploys the app. Use only on request.",
        extra="disable-model-invocation: true",
    )
    (d,) = _codes(p, "codex")["CX003"]
    assert d.severity == "warning" and "agents/openai.yaml" in d.message
    assert "FLD001" not in _codes(p, "codex")
    inv, exp = _invoked(ws, "deploy", "codex")
    assert exp.status == "listed" and any("CX003" in f.title for f in inv)
    # with the sidecar, Codex hides it and explain's fix names the sidecar, not the frontmatter flag
    (p.parent / "agents").mkdir()
    (p.parent / "agents/openai.yaml").write_text("policy:\n  allow_implicit_invocation: false\n")
    assert "CX003" not in _codes(p, "codex")
    _, exp = _invoked(ws, "deploy", "codex")
    gated = next(f for f in exp.findings if f.step == "gated")
    assert exp.status == "hidden" and "allow_implicit_invocation" in gated.fix
    assert "disable-model-invocation" not in gated.fix


def test_hidden_fix_follows_the_cause() -> None:
    from workbench.core.explain import hidden_fix

    assert hidden_fix("missing-description: loaded but not listed").startswith("Add a description")
    assert "disable-model-invocation" in hidden_fix("disable-model-invocation: true: not listed")
    assert "config.toml" in hidden_fix("disabled by [[skills.config]] enabled = false in config.toml")


# 5. relative paths in the body -------------------------------------------------------------------
def test_skill_relative_path_info_for_claude_code(ws: Path) -> None:
    p = write_skill(
        ws / ".claude/skills/spec",
        "spec",
        "Checks specs. Use when asked about the spec.",
        body="\nRead `references/spec.md` first, then `references/missing.md`.\n",
    )
    (p.parent / "references").mkdir()
    (p.parent / "references/spec.md").write_text("# spec\n")
    (d,) = _codes(p, "claude-code")["BODY009"]
    assert d.severity == "info" and "${CLAUDE_SKILL_DIR}/references/spec.md" in d.message
    assert d.fix.edits[0].new_text == "${CLAUDE_SKILL_DIR}/"
    assert "BODY009" not in _codes(p, "opencode")  # OpenCode tells the model the base directory


def test_failed_read_says_the_file_is_in_the_skill_folder(tmp_path: Path) -> None:
    from workbench.core.chat.tools import FileAccess, ToolContext, make_read_tool

    skill_dir = tmp_path / "skills/spec"
    (skill_dir / "references").mkdir(parents=True)
    (skill_dir / "references/spec.md").write_text("x")
    ws = tmp_path / "ws"
    ws.mkdir()

    class S:
        name, dir, path = "spec", skill_dir, skill_dir / "SKILL.md"

    ctx = ToolContext(fs=FileAccess([ws, skill_dir], ws), skills=[S()], known=[], workspace=ws)
    out = make_read_tool().handler({"path": "references/spec.md"}, ctx)
    assert out.is_error and any(str(skill_dir / "references/spec.md") in n for n in out.notes)


# 6. size limits per surface ---------------------------------------------------------------------
def test_codex_exec_cuts_the_middle_of_a_long_skill(ws: Path) -> None:
    body = "\n" + "\n".join(f"Step {i}: " + "y" * 60 for i in range(470)) + "\n## Checklist\n- [ ] done\n"
    p = write_skill(ws / ".agents/skills/long", "long", "A long skill. Use when testing limits.", body=body)
    (d,) = _codes(p, "codex")["BODY010"]
    assert d.severity == "warning" and "first 5,000 and last 5,000 bytes" in d.message
    assert "measured" in d.message and f"lines {d.line}–" in d.message
    cc = [x.message for x in _codes(p, "claude-code").get("BODY010", [])]
    assert cc and all("not verified" in m for m in cc)  # the Skill tool itself delivers it whole
