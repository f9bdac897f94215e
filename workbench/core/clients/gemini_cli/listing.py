"""Gemini CLI's skill section of the system prompt.

Source: ``google-gemini/gemini-cli`` @5411f113 ``packages/core/src/prompts/snippets.ts``
(``renderAgentSkills``); ../shared/reference/clients.md section 4.3-4.4.

Template (no XML escaping at all; the whole section is ``.trim()``-ed; empty list -> "")::

    # Available Agent Skills

    You have access to the following specialized skills. To activate a skill and receive its detailed instructions, call the `activate_skill` tool with the skill's name.

    <available_skills>
      <skill>
        <name>{name}</name>
        <description>{description}</description>
        <location>{abs path}</location>
      </skill>
    </available_skills>

Budget: none (no character, token or count cap). Order: discovery order (built-in, extensions,
user, workspace; later tiers override earlier names).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from workbench.core.listing import ListingReport, SkillListing

if TYPE_CHECKING:
    from workbench.core.model import Environment, Skill

CLIENT = "gemini-cli"
TOOL = "activate_skill"
HEADER = "# Available Agent Skills"
INTRO = ("You have access to the following specialized skills. To activate a skill and receive its "
         f"detailed instructions, call the `{TOOL}` tool with the skill's name.")
PLACEMENT = ("system prompt section (after sub-agents, before hook context); skill names also "
             "appear as the enum of the activate_skill tool")


def listing_order(skills: list["Skill"]) -> list["Skill"]:
    """Load order (``GeminiCliProfile.listing_order``)."""
    from workbench.core.clients.gemini_cli.profile import PROFILE

    return PROFILE.listing_order(skills)


def render(skills: list["Skill"], env: "Environment", context_tokens: int | None,
           options: dict[str, Any]) -> ListingReport:
    """Render the section; every skill is ``full`` (Gemini CLI has no budget)."""
    entries = [SkillListing(s.name, str(s.path), "full", len(s.description or ""),
                            len(s.description or "")) for s in skills]
    if not skills:
        text = ""
    else:
        xml = "\n".join(
            f"  <skill>\n    <name>{s.name}</name>\n    <description>{s.description or ''}"
            f"</description>\n    <location>{s.path}</location>\n  </skill>" for s in skills)
        text = f"{HEADER}\n\n{INTRO}\n\n<available_skills>\n{xml}\n</available_skills>".strip()
    return ListingReport(client=CLIENT, context_tokens=context_tokens, text=text, placement=PLACEMENT,
                         skills=entries, info=["Gemini CLI has no listing budget."])
