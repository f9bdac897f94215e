"""``workbench explain SKILL [WORKSPACE]``: why a skill does (not) reach the model, per client.

SKILL is a skill name or a path to a SKILL.md / skill folder. ``--client`` defaults to every
client here (``all``); name one to narrow it. Text: one block per client with each finding
(found, parsed, gated, shadowed, listed, overlap) and its fix. ``--format json``:
``{"query", "context_tokens", "clients": [ClientExplanation.to_json(), ...]}``.
Exit 0 when the skill is listed in full for every client asked, 1 when any finding is a warning
or an error, 2 on usage errors.
"""

from __future__ import annotations

import json
import sys

from workbench.options import (
    UsageError,
    add_workspace_mode_option,
    client_ids,
    environment_from_args,
    help_text,
    open_workspace,
)


def add_parser(subparsers, common) -> None:
    p = subparsers.add_parser(
        "explain",
        parents=[common],
        help="explain why a skill does or does not reach the model",
        description=help_text(__doc__),
    )
    # explain covers every client unless one is named (each subcommand has its own copy of the
    # common options, see workbench.cli.build_parser, so this default is explain's alone)
    p.set_defaults(client="all")
    p.add_argument("skill", help="skill name, or path to its SKILL.md or folder")
    p.add_argument("workspace", nargs="?", default=".", help="project folder (default: .)")
    add_workspace_mode_option(p)


def run(args) -> int:
    from workbench.core.explain import explain, format_text

    env = environment_from_args(args)
    ids = client_ids(args)
    open_workspace(env, args)
    if args.format not in ("text", "json"):
        raise UsageError(f"--format {args.format!r}: expected text or json")
    exps = explain(env, args.skill, ids, env.context_tokens)
    if args.format == "json":
        json.dump(
            {
                "query": args.skill,
                "context_tokens": env.context_tokens,
                "clients": [e.to_json() for e in exps],
            },
            sys.stdout,
            ensure_ascii=False,
            indent=2,
        )
        sys.stdout.write("\n")
    else:
        sys.stdout.write(format_text(exps))
    return 0 if all(e.level in ("ok", "info") for e in exps) else 1
