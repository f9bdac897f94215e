"""``workbench eval`` beyond one skill: batch evals (``--batch``, ``--resume``, ``--cancel``) and
collection evals (``--all-skills``), plus what they share with a single eval (``settings_for``,
``print_text``, ``error_reasons``). ``workbench/commands/eval.py`` holds the parser and ``run``."""

from __future__ import annotations

import contextlib
import json
import sys
import threading

from workbench.core.text import plural
from workbench.options import UsageError, client_ids, environment_from_args, open_workspace


def settings_for(args, client: str):
    """The ``ChatSettings`` of an eval from the command line (model, base URL, turn and token limits)."""
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


def print_text(report, improvement, history_id) -> None:
    """Print ``report`` (and ``improvement``, the history id) as ``--format text``."""
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


def _key_or_fail() -> str:
    from workbench.core.chat.errors import NO_KEY_HINT
    from workbench.core.chat.settings import get_api_key

    key, _src = get_api_key()
    if not key:
        raise UsageError(f"eval: no API key. {NO_KEY_HINT}")
    return key


def _sdk(settings, key: str, batch: bool):
    """A new SDK client; the caller closes it (``with contextlib.closing(...)``)."""
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


def setup_eval(args, client: str):
    """(env, settings, catalog, options) from the command line (the workspace as a root when it
    holds skills no client root covers)."""
    from pathlib import Path

    from workbench.core.discovery import scan
    from workbench.core.evals.runner import EvalOptions

    env = environment_from_args(args)
    open_workspace(env, args)
    settings = settings_for(args, client)
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


def run_many(args) -> int:
    """--batch and/or --all-skills."""
    env, settings, catalog, opts = setup_eval(args, client_ids(args, allow_all=False)[0])
    key = _key_or_fail()
    with contextlib.closing(_sdk(settings, key, args.batch)) as sdk:
        return _run_many(args, env, settings, catalog, opts, sdk)


def _run_many(args, env, settings, catalog, opts, sdk) -> int:
    from workbench.core.evals.batch import BatchError, BatchEval, BatchStore
    from workbench.core.evals.history import HistoryStore
    from workbench.core.evals.runner import EvalSetupError

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
            print_text(rep, None, ids[0])
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


def run_record(args) -> int:
    """--resume ID / --cancel ID."""
    from workbench.core.evals.batch import BatchError, BatchStore
    from workbench.core.evals.history import HistoryStore

    env = environment_from_args(args)
    history = HistoryStore(env.workspace)
    store = BatchStore(history)
    try:
        rec = store.find(args.resume or args.cancel)
    except BatchError as exc:
        raise UsageError(f"eval: {exc}") from None
    settings = settings_for(args, rec.get("client") or "claude-code")
    if not args.base_url and rec["settings"].get("base_url"):
        settings.base_url = rec["settings"]["base_url"]
    key = _key_or_fail()
    with contextlib.closing(_sdk(settings, key, True)) as sdk:
        return _run_record(args, env, history, store, rec, settings, sdk)


def _run_record(args, env, history, store, rec, settings, sdk) -> int:
    import dataclasses

    from workbench.core.discovery import scan, use_workspace_as_root
    from workbench.core.evals.batch import BatchError, BatchEval, cancel_record
    from workbench.core.evals.runner import EvalSetupError

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
