"""The README's test command on a fresh clone: ``pip install -e '.[test]' && pytest -q``.

A fresh clone failed at collection (``ModuleNotFoundError: No module named 'keyring'``): a test
module imported a package that only an optional extra (``keyring``) installed. This test checks
that every third-party module imported at module level by ``tests/`` comes from a distribution
that the base dependencies or the ``test`` extra pull in (directly or transitively), using the
metadata of the installed environment.
"""

from __future__ import annotations

import ast
import re
import sys
import tomllib
from importlib import metadata
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]


def _norm(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _req_name(req: str) -> tuple[str, str]:
    """(distribution name, marker text) of a requirement string."""
    name = re.split(r"[\s;<>=!~\[(]", req.strip(), maxsplit=1)[0]
    marker = req.split(";", 1)[1] if ";" in req else ""
    return _norm(name), marker


def _closure(roots: list[str]) -> set[str]:
    """Installed distributions reachable from ``roots`` through unconditional requirements."""
    seen: set[str] = set()
    todo = list(roots)
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        try:
            reqs = metadata.requires(name) or []
        except metadata.PackageNotFoundError:
            continue
        for r in reqs:
            dep, marker = _req_name(r)
            if "extra ==" in marker:
                continue
            todo.append(dep)
    return seen


def _module_level_imports(path: Path) -> set[str]:
    try:
        tree = ast.parse(path.read_text(encoding="utf-8"))
    except SyntaxError:
        return set()
    out: set[str] = set()
    for node in tree.body:  # module level only: imports inside tests/try blocks may be optional
        if isinstance(node, ast.Import):
            out.update(a.name.split(".")[0] for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            out.add(node.module.split(".")[0])
    return out


def test_test_extra_covers_test_imports():
    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    declared = [_req_name(r)[0] for r in project["dependencies"]]
    declared += [_req_name(r)[0] for r in project["optional-dependencies"]["test"]]
    available = _closure(declared)
    providers = metadata.packages_distributions()
    missing: dict[str, list[str]] = {}
    for f in sorted((REPO / "tests").rglob("*.py")):
        if "_artifacts" in f.parts:
            continue
        for mod in _module_level_imports(f):
            if mod in sys.stdlib_module_names or mod in ("workbench", "tests", "__future__"):
                continue
            dists = {_norm(d) for d in providers.get(mod, [])}
            if not dists:
                pytest.fail(f"{f.relative_to(REPO)} imports {mod!r}, which is not installed")
            if not dists & available:
                missing.setdefault(mod, []).append(str(f.relative_to(REPO)))
    assert not missing, (
        "imported by tests but not installed by `pip install -e '.[test]'`: "
        f"{missing} — add them to [project.optional-dependencies] test"
    )
