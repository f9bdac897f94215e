"""``workbench scan [WORKSPACE]``: every root a client scans and every SKILL.md with its status.

JSON (DESIGN.md section 3), one client::

    {"client", "workspace", "home", "roots": [{"path", "scope", "precedence", "exists"}],
     "skills": [{"name", "path", "root", "scope", "status", "reason", "shadowed_by",
                 "description", ...}], "notes": [...]}

With ``--client all`` (decision): one object ``{"clients": {client_id: <the object above>}}``,
keys in ``CLIENT_IDS`` order. Text: a table per client, grouped by root in precedence order.

``--as auto|project|collection`` (``discovery.apply_workspace_mode``): a collection of skills is
shown as if installed where each client looks (an extra root) and the first note says so;
``auto`` picks that for a folder of skills without a client's dot-folder root
(``--no-workspace-root`` = ``--as project``). Exit 0; 2 on a usage error (message names the path).
"""

from __future__ import annotations

import argparse
import json
import logging
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, NamedTuple

from workbench.core.cache.fscache import snapshot
from workbench.core.clients import DISPLAY_NAMES
from workbench.core.discovery import ParseCache, prepare, scan, start_parse
from workbench.core.forkrun import WorkQueue, fork_ok
from workbench.core.listingkit import STATES_ONLY, ListingState
from workbench.core.model import Catalog, Skill, SkillStatus, keep_until_exit
from workbench.core.text import escape_unsafe_json_utf8, utf8_buffer, write_utf8
from workbench.options import (
    UsageError,
    add_workspace_mode_option,
    client_ids,
    environment_from_args,
    open_workspace,
)

log = logging.getLogger(__name__)

HELP = "list every root a client scans and every SKILL.md with its status"


def add_parser(subparsers, common: argparse.ArgumentParser) -> argparse.ArgumentParser:
    p = subparsers.add_parser(
        "scan",
        parents=[common],
        help=HELP,
        description=HELP + ". Statuses: listed (in full, truncated, name only or omitted by the "
        "listing's budget at --context-tokens), shadowed, hidden, gated, conditional, skipped. "
        "--format json prints the DESIGN.md section 3 object; with --client all it prints "
        '{"clients": {"<client-id>": <that object>, ...}}.',
    )
    p.set_defaults(client="claude-code")
    p.add_argument("workspace", nargs="?", default=".", help="project folder (default: .)")
    p.add_argument(
        "--no-cache",
        action="store_true",
        help="do not read or write the persistent parse cache (cache_dir/parse)",
    )
    add_workspace_mode_option(p)
    p.add_argument("--no-workspace-root", action="store_true", help="the same as --as project")
    return p


def catalog_json(cat: Catalog, report=None) -> dict:
    """``Catalog.to_json()`` plus ``client_version`` (the client release the model was checked
    on, ``ClientProfile.client_version``), per skill ``listing_state`` (``full|truncated|
    name-only|omitted`` at the chosen context size from ``report``; null when not listed) and
    ``notes`` (why a root was added or dropped); ``model`` says how sure the rules are."""
    from workbench.core.clients import get_profile
    from workbench.core.listing import listing_states

    d = cat.to_json()
    states = listing_states(report)
    for sk, sj in zip(cat.skills, d["skills"]):
        sj["listing_state"] = states.get(str(sk.path)) if sk.status == "listed" else None
    d["notes"] = list(cat.notes)
    profile = get_profile(cat.client)
    d["client_version"] = profile.client_version
    d["model"] = profile.model_note()
    return d


def catalog_json_text(cat: Catalog, report=None, memo: dict[str, str] | None = None) -> str:
    """``json.dumps(catalog_json(cat, report), ensure_ascii=False)`` byte for byte, without the
    per-skill dicts: each skill's object is one template filled with its strings encoded by
    ``json``'s C string encoder (a 10,000-skill catalog: ~3 µs per skill less). ``memo``: a
    dict shared by the catalogs of one pass (the same paths and mostly the same descriptions
    in every client): each path and description is encoded once."""
    head, states, roots, tail = _catalog_parts(cat, report, _TEXT)
    memo = {} if memo is None else memo
    skills = ", ".join([_skill_entry(sk, states, roots, memo, _TEXT) for sk in cat.skills])
    return f"{head}{skills}{tail}"


