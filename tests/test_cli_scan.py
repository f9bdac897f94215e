"""``workbench scan``: JSON contract, --client all, text table, usage errors."""

from __future__ import annotations

import json

from tests.helpers import write_skill
from workbench.cli import main
from workbench.core.demo import demo_dir
from workbench.core.model import CLIENT_IDS


def run(capsys, *argv):
    rc = main(["scan", *map(str, argv)])
    out, err = capsys.readouterr()
    return rc, out, err


def test_scan_json_contract(capsys, tmp_path):
    ws, home = tmp_path / "ws", tmp_path / "home"
    write_skill(home / ".claude/skills/a", "a")
    write_skill(ws / ".claude/skills/a", "a")
    ws.mkdir(exist_ok=True)
    rc, out, _ = run(capsys, ws, "--home", home, "--format", "json")
    assert rc == 0
    d = json.loads(out)
    assert d["client"] == "claude-code" and d["workspace"] == str(ws) and d["home"] == str(home)
    assert all({"path", "scope", "precedence", "exists"} <= set(r) for r in d["roots"])
    sk = {s["path"]: s for s in d["skills"]}
    lost = sk[str(ws / ".claude/skills/a/SKILL.md")]
    assert lost["status"] == "shadowed" and lost["shadowed_by"] == str(home / ".claude/skills/a/SKILL.md")
    for s in d["skills"]:
        assert {"name", "path", "root", "scope", "status", "reason", "shadowed_by", "description"} <= set(s)


def test_scan_all_json(capsys):
    demo = demo_dir()
    rc, out, _ = run(
        capsys,
        demo / "workspace",
        "--home",
        demo / "home",
        "--client",
        "all",
        "--format",
        "json",
        "--bin",
        "curl",
    )
    assert rc == 0
    d = json.loads(out)
    assert list(d["clients"]) == list(CLIENT_IDS)
    assert all(c["skills"] for c in d["clients"].values())


def test_scan_text_groups_by_root(capsys):
    demo = demo_dir()
    rc, out, _ = run(capsys, demo / "workspace", "--home", demo / "home", "--client", "claude-code")
    assert rc == 0
    assert out.index("personal") < out.index("project (.claude/skills)")
    assert "shadowed" in out and "code-review" in out


def test_scan_workspace_of_skills_becomes_extra_root(capsys, corpus):
    src = corpus / "anthropics-skills" / "skills"
    rc, out, _ = run(capsys, src, "--client", "agentskills", "--format", "json")
    d = json.loads(out)
    assert rc == 0 and len(d["skills"]) >= 12 and d["notes"]
    rc, out, _ = run(capsys, src, "--root", src, "--client", "agentskills", "--format", "json")
    assert len(json.loads(out)["skills"]) == 12


def test_scan_usage_errors(capsys, tmp_path):
    missing = tmp_path / "nope"
    for argv in (
        [missing],
        [tmp_path, "--home", missing],
        [tmp_path, "--root", missing],
        [tmp_path, "--client", "emacs"],
        [tmp_path, "--format", "xml"],
    ):
        rc, out, err = run(capsys, *argv)
        assert rc == 2, argv
        assert err.startswith("workbench: ")
    rc, _, err = run(capsys, missing)
    assert str(missing) in err
