"""``workbench eval [WORKSPACE] --skill NAME --queries FILE`` — trigger evaluation (DESIGN.md §3).

Runs every query ``--runs`` times (default 3) through the simulated client's real listing and
load tool (``workbench.core.evals.runner``), ``--concurrency`` at a time (default 8), and prints
per-query trigger rates with a 95 % Wilson interval, pass/fail at ``--threshold`` (default 0.5),
precision/recall/F1/accuracy, errors counted apart, tokens and an estimated cost.

``--improve`` then runs the description-improvement loop (``core.evals.improve``): stratified
split (``--holdout``, seed 42), up to ``--iterations`` candidates, best by held-out pass count; a
winning description becomes a pending workshop proposal (its id is printed; review it with
``workbench workshop show ID``). The SKILL.md is never written by this command.

JSON (``--format json``): the DESIGN.md object ``{"skill","runs_per_query","threshold","results",
"summary","usage"}`` for the **current** description over all queries, plus ``cost``,
``warnings``, ``history_id`` and, with ``--improve``, ``"improvement"`` (split, attempts with
train/test scores, best, proposal id).

Exit codes: 0 every query passed; 1 any query failed or errored (or the run was stopped); 2 usage
error (unknown skill, bad query file, bad option, no API key — the message says what to set).

Batches (``--batch``; ``core.evals.batch``): the first turn of every query x run goes to the
Message Batches API (half price); the estimated cost is printed (stderr) before submitting
(``--estimate-only`` stops there, ``--max-cost USD`` refuses above it); the batch eval's id is
printed and stored with the eval history, so ``--resume ID`` picks it up after a restart (or after
``--no-wait``) and ``--cancel ID`` cancels it. Runs whose first turn called other tools are
continued through the direct API (``--no-follow-up``: decided on the first turn).

Collection (``--all-skills --queries-dir DIR``; ``core.evals.collection``): every listed skill with
a ``DIR/<skill>.json|yaml|yml`` query set is evaluated against the whole collection's listing, and
a confusion matrix (rows: the skill a query was written for, or none; columns: the skill loaded)
is printed with per-skill precision/recall and the top stealing pairs; JSON ``{"skills": {name:
report}, "matrix": {...}, "history_ids", "notes"}``; ``--matrix-html FILE`` writes a
self-contained HTML page. Direct or ``--batch``.

Decisions (spec silent): the model defaults to ``claude-haiku-5-5`` (chat-loop.md §1.8: a haiku
model for evals); the saved GUI chat settings are not read (reproducible command lines); each run
of the command is saved to the eval history (``core.evals.history``) unless ``--no-history``.
"""

from __future__ import annotations

import json
import sys
import threading

from workbench.commands.evalmany import print_text, run_many, run_record, setup_eval
from workbench.commands.via import add_via_arguments, run_eval_via
from workbench.options import (
    UsageError,
    add_workspace_mode_option,
    client_ids,
)


def add_parser(subparsers, common) -> None:
    p = subparsers.add_parser(
        "eval",
        parents=[common],
        help="measure how often a skill triggers for a query set",
        description="Run each query several times through the client's listing and load tool and "
        "report trigger rates, pass/fail, precision/recall and cost.",
    )
    p.add_argument("workspace", nargs="?", default=".", help="project folder (default: .)")
    add_workspace_mode_option(p)
    p.add_argument("--skill", default=None, help="name of the skill under test (as the client lists it)")
    p.add_argument(
        "--queries",
        default=None,
        help="query set: JSON list of {query, should_trigger}, "
        "or YAML with should_trigger / should_not_trigger lists",
    )
    p.add_argument(
        "--all-skills",
        action="store_true",
        help="collection eval: every listed skill with a query set in --queries-dir, with a confusion matrix",
    )
    p.add_argument("--queries-dir", default=None, help="with --all-skills: folder of <skill>.json|yaml")
    p.add_argument(
        "--matrix-html",
        default=None,
        metavar="FILE",
        help="with --all-skills: write the confusion matrix as a self-contained HTML page",
    )
    p.add_argument(
        "--batch",
        action="store_true",
        help="use the Message Batches API (first turns, half price; resumable)",
    )
    p.add_argument(
        "--estimate-only", action="store_true", help="with --batch: print the cost estimate and stop"
    )
    p.add_argument(
        "--max-cost",
        type=float,
        default=None,
        metavar="USD",
        help="with --batch: do not submit when the estimate is above this",
    )
    p.add_argument("--no-wait", action="store_true", help="with --batch: submit, print the id and exit")
    p.add_argument(
        "--poll", type=float, default=30.0, metavar="SECONDS", help="batch poll interval (default 30)"
    )
    p.add_argument(
        "--no-follow-up",
        action="store_true",
        help="with --batch: decide every run on its first turn (no direct follow-up requests)",
    )
    p.add_argument(
        "--output-tokens",
        type=float,
        default=None,
        metavar="N",
        help="with --batch: output tokens assumed per request in the estimate "
        "(default: from the last eval of this skill and model, else 64)",
    )
    p.add_argument(
        "--resume", default=None, metavar="ID", help="collect a submitted batch eval (record or batch id)"
    )
    p.add_argument(
        "--cancel", default=None, metavar="ID", help="cancel a submitted batch eval (record or batch id)"
    )
    p.add_argument("--runs", type=int, default=3, help="runs per query (default 3)")
    p.add_argument("--concurrency", type=int, default=8, help="parallel runs (default 8)")
    p.add_argument(
        "--threshold", type=float, default=0.5, help="pass threshold on the trigger rate (default 0.5)"
    )
    p.add_argument(
        "--no-competitors",
        action="store_true",
        help="list only the skill under test (default: the other listed skills compete)",
    )
    p.add_argument("--max-turns", type=int, default=None, help="model requests per run (default 8)")
    p.add_argument("--max-tokens", type=int, default=None, help="output tokens per request (default 4096)")
    p.add_argument("--model", default=None, help="model id (default claude-haiku-5-5)")
    p.add_argument(
        "--base-url",
        default=None,
        help="server root without /v1 (default: ANTHROPIC_BASE_URL, else https://api.anthropic.com)",
    )
    p.add_argument("--improve", action="store_true", help="run the description-improvement loop")
    p.add_argument("--holdout", type=float, default=0.4, help="with --improve: share held out (default 0.4)")
    p.add_argument(
        "--iterations", type=int, default=5, help="with --improve: new candidates at most (default 5)"
    )
    p.add_argument("--no-history", action="store_true", help="do not save this run to the eval history")
    p.add_argument("--details", action="store_true", help="JSON: include every run's details")
    add_via_arguments(p)


