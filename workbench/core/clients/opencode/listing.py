"""OpenCode's skill section of the system prompt.

Sources: ``anomalyco/opencode`` ``packages/opencode/src/session/system.ts`` (skills section) and
``skill/index.ts`` ``Skill.fmt(list, {verbose: true})``; ../shared/reference/clients.md section 5.3.

Template (sorted by name; name and description are *not* escaped; ``<location>`` is the
HTML-escaped SKILL.md path in V2 builds, a ``file://`` URL in older ones)::

    Skills provide specialized instructions and workflows for specific tasks.
    Use the skill tool to load a skill when a task matches its description.
    <available_skills>
      <skill>
        <name>{name}</name>
        <description>{description}</description>
        <location>{location}</location>
      </skill>
    </available_skills>

Empty list: the two intro lines, then ``No skills are currently available.``
Budget: none. V2 lists only skills that have a description (others are loadable, not listed):
such skills are reported ``omitted``.

Options: ``location`` = "path" (default, V2) | "url" (older builds: ``file://`` URL).
Note: some builds also escape name/description and shorten the home folder to ``~``; we follow
the reference (V2: no escaping of name/description, escaped path).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from workbench.core.listing import ListingReport, SkillListing, locale_key
from workbench.core.text import agree, plural

if TYPE_CHECKING:
    from workbench.core.model import Environment, Skill

CLIENT = "opencode"
INTRO = ("Skills provide specialized instructions and workflows for specific tasks.\n"
         "Use the skill tool to load a skill when a task matches its description.")
EMPTY = "No skills are currently available."
PLACEMENT = "system prompt section (omitted when the agent has no skill tool)"


def _escape(s: str) -> str:
    return (s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
            .replace('"', "&quot;").replace("'", "&apos;"))


def listing_order(skills: list["Skill"]) -> list["Skill"]:
    """Sorted by name (``localeCompare``, approximated by ``locale_key``)."""
    return sorted(skills, key=lambda s: locale_key(s.name))


def render(skills: list["Skill"], env: "Environment", context_tokens: int | None,
           options: dict[str, Any]) -> ListingReport:
    """Render the section; listed skills are ``full``, description-less ones ``omitted``."""
    listed = [s for s in skills if (s.description or "").strip()]
    entries = []
    for s in skills:
        d = len(s.description or "")
        if (s.description or "").strip():
            entries.append(SkillListing(s.name, str(s.path), "full", d, d))
        else:
            entries.append(SkillListing(s.name, str(s.path), "omitted", 0, 0,
                                        "no description: loadable but not listed (V2)"))
    if not listed:
        body = EMPTY
    else:
        lines = ["<available_skills>"]
        for s in listed:
            loc = s.path.as_uri() if options.get("location") == "url" else _escape(str(s.path))
            lines += ["  <skill>", f"    <name>{s.name}</name>",
                      f"    <description>{s.description}</description>",
                      f"    <location>{loc}</location>", "  </skill>"]
        lines.append("</available_skills>")
        body = "\n".join(lines)
    warnings = []
    if len(listed) < len(skills):
        n = len(skills) - len(listed)
        warnings.append(f"{plural(n, 'skill')} without a description {agree(n, 'is', 'are')} not listed "
                        f"by OpenCode (V2); the model only finds {agree(n, 'it', 'them')} if told the name.")
    return ListingReport(client=CLIENT, context_tokens=context_tokens, text=INTRO + "\n" + body,
                         placement=PLACEMENT, skills=entries, warnings=warnings,
                         info=["OpenCode has no listing budget."],
                         assumptions=["Name order approximates JavaScript localeCompare."])
