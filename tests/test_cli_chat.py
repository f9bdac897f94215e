"""``workbench chat`` end to end: a subprocess against the fake server (ANTHROPIC_BASE_URL + a
dummy key)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from tests.fakeapi import fake_api, tool_call  # noqa: F401  (fixture)
from tests.helpers import write_skill

REPO = Path(__file__).resolve().parents[1]


def _run(args, tmp_path, extra_env=None):
    env = {k: v for k, v in os.environ.items() if not k.startswith("ANTHROPIC_")}
    env.update(
        {"WORKBENCH_HOME": str(tmp_path / "wbhome"), "WORKBENCH_NO_KEYRING": "1", "PYTHONPATH": str(REPO)}
    )
    env.update(extra_env or {})
    return subprocess.run(
        [sys.executable, "-m", "workbench", "chat", *args],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        timeout=120,
    )


def _workspace(tmp_path):
    ws = tmp_path / "ws"
    write_skill(ws / ".claude" / "skills" / "pdf", "pdf", "Use for PDF files.", body="# PDF\nSteps.\n")
    home = tmp_path / "home"
    home.mkdir()
    return ws, home


def test_cli_chat_json(fake_api, tmp_path):
    ws, home = _workspace(tmp_path)
    fake_api.on("pdf", tool_call("Skill", {"skill": "pdf"}))
    r = _run(
        ["fill the pdf", str(ws), "--home", str(home), "--format", "json", "--model", "fake-1"],
        tmp_path,
        {"ANTHROPIC_BASE_URL": fake_api.url, "ANTHROPIC_API_KEY": "dummy"},
    )
    assert r.returncode == 0, r.stderr
    d = json.loads(r.stdout)
    assert d["client"] == "claude-code" and d["model"] == "fake-1"
    assert d["triggered"] == ["pdf"] and d["stop_reason"] == "end_turn"
    assert set(d["usage"]) == {
        "input_tokens",
        "output_tokens",
        "cache_read_input_tokens",
        "cache_creation_input_tokens",
    }
    assert [e["type"] for e in d["events"]][0] == "listing"
    assert fake_api.message_requests[0].body["model"] == "fake-1"
    assert "dummy" not in r.stdout


def test_cli_chat_text_and_base_url_flag(fake_api, tmp_path):
    ws, home = _workspace(tmp_path)
    r = _run(
        ["hello", str(ws), "--home", str(home), "--base-url", fake_api.url, "--max-turns", "2"],
        tmp_path,
        {"ANTHROPIC_API_KEY": "dummy"},
    )
    assert r.returncode == 0, r.stderr
    assert "assistant: OK" in r.stdout and "stop_reason: end_turn" in r.stdout


def test_cli_chat_without_key_says_what_to_set(tmp_path):
    ws, home = _workspace(tmp_path)
    r = _run(["hello", str(ws), "--home", str(home)], tmp_path)
    assert r.returncode == 2
    assert "ANTHROPIC_API_KEY" in r.stderr and "Traceback" not in r.stderr


def test_cli_chat_server_error_is_a_message(fake_api, tmp_path):
    ws, home = _workspace(tmp_path)
    fake_api.fail(401)
    r = _run(
        ["hello", str(ws), "--home", str(home), "--format", "json"],
        tmp_path,
        {"ANTHROPIC_BASE_URL": fake_api.url, "ANTHROPIC_API_KEY": "bad"},
    )
    assert r.returncode == 1
    assert "Key rejected" in r.stderr and "Traceback" not in r.stderr
    assert json.loads(r.stdout)["events"][-1]["kind"] == "auth"


def test_cli_chat_bad_option(tmp_path):
    ws, home = _workspace(tmp_path)
    r = _run(["hello", str(ws), "--max-turns", "0"], tmp_path, {"ANTHROPIC_API_KEY": "x"})
    assert r.returncode == 2 and "--max-turns" in r.stderr
