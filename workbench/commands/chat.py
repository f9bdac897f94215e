"""``workbench chat "MESSAGE" [WORKSPACE]`` — run the skill-disclosure loop once (DESIGN.md section 3).

The client (``--client``) decides where the listing goes and which tool loads a skill; the reply is
streamed from the Messages API (``--base-url`` or ``ANTHROPIC_BASE_URL``; key from
``ANTHROPIC_API_KEY``, else the system keyring). ``--format json`` prints
``{"client","model","triggered","events","usage","stop_reason","text","error"}``.

Exit codes: 0 the loop ran; 1 the server or network failed (message on stderr; with JSON the
object is still printed, with an ``error`` event); 2 usage error, including "no API key" (the
message says exactly what to set).

Decision (spec silent): the command does not read the GUI's saved chat settings; defaults and the
flags only, so a command line is reproducible.

``--allow-propose`` (opt-in) adds the ``propose_skill`` tool (``workbench/core/chat/propose.py``):
the model may draft skills as *pending* proposals in the workspace's Workshop store; each one is a
``proposal`` event {id, state, kind, name, target, ...} in ``events``. Nothing is applied.
"""

from __future__ import annotations

import json
import sys

from workbench.commands.via import add_via_arguments, run_chat_via
from workbench.core.chat.trace import event_line as _text_line
from workbench.options import (
    UsageError,
    add_workspace_mode_option,
    client_ids,
    environment_from_args,
    open_workspace,
)


def add_parser(subparsers, common) -> None:
    p = subparsers.add_parser(
        "chat",
        parents=[common],
        help="run the skill-disclosure chat loop once",
        description="Send MESSAGE to a model through the chosen client's listing and load tool, "
        "run tool calls until the model stops, and print the trace.",
    )
    p.add_argument("message", help="the user message")
    p.add_argument("workspace", nargs="?", default=".", help="project folder (default: .)")
    add_workspace_mode_option(p)
    p.add_argument("--model", help="model id (default: claude-sonnet-5-5)", default=None)
    p.add_argument(
        "--base-url",
        help="server root without /v1 (default: ANTHROPIC_BASE_URL, else https://api.anthropic.com)",
    )
    p.add_argument("--max-turns", type=int, default=None, help="model requests allowed (default 8)")
    p.add_argument("--max-tokens", type=int, default=None, help="output tokens per request (default 4096)")
    p.add_argument("--temperature", type=float, default=None, help="0.0-1.0 (default: the server's)")
    p.add_argument("--no-cache", action="store_true", help="do not mark the prefix with cache_control")
    p.add_argument(
        "--allow-propose",
        action="store_true",
        help="offer the propose_skill tool: the model may draft skills as pending Workshop "
        "proposals (never applied; review with 'workbench workshop')",
    )
    add_via_arguments(p)


def check_base_url(url: str, option: str = "--base-url") -> str:
    """``url`` if it is an http(s) URL, else UsageError (QA: ``--base-url localhost:11434`` used to
    run the whole loop and fail with "Cannot reach ...: missing an 'http://' ... protocol..", exit 1)."""
    from urllib.parse import urlsplit

    from workbench.core.chat.errors import base_url_problem

    parts = urlsplit(url.strip())
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise UsageError(
            f"{option} {url!r}: expected an http:// or https:// URL, "
            "e.g. http://localhost:11434 or https://api.anthropic.com"
        )
    v1 = base_url_problem(url)
    if v1:
        raise UsageError(f"{option}: {v1}")
    return url.strip()


def warn_empty_listing(catalog, command: str) -> None:
    """On stderr, when the client lists no skill here (issue 13 item 8: chat sent a listing of 0
    skills without a word): what was found instead, or the hint that another client finds some."""
    if catalog.listed():
        return
    from workbench.core.clients import DISPLAY_NAMES

    name = DISPLAY_NAMES.get(catalog.client, catalog.client)
    counts = ", ".join(f"{n} {st}" for st, n in catalog.counts().items() if n)
    found = f"found: {counts}" if counts else "no SKILL.md found"
    print(
        f"workbench: {command}: warning: {name} lists no skill in {catalog.env.workspace} ({found}); "
        "the model gets an empty listing. See `workbench scan`.",
        file=sys.stderr,
    )


def _settings(args, client: str):
    from workbench.core.chat.settings import ChatSettings

    s = ChatSettings(client=client)
    if args.model:
        s.model = args.model
    if args.base_url:
        s.base_url = check_base_url(args.base_url)
    if args.max_turns is not None:
        if args.max_turns < 1:
            raise UsageError("--max-turns must be at least 1")
        s.max_turns = args.max_turns
    if args.max_tokens is not None:
        if args.max_tokens < 1:
            raise UsageError("--max-tokens must be at least 1")
        s.max_tokens = args.max_tokens
    if args.temperature is not None:
        if not 0.0 <= args.temperature <= 1.0:
            raise UsageError("--temperature must be between 0.0 and 1.0")
        s.temperature = args.temperature
    s.cache = not args.no_cache
    return s


def run(args) -> int:
    from workbench.core.chat.engine import ChatSession
    from workbench.core.chat.errors import NO_KEY_HINT
    from workbench.core.chat.settings import get_api_key
    from workbench.core.discovery import scan

    if args.client is None:  # defensive: the common default is claude-code
        args.client = "claude-code"
    client = client_ids(args, allow_all=False)[0]
    if args.format not in ("text", "json"):
        raise UsageError(f"--format {args.format!r}: expected text or json")
    if not args.message.strip():
        raise UsageError(
            "chat: MESSAGE is empty: give the user message to send, e.g. "
            "workbench chat \"review my last commit\""
        )
    settings = _settings(args, client)
    if args.via_client:
        return run_chat_via(args)
    env = environment_from_args(args)
    key, _source = get_api_key()
    if not key:
        print(f"workbench: chat: no API key. {NO_KEY_HINT}", file=sys.stderr)
        return 2
    open_workspace(env, args)
    catalog = scan(env, client)
    warn_empty_listing(catalog, "chat")
    extra = []
    if getattr(args, "allow_propose", False):
        from workbench.core.chat.propose import make_propose_tool
        from workbench.core.workshop import WorkshopStore

        def open_store():  # opened on first use; notices (repairs) go to stderr like `workbench workshop`
            store = WorkshopStore(env.workspace)
            for n in store.notices:
                print(f"workbench: chat: workshop: {n}", file=sys.stderr)
            return store

        extra.append(make_propose_tool(open_store, catalog))
    with ChatSession(
        catalog, settings=settings, api_key=key, context_tokens=env.context_tokens, extra_tools=extra
    ) as session:
        result = session.send(args.message)
    if args.format == "json":
        print(json.dumps(result.to_json(), indent=2, ensure_ascii=False))
    else:
        for ev in result.events:
            line = _text_line(ev)
            if line:
                print(line)
        print(f"triggered: {', '.join(result.triggered) or '(none)'}")
        print(f"stop_reason: {result.stop_reason}")
    if result.error is not None:
        e = result.error
        rid = f" [request {e.request_id}]" if e.request_id else ""
        print(
            f"workbench: chat: {e.message}{rid}" + (f"\n  hint: {e.hint}" if e.hint else ""), file=sys.stderr
        )
        return 2 if e.kind == "no-key" else 1
    return 0
