"""``workbench explain SKILL``: text and JSON, exit codes."""

from __future__ import annotations

import json

from tests.helpers import write_skill
from workbench.cli import main
from workbench.core.model import CLIENT_IDS


def test_explain_text_and_json(tmp_path, capsys):
    ws = tmp_path / "ws"
    home = tmp_path / "home"
    home.mkdir()
    write_skill(ws / ".claude" / "skills" / "pdf", "pdf", "Fill PDF forms.")
    rc = main(["explain", "pdf", str(ws), "--home", str(home), "--client", "claude-code"])
    out = capsys.readouterr().out
    assert rc == 0, out
    assert "== Claude Code (claude-code): pdf" in out and "Listed in full" in out
    rc = main(["explain", "pdf", str(ws), "--home", str(home), "--format", "json"])
    data = json.loads(capsys.readouterr().out)
    assert rc == 1  # some clients do not look in .claude/skills
    assert data["query"] == "pdf" and len(data["clients"]) == len(CLIENT_IDS)
    by = {c["client"]: c for c in data["clients"]}
    assert by["claude-code"]["listing_state"] == "full"
    assert by["gemini-cli"]["findings"][0]["level"] == "error"
    assert by["gemini-cli"]["findings"][0]["fix"].startswith("Move it to ")


def test_explain_usage_error(tmp_path, capsys):
    assert main(["explain", "pdf", str(tmp_path), "--client", "bogus"]) == 2
    capsys.readouterr()
