"""Issue 13 item 10: a normal (non-editable) install ships the demo, icons and theme.

``pip install .`` used to give a window with an empty demo because ``resources/`` sat outside the
package. This builds the wheel offline (``pip wheel --no-deps --no-build-isolation`` from a copy of
the sources, so the checkout gets no ``build/``), installs it with ``--no-deps`` into a fresh venv
that borrows this environment's site-packages for the dependencies (a ``.pth`` line: the editable
install's own ``.pth`` is not processed there, so ``workbench`` can only come from the wheel), and
checks the package data, both entry points and a scan of the demo.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import sysconfig
import venv
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]

pytestmark = pytest.mark.slow

_PROBE = """
import json, sys
from workbench.core.demo import demo_dir, demo_environment, resources_dir
from workbench.core.discovery import scan
res = resources_dir()
cat = scan(demo_environment(), "claude-code")
print(json.dumps({"resources": str(res), "theme": (res / "theme.json").is_file(),
                  "icons": sorted(p.name for p in (res / "icons").glob("*.png")),
                  "demo_skill_md": len(list(demo_dir().rglob("SKILL.md"))),
                  "statuses": sorted({s.status for s in cat.skills})}))
"""


def _run(cmd: list, **kw) -> subprocess.CompletedProcess:
    kw.setdefault("env", {k: v for k, v in os.environ.items() if k != "PYTHONPATH"})  # the wheel's own code
    r = subprocess.run([str(c) for c in cmd], capture_output=True, text=True, timeout=120, **kw)
    assert r.returncode == 0, f"{cmd}: {r.stdout}\n{r.stderr}"
    return r


def test_built_wheel_ships_resources_and_entry_points(tmp_path):
    src = tmp_path / "src"
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    shutil.copytree(REPO / "workbench", src / "workbench", ignore=ignore)
    for name in ("pyproject.toml", "MANIFEST.in", "README.md"):
        shutil.copy2(REPO / name, src / name)
    wheels = tmp_path / "wheels"
    _run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "-q",
            "--no-deps",
            "--no-build-isolation",
            "--no-index",
            "-w",
            wheels,
            src,
        ]
    )
    (wheel,) = wheels.glob("skill_workbench-*.whl")

    target = tmp_path / "venv"
    venv.create(target, with_pip=False)
    py = target / "bin" / "python"
    site = Path(_run([py, "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"]).stdout.strip())
    (site / "zz_borrowed_deps.pth").write_text(sysconfig.get_path("purelib") + "\n")
    _run([sys.executable, "-m", "pip", "--python", py, "install", "-q", "--no-deps", "--no-index", wheel])

    out = json.loads(_run([py, "-c", _PROBE], cwd=tmp_path).stdout)
    assert Path(out["resources"]).is_relative_to(site), out  # the wheel's copy, not the checkout
    assert out["theme"] and "workbench-256.png" in out["icons"]
    shipped = len(list((REPO / "workbench" / "resources" / "demo").rglob("SKILL.md")))
    assert out["demo_skill_md"] == shipped >= 15  # dot-folders (.claude/, .agents/ ...) included
    assert out["statuses"] == ["conditional", "hidden", "listed", "shadowed", "skipped"]

    version = _run([target / "bin" / "workbench", "--version"], cwd=tmp_path).stdout
    assert version.startswith("workbench ")
    assert (target / "bin" / "workbench-gui").is_file()  # the gui-scripts entry point
    gui_help = _run([target / "bin" / "workbench-gui", "--help"], cwd=tmp_path).stdout
    assert "Open the Skill Workbench window" in gui_help
