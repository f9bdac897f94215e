"""The ``workbench`` command line (DESIGN.md section 3).

``workbench [WORKSPACE]`` opens the window; ``workbench SUBCOMMAND ...`` runs one of the commands in
``workbench/commands/<name>.py``. Each command module defines ``add_parser(subparsers, common)``
and ``run(args) -> int`` (``Command``); ``command(name)`` imports that one module. Exit codes:
0 success, 1 findings, 2 usage error.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any, Protocol

from workbench import __version__
from workbench.core.text import SafeTextStream
from workbench.options import (  # noqa: F401 - re-exported: commands import them from here
    COMMON_OPTIONS,
    UsageError,
    add_workspace_mode_option,
    client_ids,
    common_parser,
    environment_from_args,
    help_text,
    open_workspace,
)

COMMANDS = ("scan", "listing", "explain", "lint", "chat", "eval", "workshop", "capture", "bench")


class Command(Protocol):
    """What a module of ``workbench/commands/`` provides (optionally also ``COMMON_OPTIONS``, the
    common options it takes, and ``FORMATS_HELP``, see ``options.common_parser``)."""

    def add_parser(self, subparsers: Any, common: argparse.ArgumentParser, /) -> object: ...

    def run(self, args: argparse.Namespace, /) -> int | None: ...


def command(name: str) -> Command:
    """The module of command ``name`` (one of ``COMMANDS``), imported on first use: ``workbench
    lint`` imports only the lint command's module. Raises KeyError for an unknown name."""
    match name:
        case "scan":
            from workbench.commands import scan

            return scan
        case "listing":
            from workbench.commands import listing

            return listing
        case "explain":
            from workbench.commands import explain

            return explain
        case "lint":
            from workbench.commands import lint

            return lint
        case "chat":
            from workbench.commands import chat

            return chat
        case "eval":
            from workbench.commands import eval as eval_command

            return eval_command
        case "workshop":
            from workbench.commands import workshop

            return workshop
        case "capture":
            from workbench.commands import capture

            return capture
        case "bench":
            from workbench.commands import bench

            return bench
    raise KeyError(f"unknown command {name!r}; known: {', '.join(COMMANDS)}")


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
        mod = command(name)
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


def console_main() -> None:
    """The process's entry point (the ``workbench`` script, ``python -m workbench``): ``main()``,
    then ``sys.exit``; when the command handed its objects to ``model.keep_until_exit``
    (``workbench scan``) and no other thread runs, the process ends with ``os._exit`` once
    stdout, stderr and the log handlers are flushed (no object freed one by one, no atexit
    handler: the only one is ``model.skip_exit_collection``'s). A flush that fails (a closed
    pipe) leaves the exit to ``sys.exit`` (its usual message and status)."""
    import os
    import threading

    from workbench.core.model import arm_fast_exit, fast_exit_wanted

    arm_fast_exit()
    rc = main()
    if fast_exit_wanted() and threading.active_count() == 1:
        try:
            sys.stdout.flush()
            sys.stderr.flush()
        except (OSError, ValueError):
            sys.exit(rc)
        import logging

        logging.shutdown()
        os._exit(rc)
    sys.exit(rc)


def _main(argv: list[str] | None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    first = next((a for a in argv if not a.startswith("-")), None)
    try:
        if first in COMMANDS:
            parser = build_parser(first)
            args = parser.parse_args(argv)
            return int(command(args.command).run(args) or 0)
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
