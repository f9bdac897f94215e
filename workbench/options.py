"""The command line's shared options and their checks, without the command modules or Qt.

``common_parser`` (the environment options every subcommand takes), ``environment_from_args``
(Environment from them; ``UsageError`` for bad values), ``client_ids``, ``open_workspace`` (``--as``)
and ``help_text``. ``workbench.cli`` re-exports all of them; the window (``workbench.app.main``)
imports them from here, so ``cli`` and ``app`` do not import each other.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from workbench.core.model import CLIENT_IDS, Environment


class UsageError(Exception):
    """A bad option value; printed to stderr, exit 2."""


#: The common options (``common_parser``), by name.
COMMON_OPTIONS = (
    "client",
    "home",
    "cwd",
    "root",
    "env",
    "bin",
    "os",
    "untrusted",
    "touched",
    "context-tokens",
    "most-used",
    "format",
)


def common_parser(
    only: tuple[str, ...] | None = None, formats: str = "text or json"
) -> argparse.ArgumentParser:
    """The environment options of the subcommands: all of ``COMMON_OPTIONS``, or ``only`` those
    (a command module's ``COMMON_OPTIONS``: ``workbench lint --help`` does not offer ``--home``).
    ``formats`` is the ``--format`` help text (a module's ``FORMATS_HELP``)."""
    want = set(COMMON_OPTIONS if only is None else only)
    p = argparse.ArgumentParser(add_help=False)
    g = p.add_argument_group("environment")
    if "client" in want:
        g.add_argument(
            "--client",
            default="claude-code",
            help=f"one of {', '.join(CLIENT_IDS)} (or 'all' where it makes sense)",
        )
    if "home" in want:
        g.add_argument("--home", type=Path, help="simulated home directory (default: yours)")
    if "cwd" in want:
        g.add_argument("--cwd", type=Path, help="the client's current directory (default: WORKSPACE)")
    if "root" in want:
        g.add_argument(
            "--root",
            type=Path,
            action="append",
            default=[],
            help="an extra skill root of scope 'extra' (repeatable)",
        )
    if "env" in want:
        g.add_argument(
            "--env",
            action="append",
            default=[],
            metavar="KEY=VALUE",
            help="set an environment variable for the simulated client (repeatable)",
        )
    if "bin" in want:
        g.add_argument(
            "--bin",
            action="append",
            default=None,
            metavar="NAME",
            help="a binary treated as present on PATH; when any is given only those count",
        )
    if "os" in want:
        g.add_argument(
            "--os",
            choices=("linux", "darwin", "win32"),
            dest="os_name",
            help="the simulated operating system (default: this one)",
        )
    if "untrusted" in want:
        g.add_argument("--untrusted", action="store_true", help="the workspace folder is not trusted")
    if "touched" in want:
        g.add_argument(
            "--touched",
            type=Path,
            action="append",
            default=[],
            help="a file the agent has worked with (activates nested roots and paths globs)",
        )
    if "context-tokens" in want:
        g.add_argument("--context-tokens", type=int, help="the model's context window in tokens")
    if "most-used" in want:
        g.add_argument(
            "--most-used",
            action="append",
            default=[],
            metavar="NAME",
            help="(Claude Code) a skill marked most-used; keeps its description longest",
        )
    if "format" in want:
        g.add_argument("--format", default="text", help=f"output format: {formats}")
    return p


def environment_from_args(args: argparse.Namespace) -> Environment:
    """Build the simulated ``Environment`` from the common options. Raises UsageError."""
    ws = Path(getattr(args, "workspace", None) or ".")
    if not ws.exists():
        raise UsageError(f"{ws}: no such folder")
    if not ws.is_dir():  # issue 13 item 9: `workbench README.md` silently opened the parent folder
        raise UsageError(
            f"{ws}: not a folder; WORKSPACE is a project folder or a folder of skills "
            f"(the folder holding it: {ws.absolute().parent})"
        )
    for opt in ("home", "cwd"):  # a missing folder silently gave other results (exit 0)
        v = getattr(args, opt, None)
        if v is not None and not Path(v).expanduser().is_dir():
            raise UsageError(
                f"--{opt} {v}: " + ("no such folder" if not Path(v).expanduser().exists() else "not a folder")
            )
    env_vars = None
    if args.env:
        import os

        env_vars = dict(os.environ)
        for kv in args.env:
            if "=" not in kv:
                raise UsageError(f"--env {kv!r}: expected KEY=VALUE")
            k, v = kv.split("=", 1)
            env_vars[k] = v
    kw: dict[str, Any] = {}
    if env_vars is not None:
        kw["env"] = env_vars
    if args.home:
        kw["home"] = args.home
    if args.os_name:
        kw["os_name"] = args.os_name
    for r in args.root:
        if not r.expanduser().is_dir():
            why = "no such folder" if not r.expanduser().exists() else "not a folder"
            raise UsageError(f"--root {r}: {why}")
    if args.context_tokens is not None and args.context_tokens <= 0:
        raise UsageError("--context-tokens must be a positive number of tokens")
    return Environment(
        workspace=ws,
        cwd=args.cwd,
        bins=set(args.bin) if args.bin is not None else None,
        trusted=not args.untrusted,
        touched=list(args.touched),
        extra_roots=list(args.root),
        context_tokens=args.context_tokens,
        most_used=list(args.most_used),
        **kw,
    )


def add_workspace_mode_option(p: argparse.ArgumentParser) -> None:
    """``--as auto|project|collection`` for the commands that scan a workspace
    (``discovery.apply_workspace_mode``)."""
    p.add_argument(
        "--as",
        dest="workspace_mode",
        choices=("auto", "project", "collection"),
        default="auto",
        help="how to treat WORKSPACE: 'project' (each client scans its own roots in it), "
        "'collection' (its skills as if installed where each client looks) or "
        "'auto' (default: a collection unless it holds a client's dot-folder root "
        "such as .claude/skills)",
    )


def open_workspace(env: Environment, args: argparse.Namespace, *, announce: bool = True):
    """Apply ``--as`` (default auto) to ``env`` and return the ``discovery.WorkspaceTreatment``.
    With ``announce``, a collection's banner goes to stderr (``workbench: ...``)."""
    from workbench.core.discovery import apply_workspace_mode

    t = apply_workspace_mode(env, getattr(args, "workspace_mode", None) or "auto")
    if announce and t.mode == "collection":
        print(f"workbench: {t.banner} (--as project to turn this off)", file=sys.stderr)
    return t


def client_ids(args: argparse.Namespace, allow_all: bool = True) -> list[str]:
    """The client ids named by ``--client`` (``all`` expands). Raises UsageError."""
    c = args.client
    if c == "all":
        if not allow_all:
            raise UsageError("--client all is not supported by this command")
        return list(CLIENT_IDS)
    if c not in CLIENT_IDS:
        raise UsageError(
            f"--client {c!r}: expected one of {', '.join(CLIENT_IDS)}" + (", all" if allow_all else "")
        )
    return [c]


def help_text(doc: str | None) -> str:
    """The first paragraph of a module docstring as ``--help`` text: RST/Markdown backticks
    dropped (``workbench listing [WORKSPACE]`` would show its double backticks)."""
    first = (doc or "").strip().split("\n\n")[0]
    return " ".join(first.replace("``", "").replace("`", "'").split())
