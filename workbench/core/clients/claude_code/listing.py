"""Claude Code's skill listing: a ``<system-reminder>`` attachment in the user turn.

Sources (../shared/reference/clients.md section 1.3-1.4 and chat-loop.md section 2.1):

* Header line (confirmed by several reproductions): ``The following skills are available for use
  with the Skill tool:`` then a blank line, then one ``- <name>: <description>`` line per skill;
  ``when_to_use`` appended as `` - <when_to_use>``; truncation marker ``…`` [3p]. The exact line
  template is not public: **unverified** (``report.verified`` is False).
* Budget (code.claude.com/docs/en/skills; binary extraction of v2.1.129/v2.1.220 [3p]):
  ``SLASH_COMMAND_TOOL_CHAR_BUDGET`` env var, else ``max(1, floor(contextWindow × 4 ×
  skillListingBudgetFraction))`` chars (fraction 0.01; 8,000 chars when the context is unknown,
  i.e. the default 200,000-token window). The ×4 chars/token conversion is an assumption of that
  extraction and is listed in ``report.assumptions``.
* Per entry: ``description`` + ``when_to_use`` combined cut at 1,536 characters
  (``skillListingMaxDescChars``) ending in ``…``.
* Over budget: descriptions of the least-used skills are dropped first; the name stays
  (``- name``). Docs: "The listing always contains every skill name". Order of use: names in
  ``Environment.most_used`` first (in that order), then the listing order (later = less used).
  Full descriptions are granted in that order until one does not fit; that skill and every later
  one are name-only (a cutoff, as observed [3p], not a knapsack).

Rendering of a plain example (PASS shape)::

    The following skills are available for use with the Skill tool:

    - pdf: Fill PDF forms. - Use when the user mentions a PDF
    - xlsx

What we count against the budget (assumption, shown in the report): the entry lines, each plus
its newline; the header line is not counted.

Options: ``budget_fraction`` (skillListingBudgetFraction, default 0.01), ``max_desc_chars``
(skillListingMaxDescChars, default 1536), ``char_budget`` (overrides everything, like the env var).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

from workbench.core.listing import ListingReport, SkillListing, ctx_label
from workbench.core.text import plural

if TYPE_CHECKING:
    from workbench.core.model import Environment, Skill

CLIENT = "claude-code"
HEADER = "The following skills are available for use with the Skill tool:"
#: Claude Code's default context window (tokens) when none is known: 200,000 × 4 × 1 % = 8,000.
DEFAULT_CONTEXT = 200_000
CHARS_PER_TOKEN = 4
DEFAULT_FRACTION = 0.01
MAX_DESC_CHARS = 1536
ELLIPSIS = "…"
ENV_BUDGET = "SLASH_COMMAND_TOOL_CHAR_BUDGET"
#: Our own one-line wording for the note Claude Code appends when it shortened the list
#: (chat-loop.md 2.1 quotes only its start). OUR PARAPHRASE, not Claude Code's text; unverified.
SHORTENED_NOTE = ("(This list was shortened to fit: a description ending in … was cut there, "
                  "and a skill shown by name only has no description here.)")
PLACEMENT = ("user turn: a <system-reminder> attachment (not the system prompt); the text below "
             "is its content")


def listing_order(skills: list["Skill"]) -> list["Skill"]:
    """Discovery order (Claude Code keeps the order it found the skills in)."""
    return list(skills)


def entry_description(skill: "Skill") -> str:
    """The text Claude Code lists after the name: description, then `` - when_to_use``."""
    desc = skill.description or ""
    wtu = (skill.when_to_use or "").strip() if skill.when_to_use else ""
    if wtu:
        return f"{desc} - {wtu}" if desc else wtu
    return desc


def _parse_int(v: str | None) -> int | None:
    if v is None:
        return None
    try:
        n = int(str(v).strip())
    except ValueError:
        return None
    return n if n > 0 else None


def char_budget(env: "Environment | None", context_tokens: int | None,
                options: dict[str, Any] | None = None) -> tuple[int, str]:
    """(budget in chars, how it was derived). See the module docstring for the rule."""
    options = options or {}
    if options.get("char_budget"):
        return int(options["char_budget"]), "options.char_budget"
    env_v = _parse_int(env.getenv(ENV_BUDGET) if env is not None else None)
    if env_v:
        return env_v, f"{ENV_BUDGET}={env_v}"
    frac = float(options.get("budget_fraction", DEFAULT_FRACTION))
    ctx = context_tokens if context_tokens else DEFAULT_CONTEXT
    n = max(1, math.floor(ctx * CHARS_PER_TOKEN * frac))
    how = (f"{ctx:,} tokens × 4 chars/token × {frac:g}" if context_tokens
           else f"context unknown: default {DEFAULT_CONTEXT:,} × 4 × {frac:g} = 8,000-char fallback")
    return n, how


def render(skills: list["Skill"], env: "Environment", context_tokens: int | None,
           options: dict[str, Any]) -> ListingReport:
    """Render Claude Code's listing for ``skills`` (already in listing order).

    Returns a ``ListingReport`` in chars (budget_used counts entry lines + newlines). Never omits
    a skill: names always stay (docs), so ``budget_used`` can exceed ``budget_limit`` when even
    the names do not fit; a warning says so.
    """
    limit, how = char_budget(env, context_tokens, options)
    max_desc = int(options.get("max_desc_chars", MAX_DESC_CHARS))
    assumptions = [
        "Exact line template unverified (not public): '- name: description - when_to_use' "
        "from third-party reproductions.",
        f"Budget = {how} = {limit:,} chars; the 4 chars/token conversion comes from a binary "
        "extraction (third-party), not from Anthropic's docs.",
        "Budget measured on the entry lines (each + newline); header line not counted (assumption).",
        "Least-used order: --most-used names first, then listing order (later = less used); "
        "Claude Code ranks by its own usage history, which we cannot see.",
    ]
    n = len(skills)
    descs = [entry_description(s) for s in skills]
    shown = []  # the description text rendered for a full entry (possibly cut at max_desc)
    cut = []
    for d in descs:
        if len(d) > max_desc:
            shown.append(d[: max(0, max_desc - 1)] + ELLIPSIS)
            cut.append(True)
        else:
            shown.append(d)
            cut.append(False)
    forced_name_only = [str(s.flags.get("skill_override", "")) == "name-only" for s in skills]
    name_cost = [len(f"- {s.name}") + 1 for s in skills]
    full_cost = [len(f"- {s.name}: {shown[i]}") + 1 if shown[i] and not forced_name_only[i]
                 else name_cost[i] for i, s in enumerate(skills)]
    total_full = sum(full_cost)
    granted = [True] * n
    if total_full > limit:
        # priority: most_used names first (their order), then listing order
        mu = {name: k for k, name in enumerate(env.most_used or [])}
        order = sorted(range(n), key=lambda i: (0, mu[skills[i].name]) if skills[i].name in mu
                       else (1, i))
        used = sum(name_cost)
        granted = [False] * n
        for i in order:
            extra = full_cost[i] - name_cost[i]
            if used + extra <= limit:
                used += extra
                granted[i] = True
            else:
                break  # cutoff: this skill and every less-used one keep only their names
    lines: list[str] = []
    entries: list[SkillListing] = []
    used = 0
    for i, s in enumerate(skills):
        d_chars = len(descs[i])
        if granted[i] and shown[i] and not forced_name_only[i]:
            line = f"- {s.name}: {shown[i]}"
            if cut[i]:
                entries.append(SkillListing(s.name, str(s.path), "truncated", d_chars,
                                            max(0, max_desc - 1),
                                            f"cut at {max_desc:,} chars (per-entry cap)"))
            else:
                entries.append(SkillListing(s.name, str(s.path), "full", d_chars, d_chars))
        else:
            line = f"- {s.name}"
            if d_chars == 0:
                entries.append(SkillListing(s.name, str(s.path), "full", 0, 0, "no description"))
            else:
                note = ("skillOverrides: name-only" if forced_name_only[i]
                        else "description dropped (over budget; least used first)")
                entries.append(SkillListing(s.name, str(s.path), "name-only", d_chars, 0, note))
        lines.append(line)
        used += len(line) + 1
    dropped = [e for e, g, f in zip(entries, granted, forced_name_only)
               if e.state == "name-only" and not f]
    warnings: list[str] = []
    text = ""
    if lines:
        text = HEADER + "\n\n" + "\n".join(lines)
        if dropped or any(e.state == "truncated" for e in entries):
            text += "\n\n" + SHORTENED_NOTE
            assumptions.append("The closing 'list was shortened' note is our paraphrase of a "
                               "note quoted only in part (chat-loop.md 2.1); not counted.")
    if dropped:
        window = (context_tokens or DEFAULT_CONTEXT) * CHARS_PER_TOKEN
        pct_need = 100.0 * total_full / window
        frac = float(options.get("budget_fraction", DEFAULT_FRACTION))
        names = ", ".join(e.name for e in dropped[:3])
        more = f", +{len(dropped) - 3} more" if len(dropped) > 3 else ""
        need = f"{pct_need:.1f}%" if pct_need < 100 else "over 100%"  # --context-tokens 1: not "5050.0%"
        warnings.append(
            f"Skill listing will be truncated: {plural(len(dropped), 'description')} dropped (full "
            f"descriptions kept for most-used skills) ({need}/{frac * 100:g}% of "
            f"context): {names}{more}")
        warnings.append(
            f"The full listing needs {total_full:,} chars; the budget at "
            f"{ctx_label(context_tokens)} is {limit:,}. Mark skills you rely on as most used, "
            f"shorten descriptions, or raise {ENV_BUDGET}/skillListingBudgetFraction.")
    if used > limit:
        warnings.append(f"Even names only ({used:,} chars) exceed the {limit:,}-char budget; "
                        "Claude Code still lists every name (docs), so the listing is over budget.")
    return ListingReport(
        client=CLIENT, context_tokens=context_tokens, text=text, placement=PLACEMENT,
        budget_unit="chars", budget_limit=limit, budget_used=used, skills=entries,
        warnings=warnings, assumptions=assumptions, verified=False)
