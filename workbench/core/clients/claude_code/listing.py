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
* Over budget (checked on Claude Code 2.1.328 by the lab, ``budget-*`` scenarios): the pinned
  built-ins keep their text; then, in listing order, each entry gets its description while the
  whole listing still fits, else it stays a name (``- name``) and the next entry is tried (a
  greedy fit, not a cutoff). Docs: "The listing always contains every skill name". Names in
  ``Environment.most_used`` go first: our stand-in for the usage ranking that [3p] extraction
  reports (not checked by the lab, which runs with no usage history).

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

from workbench.core.clients.claude_code.builtins import BUILTINS, VERSION
from workbench.core.clients.common import js_string
from workbench.core.listingkit import (
    ListingReport,
    ListingState,
    SkillListing,
    client_texts,
    ctx_label,
    locale_key,
    placeholder,
)

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
SHORTENED_NOTE = (
    "(This list was shortened to fit: a description ending in … was cut there, "
    "and a skill shown by name only has no description here.)"
)
PLACEMENT = "user turn: a <system-reminder> attachment (not the system prompt); the text below is its content"


def listing_order(skills: list[Skill]) -> list[Skill]:
    """By level (personal before project: root precedence), then by name (``localeCompare``).

    Checked on Claude Code 2.1.328 by the lab (``order-three``, ``personal-and-project``).
    """
    return sorted(skills, key=lambda s: (s.root.precedence, locale_key(s.name)))


def entry_description(skill: Skill) -> str:
    """The text Claude Code lists after the name: description, then `` - when_to_use``, with
    ``<`` and ``>`` escaped (``&`` and quotes are not: lab ``xml-chars``, Claude Code 2.1.328)."""
    desc = skill.description or ""
    wtu = (skill.when_to_use or "").strip() if skill.when_to_use else ""
    if wtu:
        desc = f"{desc} - {wtu}" if desc else wtu
    return desc.replace("<", "&lt;").replace(">", "&gt;")


def entry_labels(skills: list[Skill]) -> list[str]:
    """``name`` or ``name (declared name)`` per skill (the name is the folder's).

    The declared frontmatter ``name`` is shown when it differs from the folder name, has no
    whitespace and no earlier skill showed it already (lab: ``name-differs``, ``name-invalid``,
    ``clash-same-root``; Claude Code 2.1.328).
    """
    seen: set[str] = set()
    out = []
    for s in skills:
        declared = js_string(s.fields.get("name")) if s.parse_mode in ("strict", "fallback") else None
        if (
            declared
            and declared != s.name
            and not any(c.isspace() for c in declared)
            and declared not in seen
        ):
            seen.add(declared)
            out.append(f"{s.name} ({declared})")
        else:
            out.append(s.name)
    return out


def _parse_int(v: str | None) -> int | None:
    if v is None:
        return None
    try:
        n = int(str(v).strip())
    except ValueError:
        return None
    return n if n > 0 else None


def char_budget(
    env: Environment | None, context_tokens: int | None, options: dict[str, Any] | None = None
) -> tuple[int, str]:
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
    how = (
        f"{ctx:,} tokens × 4 chars/token × {frac:g}"
        if context_tokens
        else f"context unknown: default {DEFAULT_CONTEXT:,} × 4 × {frac:g} = 8,000-char fallback"
    )
    return n, how


def builtin_entries(options: dict[str, Any]) -> tuple[list[tuple[str, str, bool]], bool]:
    """([(name, listed text, pinned)], captured?) for Claude Code's own skills.

    From ``options["client_texts"]["builtins"]`` when captured (pinned per the stored facts),
    else placeholders of the stored lengths (``builtins.py``). ``options["builtins"] = False``
    leaves them out.
    """
    if options.get("builtins") is False:
        return [], False
    facts = {n: (length, pinned) for n, length, pinned in BUILTINS.get(VERSION, ())}
    captured = client_texts(options)["builtins"]
    if captured:
        return [
            (b["name"], b.get("description") or "", facts.get(b["name"], (0, False))[1]) for b in captured
        ], True
    return [
        (n, placeholder(f"Claude Code {VERSION} built-in '{n}', {length} chars", length), pinned)
        for n, length, pinned in BUILTINS.get(VERSION, ())
    ], False


def _cut(text: str, max_desc: int) -> tuple[str, bool]:
    if len(text) > max_desc:
        return text[: max(0, max_desc - 1)] + ELLIPSIS, True
    return text, False


