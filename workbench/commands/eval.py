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

Decisions (spec silent): the model defaults to ``claude-haiku-5-5`` (chat-loop.md §1.8: a haiku
model for evals); the saved GUI chat settings are not read (reproducible command lines); each run
of the command is saved to the eval history (``core.evals.history``) unless ``--no-history``.
"""

from __future__ import annotations

from workbench.core.text import plural

import json
import sys
import threading

from workbench.cli import (
    UsageError, add_workspace_mode_option, client_ids, environment_from_args, open_workspace,
)


def add_parser(subparsers, common) -> None:
    p = subparsers.add_parser(
        "eval", parents=[common], help="measure how often a skill triggers for a query set",
        description="Run each query several times through the client's listing and load tool and "
                    "report trigger rates, pass/fail, precision/recall and cost.")
    p.add_argument("workspace", nargs="?", default=".", help="project folder (default: .)")
    add_workspace_mode_option(p)
    p.add_argument("--skill", required=True, help="name of the skill under test (as the client lists it)")
    p.add_argument("--queries", required=True, help="query set: JSON list of {query, should_trigger}, "
                   "or YAML with should_trigger / should_not_trigger lists")
    p.add_argument("--runs", type=int, default=3, help="runs per query (default 3)")
    p.add_argument("--concurrency", type=int, default=8, help="parallel runs (default 8)")
    p.add_argument("--threshold", type=float, default=0.5, help="pass threshold on the trigger rate (default 0.5)")
    p.add_argument("--no-competitors", action="store_true",
                   help="list only the skill under test (default: the other listed skills compete)")
    p.add_argument("--max-turns", type=int, default=None, help="model requests per run (default 8)")
    p.add_argument("--max-tokens", type=int, default=None, help="output tokens per request (default 4096)")
    p.add_argument("--model", default=None, help="model id (default claude-haiku-5-5)")
    p.add_argument("--base-url", default=None, help="server root without /v1 (default: ANTHROPIC_BASE_URL, "
                   "else https://api.anthropic.com)")
    p.add_argument("--improve", action="store_true", help="run the description-improvement loop")
    p.add_argument("--holdout", type=float, default=0.4, help="with --improve: share held out (default 0.4)")
    p.add_argument("--iterations", type=int, default=5, help="with --improve: new candidates at most (default 5)")
    p.add_argument("--no-history", action="store_true", help="do not save this run to the eval history")
    p.add_argument("--details", action="store_true", help="JSON: include every run's details")


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
    return [f"errors: {plural(n, 'run')}: {msg}" + (f" (hint: {hint})" if hint else "")
            for (msg, hint), n in seen.items()]


def _print_text(report, improvement, history_id) -> None:
    print(f"skill {report.skill} ({report.client}, {report.model}); {plural(report.runs_per_query, 'run')} per query, "
          f"threshold {report.threshold:g}; competitors: {', '.join(report.competitors) or '(none)'}")
    for r in report.results:
        d = r.to_json()
        rate = "  n/a" if d["trigger_rate"] is None else f"{d['trigger_rate'] * 100:4.0f}%"
        iv = "" if d["interval"] is None else f" [{d['interval'][0] * 100:.0f}-{d['interval'][1] * 100:.0f}%]"
        kinds = ", ".join(f"{k}" if n == d["errors"] else f"{k} {n}" for k, n in d["error_kinds"].items())
        err = f" errors {d['errors']} ({kinds})" if d["errors"] and kinds else (
            f" errors {d['errors']}" if d["errors"] else "")
        also = f" also loaded: {', '.join(f'{k}×{v}' for k, v in d['also_loaded'].items())}" if d["also_loaded"] else ""
        mark = {"passed": "PASS", "failed": "FAIL", "errored": "ERR ", "not-run": "----"}[d["status"]]
        print(f"{mark} {'+' if r.should_trigger else '-'} {d['triggers']}/{d['runs']} {rate}{iv}{err}  "
              f"{r.query[:90]}{also}")
    s = report.summary
    j = s.to_json()
    print(f"passed {s.passed}/{s.total}, failed {s.failed}, errored {s.errored}; over runs: precision "
          f"{_pct(j['precision'])}, recall {_pct(j['recall'])}, F1 {_pct(j['f1'])}, accuracy "
          f"{_pct(j['accuracy'])}; over queries: precision {_pct(j['by_query']['precision'])}, recall "
          f"{_pct(j['by_query']['recall'])}")
    u = report.usage
    c = report.cost()
    cost = f"≈ ${c['usd']:.4f} (est.: {c['assumption']})" if c["usd"] is not None else c["assumption"]
    print(f"tokens: in {u['input_tokens']:,}, out {u['output_tokens']:,}, cache read "
          f"{u['cache_read_input_tokens']:,}, cache write {u['cache_creation_input_tokens']:,}; {cost}")
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
        print(f"\nimprovement loop: {imp['exit_reason']}; split train {len(imp['split']['train'])} / "
              f"test {len(imp['split']['test'])} (seed {imp['split']['seed']})")
        for a in imp["history"]:
            if a.get("rejected"):
                print(f"  #{a['iteration']} rejected: {a['rejected']}")
                continue
            t = a.get("test") or {}
            print(f"  #{a['iteration']} train {a['train']['passed']}/{a['train']['total']}, test "
                  f"{t.get('passed', 0)}/{t.get('total', 0)}: {a['description'][:100]}")
        if imp["improved"]:
            print(f"best: #{imp['best_iteration']}: {imp['best_description']}")
        else:
            print("best: the current description (no candidate did better on the held-out queries)")
        if imp["proposal_id"]:
            print(f"proposal {imp['proposal_id']} is pending in the workshop "
                  f"(workbench workshop show {imp['proposal_id']})")
        if imp["proposal_error"]:
            print(f"warning: no proposal: {imp['proposal_error']}", file=sys.stderr)
        for w in imp["warnings"]:
            print(f"warning: {w}", file=sys.stderr)


def run(args) -> int:
    from workbench.core.chat.errors import NO_KEY_HINT
    from workbench.core.chat.settings import get_api_key
    from workbench.core.discovery import scan
    from workbench.core.evals.history import HistoryStore
    from workbench.core.evals.queryset import QuerySetError, load_queries
    from workbench.core.evals.runner import EvalOptions, EvalRunner, EvalSetupError

    client = client_ids(args, allow_all=False)[0]
    _check(args)
    try:
        qs = load_queries(args.queries)
    except QuerySetError as exc:
        raise UsageError(f"eval: {exc}") from None
    for w in qs.warnings:
        print(f"warning: {w}", file=sys.stderr)
    env = environment_from_args(args)
    open_workspace(env, args)
    settings = _settings(args, client)
    catalog = scan(env, client)
    opts = EvalOptions(runs=args.runs, concurrency=args.concurrency, threshold=args.threshold,
                       competitors=not args.no_competitors, context_tokens=env.context_tokens)
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
            improvement = improve_description(catalog, args.skill, qs.queries, settings=settings,
                                              api_key=key, options=opts, iterations=args.iterations,
                                              holdout=args.holdout, history=history, cancel=cancel)
            report = improvement.baseline
        else:
            report = EvalRunner(catalog, args.skill, qs.queries, settings=settings, api_key=key,
                                options=opts).run(cancel)
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
        print(f"workbench: eval: {fatal.get('message')}" + (f"\n  hint: {fatal['hint']}" if fatal.get("hint") else ""),
              file=sys.stderr)
        if fatal.get("kind") == "no-key":
            return 2
    return 0 if report.all_passed and not report.cancelled else 1
