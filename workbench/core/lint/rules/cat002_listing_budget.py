r"""CAT002 listing-budget: this skill's share of the client's listing budget.

No linter reviewed checks this (validators.md K2). A *simple per-client character model*, not
the client's real listing renderer: an entry costs len(name) + len(description [+ when_to_use])
+ the client's template overhead (``Profile.entry_overhead``), against the budget the client uses
when the context size is unknown (``Profile.budget_chars``: Claude Code 8,000 chars; Codex 8,000
chars; OpenClaw 18,000; VS Code 15,000 — see ``profiles.py`` for sources). When the catalog's
listing exceeds the budget (the client then truncates or drops descriptions): a warning on entries
over twice the average entry (the ones to shorten), info on the others (decision: a warning on
every file of a large collection says nothing). Info when this one entry alone takes more than
10% of the budget. Off for clients without a budget.

PASS (profile=claude-code):
    ---
    name: pdf-tools
    description: Extracts text from PDF files. Use when the user asks to read a PDF.
    ---
FAIL (profile=claude-code, catalog=a=A.|b=B.|c=C.|d=D.):
    ---
    name: pdf-tools
    description: Extracts text from PDF files. <<9000 chars>>
    ---
"""

from collections.abc import Iterator

from workbench.core.lint.context import LintContext
from workbench.core.lint.profiles import Profile
from workbench.core.lint.registry import Finding, rule
from workbench.core.lint.rules._util import first_line_of
from workbench.core.lint.types import INFO


def entry_cost(profile: Profile, name: str, description: str) -> int:
    """What one listing entry costs under ``profile``, in chars: name + description + the
    profile's per-entry overhead."""
    return len(name) + len(description) + profile.entry_overhead


@rule(
    "CAT002",
    "listing-budget",
    "warning",
    profiles={
        "gemini-cli": "off",
        "opencode": "off",
        "cursor": "off",
        "agentskills": "off",
        "claude-api": "off",
    },
)
def check(ctx: LintContext) -> Iterator[Finding]:
    prof = ctx.profile
    budget = prof.budget_chars
    if not budget or not ctx.has_fields:
        return
    name = ctx.name_str() or ctx.dir_name or ""
    desc = ctx.description_str() or ""
    if prof.id == "claude-code":
        w = ctx.field("when_to_use")
        if w is not None and isinstance(w.value, str):
            desc = f"{desc} - {w.value}"
        dmi = ctx.field("disable-model-invocation")
        if dmi is not None and dmi.value is True:
            return  # not listed: costs nothing
    mine = entry_cost(prof, name, desc)
    f = ctx.field("description") or ctx.field("name")
    span = first_line_of(f.value_span, ctx) if f is not None else ctx.top_span()
    cat = ctx.catalog
    n_all = len(cat)
    all_cost = cat.cached_sum(
        ("cost", prof.id, prof.entry_overhead), lambda e: entry_cost(prof, e.name, e.description)
    )
    self_in = cat.by_key.get(ctx.self_key, []) if ctx.self_key is not None else []
    rest_n = n_all - len(self_in)
    rest_cost = all_cost - sum(entry_cost(prof, e.name, e.description) for e in self_in)
    rest = rest_n > 0
    total = mine + rest_cost
    share = 100.0 * mine / budget
    if rest and total > budget:
        avg = total / (rest_n + 1)
        big = mine > 2 * avg
        yield Finding(
            span,
            f"the listing of {rest_n + 1} skills needs ≈{total:,} chars, over {prof.title}'s "
            f"≈{budget:,}-char budget ({prof.budget_note}); this entry is {mine:,} chars "
            f"({share:.1f}% of the budget"
            + (f", over twice the average entry of {avg:,.0f})" if big else ")")
            + " — descriptions will be cut or dropped",
            severity=None if big else INFO,
        )
    elif share > 10:
        yield Finding(
            span,
            f"this entry takes ≈{mine:,} chars, {share:.0f}% of {prof.title}'s ≈{budget:,}-char "
            f"listing budget (simple model: {prof.budget_note})",
            severity=INFO,
        )
