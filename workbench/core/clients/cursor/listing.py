"""Cursor's skill listing: **unpublished**. We render a labelled best guess.

Source: cursor.com/docs/context/skills (the agent "is presented with available skills and decides
when they are relevant"); the prompt text, its location and any budget are not public
(../shared/reference/clients.md section 7.3-7.4).

Best guess: the Agent Skills reference format (``skills-ref to-prompt``, see
``workbench.core.clients.agentskills.listing``), no budget. ``report.verified`` is False and
``report.assumptions`` says so; the UI must show it as a guess.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from workbench.core.clients.agentskills import listing as _ref
from workbench.core.listingkit import ListingReport

if TYPE_CHECKING:
    from workbench.core.model import Environment, Skill

CLIENT = "cursor"
PLACEMENT = "unknown (Cursor does not publish where or how skills are listed)"


def listing_order(skills: list[Skill]) -> list[Skill]:
    """Discovery order (Cursor's order is unpublished)."""
    return list(skills)


def render(
    skills: list[Skill], env: Environment, context_tokens: int | None, options: dict[str, Any]
) -> ListingReport:
    """The agentskills reference listing, relabelled as Cursor's unverified best guess."""
    rep = _ref.render(skills, env, context_tokens, options, client=CLIENT)
    rep.placement = PLACEMENT
    rep.verified = False
    rep.assumptions = [
        "UNVERIFIED: Cursor's listing text, placement and budget are not published; this is a "
        "best guess using the Agent Skills reference format (skills-ref to-prompt), with no budget.",
    ]
    rep.info = [i for i in rep.info if "spec suggests" not in i]
    return rep
