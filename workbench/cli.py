"""The ``workbench`` command line (DESIGN.md section 3).

``workbench [WORKSPACE]`` opens the window; ``workbench SUBCOMMAND ...`` runs one of the commands in
``workbench/commands/<name>.py``. Each command module defines ``add_parser(subparsers, common)``
and ``run(args) -> int``. Exit codes: 0 success, 1 findings, 2 usage error.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from pathlib import Path
from typing import Any

from workbench import __version__
from workbench.core.model import CLIENT_IDS, Environment
from workbench.core.text import SafeTextStream

COMMANDS = ("scan", "listing", "explain", "lint", "chat", "eval", "workshop", "capture", "bench")


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


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The parser of every subcommand, or of ``only`` that one (``main`` running a command: the
    other command modules, e.g. workshop's store or the scan's discovery, are then not imported;
    ``workbench lint FILE`` starts ~40 ms sooner)."""
    parser = argparse.ArgumentParser(
        prog="workbench",
        description="Skill Workbench: see what coding agents see of your Agent Skills.",
    )
    parser.add_argument("--version", action="version", version=f"workbench {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMANDS if only is None else (only,):
        try:
            mod = importlib.import_module(f"workbench.commands.{name}")
        except ModuleNotFoundError as exc:  # a command not built yet
            if exc.name != f"workbench.commands.{name}":
                raise
            continue
        # A fresh parent per subcommand: argparse shares parent actions, so one command's
        # set_defaults(client=...) would otherwise change the default for all of them.
        mod.add_parser(
            sub,
            common_parser(getattr(mod, "COMMON_OPTIONS", None), getattr(mod, "FORMATS_HELP", "text or json")),
        )
    return parser


def gui_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="workbench", parents=[common_parser()], description="Open the Skill Workbench window."
    )
    p.add_argument(
        "workspace",
        nargs="?",
        help="project folder or folder of skills "
        "(default: the current directory; the bundled demo when nothing is found)",
    )
    add_workspace_mode_option(p)
    p.add_argument(
        "--screenshot", type=Path, metavar="PNG", help="render the window offscreen, write the PNG and exit"
    )
    from workbench.app.views import TAB_KEYS  # no Qt

    p.add_argument(
        "--view",
        default=None,
        choices=TAB_KEYS,
        metavar="TAB",
        help=f"with --screenshot: the tab to show first ({', '.join(TAB_KEYS)})",
    )
    p.add_argument("--size", default="1400x900", help="with --screenshot: window size WxH")
    p.add_argument("--version", action="version", version=f"workbench {__version__}")
    return p


def main(argv: list[str] | None = None) -> int:
    """Run one command; stdout/stderr go through ``text.SafeTextStream`` meanwhile (control
    characters and undecodable path bytes from skills are written as ``\\uXXXX`` escapes)."""
    out, err = sys.stdout, sys.stderr
    if out is not None and err is not None:  # None: a windowed build without a console
        sys.stdout, sys.stderr = SafeTextStream(out), SafeTextStream(err)
    try:
        return _main(argv)
    finally:
        sys.stdout, sys.stderr = out, err


def _main(argv: list[str] | None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    first = next((a for a in argv if not a.startswith("-")), None)
    try:
        if first in COMMANDS:
            parser = build_parser(first)
            args = parser.parse_args(argv)
            mod = importlib.import_module(f"workbench.commands.{args.command}")
            return int(mod.run(args) or 0)
        if argv and argv[0] in ("-h", "--help"):
            build_parser().print_help()
            print("\nWith no COMMAND: workbench [WORKSPACE] [--screenshot PNG] opens the window.")
            return 0
        return _open_window(argv)
    except UsageError as exc:
        print(f"workbench: {exc}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # e.g. `workbench scan | head`
        return 0
    except KeyboardInterrupt:
        return 130


def _open_window(argv: list[str]) -> int:
    args = gui_parser().parse_args(argv)
    from workbench.app.main import run_gui  # Qt only imported for the window

    return int(run_gui(args) or 0)


def gui_main(argv: list[str] | None = None) -> int:
    """The ``workbench-gui`` entry point (pyproject ``gui-scripts``: no console on Windows):
    always the window, ``workbench-gui [WORKSPACE] [options]``. Exit codes as ``main``."""
    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        return _open_window(argv)
    except UsageError as exc:
        print(f"workbench: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
