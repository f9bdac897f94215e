"""``workbench capture [WORKSPACE] --client NAME [--bin PATH]``: run your installed client once,
offline, and show the listing it really sends beside the workbench's simulation.

The client runs in WORKSPACE with your real HOME's skills (through a copy-on-write overlay: your
config files are neither read for secrets nor changed) against a local recorder: no key, no
network. Printed: the captured listing block, where it sits in the request, the skill-load tool,
the skills in order, and a line diff against the simulated listing for the same tree (``---`` the
real client, ``+++`` the simulation). JSON: ``{client, version, modelled_version, placement, listing,
skills, tool, simulated, diff, ...}``. The client's built-in skills and prose are stored in your
cache folder (per client and version) and used by the simulation from then on.

Exit codes: 0 captured (also when the diff is not empty: that is information); 1 the client failed
(exited, sent nothing, timed out); 2 usage error (unknown client, client not installed).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from workbench.options import UsageError, help_text


def add_parser(subparsers, common) -> None:
    from workbench.core.capture import RUNNABLE_CLIENTS

    p = subparsers.add_parser(
        "capture",
        help="run your installed client once, offline, and show its real listing beside the simulation",
        description=help_text(__doc__),
    )
    p.add_argument("workspace", nargs="?", default=".", help="project folder (default: .)")
    p.add_argument("--client", required=True, choices=RUNNABLE_CLIENTS, help="the client to run")
    p.add_argument(
        "--bin",
        type=Path,
        dest="exe",
        metavar="PATH",
        help="the client's executable (default: found on PATH)",
    )
    p.add_argument("--home", type=Path, help=argparse.SUPPRESS)  # tests: a HOME other than yours
    p.add_argument(
        "--timeout", type=float, default=120.0, help="seconds before the client is stopped (default 120)"
    )
    p.add_argument(
        "--texts-version",
        metavar="VERSION",
        help="simulate with the built-ins stored for another captured version",
    )
    p.add_argument("--format", default="text", choices=("text", "json"))


def format_text(rep) -> str:
    """The text report of a ``CaptureReport``."""
    out = [f"{rep.client} {rep.version or '?'} ({rep.exe}); modelled on {rep.modelled_version}"]
    if rep.version_differs:
        out.append(
            f"note: your installed version {rep.version} differs from the modelled "
            f"{rep.modelled_version}; the capture shows what yours sends"
        )
    pl = rep.placement or {}
    where = pl.get("location", "?")
    if pl.get("message_index") is not None:
        where += f" message {pl['message_index']}"
    if pl.get("block_index") is not None:
        where += f" block {pl['block_index']}"
    out.append(f"placement: {where}" + (f" ({pl['detail']})" if pl.get("detail") else ""))
    tool = rep.tool or {}
    out.append(f"skill-load tool: {tool.get('name') or '(none: the model reads SKILL.md)'}")
    out.append(f"skills in order ({len(rep.skills)}): {', '.join(rep.skills) or '(none)'}")
    if rep.builtins:
        out.append(f"built-ins: {', '.join(rep.builtins)}")
    out.append(f"overlay: {rep.overlay_note}")
    out.append("")
    out.append("== captured listing ==")
    out.append(rep.listing or "(no listing in the request)")
    out.append("")
    if rep.diff:
        out.append(f"== diff: real client vs workbench simulation ({len(rep.diff)} lines) ==")
        out.extend(rep.diff)
    else:
        out.append("== the simulation matches the real listing byte for byte ==")
    return "\n".join(out) + "\n"


def run(args) -> int:
    from workbench.core.capture.capture import capture
    from workbench.core.model import Environment

    ws = Path(args.workspace)
    if not ws.is_dir():
        raise UsageError(f"{ws}: no such folder")
    if args.exe is not None and not args.exe.exists():
        raise UsageError(f"--bin {args.exe}: no such file")
    home = args.home or Path.home()
    env = Environment(workspace=ws.resolve(), home=home)
    print(
        f"running {args.client} once against the local recorder (up to {args.timeout:.0f} s)…",
        file=sys.stderr,
    )
    rep = capture(env, args.client, exe=args.exe, timeout=args.timeout, texts_version=args.texts_version)
    if rep.error_kind in ("not-installed", "unsupported"):
        raise UsageError(rep.error)
    if args.format == "json":
        print(json.dumps(rep.to_json(), indent=2, ensure_ascii=False))
    elif rep.error is None:
        sys.stdout.write(format_text(rep))
    if rep.error:
        print(f"workbench capture: {rep.error}", file=sys.stderr)
        return 1
    return 0
