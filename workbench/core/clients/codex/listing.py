"""Codex CLI's skill listing: a developer-role ``<skills_instructions>`` message.

Checked on Codex CLI 0.169.0 by the conformance lab (tests/conformance: budget-*, clash-codex-*,
codex-window-*, codex-unicode-budget and the shared matrix); earlier shape from ``openai/codex``
``codex-rs/core-skills/src/render.rs`` @0899b7c4 (``default_skill_metadata_budget``,
``render_lines_with_description_budget``), ../shared/reference/clients.md section 2.3-2.4.

Template (0.169.0: always the skill-roots variant, no how-to block)::

    <skills_instructions>
    ## Skills
    {intro: Codex's prose, 261 chars in 0.169.0: a capture's text or a placeholder}
    ### Skill roots
    - `r0` = `/abs/root`                          <- roots holding a listed skill, in root order
    ### Available skills
    - {name}: {description} (file: r0/rel/SKILL.md)
    - {name}: (file: r1/rel/SKILL.md)             <- empty or fully cut description
    </skills_instructions>

System skills (``builtins.py``: 4 in 0.169.0) are unpacked by Codex into
``$CODEX_HOME/skills/.system`` on its first run and listed first; when they are not on disk yet the
workbench lists them from the stored facts, texts from ``options["client_texts"]`` or placeholders
of the right length.

Budget: ``Tokens(context_window * 2 / 100, min 1)`` or, when the window is unknown,
``Characters(8_000)``. Cost of a line = cost of ``line + "\\n"``: tokens = ceil(UTF-8 bytes / 4);
chars = code points. The header and the roots table are not counted. (a) all full lines fit ->
done; (b) all minimum lines fit -> the remaining budget is handed out one description character
at a time, round-robin in listing order, until nothing changes (prefix cut, *no* ellipsis);
(c) minimum lines in order, skipping any that do not fit, the rest omitted.

Order: System, Admin, Repo, User scope, then name, then path (``ordered_skills_for_budget``).
Scope mapping from our model: system/bundled -> System, admin/managed -> Admin,
project/nested -> Repo, user/plugin/extra -> User.

Options: ``builtins`` (False leaves out Codex's system skills: a what-if of your own skills
only; default True); ``client_texts`` (the system skills' texts from a capture,
``workbench.core.listingkit.CLIENT_TEXTS``); ``budget_tokens`` / ``budget_chars`` (what-if: replace
the default budget by this many tokens or characters; Codex itself has no such setting).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from workbench.core.clients.codex.builtins import BUILTINS
from workbench.core.listingkit import (
    ListingReport,
    ListingState,
    SkillListing,
    ceil_div,
    client_texts,
    ctx_label,
    placeholder,
    utf8_len,
)

if TYPE_CHECKING:
    from workbench.core.model import Environment, Skill

CLIENT = "codex"
DEFAULT_CHAR_BUDGET = 8_000
PERCENT = 2
TRUNCATION_WARNING_THRESHOLD = 100

OPEN_TAG = "<skills_instructions>"
CLOSE_TAG = "</skills_instructions>"
#: The intro paragraph under "## Skills" is Codex's own prose: the project keeps its length only
#: (``client_texts["prose"]["intro"]`` fills it; measured on 0.169.0 by the lab).
PROSE_LENGTHS = {"0.169.0": {"intro": 261}}

WARN_REMOVED_PREFIX = "Exceeded skills context budget. All skill descriptions were removed and"
WARN_SHORTENED = (
    "Skill descriptions were shortened to fit the skills context budget. Codex can "
    "still see every skill, but some descriptions are shorter. Disable unused skills "
    "or plugins to leave more room for the rest."
)
WARN_SHORTENED_PCT = (
    "Skill descriptions were shortened to fit the 2% skills context budget. Codex "
    "can still see every skill, but some descriptions are shorter. Disable unused "
    "skills or plugins to leave more room for the rest."
)
PLACEMENT = "developer-role message <skills_instructions> (added to the model instructions)"

_SCOPE_RANK = {
    "system": 0,
    "bundled": 0,
    "admin": 1,
    "managed": 1,
    "project": 2,
    "nested": 2,
    "user": 3,
    "plugin": 3,
    "extra": 3,
}


def scope_rank(skill: Skill) -> int:
    return _SCOPE_RANK.get(skill.root.scope, 3)


def listing_order(skills: list[Skill]) -> list[Skill]:
    """System, Admin, Repo, User; then name; then path (render.rs ``ordered_skills_for_budget``)."""
    return sorted(skills, key=lambda s: (scope_rank(s), s.name, str(s.path)))


def codex_path(p: Path | str) -> str:
    return str(p).replace("\\", "/")


# -- budget -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Budget:
    """``SkillMetadataBudget``: unit "tokens" (cost = ceil(bytes/4)) or "chars" (code points)."""

    unit: str
    limit: int

    def cost(self, text: str) -> int:
        if self.unit == "tokens":
            return ceil_div(utf8_len(text), 4)
        return len(text)

    def cost_counts(self, chars: int, nbytes: int) -> int:
        return ceil_div(nbytes, 4) if self.unit == "tokens" else chars

    def with_limit(self, limit: int) -> Budget:
        return Budget(self.unit, limit)


def default_budget(context_tokens: int | None) -> Budget:
    """``default_skill_metadata_budget``: 2 % of the window in tokens, else 8,000 chars."""
    if context_tokens and context_tokens > 0:
        return Budget("tokens", max(1, context_tokens * PERCENT // 100))
    return Budget("chars", DEFAULT_CHAR_BUDGET)


class _Line:
    """One skill line: name, description, path (absolute or aliased)."""

    __slots__ = ("name", "desc", "path", "desc_len", "ascii", "_cum", "min_chars", "min_bytes")

    def __init__(self, name: str, desc: str, path: str) -> None:
        self.name = name
        self.desc = desc
        self.path = path
        self.desc_len = len(desc)
        self.ascii = desc.isascii()
        self._cum: list[int] | None = None
        m = self.render(0)
        self.min_chars = len(m) + 1
        self.min_bytes = utf8_len(m) + 1

    def render(self, n: int | None = None) -> str:
        """The line with the first ``n`` description chars (None = all)."""
        d = self.desc if n is None else self.desc[:n]
        if not d:
            return f"- {self.name}: (file: {self.path})"
        return f"- {self.name}: {d} (file: {self.path})"

    def prefix_bytes(self, n: int) -> int:
        if self.ascii:
            return n
        if self._cum is None:
            cum = [0]
            t = 0
            for ch in self.desc:
                t += len(ch.encode("utf-8"))
                cum.append(t)
            self._cum = cum
        return self._cum[n]

    def extra_cost(self, budget: Budget, n: int) -> int:
        """Cost of ``n`` description chars above the minimum line (``extra_costs[n]``)."""
        if n <= 0:
            return 0
        min_cost = budget.cost_counts(self.min_chars, self.min_bytes)
        return (
            budget.cost_counts(self.min_chars + n + 1, self.min_bytes + self.prefix_bytes(n) + 1) - min_cost
        )

    def full_cost(self, budget: Budget) -> int:
        return budget.cost(self.render() + "\n")

    def min_cost(self, budget: Budget) -> int:
        return budget.cost_counts(self.min_chars, self.min_bytes)


@dataclass
class _Plan:
    lines: list[str]
    alloc: list[int | None]  # per skill: None = omitted, else description chars shown
    included: int
    omitted: int
    truncated_chars: int
    root_lines: list[str]
    case: str  # "a" | "b" | "c"
    cost: int


def _allocate(budget: Budget, lines: list[_Line], limit: int) -> list[int]:
    """``render_lines_with_description_budget``: round-robin, one char per skill per pass.

    Equivalent fast form: first find the largest k such that giving every description
    ``min(k, len)`` chars costs <= limit (during those k passes nobody can be blocked, since
    extra costs only grow), then run the exact pass-by-pass loop from there.
    """
    n = len(lines)
    lo, hi = 0, max((ln.desc_len for ln in lines), default=0)

    def total(k: int) -> int:
        return sum(ln.extra_cost(budget, min(k, ln.desc_len)) for ln in lines)

    while lo < hi:
        mid = (lo + hi + 1) // 2
        if total(mid) <= limit:
            lo = mid
        else:
            hi = mid - 1
    alloc = [min(lo, ln.desc_len) for ln in lines]
    cur = [ln.extra_cost(budget, a) for ln, a in zip(lines, alloc)]
    remaining = limit - sum(cur)
    active = [i for i in range(n) if alloc[i] < lines[i].desc_len]
    while active:
        changed = False
        still = []
        for i in active:
            ln = lines[i]
            nxt = alloc[i] + 1
            nc = ln.extra_cost(budget, nxt)
            delta = nc - cur[i]
            if delta <= remaining:
                alloc[i] = nxt
                cur[i] = nc
                remaining -= delta
                changed = True
            if alloc[i] < ln.desc_len:
                still.append(i)
        active = still
        if not changed:
            break
    return alloc


def _plan(budget: Budget, lines: list[_Line], root_lines: list[str], table_cost: int) -> _Plan:
    """``render_skill_lines_from_lines`` for one path style; ``budget`` already net of the table."""
    limit = budget.limit
    full = [ln.full_cost(budget) for ln in lines]
    if sum(full) <= limit:
        return _Plan(
            [ln.render() for ln in lines],
            [ln.desc_len for ln in lines],
            len(lines),
            0,
            0,
            root_lines,
            "a",
            sum(full) + table_cost,
        )
    mins = [ln.min_cost(budget) for ln in lines]
    if sum(mins) <= limit:
        alloc = _allocate(budget, lines, limit - sum(mins))
        rendered = [ln.render(a) for ln, a in zip(lines, alloc)]
        cut = sum(ln.desc_len - a for ln, a in zip(lines, alloc))
        cost = sum(budget.cost(r + "\n") for r in rendered)
        return _Plan(rendered, list(alloc), len(lines), 0, cut, root_lines, "b", cost + table_cost)
    used = 0
    out: list[str] = []
    alloc2: list[int | None] = []
    cut = 0
    for ln, mc in zip(lines, mins):
        if used + mc <= limit:
            used += mc
            out.append(ln.render(0))
            alloc2.append(0)
        else:
            alloc2.append(None)
        cut += ln.desc_len
    return _Plan(out, alloc2, len(out), len(lines) - len(out), cut, root_lines, "c", used + table_cost)


@dataclass
class _Item:
    """One entry to list: a scanned skill or one of Codex's system skills (``skill`` None)."""

    name: str
    description: str
    path: str
    root: str
    rank: int
    prec: int
    skill: Skill | None = None