def _check(args) -> None:
    if args.format not in ("text", "json"):
        raise UsageError(f"--format {args.format!r}: expected text or json")
    if args.runs < 1:
        raise UsageError("--runs must be at least 1")
    if args.concurrency < 1:
        raise UsageError("--concurrency must be at least 1")
    if not 0.0 <= args.threshold <= 1.0:
        raise UsageError("--threshold must be between 0 and 1")
    if args.max_turns is not None and args.max_turns < 1:
        raise UsageError("--max-turns must be at least 1")
    if args.max_tokens is not None and args.max_tokens < 1:
        raise UsageError("--max-tokens must be at least 1")
    if not 0.0 <= args.holdout < 1.0:
        raise UsageError("--holdout must be at least 0 and below 1")
    if args.iterations < 0:
        raise UsageError("--iterations must be 0 or more")
    if args.resume or args.cancel:
        return
    if args.all_skills:
        if not args.queries_dir:
            raise UsageError("--all-skills needs --queries-dir DIR (one <skill>.json|yaml per skill)")
        if args.skill or args.queries or args.improve:
            raise UsageError("--all-skills evaluates every skill: drop --skill/--queries/--improve")
    elif not args.skill or not args.queries:
        raise UsageError(
            "give --skill NAME --queries FILE, or --all-skills --queries-dir DIR (or --resume/--cancel ID)"
        )
    if args.batch and args.improve:
        raise UsageError("--batch cannot be combined with --improve")
    if args.poll <= 0:
        raise UsageError("--poll must be positive")


def run(args) -> int:
    from workbench.core.chat.errors import NO_KEY_HINT
    from workbench.core.chat.settings import get_api_key
    from workbench.core.evals.history import HistoryStore
    from workbench.core.evals.queryset import QuerySetError, load_queries
    from workbench.core.evals.runner import EvalRunner, EvalSetupError

    _check(args)
    if args.resume or args.cancel:
        return run_record(args)
    if args.all_skills or args.batch:
        return run_many(args)
    client = client_ids(args, allow_all=False)[0]
    try:
        qs = load_queries(args.queries)
    except QuerySetError as exc:
        raise UsageError(f"eval: {exc}") from None
    for w in qs.warnings:
        print(f"warning: {w}", file=sys.stderr)
    if args.via_client:
        return run_eval_via(args, [(q.query, q.should_trigger) for q in qs.queries])
    env, settings, catalog, opts = setup_eval(args, client)
    key, _src = get_api_key()
    if not key:
        # unknown skill is reported before the key, so a typo is found without a key
        from workbench.core.evals.runner import find_target

        try:
            find_target(catalog, args.skill)
        except EvalSetupError as exc:
            raise UsageError(f"eval: {exc}") from None
        raise UsageError(f"eval: no API key. {NO_KEY_HINT}")
    cancel = threading.Event()
    history = None if args.no_history else HistoryStore(env.workspace)
    improvement = None
    try:
        if args.improve:
            from workbench.core.evals.improve import improve_description

            improvement = improve_description(
                catalog,
                args.skill,
                qs.queries,
                settings=settings,
                api_key=key,
                options=opts,
                iterations=args.iterations,
                holdout=args.holdout,
                history=history,
                cancel=cancel,
            )
            report = improvement.baseline
            assert report is not None  # the current description is always evaluated first
        else:
            with EvalRunner(
                catalog, args.skill, qs.queries, settings=settings, api_key=key, options=opts
            ) as runner:
                report = runner.run(cancel)
    except EvalSetupError as exc:
        raise UsageError(f"eval: {exc}") from None
    except KeyboardInterrupt:
        cancel.set()
        raise
    history_id = None
    if history is not None and improvement is None:
        try:
            history_id = history.save(report, queries=qs.queries).id
        except OSError as exc:
            print(f"warning: could not save the eval history: {exc}", file=sys.stderr)
    if args.format == "json":
        out = report.to_json(details=args.details)
        out["history_id"] = history_id
        if improvement is not None:
            out["improvement"] = improvement.to_json()
        print(json.dumps(out, indent=2, ensure_ascii=False))
    else:
        print_text(report, improvement, history_id)
    fatal = report.fatal_error or (improvement.error if improvement is not None else None)
    if fatal:
        print(
            f"workbench: eval: {fatal.get('message')}"
            + (f"\n  hint: {fatal['hint']}" if fatal.get("hint") else ""),
            file=sys.stderr,
        )
        if fatal.get("kind") == "no-key":
            return 2
    return 0 if report.all_passed and not report.cancelled else 1
