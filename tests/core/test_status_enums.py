"""Statuses and states as ``StrEnum`` (issue 15 item 8): a discovered skill's ``SkillStatus`` and a
listed skill's ``ListingState``. Core names them by member, never by a bare string (a typo would
compare unequal forever); JSON output is unchanged, byte for byte."""

from __future__ import annotations

import ast
import json
from pathlib import Path

from workbench.core.jsontext import dumps_indented
from workbench.core.listing import OUTCOMES, STATE_LABELS, STATES, ListingState, SkillListing
from workbench.core.model import STATUSES, Root, Skill, SkillStatus

CORE = Path(__file__).resolve().parents[2] / "workbench" / "core"
LISTING_WORDS = {s.value for s in ListingState}
STATUS_WORDS = {s.value for s in SkillStatus}


def _strings(node: ast.AST) -> list[str]:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node.value]
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        return [s for e in node.elts for s in _strings(e)]
    return []


def _attr(node: ast.AST) -> str | None:
    return node.attr if isinstance(node, ast.Attribute) else None


def _bare_strings() -> list[str]:
    """``x.status`` compared with, or set to, a string literal; ``status=``/``state=`` arguments naming one; and
    ``x.state`` compared with a listing state's string (a ``SkillFile.state`` is another
    vocabulary). As ``file:line: text``."""
    hits = []
    for path in sorted(CORE.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        rel = path.relative_to(CORE).as_posix()
        for node in ast.walk(tree):
            found: list[str] = []
            if isinstance(node, ast.Compare):
                sides = [node.left, *node.comparators]
                names = {_attr(s) for s in sides}
                words = [w for s in sides for w in _strings(s)]
                if "status" in names:
                    found += words
                if "state" in names:
                    found += [w for w in words if w in LISTING_WORDS]
            elif isinstance(node, ast.Assign):
                for target, value in _pairs(node):
                    if _attr(target) == "status":
                        found += _strings(value)
            elif isinstance(node, ast.keyword) and node.arg in ("status", "state"):
                found += [w for w in _strings(node.value) if w in STATUS_WORDS | LISTING_WORDS]
            hits += [f"{rel}:{getattr(node, 'lineno', 0)}: {w!r}" for w in found]
    return hits


def _pairs(node: ast.Assign) -> list[tuple[ast.AST, ast.AST]]:
    out: list[tuple[ast.AST, ast.AST]] = []
    for t in node.targets:
        if isinstance(t, ast.Tuple) and isinstance(node.value, ast.Tuple):
            out += list(zip(t.elts, node.value.elts))
        else:
            out.append((t, node.value))
    return out


def test_core_names_statuses_and_states_by_member() -> None:
    assert _bare_strings() == []


def test_every_status_and_state_string_is_a_member() -> None:
    assert STATUSES == tuple(SkillStatus) and STATES == tuple(ListingState)
    assert [s.value for s in SkillStatus] == [
        "listed",
        "shadowed",
        "hidden",
        "gated",
        "conditional",
        "skipped",
    ]
    assert [s.value for s in ListingState] == ["full", "truncated", "name-only", "omitted"]
    members = {*SkillStatus, *ListingState}
    assert set(OUTCOMES) <= members and set(STATE_LABELS) == set(ListingState)
    assert all(type(o) is str for o in OUTCOMES)  # plain strings: the fast JSON writer's path


def test_json_output_is_unchanged(tmp_path: Path) -> None:
    root = Root(tmp_path, "project", "workspace")
    sk = Skill(tmp_path / "a" / "SKILL.md", root, "a", status=SkillStatus.SHADOWED)
    entry = SkillListing("a", str(sk.path), ListingState.NAME_ONLY, 10, 0)
    for obj, key, word in ((sk.to_json(), "status", "shadowed"), (entry.to_json(), "state", "name-only")):
        assert type(obj[key]) is str and obj[key] == word
        assert dumps_indented(obj) == json.dumps(obj, indent=2, ensure_ascii=False)
        assert f'"{key}": "{word}"' in json.dumps(obj)
    # members still compare, hash and format as their strings
    assert SkillStatus.LISTED == "listed" and {"listed": 1}[SkillStatus.LISTED] == 1
    assert f"{ListingState.NAME_ONLY:<10}|" == "name-only |"
