"""End-to-end tests of ``workbench lint`` (DESIGN.md section 3)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from workbench.cli import main

REPO = Path(__file__).resolve().parents[1]
PROBE = "---\nname: Demo_Skill\ndescription: Use when: the user asks for a demo\n---\n# Demo\n"
GOOD = "---\nname: {n}\ndescription: Extracts text from PDF files. Use when the user asks to read a PDF.\n---\n# x\n"


def skill(root: Path, name: str, text: str | None = None) -> Path:
    d = root / name
    d.mkdir(parents=True, exist_ok=True)
    (d / "SKILL.md").write_text(text if text is not None else GOOD.format(n=name), encoding="utf-8")
    return d


def run(capsys, *argv):
    rc = main(["lint", *map(str, argv)])
    out, err = capsys.readouterr()
    return rc, out, err


def test_acceptance_probe_subprocess(tmp_path):
    d = skill(tmp_path, "demo-skill", PROBE)
    p = subprocess.run(
        [sys.executable, "-m", "workbench", "lint", str(d), "--format", "json"],
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=120,
    )
    assert p.returncode == 1, p.stderr
    data = json.loads(p.stdout)
    diags = data["diagnostics"]
    assert diags
    for x in diags:
        for k in ("path", "line", "column", "end_line", "end_column", "severity", "code", "message"):
            assert k in x
    errs = [x for x in diags if x["severity"] == "error"]
    assert errs and all(x["line"] >= 2 for x in errs)
    assert data["summary"] == {
        "files": 1,
        "errors": len(errs),
        "warnings": sum(x["severity"] == "warning" for x in diags),
        "infos": sum(x["severity"] == "info" for x in diags),
    }


def test_text_format_and_exit_codes(tmp_path, capsys):
    good = skill(tmp_path, "pdf-tools")
    rc, out, err = run(capsys, good)
    assert rc == 0 and out == "" and "1 file: 0 errors" in err
    bad = skill(tmp_path, "demo-skill", PROBE)
    rc, out, _ = run(capsys, bad)
    assert rc == 1
    first = out.splitlines()[0]
    assert first.startswith(f"{bad / 'SKILL.md'}:2:7: error NAME003 ")


def test_warnings_only_exit_zero(tmp_path, capsys):
    d = skill(
        tmp_path,
        "pdf-tools",
        GOOD.format(n="pdf-tools").replace("Use when the user asks to read a PDF.", "Reads them."),
    )
    rc, out, _ = run(capsys, d)
    assert rc == 0 and "warning DESC004" in out


def test_usage_errors(tmp_path, capsys):
    rc, _, err = run(capsys, tmp_path / "missing")
    assert rc == 2 and "missing" in err
    rc, _, err = run(capsys, tmp_path, "--format", "xml")
    assert rc == 2 and "--format" in err
    with pytest.raises(SystemExit) as e:
        main(["lint", str(tmp_path), "--profile", "nope"])
    assert e.value.code == 2
    rc, _, err = run(capsys, tmp_path, "--client", "nope")
    assert rc == 2


def test_folder_without_skill_is_an_error(tmp_path, capsys):
    rc, out, _ = run(capsys, tmp_path)
    assert rc == 1 and "STR002" in out


def test_profile_selection(tmp_path, capsys):
    d = skill(tmp_path, "pdf-tools", GOOD.format(n="pdf-tools").replace("---\n# x", "model: opus\n---\n# x"))
    rc, out, _ = run(capsys, d)  # agentskills: unknown field -> error
    assert rc == 1 and "FLD001" in out
    rc, out, _ = run(capsys, d, "--client", "claude-code")  # --client selects the profile
    assert rc == 0 and "FLD001" not in out
    rc, out, _ = run(capsys, d, "--client", "claude-code", "--profile", "agentskills")  # --profile wins
    assert rc == 1


def test_ascii_names_flag(tmp_path, capsys):
    d = skill(tmp_path, "café")
    assert run(capsys, d)[0] == 0
    rc, out, _ = run(capsys, d, "--ascii-names")
    assert rc == 1 and "NAME004" in out


def test_walks_directories(tmp_path, capsys):
    skill(tmp_path, "a")
    skill(tmp_path / "group", "b")
    skill(tmp_path / "node_modules", "c", PROBE)
    skill(tmp_path / ".git", "d", PROBE)
    rc, out, err = run(capsys, tmp_path, "--format", "json")
    data = json.loads(out)
    assert rc == 0 and data["summary"]["files"] == 2


def test_json_and_duplicate_names_across_paths(tmp_path, capsys):
    a = skill(tmp_path / "x", "pdf-tools")
    b = skill(tmp_path / "y", "pdf-tools")
    rc, out, _ = run(capsys, a, b, "--format", "json")
    data = json.loads(out)
    assert {x["code"] for x in data["diagnostics"]} >= {"CAT001", "DESC009"}
    assert data["summary"]["files"] == 2


def test_sarif(tmp_path, capsys):
    d = skill(tmp_path, "demo-skill", PROBE)
    rc, out, _ = run(capsys, d, "--format", "sarif")
    assert rc == 1
    log = json.loads(out)
    assert log["version"] == "2.1.0" and log["$schema"].endswith("sarif-2.1.0.json")
    (run_,) = log["runs"]
    rules = run_["tool"]["driver"]["rules"]
    assert run_["tool"]["driver"]["name"] == "workbench" and rules
    for r in run_["results"]:
        assert rules[r["ruleIndex"]]["id"] == r["ruleId"]
        assert r["level"] in ("error", "warning", "note", "none")
        region = r["locations"][0]["physicalLocation"]["region"]
        assert region["startLine"] >= 1 and region["startColumn"] >= 1
        assert r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
        assert r["message"]["text"]


def test_github_format(tmp_path, capsys):
    d = skill(tmp_path, "demo-skill", PROBE)
    rc, out, _ = run(capsys, d, "--format", "github")
    lines = out.splitlines()
    assert rc == 1 and lines
    assert all(ln.startswith(("::error file=", "::warning file=", "::notice file=")) for ln in lines)
    assert any(",line=2,col=7," in ln and "title=NAME003::" in ln for ln in lines)


def test_github_escaping():
    from workbench.commands.lint_formats import github_line
    from workbench.core.lint import Diagnostic

    ln = github_line(Path("a,b:c/SKILL.md"), Diagnostic(1, 1, 1, 2, "info", "X", "50% done\nnext"))
    assert (
        ln == "::notice file=a%2Cb%3Ac/SKILL.md,line=1,col=1,endLine=1,endColumn=2,title=X::50%25 done%0Anext"
    )


def test_pre_commit_hook_definition():
    hooks = yaml.safe_load((REPO / ".pre-commit-hooks.yaml").read_text())
    (h,) = [h for h in hooks if h["id"] == "workbench-lint"]
    assert h["entry"] == "workbench lint" and h["files"] == r"SKILL\.md$"


def test_is_skill_md_equals_the_basename_test():
    """The report's file count tests each path's name with ``_is_skill_md`` (a slice, not
    ``os.path.basename``): the same answer on every shape of path."""
    import os

    from workbench.commands.lint import _is_skill_md

    for p in [
        "/a/SKILL.md",
        "/a/skill.MD",
        "SKILL.md",
        "skill.md",
        "/a/xSKILL.md",
        "/SKILL.md",
        "a/b",
        "/a/notSKILL.md",
        "x/Skill.Md",
        "",
        "/",
        "rel/SKILL.md",
        "/a/SKILL.md.bak",
    ]:
        assert _is_skill_md(p) == (os.path.basename(p).lower() == "skill.md"), p