def catalog_json_bytes(cat: Catalog, report=None, memo: dict[str, bytes] | None = None) -> bytes:
    """``escape_unsafe_json_utf8(catalog_json_text(cat, report))`` byte for byte, made of
    escaped UTF-8 pieces (the escape is per character): each path, description, name, reason
    and parse mode encoded, escaped and kept in ``memo`` once (a dict shared by the catalogs of
    one pass, holding bytes: not the ``catalog_json_text`` one), each skill one ``bytes``
    template; the catalog is never one ``str`` (UCS-2 as soon as one description is not
    Latin-1: ~9 MB per client at 10,000 skills) nor escaped as a whole."""
    head, states, roots, tail = _catalog_parts(cat, report, _BYTES)
    memo = {} if memo is None else memo
    return _join_bytes(head, [_skill_entry(sk, states, roots, memo, _BYTES) for sk in cat.skills], tail)


def _join_bytes(head: bytes, skills: list[bytes], tail: bytes) -> bytes:
    """``head + b", ".join(skills) + tail`` with one copy of the skills' bytes."""
    if not skills:
        return head + tail
    skills[0] = head + skills[0]
    skills[-1] += tail
    return b", ".join(skills)


class _Form(NamedTuple):
    """How ``_skill_entry`` writes: JSON ``str`` (``catalog_json_text``) or its escaped UTF-8
    (``catalog_json_bytes``). ``out`` turns a JSON text into this form (identity, or
    ``escape_unsafe_json_utf8``); the tables hold each status's and listing state's text in
    this form (a listing state of None: ``null``)."""

    template: Any
    status: dict[Any, Any]
    state: dict[Any, Any]
    null: Any
    empty: Any
    out: Callable[[str], Any]


_SKILLS = json.dumps("skills")
#: One skill of ``catalog_json`` (``Skill.to_json`` + ``listing_state``), ``%`` fills it.
_TEMPLATE = (
    '{"name": %s, "path": %s, %s, "status": %s, "reason": %s, "shadowed_by": %s, '
    '"description": %s, "parse_mode": %s, "unverified": %s, "listing_state": %s}'
)
_STATUS_JSON = {st: json.dumps(str(st)) for st in SkillStatus}
#: Each listing state's JSON text (a state of another value: KeyError, the general encoder).
_STATE_JSON: dict[str | None, str] = {None: "null", **{st: json.dumps(str(st)) for st in ListingState}}
_TEXT = _Form(_TEMPLATE, _STATUS_JSON, _STATE_JSON, "null", "[]", lambda t: t)
_BYTES = _Form(
    _TEMPLATE.encode(),
    {k: v.encode() for k, v in _STATUS_JSON.items()},
    {k: v.encode() for k, v in _STATE_JSON.items()},
    b"null",
    b"[]",
    escape_unsafe_json_utf8,
)
_LISTED = SkillStatus.LISTED
#: ``json``'s string encoder for ``ensure_ascii=False`` (C when available), as ``json.dumps`` uses
_enc = json.encoder.encode_basestring


def _catalog_parts(cat: Catalog, report, form: _Form) -> tuple[Any, dict[str, str], dict[int, Any], Any]:
    """``catalog_json_text``'s text before and after the skills (``head`` ends with ``[``,
    ``tail`` starts with ``]``), the listing states and each root's ``"root", "scope"`` text,
    in ``form``."""
    from workbench.core.clients import get_profile
    from workbench.core.listing import listing_states

    profile = get_profile(cat.client)
    head = {
        "client": cat.client,
        "workspace": str(cat.env.workspace),
        "home": str(cat.env.home),
        "roots": [r.to_json() for r in cat.roots],
    }
    tail = {"notes": list(cat.notes), "client_version": profile.client_version, "model": profile.model_note()}
    states = listing_states(report)
    roots: dict[int, Any] = {}
    out = form.out
    for r in cat.roots:
        try:
            roots[id(r)] = out(f'"root": {_enc(str(r.path))}, "scope": {_enc(r.scope)}')
        except TypeError:  # a scope of another type: its skills take the general encoder
            roots[id(r)] = None
    return out(f"{_dumps(head)[:-1]}, {_SKILLS}: ["), states, roots, out(f"], {_dumps(tail)[1:]}")


def _dumps(obj: object) -> str:
    return json.dumps(obj, ensure_ascii=False)


def _encoded(memo: dict[str, Any], v: str, out: Callable[[str], Any]) -> Any:
    """``out(_enc(v))``, kept in ``memo`` (TypeError for a value that is not a ``str``)."""
    t = memo[v] = out(_enc(v))
    return t


