"""The model-visible skill listing of a client, and what its budget did to each skill.

``render_listing(catalog, context_tokens=None, options=None) -> ListingReport`` takes the skills a
client offers the model (``catalog.listed()``), puts them in that client's listing order and hands
them to ``workbench.core.clients.<client>.listing.render``. Each client module reproduces the
client's template (tags, line shapes, escaping, ordering, header lines) and its budget algorithm;
the sources are named in each module (from ``../shared/reference/clients.md``).

Units. Everything a report calls "chars" is counted in Unicode code points (``len(str)``), never in
bytes: a CJK description of 342 characters (1,026 UTF-8 bytes) is 342 characters. Two documented
exceptions reproduce what the client itself counts:

* Codex budgets in *tokens* estimated from UTF-8 bytes (``ceil(bytes / 4)`` per line).
* OpenClaw and VS Code are JavaScript and measure ``string.length`` (UTF-16 code units) when they
  decide what fits; their renderers do the same (see ``js_len``). Per-skill
  ``description_chars`` / ``shown_chars`` are still code points.

``token_estimate`` is always ``ceil(len(text) / 4)``: an *estimate* (there is no offline tokenizer
for current Claude models; see chat-loop.md section 6), labelled as such wherever it is shown.

Nothing here imports Qt; rendering is pure and fast enough to run on every keystroke debounce
(see ``tests/bench/test_bench_listing.py`` for figures).
"""

from __future__ import annotations

import functools
import re
import unicodedata
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from workbench.core.model import gc_paused
from workbench.core.tokens import estimate_tokens  # re-exported: client listing modules use it

if TYPE_CHECKING:
    from workbench.core.model import Catalog, Skill

#: Per-skill listing states (DESIGN.md section 3).
STATES = ("full", "truncated", "name-only", "omitted")

#: Budget units.
UNITS = ("chars", "tokens")


@dataclass(slots=True)
class SkillListing:
    """What one listed skill became in the listing.

    Attributes:
        name: the name the client lists.
        path: absolute SKILL.md path (as a string).
        state: "full" (whole description shown), "truncated" (a prefix shown), "name-only" (listed
            without any description), "omitted" (not in the listing at all).
        description_chars: length of the description the client would list, in code points
            (Claude Code: description + " - " + when_to_use, as it lists them combined).
        shown_chars: how many of those code points reach the model. Truncation markers ("…",
            "...") and XML escapes are not counted. Equals ``description_chars`` when ``full``.
        note: optional one-line reason (e.g. "past the 15,000-char cap; in the name list").
    """

    name: str
    path: str
    state: str
    description_chars: int
    shown_chars: int
    note: str = ""

    @property
    def cut_chars(self) -> int:
        """Code points of the description the model does not see."""
        return max(0, self.description_chars - self.shown_chars)

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "path": self.path,
            "state": self.state,
            "description_chars": self.description_chars,
            "shown_chars": self.shown_chars,
        }


@dataclass
class ListingReport:
    """The listing one client builds for one catalog at one context size.

    Attributes:
        client: client id.
        context_tokens: the context window used (None = unknown: the client's fallback applied).
        text: exactly the model-visible text (empty when the client would send nothing).
        placement: where the client puts ``text`` (system prompt, developer message, ...).
        budget_unit: "chars" | "tokens" | None (the client has no budget).
        budget_limit: the limit in ``budget_unit`` (None without a budget).
        budget_used: what the client's own measurement counts against the limit (None without a
            budget). Clients measure different things; each module documents what it counts.
        token_estimate: ``ceil(len(text) / 4)``, an estimate (not a tokenizer count).
        skills: one ``SkillListing`` per skill given, in listing order.
        warnings: things the user should know (the client's own UI warnings, or ours). Never
            model-visible text.
        assumptions: rules we assumed or could not verify (shown so the UI can say so).
        info: neutral notes (e.g. the spec's per-skill token guidance).
        builtins: the client's own built-in skills in the listing (``path`` = their location or
            ``"<built-in>"``), in listing order; they count against the same budget. Their texts
            come from ``options["client_texts"]`` or are placeholders (see ``CLIENT_TEXTS``).
        client_version: the client version whose built-ins/prose the listing models (None when
            the client adds none).
        model: ``ClientProfile.model_note()`` (which client version the rules model, and whether
            the conformance lab checks them), set by ``render_listing``.
        verified: False when the template itself is unpublished/unverified (Cursor; Claude Code's
            exact line template).
    """

    client: str
    context_tokens: int | None
    text: str
    placement: str
    budget_unit: str | None = None
    budget_limit: int | None = None
    budget_used: int | None = None
    token_estimate: int = 0
    skills: list[SkillListing] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    assumptions: list[str] = field(default_factory=list)
    info: list[str] = field(default_factory=list)
    verified: bool = True
    builtins: list[SkillListing] = field(default_factory=list)
    client_version: str | None = None
    model: str = ""

    def __post_init__(self) -> None:
        if not self.token_estimate:
            self.token_estimate = estimate_tokens(len(self.text))

    # -- queries -------------------------------------------------------------------------
    def counts(self) -> dict[str, int]:
        """Number of skills per state (every state present, possibly 0)."""
        out = {s: 0 for s in STATES}
        for s in self.skills:
            out[s.state] += 1
        return out

    def state_of(self, path_or_name: str) -> SkillListing | None:
        """The entry for a SKILL.md path (preferred) or a name; None if absent."""
        for s in self.skills:
            if s.path == path_or_name:
                return s
        for s in self.skills:
            if s.name == path_or_name:
                return s
        return None

    @property
    def over_budget(self) -> bool:
        return (
            self.budget_limit is not None
            and self.budget_used is not None
            and self.budget_used > self.budget_limit
        )

    def to_json(self) -> dict[str, Any]:
        """The ``workbench listing --format json`` object of DESIGN.md section 3, plus
        ``client_version`` and ``model`` (issue 11)."""
        return {
            "client": self.client,
            "context_tokens": self.context_tokens,
            "budget": {"unit": self.budget_unit, "limit": self.budget_limit, "used": self.budget_used},
            "text": self.text,
            "skills": [s.to_json() for s in self.skills],
            "warnings": list(self.warnings),
            "client_version": self.client_version,
            "model": self.model,
        }


