"""``workbench listing [WORKSPACE]``: the exact model-visible skill listing of a client.

Text format prints exactly ``ListingReport.text`` (nothing else on stdout; warnings go to
stderr). ``--format json`` prints ``ListingReport.to_json()`` (DESIGN.md section 3); with
``--client all`` a JSON list (text: each listing under a ``==> client <==`` line).
Exit 0 (also when skills are cut: that is information, not a failure), 2 on usage errors.

Listing options: ``--listing-option KEY=VALUE`` (repeatable; ints and true/false are converted),
e.g. ``skill_tool=false`` (VS Code), ``max_skills_prompt_chars=30000`` (OpenClaw).
"""

from __future__ import annotations

import json
import sys
from typing import Any

from workbench.core.jsontext import dumps_indented
from workbench.options import (
    UsageError,
    add_workspace_mode_option,
    client_ids,
    environment_from_args,
    help_text,
    open_workspace,
)


def add_parser(subparsers, common) -> None:
    p = subparsers.add_parser(
        "listing",
        parents=[common],
        help="print the exact skill listing a client sends to the model",
        description=help_text(__doc__),
    )
    p.set_defaults(client="claude-code")
    p.add_argument("workspace", nargs="?", default=".", help="project folder (default: .)")
    add_workspace_mode_option(p)
    p.add_argument(
        "--listing-option",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="client listing option, e.g. skill_tool=false (VS Code)",
    )
    p.add_argument("--table", action="store_true", help="(text) print a per-skill state table to stderr")
    p.add_argument(
        "--client-texts",
        metavar="FILE",
        help="JSON of the client's own texts captured from the installed client "
        '({"builtins": [...], "prose": {...}}, or one such object per client id): '
        "fills the built-in and prose placeholders",
    )


def load_client_texts(path: str | None) -> dict[str, Any]:
    """``--client-texts FILE`` -> {client id or "*": texts}. Raises UsageError (with line:column)."""
    if not path:
        return {}
    try:
        data = json.loads(open(path, encoding="utf-8").read())
    except OSError as exc:
        raise UsageError(f"--client-texts {path}: {exc.strerror or exc}") from exc
    except ValueError as exc:
        where = f"{exc.lineno}:{exc.colno}: " if isinstance(exc, json.JSONDecodeError) else ""
        raise UsageError(f"--client-texts {path}:{where}not JSON ({exc})") from exc
    if not isinstance(data, dict):
        raise UsageError(f"--client-texts {path}: expected a JSON object")
    if "builtins" in data or "prose" in data:
        return {"*": data}
    return {k: v for k, v in data.items() if isinstance(v, dict)}


def parse_options(items: list[str]) -> dict[str, Any]:
    """``KEY=VALUE`` strings -> dict; "true"/"false" -> bool, digits -> int. Raises UsageError."""
    out: dict[str, Any] = {}
    for kv in items:
        if "=" not in kv:
            raise UsageError(f"--listing-option {kv!r}: expected KEY=VALUE")
        k, v = kv.split("=", 1)
        low = v.strip().lower()
        if low in ("true", "yes", "on"):
            out[k] = True
        elif low in ("false", "no", "off"):
            out[k] = False
        else:
            try:
                out[k] = int(v)
            except ValueError:
                out[k] = v
    return out


def _scan(env, cid):
    from workbench.core.discovery import scan

    return scan(env, cid)


def _empty_notes(env, cats: dict, texts: dict | None = None) -> None:
    """On stderr: a client that lists nothing says so (an empty stdout alone looks like a bug),
    with ``workbench.core.hints.empty_hint`` when another client finds skills here."""
    quiet = [c for c in cats.values() if not c.listed()]
    if not quiet:
        return
    from workbench.core.clients import CLIENT_IDS, DISPLAY_NAMES
    from workbench.core.hints import empty_hint

    every = dict(cats)
    if any(not c.skills for c in quiet):
        for cid in CLIENT_IDS:
            if cid not in every:
                every[cid] = _scan(env, cid)
    for c in quiet:
        name = DISPLAY_NAMES.get(c.client, c.client)
        sends = (
            f"{name} lists only its own built-in skills"
            if (texts or {}).get(c.client)
            else f"{name} sends no listing"
        )
        if c.skills:
            counts = ", ".join(f"{n} {st}" for st, n in c.counts().items() if n)
            print(
                f"workbench: {c.client}: no skill is listed, so {sends} "
                f"({counts}; see 'workbench scan --client {c.client}')",
                file=sys.stderr,
            )
        else:
            print(
                f"workbench: {c.client}: "
                + (empty_hint(c, every) or f"{name} finds no SKILL.md here, so {sends}"),
                file=sys.stderr,
            )


def run(args) -> int:
    from workbench.core.listing import render_listing, render_listing_text_table

    env = environment_from_args(args)
    ids = client_ids(args)
    fmt = args.format
    if fmt not in ("text", "json"):
        raise UsageError(f"--format {fmt!r}: expected text or json")
    options = parse_options(args.listing_option)
    texts = load_client_texts(getattr(args, "client_texts", None))
    open_workspace(env, args)
    reports = []
    cats = {}
    for cid in ids:
        cat = cats[cid] = _scan(env, cid)
        mine = texts.get(cid) or texts.get("*")
        reports.append(
            render_listing(cat, env.context_tokens, {**options, "client_texts": mine} if mine else options)
        )
    _empty_notes(env, cats, {r.client: r.text for r in reports})
    if fmt == "json":
        data = reports[0].to_json() if len(reports) == 1 else [r.to_json() for r in reports]
        sys.stdout.write(dumps_indented(data) + "\n")  # = json.dump(indent=2), faster
    else:
        for r in reports:
            if len(reports) > 1:
                sys.stdout.write(f"==> {r.client} <==\n")
            sys.stdout.write(r.text)
            if r.text and not r.text.endswith("\n"):
                sys.stdout.write("\n")
            for w in r.warnings:
                print(f"workbench: {r.client}: {w}", file=sys.stderr)
            if args.table:
                print(render_listing_text_table(r), file=sys.stderr)
    return 0