def _skill_entry(
    sk: Skill, states: dict[str, str], roots: dict[int, Any], memo: dict[str, Any], form: _Form
) -> Any:
    """One skill of ``catalog_json`` as JSON text in ``form`` (``Skill.to_json`` +
    ``listing_state``); ``roots``: per ``id(root)`` its ``"root": ..., "scope": ...`` text
    (None: not plain text); ``memo``: the encoded paths, descriptions, names, reasons and parse
    modes of this pass (the same in every client), in ``form``."""
    path = str(sk.path)
    state = states.get(path) if sk.status == _LISTED else None
    out = form.out
    try:
        root = roots[id(sk.root)]
        if root is None:
            raise TypeError
        unverified = sk.unverified
        if type(unverified) is not list:
            raise TypeError
        # a value of another type: TypeError (unhashable, or from ``_enc``: only str kept)
        get = memo.get
        desc, name, reason, mode = sk.description, sk.name, sk.reason, sk.parse_mode
        return form.template % (
            get(name) or _encoded(memo, name, out),
            get(path) or _encoded(memo, path, out),
            root,
            form.status[sk.status],
            get(reason) or _encoded(memo, reason, out),
            out(_enc(str(sk.shadowed_by))) if sk.shadowed_by else form.null,
            get(desc) or _encoded(memo, desc, out),
            get(mode) or _encoded(memo, mode, out),
            # = json.dumps of a list of str (", " between items), TypeError for anything else
            out(f"[{', '.join([_enc(u) for u in unverified])}]") if unverified else form.empty,
            form.state[state],
        )
    except (TypeError, KeyError):  # a value of another type: the general encoder
        d = sk.to_json()
        d["listing_state"] = state
        return out(_dumps(d))


def _short(path: Path, cat: Catalog) -> str:
    s = str(path)
    for base, label in ((cat.env.workspace, "."), (cat.env.home, "~")):
        b = str(base)
        if s == b:
            return label
        if s.startswith(b.rstrip("/") + "/"):
            return label + s[len(b.rstrip("/")) :]
    return s


def render_text(cat: Catalog, report=None) -> str:
    """A readable table per root, roots in precedence order. Listed skills say where they end
    up in ``report`` (the listing at the chosen context size): "listed in full", "listed
    truncated", "listed name only", "omitted by budget" (``listing.outcome_label``)."""
    from workbench.core.listing import (
        ctx_label,
        format_outcome_counts,
        listing_states,
        outcome_counts,
        outcome_label,
    )

    out = [f"{DISPLAY_NAMES.get(cat.client, cat.client)}: workspace {cat.env.workspace}  home {cat.env.home}"]
    states = listing_states(report)
    where = ""
    if report is not None:
        where = (
            f" (listing at {ctx_label(report.context_tokens)})"
            if report.context_tokens
            else " (listing without --context-tokens: the client's fallback budget)"
        )
    out.append(
        "  " + format_outcome_counts(outcome_counts(cat, report), listed=True) + where
        if cat.skills
        else "  no skills found"
    )
    for note in cat.notes:
        out.append(f"  note: {note}")
    labels = {id(s): outcome_label(s, states) for s in cat.skills}
    ln = max([11, *(len(x) for x in labels.values())])
    by_root: dict[int, list] = {}
    for s in cat.skills:
        by_root.setdefault(id(s.root), []).append(s)
    for r in cat.roots:
        flags = "" if r.exists else "  (missing)"
        if r.condition and not r.active:
            flags += f"  [{r.condition}]"
        if not r.verified:
            flags += "  [unverified]"
        out.append(f"\n[{r.precedence}] {r.scope:<8} {r.label or r.path}  {_short(r.path, cat)}{flags}")
        skills = by_root.get(id(r), [])
        if not skills:
            continue
        wn = min(40, max(len(s.name) for s in skills))
        for s in skills:
            label = labels[id(s)]
            rel = s.path.relative_to(r.path).as_posix() if s.path.is_relative_to(r.path) else str(s.path)
            reason = s.reason
            if s.shadowed_by and "shadowed_by" not in reason:
                reason = (
                    f"{reason} -> {_short(s.shadowed_by, cat)}"
                    if str(s.shadowed_by) not in reason
                    else reason
                )
            out.append(f"    {label:<{ln}} {s.name:<{wn}}  {rel}  {reason}")
    return "\n".join(out)


