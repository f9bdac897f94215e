"""What an eval runs on: its options, the skill under test and the copied catalog it lives in."""

from __future__ import annotations

import dataclasses
import hashlib
import os
from dataclasses import dataclass
from typing import Any

from workbench.core.model import Catalog, Skill


class EvalSetupError(Exception):
    """The eval cannot start. ``kind`` ∈ "unknown-skill", "not-listed", "no-key", "bad-options";
    ``str(err)`` says what to do."""

    def __init__(self, kind: str, message: str):
        self.kind = kind
        super().__init__(message)


@dataclass
class EvalOptions:
    """Knobs of one eval.

    Attributes:
        runs: runs per query (>= 1; default 3, skill-creator's default).
        concurrency: parallel runs (>= 1; default 8).
        threshold: pass threshold on the trigger rate, 0..1 (default 0.5).
        competitors: keep the other listed skills in the listing (default True).
        stop_on_trigger: stop a run once the skill under test loaded (default True).
        max_attempts: tries per run for retryable errors (default 4).
        backoff_base / backoff_max: seconds of the exponential backoff when the server sent no
            ``retry-after`` (base x 2^attempt, capped).
        context_tokens: context size for the listing (None = the environment's / client's).
    """

    runs: int = 3
    concurrency: int = 8
    threshold: float = 0.5
    competitors: bool = True
    stop_on_trigger: bool = True
    max_attempts: int = 4
    backoff_base: float = 1.0
    backoff_max: float = 60.0
    context_tokens: int | None = None

    def check(self) -> None:
        """Raise ``EvalSetupError("bad-options")`` for out-of-range values."""
        if not isinstance(self.runs, int) or self.runs < 1:
            raise EvalSetupError("bad-options", f"runs must be at least 1 (got {self.runs})")
        if not isinstance(self.concurrency, int) or self.concurrency < 1:
            raise EvalSetupError("bad-options", f"concurrency must be at least 1 (got {self.concurrency})")
        if not 0.0 <= float(self.threshold) <= 1.0:
            raise EvalSetupError("bad-options", f"threshold must be between 0 and 1 (got {self.threshold})")
        if self.max_attempts < 1:
            raise EvalSetupError("bad-options", "max_attempts must be at least 1")


def description_sha(description: str) -> str:
    """First 12 hex digits of the sha256 of a description (history key)."""
    return hashlib.sha256(description.encode("utf-8")).hexdigest()[:12]


def find_target(catalog: Catalog, skill_name: str) -> Skill:
    """The listed skill named ``skill_name`` in ``catalog``.

    Raises ``EvalSetupError``: "unknown-skill" (no such name; the message lists the listed names)
    or "not-listed" (found but shadowed/hidden/gated/conditional/skipped; the message gives the
    client's reason).
    """
    for s in catalog.listed():
        if s.name == skill_name:
            return s
    others = [s for s in catalog.skills if s.name == skill_name]
    if others:
        s = others[0]
        extra = f" by {s.shadowed_by}" if s.shadowed_by else ""
        raise EvalSetupError(
            "not-listed",
            f"skill {skill_name!r} ({s.path}) is {s.status}{extra} for "
            f"{catalog.client}: {s.reason}. A skill the client does not list cannot "
            "trigger; see `workbench explain`.",
        )
    names = ", ".join(sorted({s.name for s in catalog.listed()})) or "(none)"
    raise EvalSetupError(
        "unknown-skill", f"no skill named {skill_name!r} for {catalog.client}; listed skills: {names}"
    )


def eval_catalog(
    catalog: Catalog, skill_name: str, description: str | None = None, competitors: bool = True
) -> tuple[Catalog, Skill]:
    """A copied ``Catalog`` for an eval and the skill under test in it.

    The original catalog and its ``Skill`` objects are not modified. With ``description`` the
    skill under test is a copy (``dataclasses.replace``) carrying that description, in memory
    only; the SKILL.md on disk is untouched. ``competitors=False`` keeps only the skill under
    test (no other skill is listed or resolvable by path). Raises ``EvalSetupError``.
    """
    target = find_target(catalog, skill_name)
    new_target = dataclasses.replace(target, description=description) if description is not None else target
    if competitors:
        skills = [new_target if s is target else s for s in catalog.skills]
    else:
        skills = [new_target]
    cat = Catalog(
        catalog.client, catalog.env, list(catalog.roots), skills, catalog.scan_seconds, list(catalog.notes)
    )
    return cat, new_target


def real_path(p: Any) -> str:
    """``os.path.realpath`` of ``p`` as a string (``str(p)`` when that fails)."""
    try:
        return os.path.realpath(str(p))
    except (OSError, ValueError):  # pragma: no cover
        return str(p)
