"""The workspace: a project whose clients' roots lie in it, or a collection of skills (issue 13).

``workspace_root_candidate(env)`` returns the workspace when it holds skill folders but no client
has a project-level root inside it; ``use_workspace_as_root(env)`` then appends it to
``env.extra_roots`` and returns True, so the CLI/GUI can add it and say so.
``workspace_treatment(env, mode)`` / ``apply_workspace_mode`` decide how it is shown (auto,
project, collection: its skills as if installed where each client looks). Discovery's ``scan``
uses ``collection_roots`` for the roots inside a collection. Re-exported by ``discovery``.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from workbench.core.clients import get_profile
from workbench.core.clients.common import EXTRA_RULES, NEVER_WALKED, is_installed_extra
from workbench.core.model import CLIENT_IDS, Environment, Root

__all__ = [
    "WORKSPACE_MODES",
    "WorkspaceTreatment",
    "apply_workspace_mode",
    "collection_roots",
    "use_workspace_as_root",
    "workspace_root_candidate",
    "workspace_treatment",
]


def _has_skill(folder: Path, max_depth: int) -> bool:
    """True when some SKILL.md lies within ``max_depth`` levels (BFS, stops at the first; symlinked
    folders are not entered: a link to ``/`` must not walk the machine)."""
    level = [str(folder)]
    for _depth in range(max_depth + 1):
        nxt: list[str] = []
        for d in level:
            try:
                with os.scandir(d) as it:
                    for e in it:
                        if e.name == "SKILL.md":
                            if e.is_file():
                                return True
                        elif e.name not in NEVER_WALKED and e.is_dir(follow_symlinks=False):
                            nxt.append(e.path)
            except OSError:
                continue
        level = nxt
        if not level:
            break
    return False


def _inside(p: Path, folder: Path) -> bool:
    return p == folder or folder in p.parents


def _is_project_root_in(r: Root, ws: Path) -> bool:
    return r.scope in ("project", "nested") and _inside(r.path, ws)


def collection_roots(roots: list[Root], env: Environment, notes: list[str]) -> list[Root]:
    """``roots`` minus the project-level roots inside the workspace when it is opened as a
    collection (``Environment.collection``): its skills then come from the extra root only."""
    if not env.collection:
        return roots
    ws = env.workspace
    dropped = [r for r in roots if _is_project_root_in(r, ws) and not is_installed_extra(r)]
    shown = [r for r in dropped if r.exists]
    if shown:
        names = ", ".join(_rel(r.path, ws) for r in shown[:3]) + (", ..." if len(shown) > 3 else "")
        many = len(shown) > 1
        notes.append(
            f"{ws.name or ws} is shown as a collection: the project root{'s' if many else ''}"
            f" inside it ({names}) {'are' if many else 'is'} not scanned as such"
        )
    return [r for r in roots if r not in dropped] if dropped else roots


def _rel(p: Path, ws: Path) -> str:
    try:
        return "./" + p.relative_to(ws).as_posix()
    except ValueError:
        return str(p)


def _project_roots(env: Environment) -> list[tuple[str, Root]]:
    """(client id, root) for every existing project-level root inside the workspace."""
    ws = env.workspace
    return [
        (cid, r)
        for cid in CLIENT_IDS
        for r in get_profile(cid).roots(env)
        if r.exists and _is_project_root_in(r, ws) and not is_installed_extra(r)
    ]


def workspace_root_candidate(env: Environment) -> Path | None:
    """The workspace, when ``auto`` opens it as a collection (an extra root); else None.

    Rule (decision, HACKING.md "Discovery", issue 13 item 1): the workspace holds a SKILL.md
    within 8 levels, is not already (inside) an extra root, and holds no *agent-specific*
    project root: an existing project-level root (scope project or nested) of some client whose
    path inside the workspace has a dot-folder (``.claude/skills``, ``.agents/skills``, ...). A
    plain ``skills/`` folder (OpenClaw's workspace root) is how collections are laid out
    (anthropics/skills, openai/skills, obra/superpowers), so it does not make the folder a
    project. User-level roots in the home folder do not count.
    """
    ws = env.workspace
    if any(_inside(ws, r) for r in env.extra_roots):
        return None
    for _cid, r in _project_roots(env):
        if any(part.startswith(".") for part in r.path.relative_to(ws).parts):
            return None
    if not _has_skill(ws, EXTRA_RULES.max_depth or 8):
        return None
    return ws


#: How ``apply_workspace_mode`` may treat the workspace.
WORKSPACE_MODES = ("auto", "project", "collection")


@dataclass
class WorkspaceTreatment:
    """How the workspace is being shown (``apply_workspace_mode``).

    Attributes:
        requested: the mode asked for (one of ``WORKSPACE_MODES``).
        mode: "project" (each client scans its own roots in it) or "collection" (its skills as
            if installed where each client looks: an extra root; project roots inside it are not
            scanned as such).
        banner: one line for the window banner / scan notes ("" when there is nothing to say:
            a project with no skills outside client roots).
        toggle_label: the one-click action that switches to ``other`` ("Open as a project").
        other: the mode that action selects.
    """

    requested: str
    mode: str
    banner: str
    toggle_label: str
    other: str


def workspace_treatment(env: Environment, mode: str = "auto") -> WorkspaceTreatment:
    """Decide how to show ``env.workspace`` without changing ``env``. ``mode`` "auto" uses
    ``workspace_root_candidate``. Raises ValueError for an unknown mode."""
    if mode not in WORKSPACE_MODES:
        raise ValueError(f"workspace mode {mode!r}: expected one of {', '.join(WORKSPACE_MODES)}")
    ws = env.workspace
    name = ws.name or str(ws)
    requested = mode
    if mode == "auto":  # an env already opened as a collection stays one (rescans)
        mode = "collection" if env.collection or workspace_root_candidate(env) is not None else "project"
    if mode == "collection":
        return WorkspaceTreatment(
            requested=requested,
            mode="collection",
            banner=(
                f"Showing {name} as a collection: its skills as if installed where each client "
                "looks (an extra root, lowest precedence)."
            ),
            toggle_label="Open as a project",
            other="project",
        )
    inside = _project_roots(env)
    banner = ""
    if inside:
        banner = f"Showing {name} as a project: each client scans its own roots in it."
    elif _has_skill(ws, EXTRA_RULES.max_depth or 8):
        banner = f"Showing {name} as a project: it holds skills but no client root, so no client sees them."
    return WorkspaceTreatment(
        requested=requested,
        mode="project",
        banner=banner,
        toggle_label="Show as a collection",
        other="collection",
    )


def apply_workspace_mode(env: Environment, mode: str = "auto") -> WorkspaceTreatment:
    """``workspace_treatment`` applied to ``env`` in place: for a collection, the workspace is
    appended to ``env.extra_roots`` (once) and ``env.collection`` is set; for a project both are
    undone (an extra root equal to the workspace is removed). Raises ValueError (unknown mode)."""
    t = workspace_treatment(env, mode)
    ws = env.workspace
    if t.mode == "collection":
        env.collection = True
        if ws not in env.extra_roots:
            env.extra_roots.append(ws)
    else:
        if env.collection:
            env.extra_roots[:] = [r for r in env.extra_roots if r != ws]
        env.collection = False
    return t


def use_workspace_as_root(env: Environment) -> bool:
    """``apply_workspace_mode(env, "auto")``: True when the workspace became a collection (an
    extra root; the caller should tell the user, ``workspace_treatment(env).banner``)."""
    if any(_inside(env.workspace, r) for r in env.extra_roots):
        return False
    return apply_workspace_mode(env, "auto").mode == "collection"
