"""Layering: workbench/core never imports Qt (directly or through anything it imports)."""

import ast
import subprocess
import sys
from pathlib import Path

CORE = Path(__file__).resolve().parents[1] / "workbench" / "core"
QT = ("PySide6", "PyQt5", "PyQt6", "qtpy", "shiboken6")


def test_core_sources_do_not_import_qt():
    bad = []
    for py in CORE.rglob("*.py"):
        tree = ast.parse(py.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            names = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module]
            for n in names:
                if n.split(".")[0] in QT or n.startswith("workbench.app"):
                    bad.append(f"{py.relative_to(CORE.parent.parent)}:{node.lineno}: {n}")
    assert not bad, "core imports Qt or the app layer:\n" + "\n".join(bad)


def test_importing_all_of_core_loads_no_qt():
    code = (
        "import importlib, pkgutil, sys, workbench.core as c\n"
        "for m in pkgutil.walk_packages(c.__path__, 'workbench.core.'):\n"
        "    importlib.import_module(m.name)\n"
        f"bad = [m for m in sys.modules if m.split('.')[0] in {QT!r}]\n"
        "print(bad); sys.exit(1 if bad else 0)\n"
    )
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr
