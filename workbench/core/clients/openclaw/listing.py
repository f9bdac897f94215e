"""OpenClaw's skill catalog in the system prompt.

Sources: ``openclaw/openclaw`` ``src/skills/loading/skill-contract.ts`` (``formatSkillCatalog``,
``formatSkillsForPromptCore``, ``formatSkillsCompactForPrompt``, ``truncateSkillDescription``,
``compactSkillsPromptForContext``, ``escapeSkillXml``) and ``skill-prompt-limits.ts``
(``prepareSkillsForPrompt`` / ``formatSkillsForPromptBounded``); ../shared/reference/clients.md
section 3.3-3.4.

Catalog (two leading blank lines, three intro lines, escaping of ``& < > " '``)::



    The following skills provide specialized instructions for specific tasks.
    Read a skill's file at its listed location when the task matches its description.
    When a skill file references a relative path, resolve it against ...

    <available_skills>
      <skill>
        <name>{escaped name}</name>
        <description>{escaped description}</description>
        <location>{escaped SKILL.md path}</location>
        <location_note>{escaped note}</location_note>     (only when set)
      </skill>
    </available_skills>

Compact form: the second intro line ends "...matches its name." (no descriptions) or "...matches
its name or description." (descriptions whitespace-collapsed and cut to N chars with "...").

Budget (``prepareSkillsForPrompt``): order by name (``localeCompare`` "en") unless
``preserve_order``; take the first ``max_skills_in_prompt`` (150); measure the *whole* rendered
block (remote note + limit note + catalog, joined by newlines) against ``max_skills_prompt_chars``
(18,000; JS ``length`` = UTF-16 units). Full fits -> done. Else compact without descriptions; if
that does not fit, binary-search the largest prefix that does; then binary-search the largest
description cap in [4, 220] that still fits. The limit note (model-visible!) is prepended:
``⚠️ Skills truncated: included X of Y (compact format, descriptions shortened|omitted). Run
`openclaw skills check` to audit.`` or ``⚠️ Skills catalog using compact format (descriptions
shortened|omitted). Run `openclaw skills check` to audit.`` Then the small-context pass
(``compactSkillsPromptForContext``): target = floor(contextTokens / 5) chars; if the block is
longer, binary-search a description cap in [64, 220] (floor 64 even if still too long) and keep
it only if shorter.

Per-skill ``location_note``: ``Skill.flags["location_note"]``. Options: ``max_skills_in_prompt``,
``max_skills_prompt_chars``, ``remote_note``, ``preserve_order``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from workbench.core.clients.openclaw.builtins import BUILTINS, LOCATIONS, PROSE_CHARS, VERSION
from workbench.core.listingkit import (
    ListingReport,
    ListingState,
    SkillListing,
    client_texts,
    collapse_ws,
    js_len,
    locale_key,
    placeholder,
    xml_escape,
)

if TYPE_CHECKING:
    from workbench.core.model import Environment, Skill

CLIENT = "openclaw"
MAX_SKILLS_IN_PROMPT = 150
MAX_SKILLS_PROMPT_CHARS = 18_000
#: The shortest description cap the compact form tries. The lab (budget-80-long, OpenClaw
#: 2026.9.6) shows names only where a 6-char cap would have fitted, so the floor is above 6 (the
#: source we read had 4); 64, the small-context floor, is our assumption.
COMPACT_DESCRIPTION_MIN_CHARS = 64
COMPACT_DESCRIPTION_MAX_CHARS = 220
CONTEXT_CAP_MIN = 64

INTRO_1 = "\n\nThe following skills provide specialized instructions for specific tasks."
LOAD_FULL = "Read a skill's file at its listed location when the task matches its description."
LOAD_COMPACT_DESC = (
    "Read a skill's file at its listed location when the task matches its name or description."
)
LOAD_COMPACT_NAME = "Read a skill's file at its listed location when the task matches its name."
INTRO_3 = (
    "When a skill file references a relative path, resolve it against the skill directory "
    "(parent of SKILL.md / dirname of the path) and use that absolute path in tool commands."
)
PLACEMENT = "system prompt, inside its '## Skills' section (omitted for subagents)"


#: ``escapeSkillXml``: & < > " ' -> entities.
escape_xml = xml_escape


def truncate_description(description: str, max_chars: int) -> str:
    """``truncateSkillDescription``: collapse whitespace; cut to ``max_chars`` with "..."."""
    normalized = collapse_ws(description)
    if len(normalized) <= max_chars:
        return normalized
    if max_chars <= 3:
        return normalized[:max_chars]
    return normalized[: max_chars - 3].rstrip() + "..."


SECTION = "## Skills\n"


class _View:
    """One catalog entry as OpenClaw renders it: a user skill (``src``) or a built-in.

    ``path`` is the *location* as listed (a path under HOME shown as ``~/...``: lab
    ``basic-one``, OpenClaw 2026.9.6); ``real_path`` the SKILL.md path (or ``<built-in>``).
    """

    def __init__(
        self, name: str, path: str, description: str, flags: dict[str, Any], scope: str, real_path: str
    ) -> None:
        self.name, self.path, self.description, self.flags = name, path, description, flags
        self.scope, self.real_path = scope, real_path


def location(path: Any, home: Any) -> str:
    """``path`` as OpenClaw lists it: ``~/rest`` under HOME, else absolute."""
    p, h = str(path), str(home).rstrip("/")
    return "~" + p[len(h) :] if h and (p == h or p.startswith(h + "/")) else p


def builtin_views(options: dict[str, Any]) -> tuple[list[_View], bool, str]:
    """(OpenClaw's own skills, captured?, preamble prose): captured texts, else placeholders of
    the stored lengths (``builtins.py``); ``options["builtins"] = False`` leaves both out."""
    if options.get("builtins") is False:
        return [], False, ""
    texts = client_texts(options)
    pkg = f"⟦openclaw {VERSION} package⟧"
    views = [
        _View(
            n,
            LOCATIONS[kind].format(pkg=pkg, name=n),
            placeholder(f"OpenClaw {VERSION} {kind} skill '{n}', {length} chars", length),
            {},
            "bundled",
            "<built-in>",
        )
        for n, length, kind in BUILTINS.get(VERSION, ())
    ]
    if texts["builtins"] or "preamble" in texts["prose"]:
        # a capture of a cut catalog lacks the built-ins OpenClaw left out: placeholders stand
        # in for them (they still count in "included X of Y"; lab: openclaw-prompt-limit)
        got = {b["name"] for b in texts["builtins"]}
        return (
            [
                _View(
                    b["name"],
                    b.get("location") or "",
                    b.get("description") or "",
                    {},
                    "bundled",
                    "<built-in>",
                )
                for b in texts["builtins"]
            ]
            + [v for v in views if v.name not in got],
            True,
            texts["prose"].get("preamble", ""),
        )
    n = PROSE_CHARS.get(VERSION, 0)
    prose = placeholder(f"OpenClaw {VERSION} skills instructions, {n} chars", n - 1) + "\n" if n else ""
    return views, False, prose


def listing_order(skills: list[Skill]) -> list[Skill]:
    """By name, ``localeCompare(b, "en")`` (approximated by ``locale_key``)."""
    return sorted(skills, key=lambda s: locale_key(s.name))


def _catalog(skills: list[Skill], load_line: str, descs: list[str | None]) -> str:
    """``formatSkillCatalog``: descs[i] None = no description element."""
    if not skills:
        return ""
    lines = [INTRO_1, load_line, INTRO_3, "", "<available_skills>"]
    lines.extend(_entry_lines(skills, descs))
    lines.append("</available_skills>")
    return "\n".join(lines)


def _limit_note(truncated: bool, compact: bool, cap: int, included: int, total: int) -> str:
    detail = "descriptions shortened" if cap > 0 else "descriptions omitted"
    if truncated:
        extra = f" (compact format, {detail})" if compact else ""
        return (
            f"⚠️ Skills truncated: included {included} of {total}{extra}. "
            "Run `openclaw skills check` to audit."
        )
    if compact:
        return f"⚠️ Skills catalog using compact format ({detail}). Run `openclaw skills check` to audit."
    return ""


class _Bounded:
    """``prepareSkillsForPrompt`` state for one call.

    Every selection the algorithm tries is a prefix of the ordered list, so lengths are computed
    from per-skill pieces and prefix sums (``length``); the prompt string is built once at the end
    (``build``). Both follow ``formatSkillCatalog`` / ``buildRenderedSkillsPrompt`` exactly.
    """

    _TAIL = "</available_skills>"

    def __init__(self, ordered: list[Skill], max_chars: int, remote_note: str | None) -> None:
        self.ordered = ordered
        self.total = len(ordered)
        self.max_chars = max_chars
        self.remote = remote_note or None
        self._base: list[int] | None = None
        self._full: list[int] | None = None
        self._norm: dict[int, str] = {}

    # -- pieces ------------------------------------------------------------------------
    def _entry_base(self, s: Skill) -> int:
        n = (
            len("  <skill>")
            + 1
            + js_len(f"    <name>{escape_xml(s.name)}</name>")
            + 1
            + js_len(f"    <location>{escape_xml(str(s.path))}</location>")
            + 1
            + len("  </skill>")
            + 1
        )
        note = s.flags.get("location_note")
        if note:
            n += js_len(f"    <location_note>{escape_xml(str(note))}</location_note>") + 1
        return n

    @staticmethod
    def _desc_line(text: str) -> int:
        return js_len(f"    <description>{escape_xml(text)}</description>") + 1

    def _prefix(self, k: int) -> int:
        if self._base is None:
            acc, out = 0, [0]
            for s in self.ordered:
                acc += self._entry_base(s)
                out.append(acc)
            self._base = out
        return self._base[k]

    def _full_prefix(self, k: int) -> int:
        if self._full is None:
            acc, out = 0, [0]
            for s in self.ordered:
                acc += self._desc_line(s.description or "")
                out.append(acc)
            self._full = out
        return self._full[k]

    def _normalized(self, i: int) -> str:
        t = self._norm.get(i)
        if t is None:
            t = self._norm[i] = collapse_ws(self.ordered[i].description or "")
        return t

    def _compact_desc(self, i: int, cap: int) -> str:
        norm = self._normalized(i)
        if len(norm) <= cap:
            return norm
        if cap <= 3:
            return norm[:cap]
        return norm[: cap - 3].rstrip() + "..."

    # -- lengths -----------------------------------------------------------------------
    def catalog_len(self, k: int, compact: bool, cap: int) -> int:
        if k == 0:
            return 0
        load = LOAD_FULL if not compact else (LOAD_COMPACT_DESC if cap > 0 else LOAD_COMPACT_NAME)
        head = len(INTRO_1) + 1 + len(load) + 1 + len(INTRO_3) + 1 + 1 + len("<available_skills>") + 1
        n = head + self._prefix(k) + len(self._TAIL)
        if not compact:
            n += self._full_prefix(k)
        elif cap > 0:
            for i in range(k):
                t = self._compact_desc(i, cap)
                if t:
                    n += self._desc_line(t)
        return n

    def note(self, k: int, compact: bool, cap: int, note: bool) -> str:
        return _limit_note(k < self.total, compact, cap, k, self.total) if note else ""

    def length(self, k: int, compact: bool, cap: int, note: bool = True) -> int:
        cat = self.catalog_len(k, compact, cap)
        nt = self.note(k, compact, cap, note)
        return js_len(nt) + cat + (1 if nt and cat else 0)

    def fits(self, k: int, compact: bool, cap: int, note: bool = True) -> bool:
        plen = self.length(k, compact, cap, note)
        if self.remote and js_len(self.remote) + plen + (1 if plen else 0) <= self.max_chars:
            return True
        return plen <= self.max_chars

    # -- the string ----------------------------------------------------------------------
    def build(self, skills: list[Skill], compact: bool, cap: int, note: bool) -> str:
        truncated = len(skills) < self.total
        limit_note = _limit_note(truncated, compact, cap, len(skills), self.total) if note else ""
        if not compact:
            catalog = _catalog(skills, LOAD_FULL, [s.description or "" for s in skills])
        elif cap > 0:
            descs = [truncate_description(s.description or "", cap) or None for s in skills]
            catalog = _catalog(skills, LOAD_COMPACT_DESC, descs)
        else:
            catalog = _catalog(skills, LOAD_COMPACT_NAME, [None] * len(skills))
        return "\n".join(p for p in (limit_note, catalog) if p)

    def final(self, k: int, compact: bool, cap: int, note: bool) -> str | None:
        prompt = self.build(self.ordered[:k], compact, cap, note)
        if self.remote and js_len(self.remote) + js_len(prompt) + (1 if prompt else 0) <= self.max_chars:
            return f"{self.remote}\n{prompt}" if prompt else self.remote
        return prompt if js_len(prompt) <= self.max_chars else None


def bounded(
    ordered: list[Skill], max_in_prompt: int, max_chars: int, remote_note: str | None
) -> tuple[str, list[Skill], bool, int, bool]:
    """(prompt, skills in it, compact?, description cap, limit note included?).

    ``prepareSkillsForPrompt`` step by step; selections are prefix lengths ``k``.
    """
    b = _Bounded(ordered, max_chars, remote_note)
    n_count = min(len(ordered), max(0, max_in_prompt))
    k = n_count
    if b.fits(k, False, 0):
        return b.final(k, False, 0, True) or "", ordered[:k], False, 0, True
    if not b.fits(k, True, 0):
        lo, hi = 0, k
        while lo < hi:
            mid = (lo + hi + 1) // 2
            if b.fits(mid, True, 0):
                lo = mid
            else:
                hi = mid - 1
        k = lo
    if k == 0 and n_count > 0:
        if b.fits(n_count, False, 0, note=False):
            return b.final(n_count, False, 0, False) or "", ordered[:n_count], False, 0, False
        lo, hi = 0, n_count
        while lo < hi:
            mid = (lo + hi + 1) // 2
            if b.fits(mid, True, 0, note=False):
                lo = mid
            else:
                hi = mid - 1
        if lo > 0:
            k = lo
    include_note = b.fits(k, True, 0)
    cap = 0
    if k > 0 and b.fits(k, True, COMPACT_DESCRIPTION_MIN_CHARS, include_note):
        lo, hi = COMPACT_DESCRIPTION_MIN_CHARS, COMPACT_DESCRIPTION_MAX_CHARS
        while lo < hi:
            mid = (lo + hi + 1) // 2
            if b.fits(k, True, mid, include_note):
                lo = mid
            else:
                hi = mid - 1
        cap = lo
    prompt = b.final(k, True, cap, include_note) or ""
    return prompt, (ordered[:k] if prompt else []), True, cap, include_note


def render(
    skills: list[Skill], env: Environment, context_tokens: int | None, options: dict[str, Any]
) -> ListingReport:
    """Render OpenClaw's catalog block. ``budget_used`` = JS length of the final block."""
    max_in = int(options.get("max_skills_in_prompt", MAX_SKILLS_IN_PROMPT))
    max_chars = int(options.get("max_skills_prompt_chars", MAX_SKILLS_PROMPT_CHARS))
    remote = options.get("remote_note")
    builtins, captured, preamble = builtin_views(options)
    views = [
        _View(s.name, location(s.path, env.home), s.description or "", s.flags, s.root.scope, str(s.path))
        for s in skills
    ] + builtins
    ordered: list[Any] = (
        views if options.get("preserve_order") else sorted(views, key=lambda v: locale_key(v.name))
    )
    assumptions = [
        "Name order approximates JavaScript localeCompare(\"en\") (ICU) without ICU.",
        "Character counts follow JavaScript string length (UTF-16 code units).",
    ]
    prompt, sel, compact, cap, _note = bounded(ordered, max_in, max_chars, remote)
    # current per-skill description text as it stands in the prompt (None = no element)
    in_prompt = {id(s) for s in sel}
    cur: dict[int, str | None] = {}
    for s in sel:
        if not compact:
            cur[id(s)] = s.description or ""
        elif cap > 0:
            cur[id(s)] = truncate_description(s.description or "", cap) or None
        else:
            cur[id(s)] = None
    warnings: list[str] = []
    info: list[str] = []
    ctx_cap = None
    if context_tokens and context_tokens > 0 and prompt:
        target = context_tokens // 5
        if js_len(prompt) > target and "<available_skills>" in prompt:

            def render_ctx(m: int) -> str:
                descs = [None if (c := cur[id(s)]) is None else truncate_description(c, m) for s in sel]
                return _rebuild(prompt, sel, descs)

            lo, hi = CONTEXT_CAP_MIN, COMPACT_DESCRIPTION_MAX_CHARS
            result = render_ctx(lo)
            best = lo
            while lo <= hi:
                mid = (lo + hi) // 2
                cand = render_ctx(mid)
                if js_len(cand) <= target:
                    result, best = cand, mid
                    lo = mid + 1
                else:
                    hi = mid - 1
            if js_len(result) < js_len(prompt):
                prompt = result
                ctx_cap = best
                for s in sel:
                    c = cur[id(s)]
                    if c is not None:
                        cur[id(s)] = truncate_description(c, best)
                info.append(
                    f"Small-context pass: target {target:,} chars (context/5); "
                    f"descriptions capped at {best} chars."
                )
                if js_len(prompt) > target:
                    warnings.append(
                        f"At {context_tokens:,} tokens OpenClaw aims for a "
                        f"{target:,}-char skills block; even with 64-char descriptions "
                        f"it is {js_len(prompt):,} chars."
                    )
    entries: list[SkillListing] = []
    for idx, s in enumerate(ordered):
        d = len(s.description or "")
        if id(s) not in in_prompt:
            why = (
                f"beyond the {max_in}-skill cap"
                if idx >= max_in
                else f"did not fit the {max_chars:,}-char catalog budget"
            )
            entries.append(SkillListing(s.name, s.real_path, ListingState.OMITTED, d, 0, why))
            continue
        shown = cur[id(s)]
        if shown is None:
            entries.append(
                SkillListing(
                    s.name,
                    s.real_path,
                    ListingState.NAME_ONLY if d else ListingState.FULL,
                    d,
                    0,
                    "compact format: descriptions omitted" if d else "",
                )
            )
        elif (
            shown.endswith("...")
            and (compact or ctx_cap)
            and len(shown) < len(collapse_ws(s.description or ""))
        ):
            kept = len(shown) - 3
            entries.append(
                SkillListing(
                    s.name,
                    s.real_path,
                    ListingState.TRUNCATED,
                    d,
                    kept,
                    f"cut to {ctx_cap or cap} chars with '...'",
                )
            )
        else:
            entries.append(SkillListing(s.name, s.real_path, ListingState.FULL, d, d))
    omitted = [e for e in entries if e.state == ListingState.OMITTED]
    # name the user's own skills first: a cut bundled skill surprises nobody
    scope_of = {s.real_path: s.scope for s in ordered}
    omitted.sort(key=lambda e: scope_of.get(e.path) in ("bundled", "plugin", "extra"))
    if omitted:
        names = ", ".join(e.name for e in omitted[:5]) + (
            f", +{len(omitted) - 5} more" if len(omitted) > 5 else ""
        )
        warnings.append(
            f"{len(omitted)} of {len(ordered)} skills are cut from the OpenClaw prompt "
            f"({names}). OpenClaw's only notice is the '⚠️ Skills truncated' line inside "
            "the prompt, which the model sees and you do not."
        )
    if compact:
        warnings.append(
            "OpenClaw uses its compact catalog format: descriptions "
            + (f"shortened to {cap} chars." if cap else "omitted (names only).")
        )
    if builtins and not captured:
        assumptions.append(
            f"OpenClaw {VERSION}'s own skills and instructions are shown as "
            "placeholders of their real lengths (capture the installed client for "
            "their texts)."
        )
    # the section trims the block: no leading blank lines without a limit note (lab: basic-one,
    # budget-80-long; OpenClaw 2026.9.6)
    text = SECTION + preamble + prompt.strip() if prompt else ""
    user = [e for e in entries if e.path != "<built-in>"]
    return ListingReport(
        client=CLIENT,
        context_tokens=context_tokens,
        text=text,
        placement=PLACEMENT,
        budget_unit="chars",
        budget_limit=max_chars,
        budget_used=js_len(prompt),
        skills=user,
        warnings=warnings,
        assumptions=assumptions,
        info=info,
        builtins=[e for e in entries if e.path == "<built-in>"],
        client_version=VERSION,
    )


def _rebuild(prompt: str, sel: list[Skill], descs: list[str | None]) -> str:
    """The prompt with each <description> element replaced (``compactSkillsPromptForContext``).

    Equivalent to its regex over the catalog: escaped descriptions decode back to the original.
    """
    start = prompt.find("<available_skills>")
    end = prompt.find("</available_skills>", start)
    head = prompt[:start]
    lines = ["<available_skills>"]
    lines.extend(_entry_lines(sel, descs))
    return head + "\n".join(lines) + "\n" + prompt[end:]


def _entry_lines(skills: list[Skill], descs: list[str | None]) -> list[str]:
    """The ``<skill>`` elements of the catalog (``formatSkillsForPromptCore``): name, description
    (omitted when its ``descs`` entry is None: the compact form), location and the optional
    location_note, each XML-escaped."""
    lines: list[str] = []
    for s, d in zip(skills, descs):
        lines.append("  <skill>")
        lines.append(f"    <name>{escape_xml(s.name)}</name>")
        if d is not None:
            lines.append(f"    <description>{escape_xml(d)}</description>")
        lines.append(f"    <location>{escape_xml(str(s.path))}</location>")
        note = s.flags.get("location_note")
        if note:
            lines.append(f"    <location_note>{escape_xml(str(note))}</location_note>")
        lines.append("  </skill>")
    return lines
