"""Plain imports (issue 15, done-when): no ``importlib`` look-ups of the project's own modules;
commands, client parts, runners and lint rules are imported by name, lazily where start-up counts."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
PKG = REPO / "workbench"

#: The importlib uses left: package data, installed metadata, "is PySide6 installed", and the
#: plugins of a third-party library (detect-secrets).
_ALLOWED = re.compile(
    r"importlib\.resources|from importlib import (resources|metadata)|importlib\.util|"
    r"^\s*import importlib$|import_module\(f\"detect_secrets\."
)


def test_no_importlib_lookups_of_our_own_modules() -> None:
    hits = []
    for path in sorted(PKG.rglob("*.py")):
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if ("importlib" in line or "__import__" in line) and not _ALLOWED.search(line):
                hits.append(f"{path.relative_to(REPO)}:{n}: {line.strip()}")
    assert hits == []


def test_every_command_is_imported_by_name() -> None:
    from workbench.cli import COMMANDS, command

    for name in COMMANDS:
        mod = command(name)
        assert mod.__name__ == f"workbench.commands.{name}"  # type: ignore[attr-defined]
        assert callable(mod.add_parser) and callable(mod.run)
    with pytest.raises(KeyError, match="unknown command 'nope'"):
        command("nope")


def test_every_client_part_is_imported_by_name() -> None:
    from workbench.core.capture import RUNNABLE_CLIENTS, get_runner
    from workbench.core.chat.listinginfo import get_loader
    from workbench.core.clients import get_profile, listing_module
    from workbench.core.model import CLIENT_IDS

    for cid in CLIENT_IDS:
        pkg = cid.replace("-", "_")
        assert get_profile(cid).id == cid
        assert listing_module(cid).__name__ == f"workbench.core.clients.{pkg}.listing"  # type: ignore[attr-defined]
        assert get_loader(cid).client_id == cid
    for cid in RUNNABLE_CLIENTS:
        assert get_runner(cid).client_id == cid
    for lookup in (get_profile, listing_module, get_loader):
        with pytest.raises(KeyError, match="unknown client 'nope'"):
            lookup("nope")
    with pytest.raises(KeyError, match="no real-client runner for 'cursor'"):
        get_runner("cursor")


def test_the_rule_package_lists_every_rule_file() -> None:
    """``lint/rules/__init__.py`` imports every rule module in one list; a file left out of it
    would never register its rule."""
    import ast

    from workbench.core.lint.ruleset import load_rules

    init = PKG / "core" / "lint" / "rules" / "__init__.py"
    (stmt,) = [s for s in ast.parse(init.read_text(encoding="utf-8")).body if isinstance(s, ast.ImportFrom)]
    listed = [a.name for a in stmt.names]
    on_disk = sorted(p.stem for p in init.parent.glob("*.py") if not p.stem.startswith("_"))
    assert listed == on_disk
    assert {r.module.rsplit(".", 1)[1] for r in load_rules().values()} == set(on_disk)
