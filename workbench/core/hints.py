"""Hints for an empty result: "this client finds nothing here, but that one does".

Found in QA: ``workbench scan anthropics-skills`` (a clone of github.com/anthropics/skills) printed
"no skills found" for Claude Code, and the window showed an empty tree with no explanation. The
skills are in ``skills/<name>/SKILL.md``, which is OpenClaw's workspace root, so the workspace is
not taken as an extra root (``discovery.workspace_root_candidate``: some client has a project
root there) and every other client finds nothing. The rules are right; the silence was not.

``empty_hint(catalog, catalogs)`` -> one line (or None) for a catalog without any SKILL.md when
other clients' catalogs of the same environment have some. Pure function over catalogs already
scanned (no I/O), used by ``workbench scan``, ``workbench listing`` and the window's banner.

Decision (spec silent): the advice names the other client's root folders that hold the skills
and suggests ``--as collection`` (CLI) / "Show as a collection" (window), which makes the folder
an extra root for every client ("as if installed where each client looks", HACKING.md).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from workbench.core.clients import DISPLAY_NAMES


def _short(path: Path, workspace: Path) -> str:
    try:
        rel = path.relative_to(workspace)
    except ValueError:
        return str(path)
    return "./" + rel.as_posix() if rel.parts else "."


def empty_hint(catalog: Any, catalogs: Mapping[str, Any], *, gui: bool = False) -> str | None:
    """A one-line hint when ``catalog`` (one client) holds no skill but another client's does.

    Args:
        catalog: the ``Catalog`` shown to the user.
        catalogs: client id -> ``Catalog`` for the same environment (may include ``catalog``).
        gui: word the advice for the window ("open that folder") instead of the CLI (``--root``).

    Returns:
        ``"Claude Code finds no SKILL.md here; OpenClaw finds 12 under ./skills (its workspace
        root). To see them as if installed for every client, ..."`` or None (the catalog has
        skills, or no other client finds any).
    """
    if catalog is None or catalog.skills:
        return None
    others = [(cid, c) for cid, c in catalogs.items() if c is not None and cid != catalog.client and c.skills]
    if not others:
        return None
    cid, other = max(others, key=lambda kv: len(kv[1].skills))
    ws = Path(catalog.env.workspace)
    roots = Counter(s.root.path for s in other.skills)
    where = ", ".join(_short(Path(p), ws) for p, _n in roots.most_common(3))
    first_root = next(iter(roots.most_common(1)))[0]
    root = next((s.root for s in other.skills if s.root.path == first_root), None)
    label = f" (its {root.scope} root)" if root is not None and root.scope else ""
    n = len(other.skills)
    name = DISPLAY_NAMES.get(catalog.client, catalog.client)
    oname = DISPLAY_NAMES.get(cid, cid)
    how = "choose \"Show as a collection\"" if gui else "add --as collection"
    return (
        f"{name} finds no SKILL.md here; {oname} finds {n} skill{'s' if n != 1 else ''} under "
        f"{where}{label}. To see them as if installed for every client, {how} "
        "(the folder becomes an extra root)."
    )


def nothing_found_hint(catalogs: Mapping[str, Any], *, gui: bool = False) -> str | None:
    """One line when no client finds any SKILL.md at all (issue 13 item 9: an empty folder showed
    an empty tree and no word), else None.

    Args:
        catalogs: client id -> ``Catalog`` for one environment (at least one).
        gui: word the advice for the window (File > Open folder) instead of the CLI.

    Returns:
        ``"No SKILL.md in /x (8 folder levels looked at) nor in any client's roots: ..."`` or None.
    """
    cats = [c for c in catalogs.values() if c is not None]
    if not cats or any(c.skills for c in cats):
        return None
    ws = Path(cats[0].env.workspace)
    how = (
        "open another folder (File > Open folder), or add a skill as <folder>/<name>/SKILL.md"
        if gui
        else "give another WORKSPACE or --root DIR, or add a skill as <folder>/<name>/SKILL.md"
    )
    return f"No SKILL.md in {ws} (8 folder levels looked at) nor in any client's skill roots: {how}."
