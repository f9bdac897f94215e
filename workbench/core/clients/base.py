"""The interface every client module implements.

One client = one package under ``workbench/core/clients/<id>/``:

* ``profile.py`` – discovery: roots and precedence, how deep it looks, skipped directories,
  symlink policy, how it reads a SKILL.md (and what it does with a bad one), the name it uses,
  collisions, gating and conditional activation. Exposes ``PROFILE`` (a ``ClientProfile``).
* ``listing.py`` – the model-visible listing text and the budget algorithm (``render``).
* ``loading.py`` – how the model loads a skill in the chat loop (tool definitions, result wrapper,
  argument substitution).

``workbench.core.discovery`` drives ``ClientProfile``; it never special-cases a client.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from workbench.core.model import SkillStatus

if TYPE_CHECKING:
    from workbench.core.model import Environment, Root, Skill
    from workbench.core.skillfile import SkillFile


@dataclass(slots=True)
class Found:
    """A SKILL.md met while walking a root.

    ``skip_reason`` is set when the file exists under the root but the client would not find it
    (too deep, inside a skipped directory, a symlink leading outside the root, ...). Such files are
    reported with status ``skipped`` so authors can see them.
    """

    path: Path
    depth: int
    skip_reason: str | None = None


@dataclass(slots=True)
class ReadResult:
    """How a client reads one parsed SKILL.md.

    Attributes:
        ok: False = the client skips the file (``reason`` says why, in the client's words).
        name: the name the client uses before namespacing (frontmatter or folder fallback).
        description: as the client would list it (after its own normalisation).
        when_to_use: Claude Code only.
        fields: the frontmatter as this client reads it.
        mode: "strict" | "fallback" | "dropped" | "failed" (see ``Skill.parse_mode``).
        note: what the fallback lost or changed.
        reason: why it was skipped (when not ok).
        unverified: rules applied that the reference marks unverified.
    """

    ok: bool
    name: str = ""
    description: str = ""
    when_to_use: str | None = None
    fields: dict[str, Any] = field(default_factory=dict)
    mode: str = "strict"
    note: str = ""
    reason: str = ""
    unverified: list[str] = field(default_factory=list)


class ClientProfile:
    """Discovery rules of one client. Subclasses override what differs.

    Class attributes:
        id: one of ``workbench.core.model.CLIENT_IDS``.
        display_name: e.g. "Claude Code".
        version_note: which source version the rules reproduce (from ../shared/reference/clients.md).
        collision: "higher-wins" (lowest precedence number wins), "first-wins" (first in scan
            order), "last-wins" (last in scan order), or "keep-both".
        client_version: the client release these rules model (the lab's pinned version, see
            ``tests/conformance``; ``workbench scan`` JSON ``"client_version"``), "unverified" when
            no release was run, "spec" for the agentskills.io specification.
        lab_checked: True when the conformance lab (``tests/conformance``) checks these rules
            against the real client at ``client_version``.
    """

    id: str = ""
    display_name: str = ""
    version_note: str = ""
    client_version: str = "unverified"
    collision: str = "higher-wins"
    lab_checked: bool = False

    def model_note(self) -> str:
        """One line for the JSON and the window, e.g. "modelled on Claude Code 2.1.328, checked
        by the lab"; "unverified" where no real client can be run."""
        if self.lab_checked:
            return f"modelled on {self.display_name} {self.client_version}, checked by the lab"
        if self.client_version == "spec":
            return "modelled on the Agent Skills specification (agentskills.io)"
        if self.client_version not in ("", "unverified"):
            return f"modelled on {self.display_name} {self.client_version} (unverified)"
        return f"modelled on {self.display_name}'s docs and source (unverified: no real client run)"

    # -- discovery ---------------------------------------------------------------------
    def roots(self, env: Environment) -> list[Root]:
        """The roots this client scans, highest precedence first, with ``exists`` filled."""
        raise NotImplementedError

    def find(self, root: Root, env: Environment) -> Iterable[Found]:
        """Every SKILL.md under ``root``, including those the client would skip (with a reason)."""
        raise NotImplementedError

    def read(self, sf: SkillFile, found: Found, root: Root, env: Environment) -> ReadResult:
        """Read a parsed SKILL.md the way this client does (strict, fallback, or skip)."""
        raise NotImplementedError

    def gate(self, skill: Skill, env: Environment) -> tuple[SkillStatus, str] | None:
        """(status, reason) when the skill is hidden/gated/conditional, else None (listed)."""
        return None

    def inactive_status(self, root: Root, env: Environment) -> SkillStatus:
        """Status of skills under an inactive root: "gated" for trust, else "conditional"."""
        if root.condition and root.condition.startswith("untrusted"):
            return SkillStatus.GATED
        return SkillStatus.CONDITIONAL

    def resolve_collisions(self, skills: list[Skill], env: Environment) -> None:
        """Mark losers of name collisions as ``shadowed`` (setting ``shadowed_by``), in place."""
        raise NotImplementedError

    def listing_order(self, skills: list[Skill]) -> list[Skill]:
        """Listed skills in the order the client puts them in its listing."""
        return list(skills)
