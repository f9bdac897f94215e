"""``--via-client NAME`` for ``workbench chat`` and ``workbench eval``: trigger tests through the
user's installed client (``workbench/core/capture/via.py``). Not a subcommand: the helpers both
commands share.

The client runs once per message with its model requests forwarded to ``--base-url`` (or
``ANTHROPIC_BASE_URL``, else the Anthropic API) with your key; only skill loads come back to it,
every other tool call is stopped at the proxy and reported. ``--client-bin PATH`` picks the
executable (default: on PATH). ``--model`` replaces the model id the client asks for (a local
server's model).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from workbench.core.text import plural
from workbench.options import UsageError


def add_via_arguments(p) -> None:
    from workbench.core.capture.proxy import FORWARDABLE

    p.add_argument(
        "--via-client",
        choices=FORWARDABLE,
        metavar="NAME",
        help=f"send through your installed client instead ({', '.join(FORWARDABLE)}); only "
        "skill loads reach it, other tool calls are stopped and reported",
    )
    p.add_argument(
        "--client-bin",
        type=Path,
        metavar="PATH",
        help="with --via-client: the client's executable (default: on PATH)",
    )
    p.add_argument(
        "--client-timeout",
        type=float,
        default=180.0,
        metavar="S",
        help="with --via-client: seconds per run (default 180)",
    )


def _setup(args):
    from workbench.core.chat.errors import NO_KEY_HINT
    from workbench.core.chat.settings import ChatSettings, get_api_key
    from workbench.core.discovery import scan
    from workbench.options import environment_from_args

    env = environment_from_args(args)
    key, _ = get_api_key()
    if not key:
        raise UsageError(f"no API key. {NO_KEY_HINT}")
    base = getattr(args, "base_url", None) or ChatSettings(client=args.via_client).effective_base_url()
    catalog = scan(env, args.via_client)
    dirs = [Path(s.path).parent for s in catalog.skills if s.status != "skipped"]
    return env, key, base, dirs


def run_chat_via(args) -> int:
    """``workbench chat --via-client NAME MESSAGE``."""
    from workbench.core.capture.via import ViaClientError, chat_via_client

    env, key, base, dirs = _setup(args)
    print(f"sending through {args.via_client} (forwarding to {base})…", file=sys.stderr)
    try:
        res = chat_via_client(
            env,
            args.via_client,
            args.message,
            base_url=base,
            api_key=key,
            skill_dirs=dirs,
            model=args.model,
            exe=args.client_bin,
            timeout=args.client_timeout,
        )
    except ViaClientError as exc:
        raise UsageError(str(exc)) from None
    if args.format == "json":
        print(json.dumps(res.to_json(), indent=2, ensure_ascii=False))
    else:
        print(f"client: {res.client} {res.version or '?'}; {plural(res.requests, 'model request')}")
        for b in res.blocked:
            print(
                f"blocked: {b['name']} {json.dumps(b['input'], ensure_ascii=False)[:200]} "
                "(never delivered to the client)"
            )
        print(f"triggered: {', '.join(res.loaded) or '(none)'}")
        if res.text:
            print(f"client said: {res.text[:2000]}")
    if res.error:
        print(f"workbench: chat: {res.error}", file=sys.stderr)
        return 1
    return 0


def run_eval_via(args, queries: list[tuple[str, bool]]) -> int:
    """``workbench eval --via-client NAME ...``: same result format as the direct eval."""
    from workbench.core.capture.via import ViaClientError, eval_via_client

    env, key, base, dirs = _setup(args)

    def progress(done: int, total: int) -> None:
        print(f"\r{done}/{total} runs", end="" if done < total else "\n", file=sys.stderr, flush=True)

    try:
        rep = eval_via_client(
            env,
            args.via_client,
            args.skill,
            queries,
            args.runs,
            base_url=base,
            api_key=key,
            skill_dirs=dirs,
            model=args.model,
            exe=args.client_bin,
            timeout=args.client_timeout,
            concurrency=min(args.concurrency, 4),
            threshold=args.threshold,
            progress=progress,
        )
    except ViaClientError as exc:
        raise UsageError(str(exc)) from None
    if args.format == "json":
        print(json.dumps(rep, indent=2, ensure_ascii=False))
    else:
        for r in rep["results"]:
            rate = "ERR" if r["trigger_rate"] is None else f"{r['trigger_rate']:.0%}"
            mark = {True: "pass", False: "FAIL", None: "err "}[r["pass"]]
            print(
                f"{mark} {rate:>4} {'+' if r['should_trigger'] else '-'} {r['query'][:90]}"
                + (
                    f"  ({plural(r['blocked_tool_calls'], 'tool call')} blocked)"
                    if r["blocked_tool_calls"]
                    else ""
                )
            )
        s = rep["summary"]
        print(f"{s['passed']}/{s['total']} passed via {args.via_client} {rep['client_version']}")
    return 0 if all(r["pass"] is not False for r in rep["results"]) else 1
