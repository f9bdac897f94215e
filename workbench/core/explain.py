"""Explain one skill for one or every client: "why doesn't my skill trigger?"

``explain(env, name_or_path, clients=None, context_tokens=None) -> list[ClientExplanation]`` runs
discovery for each client and returns, per client, the ordered chain of findings:

1. ``found``    - under which root (or why not: not under any root the client scans, too deep, ...)
2. ``parsed``   - strictly, by which fallback and with what lost, or rejected
3. ``gated``    - hidden / gated / conditional, and by what
4. ``shadowed`` - by whom (or whom it shadows)
5. ``listed``   - full, truncated to N characters, name-only or omitted at this context size
6. ``overlap``  - the three listed skills whose descriptions overlap most (plain lexical Jaccard
  similarity, see ``workbench.core.similarity``; labelled as such)
7. ``invoked``  - what happens once it loads: substitution in code, a fork that cannot see the
  conversation, a built-in command it takes over, relative paths, load-path size limits
  (``workbench.core.invocation``)

Every finding is data (``StepFinding(step, level, title, detail, fix)``, level ok|info|warn|error) so
the GUI can show it; ``fix`` says what to change ("move it to .claude/skills/<name>/", "quote the
description", "shorten the description to N characters to fit Codex at 128k").

``explain_catalog(catalog, name_or_path, context_tokens)`` does the same on a catalog you already
have (tests build catalogs by hand; the GUI reuses its scans).
"""

from __future__ import annotations

import dataclasses
import logging
import os
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from workbench.core.invocation import invocation_findings
from workbench.core.listing import ListingReport, ListingState, ctx_label, render_listing
from workbench.core.model import SkillStatus
from workbench.core.similarity import LABEL as SIMILARITY_LABEL
from workbench.core.similarity import Overlap, top_overlaps
from workbench.core.text import plural

log = logging.getLogger(__name__)

if TYPE_CHECKING:
    from workbench.core.model import Catalog, Environment, Root, Skill

LEVELS = ("ok", "info", "warn", "error")
STEPS = ("found", "parsed", "gated", "shadowed", "listed", "overlap", "invoked")

#: Which of several skills a name or folder matches is explained first: the one most in play.
_STATUS_ORDER = (
    SkillStatus.LISTED,
    SkillStatus.CONDITIONAL,
    SkillStatus.GATED,
    SkillStatus.HIDDEN,
    SkillStatus.SHADOWED,
    SkillStatus.SKIPPED,
)

#: Reason prefixes of files a client does not find while walking (see clients/common.py ``walk``),
#: as opposed to files it finds but cannot read.
WALK_SKIP_PREFIXES = ("too deep", "skill.md directly in the root", "inside ", "the symlink")

#: Codex rejects descriptions longer than this (render.rs / loader.rs MAX_DESCRIPTION_LEN).
CODEX_MAX_DESCRIPTION = 1024


@dataclass
class StepFinding:
    """One step of the chain. ``fix`` is None when nothing needs changing."""

    step: str
    level: str
    title: str
    detail: str = ""
    fix: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "step": self.step,
            "level": self.level,
            "title": self.title,
            "detail": self.detail,
            "fix": self.fix,
        }


@dataclass
class ClientExplanation:
    """The chain of findings for one client.

    Attributes:
        client / display_name: the client.
        query: what was asked (a name or a path).
        name / path: the skill explained (None when the client does not find it).
        status: discovery status of that skill (None when not found).
        listing_state: full | truncated | name-only | omitted, or None when not listed.
        findings: ordered as ``STEPS``.
        overlaps: up to three listed skills with overlapping descriptions (lexical).
        context_tokens: context size used for the listing step.
    """

    client: str
    display_name: str
    query: str
    name: str | None = None
    path: str | None = None
    status: str | None = None
    listing_state: str | None = None
    findings: list[StepFinding] = field(default_factory=list)
    overlaps: list[Overlap] = field(default_factory=list)
    context_tokens: int | None = None

    @property
    def level(self) -> str:
        """The worst level among the findings."""
        worst = 0
        for f in self.findings:
            worst = max(worst, LEVELS.index(f.level))
        return LEVELS[worst]

    def to_json(self) -> dict[str, Any]:
        return {
            "client": self.client,
            "query": self.query,
            "name": self.name,
            "path": self.path,
            "status": self.status,
            "listing_state": self.listing_state,
            "context_tokens": self.context_tokens,
            "level": self.level,
            "findings": [f.to_json() for f in self.findings],
            "overlaps": [o.to_json() for o in self.overlaps],
            "similarity": SIMILARITY_LABEL,
        }


def explain(
    env: Environment,
    name_or_path: str,
    clients: Iterable[str] | None = None,
    context_tokens: int | None = None,
    catalogs: dict[str, Catalog] | None = None,
    options: dict[str, Any] | None = None,
) -> list[ClientExplanation]:
    """Explain ``name_or_path`` for each client (default: every client).

    Args:
        env: the simulated machine.
        name_or_path: a skill name (as the client lists it, or its folder name) or a path to a
            SKILL.md or a skill folder.
        clients: client ids (default ``CLIENT_IDS``).
        context_tokens: for the listing step (default ``env.context_tokens``).
        catalogs: already-scanned catalogs by client id (skips discovery for those).
        options: listing options (see ``render_listing``).

    Raises:
        KeyError: unknown client id. Never raises on skill content.
    """
    from workbench.core.model import CLIENT_IDS

    out = []
    for cid in list(clients) if clients else list(CLIENT_IDS):
        cat = (catalogs or {}).get(cid)
        if cat is None:
            from workbench.core.discovery import scan  # only when no catalog was given

            cat = scan(env, cid)
        out.append(explain_catalog(cat, name_or_path, context_tokens, options))
    return out


def _display(cid: str) -> str:
    from workbench.core.clients import DISPLAY_NAMES

    return DISPLAY_NAMES.get(cid, cid)


def _looks_like_path(q: str) -> bool:
    return os.sep in q or "/" in q or q.endswith(".md") or q in (".", "..")


def _same(a: Path, b: Path) -> bool:
    if a == b:
        return True
    try:
        return os.path.realpath(a) == os.path.realpath(b)
    except OSError:
        return False


def match_skills(catalog: Catalog, query: str) -> list[Skill]:
    """Skills of ``catalog`` that ``query`` names: by path, by listed name, by ``ns:name`` suffix,
    or by folder name. Listed ones first."""
    q = query.strip()
    found: list[Skill] = []
    if _looks_like_path(q):
        p = Path(q).expanduser()
        if not p.is_absolute():  # relative to where the user is, else to the client's cwd
            p = Path.cwd() / p if (Path.cwd() / p).exists() else (catalog.env.cwd or Path.cwd()) / p
        if p.name != "SKILL.md":
            p = p / "SKILL.md"
        found = [s for s in catalog.skills if _same(Path(s.path), p)]
    if not found:
        found = [s for s in catalog.skills if s.name == q]
    if not found:
        found = [s for s in catalog.skills if s.name.endswith(":" + q) or s.path.parent.name == q]
    order = {st: i for i, st in enumerate(_STATUS_ORDER)}
    return sorted(found, key=lambda s: order.get(s.status, 9))


def _best_root(catalog: Catalog) -> Root | None:
    roots = [r for r in catalog.roots if r.scope in ("project", "nested") and r.active]
    roots = roots or [r for r in catalog.roots if r.active] or list(catalog.roots)
    existing = [r for r in roots if r.exists]
    candidates = existing or roots
    return candidates[0] if candidates else None


def _not_found(catalog: Catalog, query: str, exp: ClientExplanation) -> None:
    name = (
        Path(query).parent.name
        if _looks_like_path(query) and query.endswith("SKILL.md")
        else (Path(query).name if _looks_like_path(query) else query)
    )
    root = _best_root(catalog)
    target = f"{root.path}/{name}/SKILL.md" if root is not None else f"<root>/{name}/SKILL.md"
    roots = ", ".join(f"{r.path}{'' if r.exists else ' (missing)'}" for r in catalog.roots[:6])
    more = f" (+{len(catalog.roots) - 6} more)" if len(catalog.roots) > 6 else ""
    detail = (
        f"{exp.display_name} scans: {roots}{more}."
        if catalog.roots
        else f"{exp.display_name} scans no roots in this environment."
    )
    if _looks_like_path(query):
        p = Path(query).expanduser().absolute()
        under = [r for r in catalog.roots if str(p).startswith(str(r.path) + os.sep)]
        if under:
            r = under[0]
            title = f"Not found by {exp.display_name}, although it is under {r.path}"
            detail += (
                f" {exp.display_name} looks {plural(r.max_depth, 'level')} below that root"
                f"{' (' + r.note + ')' if r.note else ''}."
            )
        else:
            title = f"Not under any root {exp.display_name} scans"
    else:
        title = f"No skill named {query!r} under any root {exp.display_name} scans"
    exp.findings.append(StepFinding("found", "error", title, detail, f"Move it to {target}"))


def _fit_length(
    catalog: Catalog, skill: Skill, ctx: int | None, options: dict[str, Any] | None
) -> int | None:
    """The longest description prefix (>= 1 char) that this client lists in full, or None."""
    desc = skill.description or ""
    if not desc:
        return None

    def state_at(n: int) -> str | None:
        clone = dataclasses.replace(skill, description=desc[:n])
        skills = [clone if s is skill else s for s in catalog.skills]
        cat = dataclasses.replace(catalog, skills=skills)
        rep = render_listing(cat, ctx, options)
        e = rep.state_of(str(skill.path))
        return e.state if e else None

    if state_at(1) != ListingState.FULL:
        return None
    lo, hi = 1, len(desc)
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if state_at(mid) == ListingState.FULL:
            lo = mid
        else:
            hi = mid - 1
    return lo


def _parse_finding(s: Skill, client: str, disp: str) -> StepFinding:
    mode = s.parse_mode
    state = getattr(s.file, "state", None)
    quote_fix = (
        "Quote the description (description: \"...\"): an unquoted ': ' or ' #' inside it "
        "breaks YAML. Check with `workbench lint`."
    )
    if mode == "strict":
        return StepFinding("parsed", "ok", "Frontmatter parsed strictly")
    if mode == "fallback":
        return StepFinding(
            "parsed",
            "warn",
            f"Read by {disp}'s fallback parser, not as YAML",
            s.parse_note or "The YAML did not parse; a line parser recovered the fields.",
            quote_fix if state == "yaml-error" else "Make the frontmatter valid YAML.",
        )
    if mode == "dropped":
        return StepFinding(
            "parsed",
            "warn",
            "Loaded with every frontmatter field dropped",
            s.parse_note
            or (
                f"{disp} keeps the skill but ignores the broken frontmatter: "
                "name falls back to the folder, description to the body."
            ),
            quote_fix if state in ("yaml-error", None) else "Fix the frontmatter.",
        )
    reason = s.reason or s.parse_note or "the client could not read it"
    fix = quote_fix if state == "yaml-error" else "Fix the frontmatter (run `workbench lint`)."
    raw = (s.fields or {}).get("description") or s.description
    if not raw and s.file is not None:
        try:
            raw = s.file.get("description")
        except Exception:  # noqa: BLE001 - never crash on a skill file
            log.debug("explain: the description of %s could not be read", s.path, exc_info=True)
            raw = None
    desc_len = len(" ".join(str(raw or "").split()))
    if client == "codex" and (
        desc_len > CODEX_MAX_DESCRIPTION or "maximum length of 1024" in (s.reason or "")
    ):
        fix = (
            f"Shorten the description to {CODEX_MAX_DESCRIPTION:,} characters (it is "
            f"{desc_len:,}): Codex rejects longer ones, other clients truncate."
        )
    return StepFinding("parsed", "error", f"Rejected by {disp}: {reason}", s.parse_note, fix)


def explain_catalog(
    catalog: Catalog,
    name_or_path: str,
    context_tokens: int | None = None,
    options: dict[str, Any] | None = None,
    report: ListingReport | None = None,
) -> ClientExplanation:
    """Explain one skill in one client's catalog. See the module docstring for the steps."""
    cid = catalog.client
    disp = _display(cid)
    ctx = context_tokens if context_tokens is not None else catalog.env.context_tokens
    exp = ClientExplanation(cid, disp, name_or_path, context_tokens=ctx)
    matches = match_skills(catalog, name_or_path)
    if not matches:
        _not_found(catalog, name_or_path, exp)
        return exp
    s = matches[0]
    exp.name, exp.path, exp.status = s.name, str(s.path), s.status
    root = s.root
    # 1. found
    reason_l = (s.reason or "").lower()
    walk_skip = s.status == SkillStatus.SKIPPED and (
        s.file is None or any(reason_l.startswith(k) for k in WALK_SKIP_PREFIXES)
    )
    if walk_skip:
        target = f"{root.path}/{s.path.parent.name}/"
        deep = reason_l.startswith(("too deep", "inside the skill folder")) or s.depth > max(
            1, root.max_depth
        )
        exp.findings.append(
            StepFinding(
                "found",
                "error",
                f"Skipped: {s.reason or 'not found by the client'}",
                f"{s.path} is under {root.path} ({root.scope}) at depth {s.depth}; {disp} looks "
                f"{plural(root.max_depth, 'level')} below this root.",
                f"Move it to {target}" if deep else "See the reason; run `workbench scan` for details.",
            )
        )
        return exp
    detail = f"{s.path}: depth {s.depth} below the root, scope {root.scope}, precedence {root.precedence}."
    if root.label:
        detail = f"{root.label}. " + detail
    exp.findings.append(
        StepFinding(
            "found",
            "ok" if root.verified else "info",
            f"Found under {root.path}",
            detail
            + ("" if root.verified else f" This root is unverified for {disp} (see the reference notes)."),
        )
    )
    # 2. parsed
    pf = _parse_finding(s, cid, disp)
    exp.findings.append(pf)
    if s.parse_mode == "failed" or s.status == SkillStatus.SKIPPED:
        return exp
    # 3. gated
    if s.status in (SkillStatus.HIDDEN, SkillStatus.GATED, SkillStatus.CONDITIONAL):
        fixes = {
            SkillStatus.HIDDEN: hidden_fix(s.reason or ""),
            SkillStatus.GATED: "Install the missing requirement (or simulate it with --bin/--env/--os), or "
            "trust the folder.",
            SkillStatus.CONDITIONAL: "It activates only once a matching file is touched (--touched PATH); "
            "drop `paths` or the nested location if it should always be listed.",
        }
        exp.findings.append(
            StepFinding(
                "gated",
                "error" if s.status != SkillStatus.CONDITIONAL else "warn",
                f"{s.status.capitalize()}: {s.reason or 'not offered to the model'}",
                "",
                fixes[s.status],
            )
        )
    else:
        exp.findings.append(StepFinding("gated", "ok", "Not gated"))
    # 4. shadowed
    same = [o for o in catalog.skills if o is not s and o.name == s.name and o.status != SkillStatus.SKIPPED]
    if s.status == SkillStatus.SHADOWED:
        exp.findings.append(
            StepFinding(
                "shadowed",
                "error",
                f"Shadowed by {s.shadowed_by}",
                f"Two skills are named {s.name!r}; {disp} keeps only the winner ({catalog_policy(cid)}).",
                "Rename this skill (name and folder) or remove the other copy.",
            )
        )
    elif same and s.status == SkillStatus.LISTED:
        losers = [o for o in same if o.status == SkillStatus.SHADOWED]
        both = [o for o in same if o.status == SkillStatus.LISTED]
        if both:
            exp.findings.append(
                StepFinding(
                    "shadowed",
                    "warn",
                    f"{len(both) + 1} skills named {s.name!r} are all listed",
                    ", ".join(str(o.path) for o in both),
                    "Give each skill a unique name; the model cannot tell them apart.",
                )
            )
        else:
            exp.findings.append(
                StepFinding(
                    "shadowed",
                    "info",
                    f"Shadows {plural(len(losers), 'other skill')} named {s.name!r}",
                    ", ".join(str(o.path) for o in losers),
                )
            )
    else:
        exp.findings.append(StepFinding("shadowed", "ok", "No other skill has this name"))
    if s.status != SkillStatus.LISTED:
        return exp
    # 5. listed
    rep = report if report is not None else render_listing(catalog, ctx, options)
    e = rep.state_of(str(s.path))
    where = f"{disp} at {ctx_label(ctx)}"
    budget = ""
    if rep.budget_limit is not None:
        budget = f" Budget: {rep.budget_used:,} of {rep.budget_limit:,} {rep.budget_unit} used."
    if e is None:
        exp.findings.append(StepFinding("listed", "error", "Not in the listing", budget.strip()))
    else:
        exp.listing_state = e.state
        if e.state == ListingState.FULL:
            exp.findings.append(
                StepFinding("listed", "ok", f"Listed in full ({e.description_chars:,} chars)", budget.strip())
            )
        else:
            fit = _fit_length(catalog, s, ctx, options) if e.description_chars else None
            if fit:
                fix = (
                    f"Shorten the description to {fit:,} characters (now {e.description_chars:,}) "
                    f"to fit {where}."
                )
            elif cid == "claude-code":
                fix = (
                    "Shorten the descriptions listed before it (Claude Code grants descriptions in "
                    "listing order, built-ins first, while the listing fits), or mark it most used "
                    f"(--most-used {s.name}) to move it ahead."
                )
            else:
                fix = (
                    "Shortening this description alone is not enough: fewer skills (or shorter "
                    "names/paths) are needed at this context size."
                )
            if e.state == ListingState.TRUNCATED:
                title = f"Truncated to {e.shown_chars:,} of {e.description_chars:,} characters"
                if cid == "claude-code" and e.note.startswith("cut at"):
                    fix = (
                        f"Shorten description + when_to_use to 1,536 characters (now "
                        f"{e.description_chars:,})."
                    )
                lvl = "warn"
            elif e.state == ListingState.NAME_ONLY:
                title = f"Listed by name only: the model sees none of its {e.description_chars:,}-char description"
                lvl = "warn"
            else:
                title = "Omitted from the listing"
                lvl = "error"
            exp.findings.append(
                StepFinding(
                    "listed", lvl, f"{title} ({where})", (e.note + "." if e.note else "") + budget, fix
                )
            )
    # 6. overlap
    mine = (s.description or "") + " " + (s.when_to_use or "")
    cands = [
        (str(o.path), o.name, (o.description or "") + " " + (o.when_to_use or ""))
        for o in catalog.skills
        if o.status == SkillStatus.LISTED and o is not s
    ]
    exp.overlaps = top_overlaps(mine, cands, k=3)
    if exp.overlaps:
        top = exp.overlaps[0].score
        txt = ", ".join(f"{o.name} ({o.score:.2f})" for o in exp.overlaps)
        exp.findings.append(
            StepFinding(
                "overlap",
                "warn" if top >= 0.3 else "info",
                f"Most similar listed skills: {txt}",
                SIMILARITY_LABEL
                + ". Shared words: "
                + "; ".join(f"{o.name}: {', '.join(o.shared[:8])}" for o in exp.overlaps),
                (
                    "Say in the description what only this skill does (and when not to use it), so the "
                    "model can tell it from the others."
                    if top >= 0.3
                    else None
                ),
            )
        )
    else:
        exp.findings.append(
            StepFinding("overlap", "ok", "No listed skill shares description words", SIMILARITY_LABEL)
        )
    # 7. invoked
    exp.findings.extend(StepFinding("invoked", *note) for note in invocation_findings(s, cid))
    return exp


