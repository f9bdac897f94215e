"""``workbench listing``: text is exactly the model-visible listing; JSON per DESIGN.md section 3."""

from __future__ import annotations

import json
from pathlib import Path

from tests.helpers import write_skill
from workbench.cli import main
from workbench.core.discovery import scan
from workbench.core.listing import render_listing
from workbench.core.model import CLIENT_IDS, Environment


def _ws(tmp_path: Path) -> tuple[Path, Path]:
    ws = tmp_path / "ws"
    home = tmp_path / "home"
    home.mkdir()
    write_skill(ws / ".claude" / "skills" / "pdf", "pdf", "Fill PDF forms & more.")
    write_skill(ws / ".claude" / "skills" / "xlsx", "xlsx", "Spreadsheets.")
    return ws, home


def test_text_is_exactly_the_listing(tmp_path, capsys):
    ws, home = _ws(tmp_path)
    rc = main(
        ["listing", str(ws), "--home", str(home), "--client", "claude-code", "--context-tokens", "200000"]
    )
    out = capsys.readouterr().out
    assert rc == 0
    env = Environment(workspace=ws, home=home, context_tokens=200000)
    expected = render_listing(scan(env, "claude-code"), 200000).text
    assert out == expected + "\n"
    assert "- pdf: Fill PDF forms & more." in out


def test_json_shape(tmp_path, capsys):
    ws, home = _ws(tmp_path)
    write_skill(ws / "skills" / "pdf", "pdf", "Fill PDF forms & more.")  # OpenClaw's <ws>/skills
    write_skill(ws / "skills" / "xlsx", "xlsx", "Spreadsheets.")
    rc = main(["listing", str(ws), "--home", str(home), "--client", "openclaw", "--format", "json"])
    data = json.loads(capsys.readouterr().out)
    assert rc == 0
    assert set(data) == {
        "client",
        "context_tokens",
        "budget",
        "text",
        "skills",
        "warnings",
        "client_version",
        "model",
    }
    assert set(data["budget"]) == {"unit", "limit", "used"}
    assert {s["name"] for s in data["skills"]} == {"pdf", "xlsx"}
    assert set(data["skills"][0]) == {"name", "path", "state", "description_chars", "shown_chars"}
    assert "&amp;" in data["text"]  # OpenClaw escapes


def test_all_clients_and_options(tmp_path, capsys):
    ws, home = _ws(tmp_path)
    rc = main(
        [
            "listing",
            str(ws),
            "--home",
            str(home),
            "--client",
            "all",
            "--format",
            "json",
            "--listing-option",
            "skill_tool=false",
        ]
    )
    data = json.loads(capsys.readouterr().out)
    assert rc == 0 and len(data) == len(CLIENT_IDS)
    vs = [d for d in data if d["client"] == "vscode-copilot"][0]
    assert vs["budget"]["limit"] is None


def test_usage_errors(tmp_path, capsys):
    ws, home = _ws(tmp_path)
    assert main(["listing", str(ws), "--client", "nope"]) == 2
    assert main(["listing", str(ws), "--home", str(home)]) == 0  # default client: claude-code
    assert main(["listing", str(ws), "--format", "xml"]) == 2
    assert main(["listing", str(ws), "--listing-option", "novalue"]) == 2
    capsys.readouterr()


def test_acceptance_probe_wshobson_codex_32k(corpus, capsys):
    src = corpus / "wshobson-agents"
    rc = main(
        [
            "listing",
            str(src),
            "--root",
            str(src),
            "--client",
            "codex",
            "--context-tokens",
            "32000",
            "--format",
            "json",
        ]
    )
    data = json.loads(capsys.readouterr().out)
    assert rc == 0
    assert data["budget"]["used"] <= data["budget"]["limit"]
    assert not all(s["state"] == "full" for s in data["skills"])


def test_listing_fills_client_texts_from_a_capture(tmp_path):
    """``--client-texts`` puts captured built-in texts in place of the placeholders (issue 11)."""
    import json
    import subprocess
    import sys

    ws = tmp_path / "ws"
    (ws / ".claude/skills/alpha").mkdir(parents=True)
    (ws / ".claude/skills/alpha/SKILL.md").write_text("---\nname: alpha\ndescription: A.\n---\n")
    texts = tmp_path / "texts.json"
    texts.write_text(
        json.dumps(
            {
                "claude-code": {
                    "builtins": [{"name": "init", "description": "Synthetic init text."}],
                    "prose": {},
                }
            }
        )
    )
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "WORKBENCH_HOME": str(tmp_path / "wb")}
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "workbench",
            "listing",
            str(ws),
            "--home",
            str(tmp_path),
            "--client",
            "claude-code",
            "--client-texts",
            str(texts),
        ],
        capture_output=True,
        text=True,
        env=env,
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.rstrip("\n").endswith("- alpha: A.\n- init: Synthetic init text.")
    texts.write_text("{bad")
    bad = subprocess.run(
        [sys.executable, "-m", "workbench", "listing", str(ws), "--client-texts", str(texts)],
        capture_output=True,
        text=True,
        env=env,
    )
    assert bad.returncode == 2 and "texts.json:1:2: not JSON" in bad.stderr
