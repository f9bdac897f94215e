"""Gemini CLI's skill section of the system prompt.

Source: ``google-gemini/gemini-cli`` @5411f113 ``packages/core/src/prompts/snippets.ts``
(``renderAgentSkills``); ../shared/reference/clients.md section 4.3-4.4.

Template (no XML escaping at all; the whole section is ``.trim()``-ed; empty list -> "")::

    # Available Agent Skills

    {intro: Gemini CLI's prose, 165 chars in 0.61.0: a capture's text or a placeholder}

    <available_skills>
      <skill>
        <name>{name}</name>
        <description>{description}</description>
        <location>{abs path}</location>
      </skill>
    </available_skills>

Budget: none (no character, token or count cap). Order: load order (built-ins, extensions,
user, workspace; a later tier overrides an earlier name in place): see
``GeminiCliProfile.listing_order``. Checked on Gemini CLI 0.61.0 by the lab.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from workbench.core.clients.gemini_cli.builtins import BUILTIN_DIR, BUILTINS
from workbench.core.clients.gemini_cli.profile import CLIENT_VERSION, PROFILE
from workbench.core.listingkit import ListingReport, ListingState, SkillListing, client_texts, placeholder

if TYPE_CHECKING:
    from workbench.core.model import Environment, Skill

CLIENT = "gemini-cli"
#: Gemini CLI reads a tier's SKILL.md files concurrently (``glob`` results in completion order):
#: the order inside a tier is usually reverse code-point order, but neighbours can swap between
#: runs (lab: budget-80-short / budget-300-short on 0.61.0). Shown as a warning when it applies.
RACY_ORDER = "order inside a tier is racy"
TOOL = "activate_skill"
HEADER = "# Available Agent Skills"
#: The sentence under the header is Gemini CLI's own prose: its length only (0.61.0, the lab);
#: ``client_texts["prose"]["intro"]`` fills it.
PROSE_LENGTHS = {"0.61.0": {"intro": 165}}
PLACEMENT = (
    "system prompt section (after sub-agents, before hook context); skill names also "
    "appear as the enum of the activate_skill tool"
)


def listing_order(skills: list[Skill]) -> list[Skill]:
    """Load order (``GeminiCliProfile.listing_order``)."""
    return PROFILE.listing_order(skills)


def listed_name(skill: Skill) -> str:
    """The name as Gemini CLI lists it: the (sanitised) frontmatter name, even when empty."""
    name = skill.fields.get("name")
    return name if isinstance(name, str) else skill.name


def builtin_entries(options: dict[str, Any]) -> tuple[list[tuple[str, str, str]], bool]:
    """[(name, description, location)] of Gemini CLI's built-ins (``builtins.py``), texts from
    ``client_texts`` when captured, else placeholders of the stored lengths (the location then
    names the package folder symbolically); and whether all texts are real."""
    captured = {str(b.get("name", "")): b for b in client_texts(options)["builtins"]}
    out = []
    for name, length in BUILTINS.get(CLIENT_VERSION, ()):
        b = captured.get(name)
        if b is not None:
            out.append((name, str(b.get("description", "")), str(b.get("location") or "")))
        else:
            out.append(
                (
                    name,
                    placeholder(f"built-in {name}: description", length),
                    f"⟦@google/gemini-cli package⟧/{BUILTIN_DIR}/{name}/SKILL.md",
                )
            )
    return out, all(n in captured for n, _ in BUILTINS.get(CLIENT_VERSION, ()))


def render(
    skills: list[Skill], env: Environment, context_tokens: int | None, options: dict[str, Any]
) -> ListingReport:
    """Render the section: the built-ins (lowest tier, first), then ``skills``; every skill is
    ``full`` (Gemini CLI has no budget). A user skill with a built-in's name replaces it in place."""
    builtins, real = builtin_entries(options)
    intro_text = client_texts(options)["prose"].get("intro")
    if not isinstance(intro_text, str):
        intro_text = placeholder(
            f"Gemini CLI intro: how to call {TOOL}", PROSE_LENGTHS[CLIENT_VERSION]["intro"]
        )
        real = False
    names = {s.name for s in skills}
    rows = [(n, d, loc) for n, d, loc in builtins if n not in names]
    rows += [(listed_name(s), s.description or "", str(s.path)) for s in skills]
    entries = [
        SkillListing(
            listed_name(s), str(s.path), ListingState.FULL, len(s.description or ""), len(s.description or "")
        )
        for s in skills
    ]
    built = [
        SkillListing(n, loc, ListingState.FULL, len(d), len(d)) for n, d, loc in builtins if n not in names
    ]
    if not rows:
        text = ""
    else:
        # one join for the whole text (a 10,000-skill text is ~4 MB: building the skills' part,
        # then the text around it, held both copies at once; issue 14: peak RSS)
        items = (
            f"  <skill>\n    <name>{n}</name>\n    <description>{d}"
            f"</description>\n    <location>{loc}</location>\n  </skill>"
            for n, d, loc in rows
        )
        text = "\n".join(
            [HEADER, "", intro_text, "", "<available_skills>", *items, "</available_skills>"]
        ).strip()
    warnings = []
    tiers = [s.root.precedence for s in skills]
    if any(tiers.count(t) > 1 for t in set(tiers)):
        warnings.append(
            f"Gemini CLI loads each folder's skills concurrently: the {RACY_ORDER} "
            "(usually reverse name order; neighbours can swap between runs)."
        )
    assumptions = (
        []
        if real
        else [
            f"Built-in skills and the intro sentence are placeholders of their real lengths (Gemini CLI "
            f"{CLIENT_VERSION}); capture the installed client for their texts and locations."
        ]
    )
    return ListingReport(
        client=CLIENT,
        context_tokens=context_tokens,
        text=text,
        placement=PLACEMENT,
        skills=entries,
        builtins=built,
        client_version=CLIENT_VERSION,
        warnings=warnings,
        assumptions=assumptions,
        info=["Gemini CLI has no listing budget."],
    )