# -- the client's own texts (built-in skills, instruction prose) ---------------------------

#: The ``client_texts`` render option, one shape for every client::
#:
#:     {"builtins": [{"name": str, "description": str, "location": str | None}, ...],
#:      "prose": {slot: str, ...}}
#:
#: ``builtins`` are the client's own skills exactly as it lists them (in its order; ``location``
#: only for clients that list one); ``prose`` its instruction text around the list, per slot (each
#: client module names its slots). The texts are the client's, so the project never stores them:
#: they come from a capture of the installed client (``Extracted.client_texts``) or, in the lab,
#: from the live run. Without them a client module renders ``placeholder``s of the stored lengths
#: (``clients/<id>/builtins.py``: names and lengths per client version, facts only).
CLIENT_TEXTS = "client_texts"


def placeholder(label: str, length: int) -> str:
    """A clearly marked stand-in of exactly ``length`` code points for a text we do not ship.

    ``⟦label⟧`` padded with ``·`` (or cut) to ``length``; "" for length 0. Budgets count it as
    the real text's length, so cut-offs fall where the client's would.
    """
    if length <= 0:
        return ""
    mark = f"⟦{label}⟧"
    if len(mark) >= length:
        return mark[:length]
    return mark + "·" * (length - len(mark))


def client_texts(options: dict[str, Any] | None) -> dict[str, Any]:
    """The ``client_texts`` option normalised: ``{"builtins": [...], "prose": {...}}`` (may be empty)."""
    raw = (options or {}).get(CLIENT_TEXTS) or {}
    return {"builtins": list(raw.get("builtins") or []), "prose": dict(raw.get("prose") or {})}


# -- shared helpers for the client modules ------------------------------------------------


def js_len(s: str) -> int:
    """JavaScript ``string.length`` (UTF-16 code units): code points + astral-plane characters.

    OpenClaw and VS Code compare this against their character budgets.
    """
    if s.isascii():
        return len(s)
    return len(s.encode("utf-16-le", "surrogatepass")) // 2


def utf8_len(s: str) -> int:
    """UTF-8 byte length (Codex's token estimate is bytes / 4)."""
    # surrogatepass: a lone surrogate (a non-UTF-8 path byte) counts 3 bytes, like the U+FFFD a
    # client prints for it
    return len(s) if s.isascii() else len(s.encode("utf-8", "surrogatepass"))


