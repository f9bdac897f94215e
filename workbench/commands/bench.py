"""``workbench bench [--skills N] [--format text|json]``: measure the performance targets.

Builds a synthetic tree of N skills (default 10,000; corpus skills copied into uniquely named
folders, or a small built-in set without the corpus) in a temporary folder and times scan, lint
(cold, 1 process and automatic processes; warm with the result cache), scan + lint, keystroke
lint p50/p95, listing render, and skills-ref's ``validate()`` when that optional package is
installed, then issue 14's table: the CLI's cold/warm ``lint --format json`` and cold ``scan
--client all`` in fresh processes, the window until populated (GUI-thread blocks, RSS), one-file
lint, the walk+read+parse floor, per-rule costs, and skills-ref over the same folders in the same
run. See ``workbench.core.bench`` for what each figure means. Exit 0 (the figures are the
output; missed targets are reported, not an error), 2 on a usage error.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from workbench.options import UsageError

HELP = "time scan, lint, keystroke lint and listing on a synthetic tree of skills"
COMMON_OPTIONS = ("format",)  # workbench.options.common_parser: no simulated environment


def add_parser(subparsers, common: argparse.ArgumentParser) -> argparse.ArgumentParser:
    p = subparsers.add_parser("bench", parents=[common], help=HELP, description=HELP + ".")
    p.add_argument("--skills", type=int, default=10_000, metavar="N", help="skills in the synthetic tree")
    p.add_argument(
        "--sample",
        type=int,
        default=0,
        metavar="N",
        help="skill folders validated by skills-ref (when installed) for the speed ratio "
        "(default 0: all of them, as the issue 14 comparison does)",
    )
    p.add_argument(
        "--repeat",
        type=int,
        default=3,
        metavar="N",
        help="runs of each fresh-process figure (CLI lint/scan, window); the median is shown",
    )
    p.add_argument(
        "--no-window",
        dest="window",
        action="store_false",
        default=True,
        help="do not time the window (needs PySide6)",
    )
    p.add_argument(
        "--rule-sample", type=int, default=2000, metavar="N", help="files for the per-rule cost table"
    )
    p.add_argument(
        "--corpus",
        type=Path,
        default=None,
        help="folder of skills to copy (default: $WB_SHARED/corpus, or ../shared/corpus beside "
        "a source checkout, when present; else a built-in set)",
    )
    p.add_argument("--workdir", type=Path, default=None, help="where the temporary tree goes")
    return p


def run(args: argparse.Namespace) -> int:
    from workbench.core.bench import format_table, run_bench

    if args.format not in ("text", "json"):
        raise UsageError(f"--format {args.format!r}: expected text or json")
    if args.skills < 1:
        raise UsageError("--skills must be at least 1")
    if args.sample < 0 or args.repeat < 1 or args.rule_sample < 1:
        raise UsageError("--sample must be >= 0, --repeat and --rule-sample >= 1")
    if args.corpus is not None and not args.corpus.is_dir():
        raise UsageError(f"--corpus {args.corpus}: not a folder")
    progress = (lambda s: print(s, file=sys.stderr)) if args.format == "text" else None
    res = run_bench(
        args.skills,
        corpus=args.corpus,
        skills_ref_sample=args.sample,
        workdir=args.workdir,
        progress=progress,
        repeat=args.repeat,
        window=args.window,
        rule_sample=args.rule_sample,
    )
    if args.format == "json":
        json.dump(res, sys.stdout, indent=2, ensure_ascii=False)
        sys.stdout.write("\n")
    else:
        print(format_table(res))
    return 0
