"""Capture's HOME overlay (the user's skills seen, config secrets never read, nothing written back)
and ``workbench capture`` errors (clear message, exit 1 or 2, never a hang)."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from workbench.core.capture.overlay import OVERLAYS, make_overlay


@pytest.fixture()
def real_home(tmp_path: Path) -> Path:
    h = tmp_path / "realhome"
    (h / ".claude/skills/mine").mkdir(parents=True)
    (h / ".claude/skills/mine/SKILL.md").write_text("---\nname: mine\ndescription: x\n---\n")
    (h / ".claude/projects").mkdir()
    (h / ".claude/.credentials.json").write_text('{"token": "SECRET"}')
    (h / ".claude/settings.json").write_text(
        json.dumps(
            {
                "env": {
                    "ANTHROPIC_BASE_URL": "https://elsewhere.example",
                    "ANTHROPIC_API_KEY": "SECRET",
                    "FOO": "1",
                },
                "apiKeyHelper": "cat /secret",
                "permissions": {"allow": []},
            }
        )
    )
    (h / ".claude.json").write_text('{"oauthAccount": "SECRET"}')
    (h / ".config/opencode").mkdir(parents=True)
    (h / ".config/opencode/opencode.json").write_text('{"provider": {"x": {"apiKey": "SECRET"}}}')
    (h / ".config/other").mkdir()
    (h / ".codex").mkdir()
    (h / ".codex/auth.json").write_text('{"OPENAI_API_KEY": "SECRET"}')
    (h / ".bashrc").write_text("# rc\n")
    (h / "code").mkdir()
    return h


def _snapshot(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in root.rglob("*") if p.is_file()}


def test_overlay_links_skills_copies_sanitised_settings_and_hides_secrets(real_home, tmp_path):
    before = _snapshot(real_home)
    dest = tmp_path / "overlay"
    make_overlay(real_home, "claude-code", dest)
    assert (dest / ".claude/skills/mine/SKILL.md").exists() and (dest / ".claude/skills").is_symlink()
    assert not (dest / ".claude/.credentials.json").exists() and not (dest / ".claude.json").exists()
    assert not (dest / ".claude/projects").exists()
    settings = json.loads((dest / ".claude/settings.json").read_text())
    assert settings["env"] == {"FOO": "1"} and "apiKeyHelper" not in settings
    assert (dest / "code").is_symlink() and (dest / ".bashrc").read_text() == "# rc\n"
    assert not (dest / ".cache").is_symlink()
    # a client writing its config in the overlay never reaches the user's files
    (dest / ".claude/settings.json").write_text("{}")
    (dest / ".claude/new.json").write_text("{}")
    assert _snapshot(real_home) == before
    assert "SECRET" not in "".join(
        p.read_text(errors="ignore")
        for p in dest.rglob("*")
        if p.is_file() and not p.is_symlink() and ".claude/skills" not in str(p)
    )


def test_overlay_makes_nested_config_real_and_keeps_siblings(real_home, tmp_path):
    dest = tmp_path / "overlay"
    make_overlay(real_home, "opencode", dest)
    assert not (dest / ".config").is_symlink() and (dest / ".config/other").is_symlink()
    cfg = dest / ".config/opencode"
    assert cfg.is_dir() and not cfg.is_symlink() and not (cfg / "opencode.json").exists()
    (cfg / "opencode.json").write_text("{}")  # what the runner's prepare does
    assert "SECRET" in (real_home / ".config/opencode/opencode.json").read_text()


def test_every_runnable_client_has_an_overlay():
    from workbench.core.capture import RUNNABLE_CLIENTS

    assert set(RUNNABLE_CLIENTS) <= set(OVERLAYS)


def _cli(*args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    e = dict(os.environ, **(env or {}))
    return subprocess.run(
        [sys.executable, "-m", "workbench", "capture", *args],
        capture_output=True,
        text=True,
        timeout=120,
        env=e,
    )


def _fake_bin(tmp_path: Path, body: str) -> Path:
    p = tmp_path / "fakeclient"
    p.write_text("#!/bin/sh\n" + body)
    p.chmod(p.stat().st_mode | stat.S_IEXEC)
    return p


def test_cli_errors_are_clear(tmp_path, monkeypatch):
    monkeypatch.setenv("WORKBENCH_HOME", str(tmp_path / "wb"))
    ws = tmp_path / "ws"
    ws.mkdir()
    r = _cli(str(ws), "--client", "claude-code", "--bin", str(tmp_path / "nope"))
    assert r.returncode == 2 and "no such file" in r.stderr
    r = _cli(str(ws), "--client", "cursor")
    assert r.returncode == 2 and "invalid choice" in r.stderr
    r = _cli(str(ws), "--client", "claude-code", env={"PATH": "/nonexistent"})
    assert r.returncode == 2 and "not installed" in r.stderr and "--bin" in r.stderr
    # exits non-zero at once
    bad = _fake_bin(
        tmp_path, 'case "$1" in --version) echo 9.9.9;; *) echo "boom: no config" >&2; exit 3;; esac\n'
    )
    r = _cli(str(ws), "--client", "claude-code", "--bin", str(bad), "--home", str(tmp_path))
    assert r.returncode == 1 and "exited with code 3" in r.stderr and "boom" in r.stderr
    # never sends anything: stopped at the timeout, exit 1
    slow = _fake_bin(tmp_path, 'case "$1" in --version) echo 9.9.9;; *) sleep 30;; esac\n')
    r = _cli(
        str(ws), "--client", "claude-code", "--bin", str(slow), "--timeout", "2", "--home", str(tmp_path)
    )
    assert r.returncode == 1 and "within 2 s" in r.stderr
