"""Issue 13 (core + CLI): statuses that say where a skill ends up, inputs and errors that say why.

Each test failed on main before the fix (see the numbered items of the issue).
"""

from __future__ import annotations

import json
import re

import pytest

from tests.helpers import write_skill
from workbench.cli import main
from workbench.core.model import CLIENT_IDS


def run(capsys, *argv):
    rc = main([*map(str, argv)])
    out, err = capsys.readouterr()
    return rc, out, err


def _many(tmp_path, n=120):
    ws = tmp_path / "coll"
    for i in range(n):
        write_skill(ws / f"s{i:03d}", f"s{i:03d}", "Use when " + "testing budgets carefully " * 8 + f"#{i}.")
    home = tmp_path / "home"
    home.mkdir()
    return ws, home


# -- item 2: "listed" must say where the skill ends up ----------------------------------------------


def test_scan_says_where_each_listed_skill_ends_up(capsys, tmp_path):
    ws, home = _many(tmp_path)
    rc, out, _ = run(
        capsys,
        "scan",
        ws,
        "--home",
        home,
        "--client",
        "codex",
        "--context-tokens",
        "32000",
        "--format",
        "json",
    )
    data = json.loads(out)
    assert rc == 0 and data["client_version"] == "0.169.0"
    states = {s["path"]: s["listing_state"] for s in data["skills"]}
    rc, out, _ = run(
        capsys,
        "listing",
        ws,
        "--home",
        home,
        "--client",
        "codex",
        "--context-tokens",
        "32000",
        "--format",
        "json",
    )
    listing = {s["path"]: s["state"] for s in json.loads(out)["skills"]}
    assert states == listing  # the same verdict as the listing itself
    assert "omitted" in states.values() and set(states.values()) <= {
        "full",
        "truncated",
        "name-only",
        "omitted",
    }
    rc, out, _ = run(capsys, "scan", ws, "--home", home, "--client", "codex", "--context-tokens", "32000")
    n_omitted = sum(1 for v in states.values() if v == "omitted")
    assert f"{n_omitted} omitted by budget" in out and "(listing at 32k)" in out
    assert "omitted by budget" in out.split("\n[", 2)[-1]  # the rows too, not just the counts
    assert not re.search(r"^ +listed {2,}", out, re.M)  # never a bare "listed"


def test_scan_json_has_client_version_and_listing_state_for_every_client(capsys, tmp_path):
    ws = tmp_path / "p"
    write_skill(ws / ".claude" / "skills" / "a", "a")
    write_skill(ws / ".claude" / "skills" / "b", "b", extra="disable-model-invocation: true")
    rc, out, _ = run(capsys, "scan", ws, "--home", tmp_path, "--client", "all", "--format", "json")
    for cid, cat in json.loads(out)["clients"].items():
        assert cat["client_version"], cid
        for s in cat["skills"]:
            assert (s["listing_state"] is None) == (s["status"] != "listed"), (cid, s)
    assert json.loads(out)["clients"]["cursor"]["client_version"] == "unverified"
    assert json.loads(out)["clients"]["agentskills"]["client_version"] == "spec"
    assert set(json.loads(out)["clients"]) == set(CLIENT_IDS)


# -- item 4: lint follows symlinked skill folders ---------------------------------------------------


def _linked(tmp_path):
    src = write_skill(tmp_path / "src" / "my-skill", "my-skill", "Use when checking symlinked skill folders.")
    (tmp_path / "skills").mkdir()
    (tmp_path / "skills" / "my-skill").symlink_to("../src/my-skill")
    (tmp_path / "skills" / "loop").symlink_to("..")  # a cycle: never entered twice
    return src


def test_lint_follows_symlinked_skill_folders(capsys, tmp_path, monkeypatch):
    monkeypatch.setenv("WORKBENCH_HOME", str(tmp_path / "wb"))
    _linked(tmp_path)
    rc, out, err = run(capsys, "lint", tmp_path / "skills", "--format", "json")
    data = json.loads(out)
    assert rc == 0 and data["summary"]["files"] == 1, data
    assert not [d for d in data["diagnostics"] if d["code"] == "STR002"]
    # the folder holding both the link and its target: the file counts once
    rc, out, err = run(capsys, "lint", tmp_path, "--format", "json")
    assert rc == 0 and json.loads(out)["summary"]["files"] == 1


