"""The Agent Skills spec's reference listing: ``skills-ref to-prompt``.

Source: ``agentskills/agentskills`` ``skills-ref/src/skills_ref/prompt.py`` (``to_prompt``);
``docs/client-implementation/adding-skills-support.mdx``; ../shared/reference/clients.md section 0.3-0.4.

Format: one element per line, values ``html.escape``-d (quotes too), ``<location>`` = SKILL.md path;
no skills -> exactly ``<available_skills>\\n</available_skills>``::

    <available_skills>
    <skill>
    <name>
    pdf-reader
    </name>
    <description>
    Read and extract text from PDF files
    </description>
    <location>
    /path/to/pdf-reader/SKILL.md
    </location>
    </skill>
    </available_skills>

Budget: none; the spec's guidance is ~50-100 tokens per skill in the catalog (reported as info).
The client guide says to skip skills with a missing/empty description: those are ``omitted``.
``to_prompt`` resolves symlinks in the skill folder; we print the path as discovered (no
filesystem access while rendering).

Options: ``listingkit.STATES_ONLY`` (the caller reads only the states, ``workbench scan``): no
``to_prompt`` text and no ``info``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from workbench.core.listingkit import STATES_ONLY, ListingReport, ListingState, SkillListing, html_escape
from workbench.core.text import agree, plural
from workbench.core.tokens import estimate_tokens

if TYPE_CHECKING:
    from workbench.core.model import Environment, Skill

CLIENT = "agentskills"
EMPTY = "<available_skills>\n</available_skills>"
PLACEMENT = "system prompt, or the description of the activation tool (the spec allows either)"
TOKENS_PER_SKILL = (50, 100)


def listing_order(skills: list[Skill]) -> list[Skill]:
    """Discovery order."""
    return list(skills)


def to_prompt(skills: list[Skill]) -> str:
    """The ``to_prompt`` block for ``skills`` (all of them, as given)."""
    if not skills:
        return EMPTY
    esc = html_escape
    # one text per skill: its eleven lines (what ``to_prompt`` joins line by line)
    # one join for the whole block (not the skills' part, then a copy with the tags around it)
    items = (
        f"<skill>\n<name>\n{esc(s.name)}\n</name>\n<description>\n{esc(s.description or '')}\n"
        f"</description>\n<location>\n{esc(str(s.path))}\n</location>\n</skill>"
        for s in skills
    )
    return "\n".join(["<available_skills>", *items, "</available_skills>"])


def render(
    skills: list[Skill],
    env: Environment,
    context_tokens: int | None,
    options: dict[str, Any],
    client: str = CLIENT,
) -> ListingReport:
    """Render the reference listing; no budget; per-skill token guidance as info."""
    listed = []
    entries = []
    full, omitted = ListingState.FULL, ListingState.OMITTED
    for s in skills:
        desc = s.description or ""
        if desc.strip():
            listed.append(s)
            d = len(desc)
            entries.append(SkillListing(s.name, str(s.path), full, d, d))
        else:
            entries.append(
                SkillListing(
                    s.name,
                    str(s.path),
                    omitted,
                    0,
                    0,
                    "missing description: the client guide says skip it",
                )
            )
    states_only = bool(options.get(STATES_ONLY))
    text = "" if states_only else to_prompt(listed)
    info = []
    warnings = []
    if listed and not states_only:
        per = estimate_tokens(len(text)) / len(listed)
        info.append(
            f"Catalog ≈ {estimate_tokens(len(text)):,} tokens (est.), ≈ {per:.0f} per skill; the "
            f"spec suggests ~{TOKENS_PER_SKILL[0]}-{TOKENS_PER_SKILL[1]} tokens per skill."
        )
        most = TOKENS_PER_SKILL[1] - 20
        heavy = [
            s.name
            for s in listed
            if estimate_tokens(len(s.name) + len(s.description or "") + len(str(s.path))) > most
        ]
        if heavy:
            info.append(
                f"{plural(len(heavy), 'skill')} {agree(len(heavy), 'exceeds', 'exceed')} "
                f"~{TOKENS_PER_SKILL[1]} tokens each in the "
                f"catalog (est.): {', '.join(heavy[:5])}" + (" …" if len(heavy) > 5 else "")
            )
    if len(listed) < len(skills):
        warnings.append(
            f"{plural(len(skills) - len(listed), 'skill')} without a description "
            f"{agree(len(skills) - len(listed), 'is', 'are')} skipped."
        )
    return ListingReport(
        client=client,
        context_tokens=context_tokens,
        text=text,
        placement=PLACEMENT,
        skills=entries,
        warnings=warnings,
        info=info,
    )