def render(
    skills: list[Skill], env: Environment, context_tokens: int | None, options: dict[str, Any]
) -> ListingReport:
    """Render Claude Code's listing for ``skills`` (already in listing order), built-ins after.

    Budget (checked on Claude Code 2.1.328 by the lab: ``budget-*``): every entry starts as
    ``- name``; the built-ins marked *pinned* in ``builtins.py`` always keep their text; then,
    in listing order (the user's skills, then the other built-ins; names in
    ``Environment.most_used`` first, our stand-in for Claude Code's usage ranking), each entry gets its
    description when the whole listing still fits the budget, else it stays a name (and the next
    one is tried). ``budget_used`` = what the client measures (see ``entry_cost``). Never omits
    a skill.
    """
    limit, how = char_budget(env, context_tokens, options)
    max_desc = int(options.get("max_desc_chars", MAX_DESC_CHARS))
    builtins, captured = builtin_entries(options)
    # A skill of the user's named like a built-in replaces it: the built-in is not listed
    # (Claude Code 2.1.328, a personal ``code-review`` skill: ``workbench capture`` on the demo).
    taken = {s.name for s in skills}
    builtins = [b for b in builtins if b[0] not in taken]
    assumptions = [f"Budget = {how} = {limit:,} chars."]
    if builtins and not captured:
        assumptions.append(
            f"Claude Code {VERSION}'s {len(builtins)} built-in skills are shown as "
            "placeholders of their real lengths (capture the installed client for "
            "their texts)."
        )
    labels = entry_labels(skills) + [n for n, _, _ in builtins]
    texts = [entry_description(s) for s in skills] + [t for _, t, _ in builtins]
    pinned = [False] * len(skills) + [p for _, _, p in builtins]
    forced = [str(s.flags.get("skill_override", "")) == "name-only" for s in skills] + [False] * len(builtins)
    shown, cut = zip(*(_cut(t, max_desc) for t in texts)) if texts else ((), ())
    name_cost = [entry_cost(lab, "") for lab in labels]
    full_cost = [
        entry_cost(lab, shown[i]) if shown[i] and not forced[i] else name_cost[i]
        for i, lab in enumerate(labels)
    ]
    granted = [pinned[i] for i in range(len(labels))]
    used = sum(full_cost[i] if granted[i] else name_cost[i] for i in range(len(labels)))
    mu = {name: k for k, name in enumerate(env.most_used or [])}
    order = sorted(
        range(len(labels)),
        key=lambda i: (0, mu[skills[i].name]) if i < len(skills) and skills[i].name in mu else (1, i),
    )
    for i in order:
        if granted[i] or full_cost[i] == name_cost[i]:
            granted[i] = granted[i] or full_cost[i] == name_cost[i]
            continue
        extra = full_cost[i] - name_cost[i]
        if used + extra <= limit:
            used += extra
            granted[i] = True
    lines: list[str] = []
    entries: list[SkillListing] = []
    for i, lab in enumerate(labels):
        d_chars = len(texts[i])
        if granted[i] and shown[i] and not forced[i]:
            lines.append(f"- {lab}: {shown[i]}")
            state = ListingState.TRUNCATED if cut[i] else ListingState.FULL
            sl = SkillListing(
                lab.split(" ")[0],
                "",
                state,
                d_chars,
                max(0, max_desc - 1) if cut[i] else d_chars,
                f"cut at {max_desc:,} chars (per-entry cap)" if cut[i] else "",
            )
        else:
            lines.append(f"- {lab}")
            note = (
                "no description"
                if d_chars == 0
                else "skillOverrides: name-only"
                if forced[i]
                else "description dropped (over budget)"
            )
            sl = SkillListing(
                lab.split(" ")[0],
                "",
                ListingState.FULL if d_chars == 0 else ListingState.NAME_ONLY,
                d_chars,
                0,
                note,
            )
        if i < len(skills):
            sl.path = str(skills[i].path)
            entries.append(sl)
        else:
            sl.path = "<built-in>"
            entries.append(sl)
    user, builtin_rows = entries[: len(skills)], entries[len(skills) :]
    text = HEADER + "\n\n" + "\n".join(lines) if lines else ""
    warnings: list[str] = []
    dropped = [e for e, f in zip(user, forced) if e.state == ListingState.NAME_ONLY and not f]
    if dropped:
        names = ", ".join(e.name for e in dropped[:3])
        more = f", +{len(dropped) - 3} more" if len(dropped) > 3 else ""
        total_full = sum(full_cost)
        warnings.append(
            f"Skill listing is over budget: {len(dropped)} of your descriptions dropped ({names}"
            f"{more}); the full listing needs {total_full:,} chars, the budget at "
            f"{ctx_label(context_tokens)} is {limit:,} (built-ins included). Shorten descriptions "
            f"or raise {ENV_BUDGET}/skillListingBudgetFraction."
        )
    if used > limit:
        warnings.append(
            f"Even names only ({used:,} chars) exceed the {limit:,}-char budget; "
            "Claude Code still lists every name, so the listing is over budget."
        )
    return ListingReport(
        client=CLIENT,
        context_tokens=context_tokens,
        text=text,
        placement=PLACEMENT,
        budget_unit="chars",
        budget_limit=limit,
        budget_used=used,
        skills=user,
        warnings=warnings,
        assumptions=assumptions,
        verified=True,
        builtins=builtin_rows,
        client_version=VERSION,
    )


def entry_cost(label: str, text: str) -> int:
    """What one entry costs against the budget: its line plus a newline (lab-fitted)."""
    return len(f"- {label}: {text}" if text else f"- {label}") + 1
