"""``workbench workshop``: the proposal review queue from the command line (DESIGN.md §3).

::

    workbench workshop list [WORKSPACE] [--state STATE]
    workbench workshop show ID [WORKSPACE]
    workbench workshop propose-create [WORKSPACE] --name NAME --proposal FILE|DIR|- [--target-root DIR]
    workbench workshop propose-update [WORKSPACE] NAME|PATH --proposal FILE|DIR|-
    workbench workshop apply ID [WORKSPACE] | reject ID [WORKSPACE] [--reason TEXT] | quarantine ...
    workbench workshop rollback ID [WORKSPACE] [--force]

The workspace is the same for every action (issue 13 item 7): ``--workspace DIR`` (before or after
the action) or the positional WORKSPACE (both: they must agree), else the current directory. An
action on an ID with no workspace given uses the workspace whose queue holds that ID
(``workshop.workspaces_holding``) when the current directory's queue does not. ``--proposal`` is a
SKILL.md file, a folder holding SKILL.md plus support files, or ``-`` (SKILL.md on stdin).

Decisions where the contract is silent:

* ``--format json``: ``list`` prints a JSON array of proposal objects; every other action prints
  one object; each object has at least ``"id"`` and ``"state"``.
* Exit codes: 0 done; 1 refused (transition not allowed, apply blocked, propose refused, write
  failed, database busy: the reason on stderr); 2 usage (bad option, unknown proposal id).
* propose-update NAME: an existing path (SKILL.md or its folder) is used as is. Otherwise the name
  is resolved with discovery: with ``--client`` given, in that client's catalog; without it, in
  every client's catalog; several different files → usage error listing them.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

from workbench.core.text import plural
from workbench.core.workshop import (
    STATES,
    NotFoundError,
    ProposalError,
    StoreBusyError,
    StoreCorruptError,
    TransitionError,
    WorkshopError,
    WorkshopStore,
)
from workbench.core.workshop.paths import executable_files, files_from_folder
from workbench.core.workshop.preview import unified_diff

#: The common options workshop takes (``workbench.options.common_parser``); --home/--root serve the
#: name look-up of propose-update.
COMMON_OPTIONS = ("client", "home", "root", "format")
ACTIONS = ("list", "show", "propose-create", "propose-update", "apply", "reject", "quarantine", "rollback")


def _opts() -> argparse.ArgumentParser:
    """Options accepted after the action too; SUPPRESS keeps values given before it."""
    p = argparse.ArgumentParser(add_help=False)
    S = argparse.SUPPRESS
    p.add_argument(
        "--workspace", type=Path, default=S, help="the project folder (default: current directory)"
    )
    p.add_argument("--format", default=S, help="text or json")
    p.add_argument("--client", default=S, help="client used to resolve NAME / default target root")
    p.add_argument("--home", type=Path, default=S, help="simulated home directory")
    p.add_argument("--root", type=Path, action="append", default=S, help="an extra skill root (repeatable)")
    return p


_WS_HELP = (
    "the project folder (the same as --workspace; default: the current directory, or for an "
    "ID the workspace whose queue holds it)"
)


def add_parser(subparsers, common) -> None:
    """Register ``workshop`` and its actions."""
    p = subparsers.add_parser(
        "workshop",
        parents=[common],
        help="review proposed skills and skill changes",
        description="The proposal review queue: list, show, propose, apply, reject, quarantine, roll back.",
    )
    p.add_argument(
        "--workspace", type=Path, default=None, help="the project folder (default: current directory)"
    )
    p.set_defaults(client=None)
    opts = _opts()
    acts = p.add_subparsers(dest="action", metavar="ACTION", required=True)
    a = acts.add_parser("list", parents=[opts], help="list proposals")
    a.add_argument("ws_pos", nargs="?", metavar="WORKSPACE", help=_WS_HELP)
    a.add_argument("--state", choices=STATES, help="only proposals in this state")
    a = acts.add_parser("show", parents=[opts], help="show one proposal (recomputes staleness)")
    a.add_argument("id")
    a.add_argument("ws_pos", nargs="?", metavar="WORKSPACE", help=_WS_HELP)
    a = acts.add_parser("propose-create", parents=[opts], help="propose a new skill")
    a.add_argument("ws_pos", nargs="?", metavar="WORKSPACE")
    a.add_argument("--name", required=True, help="the new skill's folder name")
    a.add_argument("--proposal", required=True, help="SKILL.md file, folder with SKILL.md, or - for stdin")
    a.add_argument("--target-root", type=Path, help="the skills root to create it in")
    a.add_argument("--note", default="", help="why (shown in the queue)")
    a.add_argument("--source", default="cli")
    a = acts.add_parser("propose-update", parents=[opts], help="propose new content for an existing skill")
    a.add_argument("words", nargs="+", metavar="[WORKSPACE] NAME")
    a.add_argument("--proposal", required=True, help="SKILL.md file, folder with SKILL.md, or - for stdin")
    a.add_argument("--note", default="")
    a.add_argument("--source", default="cli")
    for name, hlp in (
        ("apply", "write the proposal into the live skill"),
        ("reject", "reject a pending proposal"),
        ("quarantine", "quarantine a pending proposal (suspected malicious)"),
    ):
        a = acts.add_parser(name, parents=[opts], help=hlp)
        a.add_argument("id")
        a.add_argument("ws_pos", nargs="?", metavar="WORKSPACE", help=_WS_HELP)
        if name != "apply":
            a.add_argument("--reason", default="")
    a = acts.add_parser(
        "rollback", parents=[opts], help="undo an apply (or reopen a rejected/quarantined one)"
    )
    a.add_argument("id")
    a.add_argument("ws_pos", nargs="?", metavar="WORKSPACE", help=_WS_HELP)
    a.add_argument("--force", action="store_true", help="restore even if the live file changed since apply")


def _workspace_of(ident: str, cwd: Path) -> Path:
    """The workspace for a proposal id given without a workspace: the current folder when its
    queue holds it, else the one workspace whose queue does (said on stderr); several -> usage
    error naming them."""
    from workbench.core.workshop import workspaces_holding
    from workbench.options import UsageError

    found = workspaces_holding(ident)
    if not found or any(os.path.realpath(w) == os.path.realpath(cwd) for w in found):
        return cwd
    if len(found) > 1:
        raise UsageError(
            f"proposal {ident!r} is in the queues of several workspaces: "
            + ", ".join(map(str, found))
            + " (give one with --workspace)"
        )
    _err(f"proposal {ident} is in the queue of {found[0]}")
    return found[0]


def _err(msg: str) -> None:
    print(f"workbench workshop: {msg}", file=sys.stderr)


def _read_proposal(arg: str) -> tuple[bytes, dict[str, bytes], set[str]]:
    """(SKILL.md bytes, support files, relpaths with an executable bit) of ``--proposal``."""
    from workbench.options import UsageError

    if arg == "-":
        return sys.stdin.buffer.read(), {}, set()
    p = Path(arg)
    if p.is_dir():
        try:
            return (*files_from_folder(p), executable_files(p))
        except (ValueError, OSError) as exc:
            raise ProposalError(str(exc)) from exc
    if not p.is_file():
        raise UsageError(f"--proposal {arg}: no such file or folder")
    if p.is_symlink():
        raise ProposalError(f"{p}: is a symlink; a proposal must be a real file")
    return p.read_bytes(), {}, set()


def _resolve_skill(ws: Path, name: str, args) -> Path:
    from workbench.options import UsageError, environment_from_args

    cand = Path(name).expanduser()
    for c in (cand, ws / cand):
        if c.is_file() or (c.is_dir() and (c / "SKILL.md").is_file()):
            return c.absolute()
    from workbench.core.discovery import scan
    from workbench.core.model import CLIENT_IDS

    ns = argparse.Namespace(**{**_env_defaults(), **vars(args)})
    ns.workspace = str(ws)
    env = environment_from_args(ns)
    paths: list[Path] = []
    for cid in [args.client] if args.client else list(CLIENT_IDS):
        try:
            cat = scan(env, cid)
        except Exception as exc:  # noqa: BLE001 - one client's failure must not stop the look-up
            _err(f"discovery for {cid} failed: {exc}")
            continue
        for s in cat.by_name(name):
            if s.path not in paths:
                paths.append(s.path)
    real = {os.path.realpath(p): p for p in paths}
    if not real:
        raise UsageError(f"no skill named {name!r} found in {ws}; pass the path of its SKILL.md")
    if len(real) > 1:
        raise UsageError(
            f"{name!r} names several skills: "
            + ", ".join(str(p) for p in real.values())
            + " (pass a path, or --client)"
        )
    return next(iter(real.values()))


def _env_defaults() -> dict:
    return {
        "home": None,
        "cwd": None,
        "root": [],
        "env": [],
        "bin": None,
        "os_name": None,
        "untrusted": False,
        "touched": [],
        "context_tokens": None,
        "most_used": [],
    }


def _print_proposal(store: WorkshopStore, p, fmt: str, detail: bool = False) -> None:
    if fmt == "json":
        d = p.to_json()
        if detail:
            d["diff"] = {c.rel: unified_diff(c) for c in store.changes(p.id)}
            d["events"] = [e.to_json() for e in store.events(p.id)]
        print(json.dumps(d, indent=2))
        return
    print(f"{p.id}  {p.state:<11} {p.kind:<6} {p.name}  → {p.skill_md}")
    if not detail:
        return
    if p.reason:
        print(f"  reason: {p.reason}")
    print(f"  generation {p.generation}, source {p.source or '-'}, created {p.created_at}")
    if p.note:
        print(f"  note: {p.note}")
    print(f"  allowed: {', '.join(p.allowed_actions()) or '(none)'}")
    print("\nRisks:" if p.findings else "\nRisks: none")
    for f in p.findings:
        pre = " (already in the live file)" if f.preexisting else ""
        print(
            f"  {f.severity:<8} {f.code:<15} {f.file}:{f.line}:{f.column}: {f.message}{pre}"
            + (f"  [{f.excerpt}]" if f.excerpt and f.excerpt != f.file else "")
        )
    if p.lint.available:
        print("\nLint:" if p.lint.diagnostics else "\nLint: clean")
        for d in p.lint.diagnostics:
            print(f"  {d['severity']:<8} {d['code']:<10} SKILL.md:{d['line']}:{d['column']}: {d['message']}")
    else:
        print(f"\nLint: {p.lint.note}")
    print()
    for c in store.changes(p.id):
        sys.stdout.write(unified_diff(c) or f"(no change in {c.rel})\n")


def run(args) -> int:
    """Run one workshop action; see the module docstring for exit codes."""
    from workbench.options import UsageError

    fmt = getattr(args, "format", "text") or "text"
    if fmt not in ("text", "json"):
        raise UsageError(f"--format {fmt!r}: expected text or json")
    ws_arg = args.workspace
    words = list(getattr(args, "words", []) or [])
    pos = getattr(args, "ws_pos", None)
    if pos and ws_arg is not None and Path(pos).absolute() != Path(ws_arg).absolute():
        raise UsageError(f"two workspaces given: {pos} and --workspace {ws_arg}")
    if pos and ws_arg is None:
        ws_arg = Path(pos)
    if args.action == "propose-update":
        if len(words) > 2:
            raise UsageError("propose-update takes [WORKSPACE] NAME")
        if len(words) == 2:
            if ws_arg is None:
                ws_arg = Path(words[0])
            words = words[1:]
    ws = Path(ws_arg or ".").expanduser().absolute()
    if not ws.is_dir():
        raise UsageError(f"{ws}: no such folder")
    if ws_arg is None and getattr(args, "id", None):
        ws = _workspace_of(args.id, ws)
    try:
        store = WorkshopStore(ws)
        for n in store.notices:
            _err(n)
        a = args.action
        if a == "list":
            props = store.proposals(state=args.state)
            if fmt == "json":
                print(json.dumps([p.to_json() for p in props], indent=2))
            elif not props:
                print(f"no proposals{' in state ' + args.state if args.state else ''} ({store.dir})")
            for p in props if fmt != "json" else []:
                _print_proposal(store, p, fmt)
            return 0
        if a == "show":
            _print_proposal(store, store.get(args.id), fmt, detail=True)
            return 0
        if a == "propose-create":
            text, files, exe = _read_proposal(args.proposal)
            root = args.target_root
            if root is None and args.client:
                from workbench.core.workshop import default_target_root

                root = default_target_root(ws, args.client)
            p = store.propose_create(
                args.name, text, files, target_root=root, source=args.source, note=args.note, executable=exe
            )
        elif a == "propose-update":
            text, files, exe = _read_proposal(args.proposal)
            target = _resolve_skill(ws, words[0], args)
            p = store.propose_update(target, text, files, source=args.source, note=args.note, executable=exe)
        elif a == "apply":
            p = store.apply(args.id)
        elif a == "reject":
            p = store.reject(args.id, args.reason)
        elif a == "quarantine":
            p = store.quarantine(args.id, args.reason)
        elif a == "rollback":
            p = store.rollback(args.id, force=args.force)
        else:  # pragma: no cover - argparse restricts actions
            raise UsageError(f"unknown action {a}")
        _print_proposal(store, p, fmt)
        if fmt == "text" and p.findings and a.startswith("propose"):
            b = len(p.blocking_findings)
            _err(
                f"{plural(len(p.findings), 'risk')}, {b} blocking apply; see `workbench workshop show {p.id}`"
            )
        return 0
    except NotFoundError as exc:
        _err(str(exc))
        return 2
    except (TransitionError, ProposalError, StoreBusyError, StoreCorruptError, WorkshopError) as exc:
        _err(str(exc))
        return 1
