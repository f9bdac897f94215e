"""Desktop integration files pass their standard validators; the PyInstaller spec is sane."""

import shutil
import subprocess
from pathlib import Path

import pytest

PKG = Path(__file__).resolve().parents[1] / "packaging"
APP_ID = "io.github.skillworkbench.SkillWorkbench"


def _need(tool: str) -> str:
    exe = shutil.which(tool)
    if exe is None:
        pytest.skip(f"{tool} not installed (Debian: desktop-file-utils / appstream; .ci/run installs them)")
    return exe


def test_desktop_file_validates():
    exe = _need("desktop-file-validate")
    r = subprocess.run([exe, str(PKG / f"{APP_ID}.desktop")], capture_output=True, text=True)
    assert r.returncode == 0 and not r.stdout.strip(), r.stdout + r.stderr


def test_metainfo_validates():
    exe = _need("appstreamcli")
    r = subprocess.run(
        [exe, "validate", "--no-net", str(PKG / f"{APP_ID}.metainfo.xml")], capture_output=True, text=True
    )
    assert r.returncode == 0, r.stdout + r.stderr


def test_desktop_and_metainfo_agree():
    desktop = (PKG / f"{APP_ID}.desktop").read_text()
    meta = (PKG / f"{APP_ID}.metainfo.xml").read_text()
    assert f"Icon={APP_ID}" in desktop
    assert f"<launchable type=\"desktop-id\">{APP_ID}.desktop</launchable>" in meta
    assert "Exec=workbench" in desktop and "<binary>workbench</binary>" in meta


def test_pyinstaller_spec_bundles_resources_and_entry():
    spec = (PKG / "workbench.spec").read_text()
    assert '"workbench/resources"' in spec and "launch.py" in spec
    assert "collect_submodules(\"workbench\")" in spec
    assert (PKG / "launch.py").is_file() and (PKG / "build.sh").is_file()
