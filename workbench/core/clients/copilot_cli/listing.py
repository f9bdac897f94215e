"""GitHub Copilot CLI's ``<available_skills>`` block (inside its ``<skill>`` tool section of the
system prompt). Checked on GitHub Copilot CLI 1.0.102 by the conformance lab (copilot-* and budget
scenarios); the client is closed source.

Template (name and description XML-escaped: ``& < > " '``; location = the scope word)::

    <available_skills>
    <skill>
      <name>{name}</name>
      <description>{description}</description>
      <location>project|user|builtin</location>
    </skill>
    ...
    Additional skills available (invoke by name): a, b, ...      <- only past the budget
    </available_skills>

Order: the user's skills (``CopilotCliProfile.listing_order``), then the client's built-ins
(``builtins.py``). Budget: entries are taken in order while the running total of
``entry.length + 1`` (JavaScript length: UTF-16 code units, so an emoji counts 2; lab:
copilot-budget-unicode) stays <= 15,000 (exactly 15,000 fits, 15,001 does not); at the first that
does not fit, it and every later skill (built-ins included) go to the one "invoke by name" line
(names joined with ", "; the 5,000-char cap counts the line's prefix "Additional skills available
(invoke by name): " with the names but not the "... and N more" tail: a line of exactly 5,000 such
chars is kept whole, one more char drops the last name; lab: copilot-names-cap-exact / -one-over.
VS Code's source counts the names alone, so the two clients cut this line 46 chars apart).

Built-ins: their listed texts come from ``options["client_texts"]["builtins"]`` (a capture of the
installed client; ``workbench.core.listingkit.CLIENT_TEXTS``); without it each description is a
``placeholder`` of the stored length, so budgets and cut-offs fall where the client's do.

Options: ``client_texts`` (above); ``budget_chars`` (what-if: another entry budget).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from workbench.core.clients.copilot_cli.builtins import BUILTINS
from workbench.core.clients.copilot_cli.profile import CLIENT_VERSION, PROFILE
from workbench.core.clients.vscode_copilot.listing import OVERFLOW_PREFIX, overflow_line
from workbench.core.listingkit import (
    ListingReport,
    ListingState,
    SkillListing,
    client_texts,
    js_len,
    placeholder,
    xml_escape,
)

if TYPE_CHECKING:
    from workbench.core.model import Environment, Skill

CLIENT = "copilot-cli"
ENTRY_BUDGET = 15_000
NAMES_BUDGET = 5_000
PLACEMENT = (
    "system prompt, block 2: <available_skills> inside the <skill> tool section (loader: the `skill` tool)"
)


def listing_order(skills: list[Skill]) -> list[Skill]:
    """See ``CopilotCliProfile.listing_order``."""
    return PROFILE.listing_order(skills)


def builtin_entries(options: dict[str, Any]) -> tuple[list[tuple[str, str]], bool]:
    """[(name, listed description)] of the client's built-ins, and whether every text is real
    (from ``client_texts``) rather than a placeholder of the stored length. A capture that shows
    only some built-ins with a description (the rest past the budget) fills those only."""
    captured = {
        str(b.get("name", "")): str(b.get("description", "")) for b in client_texts(options)["builtins"]
    }
    facts = list(BUILTINS.get(CLIENT_VERSION, ()))
    known = {n for n, _ in facts}
    facts += [(n, len(d)) for n, d in captured.items() if n not in known]
    out = [
        (n, captured[n] if n in captured else placeholder(f"built-in {n}: description", k)) for n, k in facts
    ]
    return out, all(n in captured for n, _ in facts)


def entry(name: str, description: str, location: str) -> str:
    """One ``<skill>`` entry (already-escaped texts)."""
    return (
        f"<skill>\n  <name>{name}</name>\n  <description>{description}</description>\n"
        f"  <location>{location}</location>\n</skill>"
    )


def render(
    skills: list[Skill], env: Environment, context_tokens: int | None, options: dict[str, Any]
) -> ListingReport:
    """Render the block for ``skills`` (listing order) plus the built-ins. ``budget_used`` = the
    running ``entry.length + 1`` total (UTF-16 code units) of the entries shown with descriptions."""
    budget = int(options.get("budget_chars") or ENTRY_BUDGET)
    builtins, real = builtin_entries(options)
    items: list[tuple[str, str, str, Skill | None]] = [
        (
            xml_escape(s.name),
            xml_escape(s.description or ""),
            "project" if s.root.scope in ("project", "extra") else "user",
            s,
        )
        for s in skills
    ]
    items += [(n, d, "builtin", None) for n, d in builtins]
    lines: list[str] = []
    used = 0
    cut = len(items)
    for k, (name, desc, loc, _) in enumerate(items):
        text = entry(name, desc, loc)
        if used + js_len(text) + 1 > budget:
            cut = k
            break
        used += js_len(text) + 1
        lines.append(text)
    line, shown = overflow_line([it[0] for it in items[cut:]], NAMES_BUDGET - js_len(OVERFLOW_PREFIX))
    if line:
        lines.append(line)
    entries: list[SkillListing] = []
    builtin_states: list[SkillListing] = []
    for k, (name, desc, _loc, s) in enumerate(items):
        d = len(s.description or "") if s is not None else len(desc)
        path = str(s.path) if s is not None else "<built-in>"
        if k < cut:
            e = SkillListing(name, path, ListingState.FULL, d, d)
        elif k - cut < len(shown):
            e = SkillListing(
                name,
                path,
                ListingState.NAME_ONLY,
                d,
                0,
                f"past the {budget:,}-char budget: in the 'invoke by name' line",
            )
        else:
            e = SkillListing(name, path, ListingState.OMITTED, d, 0, "past the budget and the name line")
        (entries if s is not None else builtin_states).append(e)
    text = "\n".join(["<available_skills>", *lines, "</available_skills>"]) if lines else ""
    warnings = []
    if cut < len(items):
        warnings.append(
            f"{cut} of {len(items)} skills (built-ins included) fit Copilot CLI's "
            f"{budget:,}-char skills budget with descriptions; the rest are listed by "
            "name only."
        )
    assumptions: list[str] = []
    if builtins and not real:
        assumptions.append(
            f"Built-in skill descriptions are placeholders of their real lengths "
            f"(Copilot CLI {CLIENT_VERSION}); capture the installed client for the texts."
        )
    return ListingReport(
        client=CLIENT,
        context_tokens=context_tokens,
        text=text,
        placement=PLACEMENT,
        budget_unit="chars",
        budget_limit=budget,
        budget_used=used,
        skills=entries,
        warnings=warnings,
        assumptions=assumptions,
        builtins=builtin_states,
        client_version=CLIENT_VERSION,
        info=[f"Budget: {budget:,} chars of entries, any context size."],
    )