def test_find_skill_files_dedupes_by_real_path(tmp_path):
    from workbench.core.skillwalk import find_skill_files

    _linked(tmp_path)
    assert find_skill_files(tmp_path / "skills") == [tmp_path / "skills" / "my-skill" / "SKILL.md"]
    assert find_skill_files(tmp_path) == [tmp_path / "skills" / "my-skill" / "SKILL.md"]


# -- item 5: the lint profile follows the location, and the client ----------------------------------

CC_SKILL = (
    "---\nname: x\ndescription: Use when testing Claude Code fields in lint.\n"
    "paths:\n  - src/**\ndisable-model-invocation: true\n---\n# Body\n"
)


def test_lint_infers_the_profile_from_the_root(capsys, tmp_path, monkeypatch):
    monkeypatch.setenv("WORKBENCH_HOME", str(tmp_path / "wb"))
    ws = tmp_path / "proj"
    write_skill(ws / ".claude" / "skills" / "x", raw=CC_SKILL)
    monkeypatch.chdir(ws)
    rc, out, err = run(capsys, "lint", ".claude/skills")
    assert rc == 0 and "FLD001" not in out, out
    assert "profile claude-code, inferred from .claude/skills" in err
    rc, out, err = run(capsys, "lint", ".claude/skills", "--profile", "agentskills")
    assert rc == 1 and "FLD001" in out  # an explicit profile wins
    write_skill(ws / "other" / "y", "y", "Use when testing the default lint profile.")
    rc, out, err = run(capsys, "lint", ".", "--format", "json")
    data = json.loads(out)
    assert rc == 0 and data["profile"] == "mixed" and data["summary"]["files"] == 2
    assert "1 file: profile claude-code" in run(capsys, "lint", ".")[2]


def test_profile_for_location():
    from workbench.core.lint.profiles import profile_for_location

    assert profile_for_location("/p/.claude/skills/x/SKILL.md") == ("claude-code", ".claude/skills")
    assert profile_for_location("/h/.config/x/.github/skills") == ("vscode-copilot", ".github/skills")
    assert profile_for_location("/p/.opencode/skill/a/SKILL.md") == ("opencode", ".opencode/skill")
    assert profile_for_location("/p/.agents/skills/x/SKILL.md") is None  # shared by many clients
    assert profile_for_location("/p/.github/workflows/x") is None


BAD_YAML = "---\nname: pdf-tools\ndescription: Use when: the user asks to read a PDF\n---\n# B\n"


def test_client_profile_severity_follows_the_client(tmp_path):
    """FM003 was an error under --profile gemini-cli although Gemini CLI loads the file through its
    line parser; the same for every client profile and for FM004 (tabs)."""
    from workbench.core.lint import lint_file

    f = write_skill(tmp_path / "pdf-tools", raw=BAD_YAML)
    sev = {
        p: [d.severity for d in lint_file(f, profile=p) if d.code == "FM003"]
        for p in ("gemini-cli", "openclaw", "claude-code", "codex", "opencode", "agentskills")
    }
    # Claude Code, Codex and OpenCode retry with the value quoted (lab-checked); the spec rejects it
    assert sev == {
        "gemini-cli": ["warning"],
        "openclaw": ["warning"],
        "claude-code": ["warning"],
        "codex": ["warning"],
        "opencode": ["warning"],
        "agentskills": ["error"],
    }
    msg = next(d.message for d in lint_file(f, profile="gemini-cli") if d.code == "FM003")
    assert "Gemini CLI still loads it through its line parser" in msg
    assert "GitHub Copilot CLI skips the skill" in next(
        d.message for d in lint_file(f, profile="copilot-cli") if d.code == "FM003"
    )
    tabs = write_skill(
        tmp_path / "t", raw="---\nname: t\ndescription: Use when tabs.\nmetadata:\n\tauthor: me\n---\n"
    )
    assert {d.severity for d in lint_file(tabs, profile="gemini-cli") if d.code == "FM004"} == {"warning"}
    assert {d.severity for d in lint_file(tabs, profile="codex") if d.code == "FM004"} == {"error"}


# -- item 7: workshop actions treat the workspace the same way --------------------------------------


