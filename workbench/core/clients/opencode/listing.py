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

from workbench.core.clients.opencode.builtins import BUILTIN_LOCATION, BUILTINS, VERSION
from workbench.core.clients.opencode.profile import has_description
from workbench.core.listingkit import (
    ListingReport,
    ListingState,
    SkillListing,
    client_texts,
    locale_key,
    placeholder,
    xml_escape,
)
from workbench.core.text import agree, plural

if TYPE_CHECKING:
    from workbench.core.model import Environment, Skill

CLIENT = "opencode"
INTRO = (
    "Skills provide specialized instructions and workflows for specific tasks.\n"
    "Use the skill tool to load a skill when a task matches its description."
)
EMPTY = "No skills are currently available."
PLACEMENT = "system prompt section (omitted when the agent has no skill tool)"


_escape = xml_escape


def listing_order(skills: list[Skill]) -> list[Skill]:
    """Sorted by name (``localeCompare``, approximated by ``locale_key``)."""
    return sorted(skills, key=lambda s: locale_key(s.name))


class _Builtin:
    """A built-in entry, shaped enough like a ``Skill`` for the renderer."""

    def __init__(self, name: str, description: str, location: str) -> None:
        self.name, self.description, self.location = name, description, location


def builtin_entries(options: dict[str, Any]) -> tuple[list[_Builtin], bool]:
    """(OpenCode's own skills, captured?): captured texts, else placeholders of the stored
    lengths (``builtins.py``); ``options["builtins"] = False`` leaves them out."""
    if options.get("builtins") is False:
        return [], False
    captured = client_texts(options)["builtins"]
    if captured:
        return [
            _Builtin(b["name"], b.get("description") or "", b.get("location") or BUILTIN_LOCATION)
            for b in captured
        ], True
    return [
        _Builtin(
            n, placeholder(f"OpenCode {VERSION} built-in '{n}', {length} chars", length), BUILTIN_LOCATION
        )
        for n, length in BUILTINS.get(VERSION, ())
    ], False


def render(
    skills: list[Skill], env: Environment, context_tokens: int | None, options: dict[str, Any]
) -> ListingReport:
    """Render the section; listed skills are ``full``, description-less ones ``omitted``.

    OpenCode's built-ins are sorted in among the user's skills (location ``<built-in>``).
    """
    builtins, captured = builtin_entries(options)
    listed: list[Any] = [s for s in skills if has_description(s)]
    listed = sorted(listed + builtins, key=lambda s: locale_key(s.name))
    entries = []
    for s in skills:
        d = len(s.description or "")
        if has_description(s):
            entries.append(SkillListing(s.name, str(s.path), ListingState.FULL, d, d))
        else:
            entries.append(
                SkillListing(
                    s.name,
                    str(s.path),
                    ListingState.OMITTED,
                    0,
                    0,
                    "no description: loadable but not listed (V2)",
                )
            )
    if not listed:
        body = EMPTY
    else:
        lines = ["<available_skills>"]
        for s in listed:
            if isinstance(s, _Builtin):
                loc = _escape(s.location)
            else:
                loc = s.path.as_uri() if options.get("location") == "url" else _escape(str(s.path))
            lines += [
                "  <skill>",
                f"    <name>{s.name}</name>",
                f"    <description>{s.description}</description>",
                f"    <location>{loc}</location>",
                "  </skill>",
            ]
        lines.append("</available_skills>")
        body = "\n".join(lines)
    warnings = []
    missing = len(skills) + len(builtins) - len(listed)
    if missing:
        warnings.append(
            f"{plural(missing, 'skill')} without a description {agree(missing, 'is', 'are')} not "
            f"listed by OpenCode (V2); the model only finds {agree(missing, 'it', 'them')} if told "
            "the name."
        )
    assumptions = ["Name order approximates JavaScript localeCompare."]
    if builtins and not captured:
        assumptions.append(
            f"OpenCode {VERSION}'s built-in skills are shown as placeholders of "
            "their real lengths (capture the installed client for their texts)."
        )
    return ListingReport(
        client=CLIENT,
        context_tokens=context_tokens,
        text=INTRO + "\n" + body,
        placement=PLACEMENT,
        skills=entries,
        warnings=warnings,
        info=["OpenCode has no listing budget."],
        assumptions=assumptions,
        builtins=[
            SkillListing(b.name, BUILTIN_LOCATION, ListingState.FULL, len(b.description), len(b.description))
            for b in builtins
        ],
        client_version=VERSION,
    )
