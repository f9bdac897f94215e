"""Command-line faults found by trying the product as a new user (QA pass); each failed before."""

from __future__ import annotations

import json

from tests.helpers import write_skill
from workbench.cli import main


def run(capsys, *argv):
    rc = main([*map(str, argv)])
    out, err = capsys.readouterr()
    return rc, out, err


def _openclaw_layout(tmp_path):
    """Like a clone of github.com/anthropics/skills: skills/<name>/SKILL.md (OpenClaw's root)."""
    ws, home = tmp_path / "repo", tmp_path / "home"
    write_skill(ws / "skills" / "alpha", "alpha", "Use when alpha.")
    write_skill(ws / "skills" / "beta", "beta", "Use when beta.")
    home.mkdir()
    return ws, home


def test_scan_opens_a_collection_for_every_client(capsys, tmp_path):
    """Issue 13 item 1: `workbench scan anthropics-skills` listed 0 skills for Claude Code (its
    top-level skills/ is OpenClaw's root only). A folder of skills is shown as if installed where
    each client looks, with one note saying so; --as project shows it as a project."""
    ws, home = _openclaw_layout(tmp_path)
    rc, out, _ = run(capsys, "scan", ws, "--home", home, "--client", "all", "--format", "json")
    got = json.loads(out)["clients"]
    for cid, cat in got.items():
        listed = sorted(s["name"] for s in cat["skills"] if s["status"] == "listed")
        assert listed == ["alpha", "beta"], (cid, cat["skills"])
        assert len(cat["skills"]) == 2, cid  # OpenClaw: not twice (skills/ and the extra root)
        assert "as a collection" in cat["notes"][0] and "--as project" in cat["notes"][0]
    rc, out, _ = run(capsys, "scan", ws, "--home", home)
    assert rc == 0 and "2 listed in full" in out and "Showing repo as a collection" in out


def test_scan_as_project_says_which_client_finds_the_skills(capsys, tmp_path):
    """`workbench scan` printed a bare "no skills found" for Claude Code on such a repository."""
    ws, home = _openclaw_layout(tmp_path)
    rc, out, _ = run(capsys, "scan", ws, "--home", home, "--as", "project")
    assert rc == 0 and "no skills found" in out
    assert "OpenClaw finds 2 skills under ./skills" in out
    assert "--as collection" in out
    rc, out, _ = run(capsys, "scan", ws, "--home", home, "--format", "json", "--no-workspace-root")
    notes = json.loads(out)["notes"]
    assert any("OpenClaw finds 2 skills" in n for n in notes)
    # the client that does find them gets no such note
    rc, out, _ = run(
        capsys, "scan", ws, "--home", home, "--client", "openclaw", "--format", "json", "--as", "project"
    )
    assert not any("finds no SKILL.md" in n for n in json.loads(out)["notes"])


def test_listing_explains_an_empty_listing(capsys, tmp_path):
    """`workbench listing` printed nothing at all (stdout and stderr empty) in the same case."""
    ws, home = _openclaw_layout(tmp_path)
    rc, out, err = run(capsys, "listing", ws, "--home", home, "--as", "project")
    # stdout stays exactly the model-visible text: Claude Code 2.1.328's own skills only (lab)
    assert rc == 0 and out.startswith("The following skills are available for use with the Skill")
    assert "⟦Claude Code 2.1.328 built-in 'init', 59 chars⟧" in out and "alpha" not in out
    assert "claude-code: Claude Code finds no SKILL.md here; OpenClaw finds 2 skills" in err
    rc, out, err = run(capsys, "listing", ws, "--home", home)
    assert rc == 0 and "alpha" in out and "as a collection" in err


def test_listing_says_when_nothing_is_listed(capsys, tmp_path):
    ws, home = tmp_path / "ws", tmp_path / "home"
    write_skill(
        ws / ".claude" / "skills" / "alpha",
        "alpha",
        "Use when alpha.",
        extra="disable-model-invocation: true\n",
    )
    home.mkdir()
    rc, out, err = run(capsys, "listing", ws, "--home", home)
    assert rc == 0 and "- alpha" not in out
    assert "no skill is listed, so Claude Code lists only its own built-in skills" in err
    assert "1 hidden" in err


def test_chat_rejects_empty_message_and_bad_base_url(capsys, tmp_path, monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", "dummy")
    monkeypatch.setenv("WORKBENCH_HOME", str(tmp_path / "wbhome"))
    rc, out, err = run(capsys, "chat", "   ", tmp_path, "--base-url", "http://127.0.0.1:9")
    assert rc == 2 and "MESSAGE is empty" in err and out == ""
    for bad in ("notaurl", "localhost:11434", "ftp://x"):
        rc, out, err = run(capsys, "chat", "hi", tmp_path, "--base-url", bad)
        assert rc == 2 and "--base-url" in err and "http://" in err and out == "", (bad, rc, err)


def test_eval_rejects_bad_base_url(capsys, tmp_path, monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", "dummy")
    q = tmp_path / "q.json"
    q.write_text('[{"query": "x", "should_trigger": true}]')
    rc, out, err = run(capsys, "eval", tmp_path, "--skill", "a", "--queries", q, "--base-url", "notaurl")
    assert rc == 2 and "--base-url 'notaurl'" in err
