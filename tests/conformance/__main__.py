"""``python -m tests.conformance``: run the scenario matrix through every installed real client.

Options: ``--clients a,b`` (default: every runnable client installed in the lab cache),
``--scenarios id,glob*`` (default: all), ``--jobs N`` (real runs in parallel, default 2),
``--results PATH`` (default ``tests/conformance/results.json``), ``--no-docs`` (do not rewrite
docs/CLIENTS.md's table), ``--keep DIR`` (copy each case's tree there), ``-v`` (print diffs),
``--merge FILE...`` (combine results files of split runs; later files win).

Prints one line per scenario x client (agree / racy / DIFF / ERROR) and the count at the end;
exit 0 when every comparison agrees, 1 otherwise.
"""

from __future__ import annotations

import argparse
import fnmatch
import json
import sys
import time
from concurrent.futures import ThreadPoolExecutor, as_completed
from pathlib import Path

from tests.conformance import report as lab_report
from tests.conformance.lab import Comparison, run_case
from tests.conformance.scenarios import SCENARIOS, Scenario
from workbench.core.capture import RUNNABLE_CLIENTS, get_runner

HERE = Path(__file__).resolve().parent
#: Slow clients first so the two workers stay busy to the end.
SLOW_FIRST = ("openclaw", "opencode", "gemini-cli", "codex", "copilot-cli", "claude-code")


def installed_clients() -> list[str]:
    """Runnable clients whose runner exists and whose pinned version is in the lab cache."""
    out = []
    for cid in RUNNABLE_CLIENTS:
        try:
            runner = get_runner(cid)
        except (KeyError, ImportError):
            continue
        if runner.lab_executable() is not None:
            out.append(cid)
    return out


def select(patterns: str | None) -> list[Scenario]:
    if not patterns:
        return list(SCENARIOS)
    pats = [p.strip() for p in patterns.split(",") if p.strip()]
    return [s for s in SCENARIOS if any(fnmatch.fnmatchcase(s.id, p) for p in pats)]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m tests.conformance")
    ap.add_argument("--clients")
    ap.add_argument("--scenarios")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--results", type=Path, default=HERE / "results.json")
    ap.add_argument("--no-docs", action="store_true")
    ap.add_argument("--keep", type=Path)
    ap.add_argument("-v", "--verbose", action="store_true")
    ap.add_argument(
        "--max-minutes",
        type=float,
        default=None,
        help="stop starting new comparisons after this long; the ones not run are counted and reported",
    )
    ap.add_argument(
        "--merge",
        nargs="+",
        type=Path,
        metavar="RESULTS",
        help="merge results files of split runs into --results (and the docs); no run",
    )
    args = ap.parse_args(argv)
    if args.merge:
        data = lab_report.merge_files(args.merge)
        args.results.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n", "utf-8")
        if not args.no_docs:
            lab_report.write_docs(data)
        for c, v in data["clients"].items():
            print(f"  {c:<12} {v['agree']}/{v['total']} agree")
        agree = sum(v["agree"] for v in data["clients"].values())
        total = sum(v["total"] for v in data["clients"].values())
        print(f"lab: {agree}/{total} comparisons agree (merged from {len(args.merge)} runs)")
        return 0 if agree == total else 1
    clients = installed_clients()
    if args.clients:
        wanted = [c.strip() for c in args.clients.split(",")]
        clients = [c for c in wanted if c in clients]
    if not clients:
        print("no real client installed (run: python -m tests.conformance.install)", file=sys.stderr)
        return 2
    scenarios = select(args.scenarios)
    jobs = [
        (s, c)
        for c in sorted(clients, key=lambda c: SLOW_FIRST.index(c) if c in SLOW_FIRST else 99)
        for s in scenarios
        if s.applies_to(c)
    ]
    print(
        f"lab: {len(scenarios)} scenarios x {len(clients)} clients = {len(jobs)} comparisons, "
        f"{args.jobs} at a time",
        flush=True,
    )
    start = time.monotonic()
    results: list[Comparison] = []
    with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        futs = {pool.submit(run_case, s, c, args.keep): (s, c) for s, c in jobs}
        for fut in as_completed(futs):
            if args.max_minutes is not None and time.monotonic() - start > args.max_minutes * 60:
                for other in futs:  # the time budget is spent: run no new comparison
                    other.cancel()
            if fut.cancelled():
                continue
            cmp = fut.result()
            results.append(cmp)
            print(
                f"{cmp.status:<6} {cmp.scenario:<44} {cmp.client:<12} {cmp.seconds:5.1f}s"
                + (f"  {cmp.error}" if cmp.error else ""),
                flush=True,
            )
            if cmp.status in ("DIFF", "ERROR"):
                for d in cmp.diffs:
                    print(f"         {d}", flush=True)
                if args.verbose:
                    for d in cmp.detail:
                        print(f"         | {d}", flush=True)
    order = {(s.id, c): i for i, (s, c) in enumerate(jobs)}
    results.sort(key=lambda r: order.get((r.scenario, r.client), 0))
    wall = time.monotonic() - start
    agree = sum(1 for r in results if r.agree)
    per_client = {c: [r for r in results if r.client == c] for c in clients}
    data = lab_report.results_json(results, clients, wall, merge_into=args.results)
    args.results.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n", "utf-8")
    if not args.no_docs:
        lab_report.write_docs(data)
    for c, rs in per_client.items():
        print(f"  {c:<12} {sum(r.agree for r in rs)}/{len(rs)} agree ({sum(r.racy for r in rs)} racy)")
    not_run = len(jobs) - len(results)
    print(
        f"lab: {agree}/{len(results)} comparisons agree across {len(scenarios)} scenarios "
        f"and {len(clients)} clients in {wall / 60:.1f} min"
        + (f"; {not_run} not run (--max-minutes {args.max_minutes:g})" if not_run else "")
    )
    return 0 if agree == len(results) and not not_run else 1


if __name__ == "__main__":
    sys.exit(main())