def test_workshop_show_id_finds_its_workspace(capsys, tmp_path, monkeypatch):
    monkeypatch.setenv("WORKBENCH_HOME", str(tmp_path / "wb"))
    ws = tmp_path / "proj"
    skill = write_skill(ws / ".claude" / "skills" / "alpha", "alpha", "Use when alpha.")
    new = tmp_path / "new.md"
    new.write_text(skill.read_text() + "\nMore.\n")
    rc, out, err = run(
        capsys, "workshop", "propose-update", ws, "alpha", "--proposal", new, "--format", "json"
    )
    assert rc == 0, err
    pid = json.loads(out)["id"]
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    rc, out, err = run(capsys, "workshop", "show", pid, "--format", "json")  # README: `workshop show ID`
    assert rc == 0 and json.loads(out)["id"] == pid and f"is in the queue of {ws}" in err
    for argv in (
        ["workshop", "show", pid, ws],
        ["workshop", "--workspace", ws, "show", pid],
        ["workshop", "show", pid, "--workspace", ws],
        ["workshop", "list", ws],
    ):
        rc, out, err = run(capsys, *argv)
        assert rc == 0 and pid in out, (argv, err)
    rc, out, err = run(capsys, "workshop", "show", pid, ws, "--workspace", elsewhere)
    assert rc == 2 and "two workspaces" in err


# -- item 9: inputs are checked ---------------------------------------------------------------------


def test_missing_folders_are_usage_errors(capsys, tmp_path):
    ws = tmp_path / "ws"
    write_skill(ws / ".claude" / "skills" / "a", "a")
    for cmd in (["scan"], ["listing"], ["explain", "a"]):
        for opt in ("--home", "--cwd", "--root"):
            rc, out, err = run(capsys, *cmd, ws, opt, tmp_path / "nope")
            assert rc == 2 and f"{opt} {tmp_path / 'nope'}: no such folder" in err, (cmd, opt, rc, err)
    readme = tmp_path / "README.md"
    readme.write_text("x")
    rc, out, err = run(capsys, "scan", readme)
    assert rc == 2 and "not a folder" in err and str(tmp_path) in err
    rc, out, err = run(capsys, readme)  # the window: before any Qt
    assert rc == 2 and "not a folder" in err


def test_an_empty_folder_says_so(capsys, tmp_path):
    (tmp_path / "empty").mkdir()
    (tmp_path / "home").mkdir()
    rc, out, err = run(capsys, "scan", tmp_path / "empty", "--home", tmp_path / "home", "--format", "json")
    assert rc == 0 and any("No SKILL.md in" in n for n in json.loads(out)["notes"])


# -- item 12: subcommands show only the options that apply ------------------------------------------


def test_options_that_do_not_apply_are_not_offered(capsys):
    for cmd, absent in (
        ("lint", "--home"),
        ("lint", "--context-tokens"),
        ("bench", "--client"),
        ("workshop", "--untrusted"),
    ):
        with pytest.raises(SystemExit):
            main([cmd, "--help"])
        assert absent not in capsys.readouterr().out, (cmd, absent)
    with pytest.raises(SystemExit) as exc:
        main(["lint", "--home", "/x"])
    assert exc.value.code == 2 and "unrecognized arguments: --home" in capsys.readouterr().err


# -- item 12: wording ------------------------------------------------------------------------------


def test_no_count_is_followed_by_a_noun_with_s_in_parentheses():
    """ "1 errors", "skill(s)": counts use ``workbench.core.text.plural`` (the whole kind: every
    f-string in the package)."""
    from pathlib import Path

    pkg = Path(__file__).resolve().parents[1] / "workbench"
    bad = []
    for f in pkg.rglob("*.py"):
        for n, line in enumerate(f.read_text(encoding="utf-8").splitlines(), 1):
            if re.search(r"\{[^{}]*\}[^\"'{}]{0,30}[a-z]\(s\)", line):
                bad.append(f"{f.relative_to(pkg)}:{n}: {line.strip()}")
    assert not bad, "\n".join(bad)


def test_claude_code_budget_warning_at_a_tiny_context(capsys, tmp_path):
    ws = tmp_path / "p"
    write_skill(ws / ".claude" / "skills" / "a", "a", "Use when " + "x " * 200)
    rc, out, err = run(capsys, "listing", ws, "--home", tmp_path, "--context-tokens", "1", "--format", "json")
    w = " ".join(json.loads(out)["warnings"])
    # the Claude Code 2.1.328 model (lab-checked) words it per dropped description; no "5050.0%"
    assert "1 of your descriptions dropped" in w and "budget at 1 is 1" in w, w
    assert "5050" not in w and "%" not in w


