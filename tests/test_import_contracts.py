"""Code health (issue 15): the import contracts in pyproject.toml hold, and no module imports itself
back through others (no cycles, function-level imports included; imports for type checking only are
not counted)."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]


def _cycles() -> list[list[str]]:
    grimp = pytest.importorskip("grimp")
    graph = grimp.build_graph("workbench", cache_dir=None, exclude_type_checking_imports=True)
    sys.setrecursionlimit(max(10_000, sys.getrecursionlimit()))
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[list[str]] = []

    def visit(v: str) -> None:  # Tarjan's strongly connected components
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in graph.find_modules_directly_imported_by(v):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for m in sorted(graph.modules):
        if m not in index:
            visit(m)
    return out


def test_no_import_cycles() -> None:
    assert _cycles() == []


def test_import_linter_contracts_hold() -> None:
    exe = shutil.which("lint-imports") or str(Path(sys.executable).with_name("lint-imports"))
    if not Path(exe).exists():
        pytest.skip("import-linter is not installed (it is in the test extra)")
    r = subprocess.run([exe], cwd=REPO, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-2000:]


#: mypy's strict checks that apply to all of ``workbench/core`` (issue 15; pyproject.toml).
STRICT_FLAGS = (
    "disallow_untyped_defs",
    "disallow_incomplete_defs",
    "disallow_untyped_decorators",
    "disallow_any_generics",
    "disallow_subclassing_any",
    "disallow_untyped_calls",
    "check_untyped_defs",
    "no_implicit_reexport",
    "warn_return_any",
    "warn_unused_ignores",
    "strict_equality",
    "extra_checks",
)


def _mypy_overrides() -> list[dict[str, object]]:
    import tomllib

    cfg = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    return list(cfg["tool"]["mypy"]["overrides"])


def _covers_core(module: str) -> bool:
    """Whether an override's module pattern can match a ``workbench.core`` module."""
    pat = module.removesuffix(".*")
    return pat in ("workbench", "workbench.core") or pat.startswith("workbench.core.")


def test_all_of_core_is_mypy_strict() -> None:
    """Every strict check is on for ``workbench.core.*``, and no override exempts a core module
    (issue 15: the "not yet strict" list is gone; new modules, from splits too, are strict)."""
    overrides = _mypy_overrides()
    core = [o for o in overrides if o.get("module") == ["workbench.core", "workbench.core.*"]]
    assert len(core) == 1, "one override turns the strict checks on for workbench.core"
    assert {f: core[0].get(f) for f in STRICT_FLAGS} == dict.fromkeys(STRICT_FLAGS, True)
    for o in overrides:
        mods = o.get("module")
        names = [mods] if isinstance(mods, str) else list(mods) if isinstance(mods, list) else []
        relaxed = [f for f in STRICT_FLAGS if o.get(f) is False] + (
            ["ignore_errors"] if o.get("ignore_errors") else []
        )
        exempt = [m for m in names if _covers_core(m)]
        assert not (relaxed and exempt), f"mypy override relaxes {relaxed} for core modules {exempt}"