def ceil_div(a: int, b: int) -> int:
    return -(-a // b)


# ICU root collation puts whitespace, then punctuation/symbols, then digits, then letters; case and
# accents only break ties. This approximates ``String.prototype.localeCompare(x, "en")`` for the
# names skills actually have (ASCII letters, digits, '-', '_', ':', '.').
_PUNCT_ORDER = "_-,;:!?.'\"()[]{}@*/\\&#%`^+<=>|~$"


def _primary_char(ch: str) -> str:
    """Primary collation weight of one character, as a string of one or more weights (comparable):
    a character that case-folds to several ("ß" -> "ss") weighs as those characters."""
    code = ord(ch)
    if code < 128:
        return _ASCII_PRIMARY[code]
    if ch.isspace():
        return "\x01"
    if ch.isdigit():
        return chr(0x40 + unicodedata.digit(ch, 0))
    if ch.isalpha():
        # casefold may give several characters ("ß" -> "ss", "İ" -> "i̇"): weigh each of them
        base = unicodedata.normalize("NFKD", ch)[0].casefold()
        if base.isascii() and base.isalpha():
            return base.translate(_ASCII_PRIMARY)
        return "".join(chr(0x100 + ord(c)) for c in base)
    return chr(0x0F)


def _ascii_primary_table() -> dict[int, str]:
    table: dict[int, str] = {}
    for code in range(128):
        ch = chr(code)
        if ch.isspace():
            table[code] = "\x01"
        elif ch in _PUNCT_ORDER:
            table[code] = chr(0x10 + _PUNCT_ORDER.index(ch))
        elif ch.isdigit():
            table[code] = chr(0x40 + int(ch))
        elif ch.isalpha():
            table[code] = chr(0x60 + ord(ch.lower()) - 97)
        else:
            table[code] = chr(0x08)
    return table


_ASCII_PRIMARY = _ascii_primary_table()


@functools.lru_cache(maxsize=16384)
def locale_key(s: str) -> tuple[str, str, str, str]:
    """A sort key approximating ``a.localeCompare(b, "en")`` (ICU root collation).

    Primary level: punctuation < digits < letters, letters compared without case or accents;
    ties broken by accents, then lowercase before uppercase (ICU's tertiary default), then code
    points. Approximation (no ICU here): exact for ASCII skill names. Cached (names repeat across
    re-renders).
    """
    if s.isascii():
        return (s.translate(_ASCII_PRIMARY), "", s.swapcase(), s)
    primary = "".join(_primary_char(c) for c in s)
    return (primary, unicodedata.normalize("NFKD", s).casefold(), s.swapcase(), s)


_WS_RE = re.compile(r"\s+")


def collapse_ws(s: str) -> str:
    """JS ``s.replace(/\\s+/g, " ").trim()``, as ``_WS_RE.sub(" ", s).strip()`` (``str.split``
    splits on the same whitespace as ``\\s``, in C: called per client per skill in a scan)."""
    return " ".join(s.split())


def ctx_label(context_tokens: int | None) -> str:
    """Short human label for a context size: 128000 -> "128k", None -> "unknown context"."""
    if context_tokens is None:
        return "unknown context"
    if context_tokens >= 1_000_000 and context_tokens % 1_000_000 == 0:
        return f"{context_tokens // 1_000_000}M"
    if context_tokens % 1000 == 0:
        return f"{context_tokens // 1000}k"
    if context_tokens >= 1000:
        return f"{context_tokens / 1000:.1f}k"
    return str(context_tokens)


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
    from workbench.core.clients import client_module, get_profile

    mod = client_module(catalog.client, "listing")
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
STATE_LABELS = {
    "full": "in full",
    "truncated": "truncated",
    "name-only": "name only",
    "omitted": "omitted by budget",
}

#: The outcomes a skill can end up in (issue 13 item 2): where a listed skill lands in the
#: listing, else its discovery status. Order = how counts are shown.
OUTCOMES = (
    "full",
    "truncated",
    "name-only",
    "omitted",
    "shadowed",
    "hidden",
    "gated",
    "conditional",
    "skipped",
)


def listing_states(report: ListingReport | None) -> dict[str, str]:
    """SKILL.md path (str) -> listing state (``STATES``) for every skill ``report`` was given."""
    return {} if report is None else {s.path: s.state for s in report.skills}


def outcome(skill: Skill, states: dict[str, str]) -> str:
    """Where ``skill`` ends up: its listing state (one of ``STATES``) when it is listed and in
    ``states`` (``listing_states``), else its discovery status (a listed skill the listing did
    not report stays "listed")."""
    if skill.status == "listed":
        return states.get(str(skill.path), "listed")
    return skill.status


def outcome_label(skill: Skill, states: dict[str, str]) -> str:
    """``outcome`` in words: "listed in full", "listed truncated", "listed name only",
    "omitted by budget", or the status ("shadowed", ...)."""
    o = outcome(skill, states)
    if o == "omitted":
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
        return f"listed {w}" if listed and o in STATE_LABELS and o != "omitted" else w

    return ", ".join(f"{n:,} {word(o)}" for o, n in counts.items() if n)


def render_listing_text_table(report: ListingReport) -> str:
    """A plain-text per-skill table (for ``workbench listing --verbose`` and debugging)."""
    rows = []
    for s in report.skills:
        rows.append(f"{s.state:<10} {s.shown_chars:>5}/{s.description_chars:<5} {s.name}")
    return "\n".join(rows)


__all__ = [
    "STATES",
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
