"""``workbench scan [WORKSPACE]``: every root a client scans and every SKILL.md with its status.

JSON (DESIGN.md section 3), one client::

    {"client", "workspace", "home", "roots": [{"path", "scope", "precedence", "exists"}],
     "skills": [{"name", "path", "root", "scope", "status", "reason", "shadowed_by",
                 "description", ...}], "notes": [...]}

With ``--client all`` (decision): one object ``{"clients": {client_id: <the object above>}}``,
keys in ``CLIENT_IDS`` order. Text: a table per client, grouped by root in precedence order.

When the workspace holds skill folders but no client has a project-level root inside it, the
workspace is scanned as an extra root (``discovery.use_workspace_as_root``) and a note says so
(``--no-workspace-root`` turns this off). Exit 0; 2 on a usage error (message names the path).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from workbench.cli import UsageError, client_ids, environment_from_args
from workbench.core.clients import DISPLAY_NAMES
from workbench.core.discovery import ParseCache, scan, use_workspace_as_root
from workbench.core.model import Catalog

HELP = "list every root a client scans and every SKILL.md with its status"


def add_parser(subparsers, common: argparse.ArgumentParser) -> argparse.ArgumentParser:
    p = subparsers.add_parser(
        "scan", parents=[common], help=HELP,
        description=HELP + ". Statuses: listed, shadowed, hidden, gated, conditional, skipped. "
        "--format json prints the DESIGN.md section 3 object; with --client all it prints "
        '{"clients": {"<client-id>": <that object>, ...}}.',
    )
    p.set_defaults(client="claude-code")
    p.add_argument("workspace", nargs="?", default=".", help="project folder (default: .)")
    p.add_argument("--no-cache", action="store_true",
                   help="do not read or write the persistent parse cache (cache_dir/parse)")
    p.add_argument("--no-workspace-root", action="store_true",
                   help="do not scan the workspace as an extra root when it holds skills but no client root")
    return p


def catalog_json(cat: Catalog) -> dict:
    """``Catalog.to_json()`` plus ``notes`` (why a root was added or dropped), and which client
    version the rules model (``client_version``, ``model``)."""
    from workbench.core.clients import get_profile

    d = cat.to_json()
    d["notes"] = list(cat.notes)
    profile = get_profile(cat.client)
    d["client_version"] = profile.client_version
    d["model"] = profile.model_note()
    return d


def _short(path: Path, cat: Catalog) -> str:
    s = str(path)
    for base, label in ((cat.env.workspace, "."), (cat.env.home, "~")):
        b = str(base)
        if s == b:
            return label
        if s.startswith(b.rstrip("/") + "/"):
            return label + s[len(b.rstrip("/")):]
    return s


def render_text(cat: Catalog) -> str:
    """A readable table per root, roots in precedence order."""
    out = [f"{DISPLAY_NAMES.get(cat.client, cat.client)}: workspace {cat.env.workspace}  home {cat.env.home}"]
    counts = cat.counts()
    out.append("  " + ", ".join(f"{n} {st}" for st, n in counts.items() if n) if cat.skills else "  no skills found")
    for note in cat.notes:
        out.append(f"  note: {note}")
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
            rel = s.path.relative_to(r.path).as_posix() if s.path.is_relative_to(r.path) else str(s.path)
            reason = s.reason
            if s.shadowed_by and "shadowed_by" not in reason:
                reason = f"{reason} -> {_short(s.shadowed_by, cat)}" if str(s.shadowed_by) not in reason else reason
            out.append(f"    {s.status:<11} {s.name:<{wn}}  {rel}  {reason}")
    return "\n".join(out)


def _add_empty_hints(env, cats: list[Catalog], cache, walks) -> None:
    """A catalog with no SKILL.md gets a note when another client finds skills here
    (``workbench.core.hints.empty_hint``); the other clients are scanned only in that case."""
    if all(c.skills for c in cats):
        return
    from workbench.core.clients import CLIENT_IDS
    from workbench.core.hints import empty_hint
    every = {c.client: c for c in cats}
    for cid in CLIENT_IDS:
        if cid not in every:
            every[cid] = scan(env, cid, cache, _walks=walks)
    for c in cats:
        hint = empty_hint(c, every)
        if hint:
            c.notes.append(hint)


def run(args: argparse.Namespace) -> int:
    if args.client is None:
        args.client = "claude-code"
    fmt = args.format
    if fmt not in ("text", "json"):
        raise UsageError(f"--format {fmt!r}: scan supports text or json")
    for opt in ("home", "cwd"):
        v = getattr(args, opt, None)
        if v is not None and not Path(v).is_dir():
            raise UsageError(f"--{opt} {v}: not a folder")
    if args.workspace and not Path(args.workspace).is_dir():
        raise UsageError(f"{args.workspace}: not a folder")
    env = environment_from_args(args)
    ids = client_ids(args)
    added = False if args.no_workspace_root else use_workspace_as_root(env)
    # Persistent parse facts and folder listings (appdirs.cache_dir()): a second scan of an
    # unchanged tree reads no SKILL.md. --no-cache turns it off.
    cache = ParseCache(persist=not getattr(args, "no_cache", False))
    walks: dict = {}
    cats = [scan(env, cid, cache, _walks=walks) for cid in ids]
    if added:
        for c in cats:
            c.notes.insert(0, f"the workspace {env.workspace} holds skills but no client root: "
                              "scanned as an extra root")
    _add_empty_hints(env, cats, cache, walks)
    if fmt == "json":
        if args.client == "all":
            data = {"clients": {c.client: catalog_json(c) for c in cats}}
        else:
            data = catalog_json(cats[0])
        json.dump(data, sys.stdout, ensure_ascii=False)  # no indent: keeps the fast C encoder
        sys.stdout.write("\n")
    else:
        sys.stdout.write("\n\n".join(render_text(c) for c in cats) + "\n")
    return 0