def _add_empty_hints(env, cats: list[Catalog], cache, walks) -> None:
    """A catalog with no SKILL.md gets a note when another client finds skills here
    (``workbench.core.hints.empty_hint``); the other clients are scanned only in that case."""
    if all(c.skills for c in cats):
        return
    from workbench.core.hints import empty_hint, nothing_found_hint
    from workbench.core.model import CLIENT_IDS

    every = {c.client: c for c in cats}
    for cid in CLIENT_IDS:
        if cid not in every:
            every[cid] = scan(env, cid, cache, _walks=walks)
    nothing = nothing_found_hint(every)
    for c in cats:
        hint = empty_hint(c, every) or nothing
        if hint:
            c.notes.append(hint)


def run(args: argparse.Namespace) -> int:
    from workbench.core.model import gc_paused, skip_exit_collection

    # a CLI that builds a catalog per client and exits: no cyclic GC passes over them, not
    # even the interpreter's last one at exit
    skip_exit_collection()
    with gc_paused():
        return _run(args)


def _run(args: argparse.Namespace) -> int:
    if args.client is None:
        args.client = "claude-code"
    fmt = args.format
    if fmt not in ("text", "json"):
        raise UsageError(f"--format {fmt!r}: scan supports text or json")
    env = environment_from_args(args)  # checks WORKSPACE, --home, --cwd, --root (UsageError)
    ids = client_ids(args)
    if args.no_workspace_root:
        args.workspace_mode = "project"
    # Persistent parse facts and folder listings (appdirs.cache_dir()): a second scan of an
    # unchanged tree reads no SKILL.md. --no-cache turns it off.
    cache = ParseCache(persist=not getattr(args, "no_cache", False))
    # one stat per path for the whole command, and the walks' folder listings reused by the
    # searches without a cache argument (Claude Code's nested roots: ``fscache.listing``)
    with snapshot(dirs=cache.dirs):
        return _scan_command(args, env, ids, cache)


def _scan_command(args: argparse.Namespace, env, ids: list[str], cache: ParseCache) -> int:
    """``_run`` after the options: the scan, listings and output of every client of ``ids``."""
    fmt = args.format
    walks: dict = {}
    # the --root folders' files are parsed (forked workers) during the workspace treatment
    pf = start_parse(env, cache, walks)
    try:
        treatment = open_workspace(env, args, announce=False)
    except BaseException:
        if pf is not None:
            pf.finish()
        raise
    # every client's roots and walks, the parse of all their files (``discovery.prepare``)
    # (each client's own views of its walks later, in its ``scan``: after the helper's fork)
    counts = prepare(env, ids, cache, walks, defer_views=True)
    banner = f"{treatment.banner} (--as project to turn this off)" if treatment.mode == "collection" else ""
    if fmt == "json" and all(counts.values()):
        # no catalog is empty (no hint needs the others): each client on its own, shared with
        # a forked helper process (``_split``); each text escaped and encoded where it is made
        # when stdout takes bytes (``text.utf8_buffer``)
        as_bytes = utf8_buffer(sys.stdout) is not None
        memo: dict[str, Any] = {}  # encoded paths and descriptions, shared by a process's clients

        def text(cid: str) -> str | bytes:
            return _client_json(env, cid, cache, walks, banner, memo, as_bytes)

        # the caches are complete after ``prepare``: saved once, on a thread started after the
        # helper's fork, while both processes make the clients' texts
        cache.defer_saves()
        saving: list[Callable[[], None]] = []
        try:
            parts = _split(ids, text, cache, then=lambda: saving.append(cache.save_async()))
            # piece by piece: the ~45 MB of 10,000 skills x 9 clients are not joined first
            for part in _json_parts(args.client == "all", ids, parts):
                write_utf8(sys.stdout, [part])
        finally:
            for join in saving:
                join()
        keep_until_exit(cache, walks, memo, parts)  # not freed one by one: the process ends
        return 0
    cats = [scan(env, cid, cache, _walks=walks) for cid in ids]
    if banner:
        for c in cats:
            c.notes.insert(0, banner)
    _add_empty_hints(env, cats, cache, walks)
    from workbench.core.listing import render_listing

    reports = [render_listing(c, env.context_tokens, _STATES) for c in cats]
    if fmt == "json":
        parts = [catalog_json_text(c, r) for c, r in zip(cats, reports)]
        sys.stdout.write(_json_output(args.client == "all", ids, parts))
    else:
        sys.stdout.write("\n\n".join(render_text(c, r) for c, r in zip(cats, reports)) + "\n")
    keep_until_exit(cache, walks, cats, reports)
    return 0


