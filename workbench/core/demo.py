"""The bundled demo: a simulated home and a small monorepo workspace (``workbench/resources/demo/``)
that exercise every discovery status. See ``workbench/resources/demo/README.md`` for what each skill
shows. The resources (demo, icons, theme) are package data, found with ``importlib.resources``.
"""

from __future__ import annotations

import logging
import os
from importlib import resources
from pathlib import Path
from typing import Any

from workbench.core.model import Environment

log = logging.getLogger(__name__)

#: Binaries the demo treats as installed (deterministic across machines): ``curl`` lets the
#: OpenClaw ``weather`` skill list; ``wbdemo-diskscan`` is deliberately absent (``disk-report``
#: is gated).
DEMO_BINS = frozenset({"curl", "git", "python3"})


def resources_dir() -> Path:
    """The package data folder ``workbench/resources`` (demo, icons, theme.json), located with
    ``importlib.resources`` so that a checkout, an installed wheel and a PyInstaller bundle all
    work. It is a real folder in all three (the demo is walked like any workspace)."""
    return Path(str(resources.files("workbench") / "resources"))


def demo_dir() -> Path:
    """``workbench/resources/demo``."""
    return resources_dir() / "demo"


def demo_environment(**overrides: Any) -> Environment:
    """An ``Environment`` on the demo: home ``<resources>/demo/home``, workspace
    ``<resources>/demo/workspace`` (also its git root, see below), binaries ``DEMO_BINS``, only
    ``PATH`` from the real environment (so a real ``CODEX_HOME`` etc. does not leak in).

    Git root: a file or folder named ``.git`` cannot be committed inside a repository, so the
    demo has no marker; the workspace is pinned as the git root here instead. Keyword
    ``overrides`` are passed to ``Environment`` (e.g. ``touched=[...]``, ``trusted=False``).
    """
    d = demo_dir()
    kw: dict[str, Any] = dict(
        workspace=d / "workspace",
        home=d / "home",
        bins=set(DEMO_BINS),
        env={"PATH": os.environ.get("PATH", "")},
    )
    kw.update(overrides)
    env = Environment(**kw)
    env._git_root = env.workspace  # pinned: see the docstring
    return env


#: The demo's pending workshop proposal: a sharper description for the project's code-review
#: skill, as the description-improvement loop would propose it (source "demo").
DEMO_PROPOSAL_DESCRIPTION = (
    "Review a diff or pull request in this repository against the team checklist: naming, "
    "error handling, tests for new branches, and API compatibility. Use when the user asks for "
    "a code review, a PR review, or whether a change is safe to merge."
)


def ensure_demo_proposal(env: Environment | None = None) -> str | None:
    """Make sure the demo's workshop queue holds its example proposal; return its id.

    Idempotent: does nothing when any proposal from source "demo" exists in the demo
    workspace's store (whatever its state, so a rejected or applied one is not re-created).
    Never raises: returns None when the store cannot be opened (the demo still works).
    """
    env = env or demo_environment()
    try:
        from workbench.core.workshop import WorkshopStore

        store = WorkshopStore(env.workspace)
        for p in store.proposals():
            if p.source == "demo":
                return p.id
        target = env.workspace / ".claude" / "skills" / "code-review" / "SKILL.md"
        p = store.propose_description_update(
            target,
            DEMO_PROPOSAL_DESCRIPTION,
            source="demo",
            note="Example proposal shipped with the demo: review the diff, then apply or reject.",
        )
        return p.id
    except Exception:  # noqa: BLE001 - a demo nicety must never break opening the demo
        log.warning("the demo proposal could not be made", exc_info=True)
        return None
