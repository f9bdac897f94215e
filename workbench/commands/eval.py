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

from workbench.commands.via import add_via_arguments, run_eval_via
from workbench.core.text import plural
from workbench.options import (
    UsageError,
    add_workspace_mode_option,
    client_ids,
    environment_from_args,
    open_workspace,
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


def _settings(args, client: str):
    from workbench.core.chat.settings import ChatSettings
    from workbench.core.evals.runner import DEFAULT_EVAL_MODEL

    s = ChatSettings(client=client, model=args.model or DEFAULT_EVAL_MODEL)
    if args.base_url:
        from workbench.commands.chat import check_base_url

        s.base_url = check_base_url(args.base_url)
    if args.max_turns is not None:
        s.max_turns = args.max_turns
    if args.max_tokens is not None:
        s.max_tokens = args.max_tokens
    return s


def _pct(x) -> str:
    from workbench.core.evals.metrics import pct

    return pct(x)


def error_reasons(report) -> list[str]:
    """One stderr line per distinct error of the errored runs (issue 13 item 8: 20 "ERR" lines and
    no reason): ``errors: 20 runs: Cannot reach http://...: Connection refused. (hint: ...)``.
    The fatal error that stopped the eval is printed by ``run`` and left out here."""
    fatal = (report.fatal_error or {}).get("message")
    seen: dict[tuple[str, str], int] = {}
    for r in report.results:
        for rec in r.details:
            e = rec.error
            if rec.outcome == "errored" and e and e.get("message") != fatal:
                key = (e.get("message") or e.get("kind") or "error", e.get("hint") or "")
                seen[key] = seen.get(key, 0) + 1
    return [
        f"errors: {plural(n, 'run')}: {msg}" + (f" (hint: {hint})" if hint else "")
        for (msg, hint), n in seen.items()
    ]


def _print_text(report, improvement, history_id) -> None:
    print(
        f"skill {report.skill} ({report.client}, {report.model}); {plural(report.runs_per_query, 'run')} per query, "
        f"threshold {report.threshold:g}; competitors: {', '.join(report.competitors) or '(none)'}"
    )
    for r in report.results:
        d = r.to_json()
        rate = "  n/a" if d["trigger_rate"] is None else f"{d['trigger_rate'] * 100:4.0f}%"
        iv = "" if d["interval"] is None else f" [{d['interval'][0] * 100:.0f}-{d['interval'][1] * 100:.0f}%]"
        kinds = ", ".join(f"{k}" if n == d["errors"] else f"{k} {n}" for k, n in d["error_kinds"].items())
        err = (
            f" errors {d['errors']} ({kinds})"
            if d["errors"] and kinds
            else (f" errors {d['errors']}" if d["errors"] else "")
        )
        also = (
            f" also loaded: {', '.join(f'{k}×{v}' for k, v in d['also_loaded'].items())}"
            if d["also_loaded"]
            else ""
        )
        mark = {"passed": "PASS", "failed": "FAIL", "errored": "ERR ", "not-run": "----"}[d["status"]]
        print(
            f"{mark} {'+' if r.should_trigger else '-'} {d['triggers']}/{d['runs']} {rate}{iv}{err}  "
            f"{r.query[:90]}{also}"
        )
    s = report.summary
    j = s.to_json()
    print(
        f"passed {s.passed}/{s.total}, failed {s.failed}, errored {s.errored}; over runs: precision "
        f"{_pct(j['precision'])}, recall {_pct(j['recall'])}, F1 {_pct(j['f1'])}, accuracy "
        f"{_pct(j['accuracy'])}; over queries: precision {_pct(j['by_query']['precision'])}, recall "
        f"{_pct(j['by_query']['recall'])}"
    )
    u = report.usage
    c = report.cost()
    cost = f"≈ ${c['usd']:.4f} (est.: {c['assumption']})" if c["usd"] is not None else c["assumption"]
    print(
        f"tokens: in {u['input_tokens']:,}, out {u['output_tokens']:,}, cache read "
        f"{u['cache_read_input_tokens']:,}, cache write {u['cache_creation_input_tokens']:,}; {cost}"
    )
    th = report.throttle
    if th.get("events"):
        print(f"rate limited {plural(th['events'], 'time')}; concurrency lowered to {th['min_concurrency']}")
    print(f"{report.seconds:.1f} s" + (f"; saved to history as {history_id}" if history_id else ""))
    for w in report.to_json()["warnings"]:
        print(f"warning: {w}", file=sys.stderr)
    for line in error_reasons(report):
        print(line, file=sys.stderr)
    if improvement is not None:
        imp = improvement.to_json()
        print(
            f"\nimprovement loop: {imp['exit_reason']}; split train {len(imp['split']['train'])} / "
            f"test {len(imp['split']['test'])} (seed {imp['split']['seed']})"
        )
        for a in imp["history"]:
            if a.get("rejected"):
                print(f"  #{a['iteration']} rejected: {a['rejected']}")
                continue
            t = a.get("test") or {}
            print(
                f"  #{a['iteration']} train {a['train']['passed']}/{a['train']['total']}, test "
                f"{t.get('passed', 0)}/{t.get('total', 0)}: {a['description'][:100]}"
            )
        if imp["improved"]:
            print(f"best: #{imp['best_iteration']}: {imp['best_description']}")
        else:
            print("best: the current description (no candidate did better on the held-out queries)")
        if imp["proposal_id"]:
            print(
                f"proposal {imp['proposal_id']} is pending in the workshop "
                f"(workbench workshop show {imp['proposal_id']})"
            )
        if imp["proposal_error"]:
            print(f"warning: no proposal: {imp['proposal_error']}", file=sys.stderr)
        for w in imp["warnings"]:
            print(f"warning: {w}", file=sys.stderr)


def run(args) -> int:
    from workbench.core.chat.errors import NO_KEY_HINT
    from workbench.core.chat.settings import get_api_key
    from workbench.core.evals.history import HistoryStore
    from workbench.core.evals.queryset import QuerySetError, load_queries
    from workbench.core.evals.runner import EvalRunner, EvalSetupError

    _check(args)
    if args.resume or args.cancel:
        return _run_record(args)
    if args.all_skills or args.batch:
        return _run_many(args)
    client = client_ids(args, allow_all=False)[0]
    try:
        qs = load_queries(args.queries)
    except QuerySetError as exc:
        raise UsageError(f"eval: {exc}") from None
    for w in qs.warnings:
        print(f"warning: {w}", file=sys.stderr)
    if args.via_client:
        return run_eval_via(args, [(q.query, q.should_trigger) for q in qs.queries])
    env, settings, catalog, opts = _setup(args, client)
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
            report = EvalRunner(
                catalog, args.skill, qs.queries, settings=settings, api_key=key, options=opts
            ).run(cancel)
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
        _print_text(report, improvement, history_id)
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


# ---------------------------------------------------------------------------------------------
# batch and collection evals


def _key_or_fail() -> str:
    from workbench.core.chat.errors import NO_KEY_HINT
    from workbench.core.chat.settings import get_api_key

    key, _src = get_api_key()
    if not key:
        raise UsageError(f"eval: no API key. {NO_KEY_HINT}")
    return key


def _sdk(settings, key: str, batch: bool):
    import dataclasses

    from workbench.core.chat.backend import make_client

    return make_client(settings if batch else dataclasses.replace(settings, max_retries=0), key)


def _runners(args, catalog, settings, sdk, opts):
    """(runners, notes, queries_dir) for a single-skill or a collection eval. Raises UsageError."""
    from workbench.core.evals.collection import collection_runners, load_query_dir
    from workbench.core.evals.queryset import QuerySetError, load_queries
    from workbench.core.evals.runner import EvalRunner

    if not args.all_skills:
        try:
            qs = load_queries(args.queries)
        except QuerySetError as exc:
            raise UsageError(f"eval: {exc}") from None
        return [
            EvalRunner(catalog, args.skill, qs.queries, settings=settings, client=sdk, options=opts)
        ], list(qs.warnings)
    if not catalog.listed():
        raise UsageError(f"eval: {catalog.client} lists no skill here. " + " ".join(catalog.notes[:2]))
    try:
        qd = load_query_dir(args.queries_dir, catalog)
    except NotADirectoryError as exc:
        raise UsageError(f"eval: --queries-dir {exc}") from None
    if not qd.sets:
        raise UsageError(
            f"eval: no query set in {args.queries_dir} names a skill listed for "
            f"{catalog.client} ({', '.join(qd.notes()[:5]) or 'folder empty'})"
        )
    return collection_runners(catalog, qd.sets, settings=settings, client=sdk, options=opts), qd.notes()


def _progress(ev: dict) -> None:
    c = ev["counts"]
    print(
        f"batch: {c['processing']} processing, {c['succeeded']} succeeded, {c['errored']} errored, "
        f"{c['canceled']} canceled, {c['expired']} expired ({ev['seconds']:.0f} s)",
        file=sys.stderr,
    )


def _estimate_line(est: dict) -> str:
    usd = "n/a (unknown model price)" if est["usd"] is None else f"≈ ${est['usd']:.4f}"
    more = (
        ""
        if est["usd"] is None
        else (
            f" (direct API ≈ ${est['usd_direct']:.4f}; without cache hits "
            f"${est['usd_no_cache']:.4f}; every reply at max_tokens "
            f"${est['max_usd']:.4f})"
        )
    )
    return (
        f"batch: {est['requests']:,} requests in {plural(est['batches'], 'batch')} "
        f"({est['input_tokens']:,} input tokens counted); estimated cost {usd} at the batch price{more}\n"
        f"  est.: {est['assumption']}"
    )


def _setup(args, client: str):
    """(env, settings, catalog, options) from the command line (the workspace as a root when it
    holds skills no client root covers)."""
    from pathlib import Path

    from workbench.core.discovery import scan
    from workbench.core.evals.runner import EvalOptions

    env = environment_from_args(args)
    open_workspace(env, args)
    settings = _settings(args, client)
    catalog = scan(env, client)
    ws = Path(env.workspace).absolute()
    if getattr(args, "all_skills", False) and not catalog.listed() and ws not in env.extra_roots:
        # a collection (e.g. repo/skills/<name>/SKILL.md) the client would not find by itself:
        # evaluate it as if installed (an extra root), and say so
        env.extra_roots.append(ws)
        catalog = scan(env, client)
        if catalog.listed():
            print(
                f"note: {client} finds no skill in {env.workspace} by itself; its skills are "
                "evaluated as if installed (--root)",
                file=sys.stderr,
            )
    opts = EvalOptions(
        runs=args.runs,
        concurrency=args.concurrency,
        threshold=args.threshold,
        competitors=not args.no_competitors,
        context_tokens=env.context_tokens,
    )
    return env, settings, catalog, opts


def _run_many(args) -> int:
    """--batch and/or --all-skills."""
    from workbench.core.evals.batch import BatchError, BatchEval, BatchStore
    from workbench.core.evals.history import HistoryStore
    from workbench.core.evals.runner import EvalSetupError

    env, settings, catalog, opts = _setup(args, client_ids(args, allow_all=False)[0])
    key = _key_or_fail()
    sdk = _sdk(settings, key, args.batch)
    try:
        runners, notes = _runners(args, catalog, settings, sdk, opts)
    except EvalSetupError as exc:
        raise UsageError(f"eval: {exc}") from None
    for n in notes:
        print(f"warning: {n}", file=sys.stderr)
    history = None if args.no_history else HistoryStore(env.workspace)
    if not args.batch:
        cancel = threading.Event()
        try:
            reports = [r.run(cancel) for r in runners]
        except KeyboardInterrupt:
            cancel.set()
            raise
        return _finish(args, reports, runners, history, notes, None)
    be = BatchEval(runners, sdk)
    try:
        est = be.estimate(output_tokens=args.output_tokens, calibrate=_calibration(history, runners))
        print(_estimate_line(est), file=sys.stderr)
        if args.estimate_only:
            if args.format == "json":
                print(json.dumps({"estimate": est}, indent=2, ensure_ascii=False))
            return 0
        if args.max_cost is not None and est["usd"] is not None and est["usd"] > args.max_cost:
            print(
                f"workbench: eval: the estimate ${est['usd']:.4f} is above --max-cost {args.max_cost:g}; "
                "nothing submitted",
                file=sys.stderr,
            )
            return 1
        store = BatchStore(history or HistoryStore(env.workspace))
        rec = be.submit(
            store,
            workspace=env.workspace,
            roots=env.extra_roots,
            estimate=est,
            extra={"collection": bool(args.all_skills), "queries_dir": args.queries_dir},
        )
    except BatchError as exc:
        print(f"workbench: eval: {exc}", file=sys.stderr)
        return 2 if exc.error is not None and exc.error.kind in ("auth", "no-key") else 1
    print(
        f"batch eval {rec['id']} submitted ({', '.join(rec['batch_ids'])}); after a restart: "
        f"workbench eval --resume {rec['id']}; to stop it: workbench eval --cancel {rec['id']}",
        file=sys.stderr,
    )
    if args.no_wait:
        if args.format == "json":
            print(
                json.dumps(
                    {"batch_eval": rec["id"], "batch_ids": rec["batch_ids"], "estimate": est},
                    indent=2,
                    ensure_ascii=False,
                )
            )
        return 0
    return _wait_collect(args, be, history, notes)


def _calibration(history, runners):
    """The newest saved direct report of each skill with this model (for the output estimate)."""
    if history is None:
        return None
    out = []
    for r in runners:
        for e in history.list(r.target.name)[:5]:
            if e.model == r.settings.model and e.kind == "eval":
                try:
                    out.append(history.load(r.target.name, e.id)["report"])
                except (OSError, ValueError, KeyError):
                    continue
                break
    return out


def _wait_collect(args, be, history, notes) -> int:
    from workbench.core.evals.batch import BatchError

    try:
        if not be.wait(None, _progress, poll_seconds=args.poll):
            return 1
        reports = be.collect(follow_up=not args.no_follow_up)
    except KeyboardInterrupt:
        print(
            f"\nstopped waiting; the batch goes on: workbench eval --resume {be.record['id']}",
            file=sys.stderr,
        )
        return 1
    except BatchError as exc:
        print(f"workbench: eval: {exc}", file=sys.stderr)
        return 1
    return _finish(args, reports, be.runners, history, notes, be)


def _finish(args, reports, runners, history, notes, be) -> int:
    """Save the reports, print them (one report: the usual output; several: the matrix)."""
    ids = []
    for rep, r in zip(reports, runners):
        hid = None
        if history is not None:
            try:
                hid = history.save(
                    rep,
                    queries=r.queries,
                    extra={"batch_eval": be.record["id"]} if be and be.record else None,
                ).id
            except OSError as exc:
                print(f"warning: could not save the eval history: {exc}", file=sys.stderr)
        ids.append(hid)
    if be is not None:
        be.finish([i for i in ids if i])
    if not (args.all_skills or (be is not None and (be.record or {}).get("collection"))):
        rep = reports[0]
        if args.format == "json":
            out = rep.to_json(details=args.details)
            out["history_id"] = ids[0]
            print(json.dumps(out, indent=2, ensure_ascii=False))
        else:
            _print_text(rep, None, ids[0])
        return 0 if rep.all_passed and not rep.cancelled else 1
    from workbench.core.evals.collection import ConfusionMatrix

    m = ConfusionMatrix.from_reports(reports)
    if getattr(args, "matrix_html", None):
        from workbench.core.safefile import atomic_write

        try:
            atomic_write(args.matrix_html, m.to_html().encode("utf-8"))
        except OSError as exc:
            print(f"warning: {args.matrix_html}: {exc}", file=sys.stderr)
    if args.format == "json":
        print(
            json.dumps(
                {
                    "skills": {r.skill: r.to_json(details=args.details) for r in reports},
                    "matrix": m.to_json(),
                    "history_ids": ids,
                    "notes": notes,
                    "batch_eval": be.record["id"] if be and be.record else None,
                },
                indent=2,
                ensure_ascii=False,
            )
        )
    else:
        for rep in reports:
            s = rep.summary
            print(
                f"{rep.skill}: passed {s.passed}/{s.total}, failed {s.failed}, errored {s.errored}; "
                f"precision {_pct(s.to_json()['precision'])}, recall {_pct(s.to_json()['recall'])}"
            )
        print()
        print(m.to_text())
        from workbench.core.evals.metrics import estimate_cost

        usage = {k: sum(r.usage[k] for r in reports) for k in reports[0].usage}
        c = estimate_cost(usage, reports[0].model, batch=reports[0].mode == "batch")
        if c["usd"] is not None:
            print(f"\ncost ≈ ${c['usd']:.4f} (est.)")
        for rep in reports:
            for w in rep.to_json()["warnings"]:
                print(f"warning: {rep.skill}: {w}", file=sys.stderr)
    return 0 if all(r.all_passed and not r.cancelled for r in reports) else 1


def _run_record(args) -> int:
    """--resume ID / --cancel ID."""
    import dataclasses

    from workbench.core.discovery import scan, use_workspace_as_root
    from workbench.core.evals.batch import BatchError, BatchEval, BatchStore, cancel_record
    from workbench.core.evals.history import HistoryStore
    from workbench.core.evals.runner import EvalSetupError

    env = environment_from_args(args)
    history = HistoryStore(env.workspace)
    store = BatchStore(history)
    try:
        rec = store.find(args.resume or args.cancel)
    except BatchError as exc:
        raise UsageError(f"eval: {exc}") from None
    settings = _settings(args, rec.get("client") or "claude-code")
    if not args.base_url and rec["settings"].get("base_url"):
        settings.base_url = rec["settings"]["base_url"]
    key = _key_or_fail()
    sdk = _sdk(settings, key, True)
    if args.cancel:
        try:
            ids = cancel_record(rec, sdk, store)
        except BatchError as exc:
            print(f"workbench: eval: {exc}", file=sys.stderr)
            return 1
        print(
            f"cancelled {', '.join(ids)}; what had finished can still be read with "
            f"workbench eval --resume {rec['id']}",
            file=sys.stderr,
        )
        return 0
    if rec.get("workspace"):
        from pathlib import Path

        env = dataclasses.replace(
            env,
            workspace=Path(rec["workspace"]),
            extra_roots=[Path(r) for r in rec.get("roots") or []] or env.extra_roots,
            context_tokens=rec.get("context_tokens") or env.context_tokens,
        )
    use_workspace_as_root(env)
    catalog = scan(env, rec.get("client") or settings.client)
    try:
        be = BatchEval.from_record(rec, catalog, sdk, settings=settings)
    except (BatchError, EvalSetupError) as exc:
        raise UsageError(f"eval: cannot resume {rec['id']}: {exc}") from None
    be.store = store
    args.all_skills = bool(rec.get("collection"))
    return _wait_collect(args, be, None if args.no_history else history, [])
