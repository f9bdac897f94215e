"""The parts every client's listing module builds with: ``ListingReport``, ``SkillListing``, the
listing states, the ``client_texts`` option and the shared measures (``js_len``, ``utf8_len``,
``locale_key``, ...). ``workbench.core.listing`` re-exports them and renders a listing
(``render_listing``); the client modules import this module, not that one (no import cycle).

Units. Everything a report calls "chars" is counted in Unicode code points (``len(str)``), never in
bytes: a CJK description of 342 characters (1,026 UTF-8 bytes) is 342 characters. Two documented
exceptions reproduce what the client itself counts:

* Codex budgets in *tokens* estimated from UTF-8 bytes (``ceil(bytes / 4)`` per line).
* OpenClaw and VS Code are JavaScript and measure ``string.length`` (UTF-16 code units) when they
  decide what fits; their renderers do the same (see ``js_len``). Per-skill
  ``description_chars`` / ``shown_chars`` are still code points.

``token_estimate`` is always ``ceil(len(text) / 4)``: an *estimate* (there is no offline tokenizer
for current Claude models; see chat-loop.md section 6), labelled as such wherever it is shown.
"""

from __future__ import annotations

import functools
import html
import re
import unicodedata
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from workbench.core.tokens import estimate_tokens


class ListingState(StrEnum):
    """What a listed skill became in a client's listing (DESIGN.md section 3). A ``StrEnum``: each
    member is its plain string ("full", ...), so JSON output and comparisons are unchanged."""

    FULL = "full"  # the whole description shown
    TRUNCATED = "truncated"  # a prefix of it shown
    NAME_ONLY = "name-only"  # listed without any description
    OMITTED = "omitted"  # not in the listing at all


#: Per-skill listing states, in the order they are counted and shown.
STATES = tuple(ListingState)

#: Budget units.
UNITS = ("chars", "tokens")


@dataclass(slots=True)
class SkillListing:
    """What one listed skill became in the listing.

    Attributes:
        name: the name the client lists.
        path: absolute SKILL.md path (as a string).
        state: a ``ListingState``: "full" (whole description shown), "truncated" (a prefix
            shown), "name-only" (listed without any description), "omitted" (not in the listing).
        description_chars: length of the description the client would list, in code points
            (Claude Code: description + " - " + when_to_use, as it lists them combined).
        shown_chars: how many of those code points reach the model. Truncation markers ("…",
            "...") and XML escapes are not counted. Equals ``description_chars`` when ``full``.
        note: optional one-line reason (e.g. "past the 15,000-char cap; in the name list").
    """

    name: str
    path: str
    state: ListingState
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
            "state": str(self.state),  # a plain str: the fast JSON writer (``jsontext``)
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
        out = {str(s): 0 for s in STATES}  # plain str keys: JSON and repr as before
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

#: ``options[STATES_ONLY] = True``: the caller reads only each skill's listing state (``skills``)
#: and the budget figures (``workbench scan``): a client module whose text and ``info`` are
#: made apart from the states may leave them empty (the Agent Skills reference and Cursor:
#: ``to_prompt`` is half of their render at 10,000 skills). The states are the same either way.
STATES_ONLY = "states_only"


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


def xml_escape(s: str) -> str:
    """``& < > " '`` as ``&amp; &lt; &gt; &quot; &apos;`` (``&`` first: no escape is escaped
    twice), the escaping of Copilot CLI, OpenClaw and OpenCode; ``s`` itself when it holds none
    of them (five ``in`` tests cost ~a third of five ``replace`` calls; a listing escapes each
    skill's name, path and description)."""
    if "&" in s or "<" in s or ">" in s or '"' in s or "'" in s:
        return (
            s.replace("&", "&amp;")
            .replace("<", "&lt;")
            .replace(">", "&gt;")
            .replace('"', "&quot;")
            .replace("'", "&apos;")
        )
    return s


def html_escape(s: str) -> str:
    """``html.escape(s)`` (quotes too: ``'`` as ``&#x27;``, the Agent Skills reference's
    ``to_prompt``), ``s`` itself when it holds nothing to escape (as ``xml_escape``)."""
    if "&" in s or "<" in s or ">" in s or '"' in s or "'" in s:
        return html.escape(s)
    return s


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