def hidden_fix(reason: str) -> str:
    """The fix for a hidden skill, from its actual cause (the client's reason text)."""
    r = reason.lower()
    if "allow_implicit_invocation" in r:
        return (
            "Set policy.allow_implicit_invocation: true (or delete the line) in the skill's "
            "agents/openai.yaml if Codex's model should pick it."
        )
    if "config.toml" in r:
        return "Remove the [[skills.config]] entry (or set enabled = true) in Codex's config.toml."
    if "openclaw.json" in r:
        return "Set skills.entries.<key>.enabled to true (or remove it) in openclaw.json."
    if "description" in r:
        return "Add a description: this client lists only skills that have one."
    if "disable-model-invocation" in r:
        return (
            "Remove disable-model-invocation: true if the model should pick it (users can still "
            "invoke it by name either way)."
        )
    return "See the reason above; change what it names if the model should pick this skill."


def catalog_policy(cid: str) -> str:
    """One phrase for a client's collision policy (for messages)."""
    return {
        "claude-code": "managed > personal > project",
        "codex": "keeps both; no name-based override",
        "openclaw": "workspace > .agents > managed > bundled > extra",
        "gemini-cli": "later tier wins: workspace > user > extensions > built-in",
        "opencode": "last scanned wins",
        "vscode-copilot": "first wins: workspace > personal > plugin > extension",
        "cursor": "unverified",
        "agentskills": "project overrides user",
        "copilot-cli": "first wins: .github > .agents > .claude > ~/.copilot > ~/.agents",
    }.get(cid, "client policy")


def format_text(explanations: list[ClientExplanation]) -> str:
    """Human-readable rendering for ``workbench explain`` (text format)."""
    marks = {"ok": "ok   ", "info": "info ", "warn": "WARN ", "error": "ERROR"}
    out = []
    for exp in explanations:
        head = f"== {exp.display_name} ({exp.client})"
        if exp.name:
            head += f": {exp.name}  {exp.path}"
        out.append(head)
        for f in exp.findings:
            out.append(f"  [{marks[f.level]}] {f.step:<8} {f.title}")
            if f.detail:
                out.append(f"               {f.detail}")
            if f.fix:
                out.append(f"               fix: {f.fix}")
        out.append("")
    return "\n".join(out).rstrip() + "\n"
