"""The model-visible skill listing of a client, and what its budget did to each skill.

``render_listing(catalog, context_tokens=None, options=None) -> ListingReport`` takes the skills a
client offers the model (``catalog.listed()``), puts them in that client's listing order and hands
them to ``workbench.core.clients.<client>.listing.render``. Each client module reproduces the
client's template (tags, line shapes, escaping, ordering, header lines) and its budget algorithm;
the sources are named in each module (from ``../shared/reference/clients.md``). The report types
and the measures they share live in ``workbench.core.listingkit`` (re-exported here); units are
described there.

Nothing here imports Qt; rendering is pure and fast enough to run on every keystroke debounce
(see ``tests/bench/test_bench_listing.py`` for figures).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from workbench.core.listingkit import (
    CLIENT_TEXTS,
    STATES,
    UNITS,
    ListingReport,
    ListingState,
    SkillListing,
    ceil_div,
    client_texts,
    collapse_ws,
    ctx_label,
    js_len,
    locale_key,
    placeholder,
    utf8_len,
)
from workbench.core.model import SkillStatus, gc_paused
from workbench.core.tokens import estimate_tokens  # re-exported

if TYPE_CHECKING:
    from workbench.core.model import Catalog, Skill


def render_listing(
    catalog: Catalog, context_tokens: int | None = None, options: dict[str, Any] | None = None
) -> ListingReport:
    """Render the listing ``catalog.client`` would send for ``catalog``.

    Args:
        catalog: what the client found (``Catalog.listed()`` are the skills offered to the model).
        context_tokens: the model's context window in tokens; None = ``catalog.env.context_tokens``,
            and when that is None too, the client's fallback (e.g. 8,000 chars for Claude Code and
            Codex).
        options: client-specific switches, documented in each client module (e.g.
            ``{"skill_tool": False}`` for VS Code, ``{"max_skills_prompt_chars": 30000}`` for
            OpenClaw). Without ``client_texts`` the texts of the newest ``workbench capture`` of
            this client are used when there is one (``capture.texts``; the report's
            ``assumptions`` say so); ``{"client_texts": {}}`` forces placeholders.

    Returns:
        A ``ListingReport``. Never raises on skill content.

    Raises:
        KeyError: unknown client id.
    """

    with gc_paused():  # a report per skill, no cycles (``model.gc_paused``)
        return _render_listing(catalog, context_tokens, options)


def _render_listing(
    catalog: Catalog, context_tokens: int | None, options: dict[str, Any] | None
) -> ListingReport:
    from workbench.core.clients import get_profile, listing_module

    mod = listing_module(catalog.client)
    ctx = context_tokens if context_tokens is not None else catalog.env.context_tokens
    skills = mod.listing_order(catalog.listed())
    opts = dict(options or {})
    captured = None
    if CLIENT_TEXTS not in opts:
        from workbench.core.capture.texts import stored_client_texts

        captured = stored_client_texts(catalog.client)
        if captured is not None:
            opts[CLIENT_TEXTS] = captured[1]
    report: ListingReport = mod.render(skills, catalog.env, ctx, opts)
    if captured is not None:
        report.assumptions.append(
            f"built-in skills and client prose from your {catalog.client} "
            f"{captured[0]} capture (workbench capture)"
        )
    profile = get_profile(catalog.client)
    report.model = profile.model_note()
    report.client_version = report.client_version or profile.client_version
    return report


#: How each listing state reads where a status is shown (scan text, tree, status bar).
STATE_LABELS: dict[str, str] = {
    ListingState.FULL: "in full",
    ListingState.TRUNCATED: "truncated",
    ListingState.NAME_ONLY: "name only",
    ListingState.OMITTED: "omitted by budget",
}

#: The outcomes a skill can end up in (issue 13 item 2): where a listed skill lands in the
#: listing, else its discovery status. Order = how counts are shown.
OUTCOMES: tuple[str, ...] = (
    *map(str, ListingState),
    *(str(s) for s in SkillStatus if s != SkillStatus.LISTED),
)


def listing_states(report: ListingReport | None) -> dict[str, str]:
    """SKILL.md path (str) -> listing state (``STATES``) for every skill ``report`` was given."""
    return {} if report is None else {s.path: s.state for s in report.skills}


def outcome(skill: Skill, states: dict[str, str]) -> str:
    """Where ``skill`` ends up: its listing state (one of ``STATES``) when it is listed and in
    ``states`` (``listing_states``), else its discovery status (a listed skill the listing did
    not report stays "listed")."""
    if skill.status == SkillStatus.LISTED:
        return states.get(str(skill.path), SkillStatus.LISTED)
    return skill.status


def outcome_label(skill: Skill, states: dict[str, str]) -> str:
    """``outcome`` in words: "listed in full", "listed truncated", "listed name only",
    "omitted by budget", or the status ("shadowed", ...)."""
    o = outcome(skill, states)
    if o == ListingState.OMITTED:
        return STATE_LABELS[o]
    if o in STATE_LABELS:
        return f"listed {STATE_LABELS[o]}"
    return o


def outcome_counts(catalog: Catalog, report: ListingReport | None) -> dict[str, int]:
    """Skills per outcome (``OUTCOMES`` order, every key present; plus "listed" for listed
    skills without a listing state, only when there are any)."""
    states = listing_states(report)
    out = {o: 0 for o in OUTCOMES}
    for sk in catalog.skills:
        o = outcome(sk, states)
        out[o] = out.get(o, 0) + 1
    return out


def format_outcome_counts(counts: dict[str, int], listed: bool = False) -> str:
    """ "3 in full, 1 truncated, 40 omitted by budget, 2 shadowed" (zero counts left out); with
    ``listed``, "3 listed in full, 1 listed truncated, ..." (when no "N listed" precedes it)."""

    def word(o: str) -> str:
        w = STATE_LABELS.get(o, o)
        return f"listed {w}" if listed and o in STATE_LABELS and o != ListingState.OMITTED else w

    return ", ".join(f"{n:,} {word(o)}" for o, n in counts.items() if n)


def render_listing_text_table(report: ListingReport) -> str:
    """A plain-text per-skill table (for ``workbench listing --verbose`` and debugging)."""
    rows = []
    for s in report.skills:
        rows.append(f"{s.state:<10} {s.shown_chars:>5}/{s.description_chars:<5} {s.name}")
    return "\n".join(rows)


__all__ = [
    "STATES",
    "ListingState",
    "UNITS",
    "SkillListing",
    "ListingReport",
    "render_listing",
    "estimate_tokens",
    "CLIENT_TEXTS",
    "placeholder",
    "client_texts",
    "js_len",
    "utf8_len",
    "locale_key",
    "collapse_ws",
    "ctx_label",
    "ceil_div",
    "STATE_LABELS",
    "OUTCOMES",
    "listing_states",
    "outcome",
    "outcome_label",
    "outcome_counts",
    "format_outcome_counts",
]