#: The listing options of the scan: its output reads only each skill's listing state (and the
#: report's context size), not the listing text (``listingkit.STATES_ONLY``).
_STATES = {STATES_ONLY: True}


def _json_output(every: bool, ids: list[str], parts: list[str]) -> str:
    """The command's JSON output from each client's ``catalog_json_text``: one object, or
    ``{"clients": {id: object}}`` for ``--client all`` (= ``json.dumps`` of the whole)."""
    return "".join(_json_parts(every, ids, parts))  # type: ignore[arg-type]


def _json_parts(every: bool, ids: list[str], parts: list[Any]) -> list[Any]:
    """``_json_output`` as pieces to join: each client's text (``str``, or its
    ``escape_unsafe_utf8`` bytes) between ``str`` glue."""
    if not every:
        return [parts[0], "\n"]
    out: list[Any] = ["{" + _dumps("clients") + ": {"]
    for i, (c, p) in enumerate(zip(ids, parts)):
        out.append(f"{', ' if i else ''}{_dumps(c)}: ")
        out.append(p)
    out.append("}}\n")
    return out


def _client_json(
    env,
    cid: str,
    cache: ParseCache,
    walks: dict,
    banner: str,
    memo: dict[str, Any] | None = None,
    as_bytes: bool = False,
) -> str | bytes:
    """One client's scan object as JSON text (``catalog_json_text``, ``memo`` shared by the
    clients of one process), its banner note first; ``as_bytes``: its escaped UTF-8
    (``catalog_json_bytes``)."""
    from workbench.core.listing import render_listing

    cat = scan(env, cid, cache, _walks=walks)
    if banner:
        cat.notes.insert(0, banner)
    report = render_listing(cat, env.context_tokens, _STATES)
    if as_bytes:
        return catalog_json_bytes(cat, report, memo)
    return catalog_json_text(cat, report, memo)


#: Relative CPU cost of one client's scan + listing + JSON (measured on the 10,000-skill tree,
#: in the helper or the parent of ``_split``: 1.0 = ~0.1 s; a client not named costs 1.0).
#: Only orders ``_split``'s queue (costliest first, so that the last client taken is a cheap
#: one and neither process waits long for the other).
_COST = {
    "claude-code": 2.5,
    "codex": 3.2,
    "openclaw": 2.2,
    "gemini-cli": 1.7,
    "opencode": 1.55,
    "vscode-copilot": 1.35,
    "cursor": 1.25,
    "agentskills": 1.0,
    "copilot-cli": 1.4,
}


#: ``_split`` forks no helper below this many files (a fork + pipe costs ~10-20 ms).
SPLIT_MIN = 500


def _split(
    ids: list[str],
    one: Callable[[str], Any],
    cache: ParseCache,
    then: Callable[[], object] | None = None,
) -> list[Any]:
    """``[one(c) for c in ids]`` (a str or bytes per client), shared with a forked helper
    process when there are two cores, no other thread and at least ``SPLIT_MIN`` parsed files:
    both take the clients from one queue (``forkrun.WorkQueue``), costliest first (``_COST``),
    so the work balances itself whatever the load of either core; the helper sends its texts
    back (``marshal``) and writes no cache (``ParseCache.detach``). A client the helper did not
    finish is done here. ``then()`` runs here once the helper is forked, before this process
    takes its first client (may start a thread: no fork follows)."""
    if len(ids) >= 2 and len(cache) >= SPLIT_MIN and fork_ok():
        order = sorted(ids, key=lambda c: -_COST.get(c, 1.0))
        try:
            queue = _queue(one, cache)
        except OSError:
            log.debug("no helper process; every client here", exc_info=True)
        else:
            for c in order:
                queue.put(c)
            if then is not None:
                then()
            got = dict(zip(order, queue.drain()))
            return [got[c] for c in ids]
    got_all = [one(c) for c in ids]
    if then is not None:
        then()
    return got_all


def _queue(one: Callable[[str], Any], cache: ParseCache) -> WorkQueue:
    """A ``forkrun.WorkQueue`` of ``one(client_id)`` with one forked helper that writes no
    cache (``ParseCache.detach``). Raises OSError when no helper can be forked."""
    return WorkQueue(one, 1, in_child=cache.detach)