def builtin_items(skills: list[Skill], env: Environment, options: dict[str, Any]) -> tuple[list[_Item], bool]:
    """Codex's system skills not already scanned (``$CODEX_HOME/skills/.system``), with their
    texts from ``client_texts`` or placeholders of the stored lengths; and whether all are real."""
    from workbench.core.clients.codex.profile import CLIENT_VERSION, PROFILE

    sysroot = PROFILE.codex_home(env) / "skills" / ".system"
    root = codex_path(sysroot)
    prec = next((r.precedence for r in PROFILE.roots(env) if r.path == sysroot), 0)
    have = {s.name for s in skills if s.root.scope == "system"}
    captured = {
        str(b.get("name", "")): str(b.get("description", "")) for b in client_texts(options)["builtins"]
    }
    out = []
    real = True
    for name, length in BUILTINS.get(CLIENT_VERSION, ()):
        if name in have:
            continue
        real = real and name in captured
        desc = captured.get(name, placeholder(f"system skill {name}: description", length))
        out.append(_Item(name, desc, f"{root}/{name}/SKILL.md", root, 0, prec))
    return out, real


def intro(options: dict[str, Any]) -> tuple[str, bool]:
    """Codex's intro paragraph: the captured text, or a placeholder of its length; and whether
    it is the real text."""
    got = client_texts(options)["prose"].get("intro")
    if isinstance(got, str):
        return got, True
    return placeholder(
        "Codex intro: what a skill is, how entries are written", PROSE_LENGTHS[_version()]["intro"]
    ), False


