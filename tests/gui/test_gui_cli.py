"""End-to-end through the command line (subprocesses): ``--version`` without a display and
``--screenshot`` on a small workspace and on the corpus listing view."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.helpers import write_skill

REPO = Path(__file__).resolve().parents[2]


def _env(tmp_path: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM")}
    env["WORKBENCH_HOME"] = str(tmp_path / "wbhome")
    env.update(extra)
    return env


def test_version_without_display(tmp_path):
    r = subprocess.run(
        [sys.executable, "-m", "workbench", "--version"],
        cwd=REPO,
        env=_env(tmp_path),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("workbench ")


def test_screenshot_cli(tmp_path, fake_home):
    ws = tmp_path / "proj"
    write_skill(ws / ".claude" / "skills" / "alpha", "alpha", "Use when testing the screenshot path.")
    out = tmp_path / "shots" / "win.png"
    r = subprocess.run(
        [
            sys.executable,
            "-m",
            "workbench",
            str(ws),
            "--home",
            str(fake_home),
            "--screenshot",
            str(out),
            "--view",
            "shadowing",
            "--size",
            "1000x700",
        ],
        cwd=REPO,
        env=_env(tmp_path),
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert r.returncode == 0, r.stderr
    data = out.read_bytes()
    assert data.startswith(b"\x89PNG")
    from PySide6.QtGui import QImage

    img = QImage(str(out))
    assert (img.width(), img.height()) == (1000, 700)
    assert not (tmp_path / "wbhome" / "config" / "settings.json").exists()  # screenshots never save settings


def test_screenshot_bad_options(tmp_path):
    r = subprocess.run(
        [
            sys.executable,
            "-m",
            "workbench",
            str(tmp_path),
            "--screenshot",
            str(tmp_path / "x.png"),
            "--size",
            "huge",
        ],
        cwd=REPO,
        env=_env(tmp_path),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert r.returncode == 2 and "--size" in r.stderr
    r = subprocess.run(
        [sys.executable, "-m", "workbench", str(tmp_path / "missing")],
        cwd=REPO,
        env=_env(tmp_path),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert r.returncode == 2 and "missing" in r.stderr
    r = subprocess.run(
        [
            sys.executable,
            "-m",
            "workbench",
            str(tmp_path),
            "--screenshot",
            str(tmp_path / "x.png"),
            "--view",
            "nope",
        ],
        cwd=REPO,
        env=_env(tmp_path),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert r.returncode == 2 and "--view" in r.stderr


def test_no_display_is_a_clear_usage_error(tmp_path):
    r = subprocess.run(
        [sys.executable, "-m", "workbench", str(tmp_path)],
        cwd=REPO,
        env=_env(tmp_path),
        capture_output=True,
        text=True,
        timeout=60,
    )
    if sys.platform.startswith("linux"):
        assert r.returncode == 2 and "no display" in r.stderr