def test_chat_warns_about_an_empty_listing_and_no_request_none(capsys, tmp_path, monkeypatch):
    from tests.fakeapi import FakeAPI

    monkeypatch.setenv("WORKBENCH_HOME", str(tmp_path / "wb"))
    monkeypatch.setenv("ANTHROPIC_API_KEY", "k")
    (tmp_path / "empty").mkdir()
    with FakeAPI() as fake:
        rc, out, err = run(
            capsys, "chat", "hi", tmp_path / "empty", "--home", tmp_path / "empty", "--base-url", fake.url
        )
    assert rc == 0, err
    assert "lists no skill" in err and "empty listing" in err
    assert "request None" not in out


def test_base_url_ending_in_v1_is_named(capsys, tmp_path, monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", "k")
    rc, out, err = run(capsys, "chat", "hi", tmp_path, "--base-url", "http://127.0.0.1:9/v1")
    assert rc == 2 and "ends in /v1" in err and "http://127.0.0.1:9" in err
    from workbench.core.chat.errors import base_url_problem

    assert base_url_problem("http://h:1/v1/") and not base_url_problem("http://h:1/api")


def test_base_url_v1_404_says_why(tmp_path):
    """Through ANTHROPIC_BASE_URL (no CLI check) the server's 404 read as "unknown model id"."""
    from tests.fakeapi import FakeAPI
    from workbench.core.chat.engine import ChatSession
    from workbench.core.chat.settings import ChatSettings
    from workbench.core.discovery import scan
    from workbench.core.model import Environment

    cat = scan(Environment(workspace=tmp_path, home=tmp_path, env={}, bins=set()), "claude-code")
    with FakeAPI() as fake:
        with ChatSession(cat, settings=ChatSettings(base_url=fake.url + "/v1"), api_key="k") as session:
            res = session.send("hi")
    assert res.error is not None and res.error.kind == "not-found"
    assert "ends in /v1" in res.error.message, res.error.message


def test_eval_against_an_unreachable_server_says_why(capsys, tmp_path, monkeypatch):
    monkeypatch.setenv("WORKBENCH_HOME", str(tmp_path / "wb"))
    monkeypatch.setenv("ANTHROPIC_API_KEY", "k")
    ws = tmp_path / "p"
    write_skill(ws / ".claude" / "skills" / "a", "a", "Use when testing evals.")
    q = tmp_path / "q.json"
    q.write_text(json.dumps([{"query": f"q{i}", "should_trigger": i % 2 == 0} for i in range(6)]))
    rc, out, err = run(
        capsys,
        "eval",
        ws,
        "--home",
        tmp_path,
        "--skill",
        "a",
        "--queries",
        q,
        "--base-url",
        "http://127.0.0.1:9",
        "--runs",
        "2",
    )
    assert rc == 1
    assert "Cannot reach http://127.0.0.1:9" in err
    assert "(connection)" in out  # each ERR line says which kind of error


def test_help_has_no_raw_backticks_and_lists_views(capsys):
    from workbench.cli import COMMANDS

    for cmd in COMMANDS:
        with pytest.raises(SystemExit):
            main([cmd, "--help"])
        out = capsys.readouterr().out
        assert "`" not in out, (cmd, [ln for ln in out.splitlines() if "`" in ln])
    with pytest.raises(SystemExit):
        main(["x", "--help"])  # the window's options
    assert "listing, explain, shadowing" in " ".join(capsys.readouterr().out.split())
    with pytest.raises(SystemExit) as exc:
        main(["x", "--screenshot", "a.png", "--view", "nope"])
    assert exc.value.code == 2


def test_bom_severity_follows_the_client(tmp_path):
    from workbench.core.lint import lint_file

    f = tmp_path / "pdf-tools" / "SKILL.md"
    f.parent.mkdir()
    f.write_text(
        "\ufeff---\nname: pdf-tools\ndescription: Use when reading a PDF.\n---\n# B\n", encoding="utf-8"
    )
    sev = {
        p: {d.severity for d in lint_file(f, profile=p) if d.code == "FM008"}
        for p in ("openclaw", "opencode", "vscode-copilot", "gemini-cli", "codex", "agentskills")
    }
    assert sev == {
        "openclaw": {"warning"},
        "opencode": {"warning"},
        "vscode-copilot": {"warning"},
        "gemini-cli": {"error"},
        "codex": {"error"},
        "agentskills": {"error"},
    }