def _with_body(skill_lines: list[str], root_lines: list[str], intro_text: str) -> str:
    parts = ["## Skills", intro_text, "### Skill roots", *root_lines, "### Available skills", *skill_lines]
    return OPEN_TAG + "\n" + "\n".join(parts) + "\n" + CLOSE_TAG


def render(
    skills: list[Skill], env: Environment, context_tokens: int | None, options: dict[str, Any]
) -> ListingReport:
    """Render Codex's listing for ``skills`` (already in listing order, see ``listing_order``)
    plus its system skills (first, System scope).

    ``budget_used`` = cost of the included skill lines + the skill-roots table, in the budget's
    unit; the header is not counted (as in Codex).
    """
    budget = default_budget(context_tokens)
    if options.get("budget_tokens"):
        budget = Budget("tokens", int(options["budget_tokens"]))
    elif options.get("budget_chars"):
        budget = Budget("chars", int(options["budget_chars"]))
    assumptions: list[str] = []
    if budget.unit == "tokens":
        assumptions.append(
            "Codex counts tokens as ceil(UTF-8 bytes / 4) per line (its own estimate, not a tokenizer)."
        )
    system, real = builtin_items(skills, env, options) if options.get("builtins", True) else ([], True)
    if system and not real:
        assumptions.append(
            "System skill descriptions are placeholders of their real lengths; "
            "capture the installed client (or let it unpack ~/.codex/skills/.system) "
            "for the texts."
        )
    items = system + [
        _Item(
            s.name,
            s.description or "",
            codex_path(s.path),
            codex_path(s.root.path).rstrip("/") or "/",
            scope_rank(s),
            s.root.precedence,
            s,
        )
        for s in skills
    ]
    items.sort(key=lambda it: (it.rank, it.name, it.path))
    if not items:
        return ListingReport(
            client=CLIENT,
            context_tokens=context_tokens,
            text="",
            placement=PLACEMENT,
            budget_unit=budget.unit,
            budget_limit=budget.limit,
            budget_used=0,
            assumptions=assumptions,
            client_version=_version(),
            info=["No skills: Codex sends no <skills_instructions> message."],
        )
    roots = list(dict.fromkeys(it.root for it in sorted(items, key=lambda it: it.prec)))
    alias = {r: f"r{i}" for i, r in enumerate(roots)}
    root_lines = [f"- `{alias[r]}` = `{r}`" for r in roots]
    lines = []
    for it in items:
        path = it.path
        if path.startswith(it.root.rstrip("/") + "/"):
            path = f"{alias[it.root]}/{path[len(it.root.rstrip('/')) + 1 :]}"
        lines.append(_Line(it.name, it.description, path))
    plan = _plan(budget, lines, root_lines, 0)  # the roots table is not counted (lab: budget-*)
    intro_text, intro_real = intro(options)
    if not intro_real:
        assumptions.append(
            "The intro paragraph is a placeholder of its real length (Codex's own "
            "text comes from a capture of the installed client)."
        )
    text = _with_body(plan.lines, plan.root_lines, intro_text)
    entries: list[SkillListing] = []
    builtin_states: list[SkillListing] = []
    for it, a in zip(items, plan.alloc):
        d = len(it.description)
        path = str(it.skill.path) if it.skill is not None else it.path
        if a is None:
            e = SkillListing(it.name, path, ListingState.OMITTED, d, 0, "minimum line did not fit the budget")
        elif d == 0:
            e = SkillListing(it.name, path, ListingState.FULL, 0, 0, "no description")
        elif a >= d:
            e = SkillListing(it.name, path, ListingState.FULL, d, d)
        elif a == 0:
            e = SkillListing(
                it.name, path, ListingState.NAME_ONLY, d, 0, "description removed to fit the budget"
            )
        else:
            e = SkillListing(it.name, path, ListingState.TRUNCATED, d, a, "cut round-robin (no ellipsis)")
        (entries if it.skill is not None else builtin_states).append(e)
    warnings: list[str] = []
    total = len(items)
    if plan.omitted:
        prefix = WARN_REMOVED_PREFIX
        if budget.unit == "tokens":
            prefix = prefix.replace(
                "Exceeded skills context budget.", "Exceeded skills context budget of 2%.", 1
            )
        word, verb = ("skill", "was") if plan.omitted == 1 else ("skills", "were")
        warnings.append(
            f"{prefix} {plan.omitted} additional {word} {verb} not included in the model-visible skills list."
        )
    elif plan.truncated_chars and ceil_div(plan.truncated_chars, total) > TRUNCATION_WARNING_THRESHOLD:
        warnings.append(WARN_SHORTENED_PCT if budget.unit == "tokens" else WARN_SHORTENED)
    how = (
        "what-if override"
        if options.get("budget_tokens") or options.get("budget_chars")
        else f"{context_tokens:,} tokens × 2 %"
        if budget.unit == "tokens"
        else "context window unknown: 8,000-character fallback"
    )
    info = [
        f"Skill roots abbreviated as r0..r{len(roots) - 1} (in root order).",
        f"Budget: {budget.limit:,} {budget.unit} ({how}) at {ctx_label(context_tokens)}.",
    ]
    return ListingReport(
        client=CLIENT,
        context_tokens=context_tokens,
        text=text,
        placement=PLACEMENT,
        budget_unit=budget.unit,
        budget_limit=budget.limit,
        budget_used=plan.cost,
        skills=entries,
        warnings=warnings,
        assumptions=assumptions,
        info=info,
        builtins=builtin_states,
        client_version=_version(),
    )


def _version() -> str:
    from workbench.core.clients.codex.profile import CLIENT_VERSION

    return CLIENT_VERSION
