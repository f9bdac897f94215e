"""Text renderings of chat trace events shared by the CLI and the window.

``mark_substitutions(text, spans)`` shows where a client rewrote a skill body (Claude Code argument
substitution, ``substitution`` events): each replaced span becomes ``⟦$1→value⟧`` and the appended
``ARGUMENTS:`` line ``⟦+ARGUMENTS: …⟧``. ``fork_lines(ev)`` turns a ``fork`` event (a forked skill's
sub-transcript) into indented lines.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from workbench.core.text import plural

OPEN, CLOSE = "⟦", "⟧"


def mark_substitutions(text: str, spans: list[dict[str, Any]]) -> str:
    """``text`` with every span (``{"start","end","placeholder","value","kind"}``, offsets into
    ``text``) wrapped in ``⟦placeholder→value⟧``.

    >>> mark_substitutions("Use a.csv now", [{"start": 4, "end": 9, "placeholder": "$0",
    ...                                        "value": "a.csv", "kind": "argument"}])
    'Use ⟦$0→a.csv⟧ now'
    """
    out, last = [], 0
    for sp in sorted(spans, key=lambda s: s["start"]):
        out.append(text[last : sp["start"]])
        value = text[sp["start"] : sp["end"]]
        if sp.get("kind") == "appended":
            out.append(f"{OPEN}+{value}{CLOSE}")
        else:
            out.append(f"{OPEN}{sp['placeholder']}→{value}{CLOSE}")
        last = sp["end"]
    out.append(text[last:])
    return "".join(out)


def substitution_summary(ev: dict[str, Any]) -> str:
    """One line: how many placeholders were replaced, which, and where the rule was checked."""
    spans = ev.get("spans") or []
    shown = ", ".join(f"{s['placeholder'] or 'ARGUMENTS:'}→{s['value'][:24]!r}" for s in spans[:6])
    more = f" (+{len(spans) - 6} more)" if len(spans) > 6 else ""
    return (
        f"substitution in {ev.get('skill')}: {plural(len(spans), 'span')}: {shown}{more} "
        f"[{ev.get('checked_on', '')}]"
    )


def fork_lines(
    ev: dict[str, Any], line_for: Callable[[dict[str, Any]], str | None], indent: str = "  "
) -> list[str]:
    """The sub-transcript of a ``fork`` event: a header, then each sub-event via ``line_for``."""
    head = (
        f"fork {ev.get('skill')} (agent {ev.get('agent') or 'default'}): a subagent ran the skill "
        "without this conversation"
    )
    lines = [head]
    for sub in ev.get("events") or []:
        line = line_for(sub)
        if line:
            lines += [indent + part for part in line.splitlines()]
    if ev.get("error"):
        lines.append(f"{indent}error: {ev['error']}")
    lines.append(f"{indent}result returned to the conversation: {len(ev.get('text') or '')} chars")
    return lines


def event_line(ev: dict[str, Any]) -> str | None:
    """One text line (or a few) for a chat trace event, as ``workbench chat`` prints it; None for
    events that have no line (deltas)."""
    t = ev["type"]
    if t == "listing":
        return (
            f"listing: {plural(len(ev['skills']), 'skill')}, {ev['chars']} chars (≈{ev['tokens_est']} tokens, "
            f"est.) in {ev['placement_note']}"
        )
    if t == "tool_use":
        cut = " [truncated: not run]" if ev.get("truncated") else ""
        return f"tool_use {ev['name']} {json.dumps(ev['input'], ensure_ascii=False)} -> {ev.get('resolved')}{cut}"
    if t == "skill_loaded":
        inj = f", {len(ev['injections'])} !`cmd` not run" if ev.get("injections") else ""
        return f"skill_loaded {ev['name']} via {ev['via']} ({ev['body_chars']} chars, ≈{ev['tokens_est']} tokens{inj})"
    if t == "tool_result":
        return f"tool_result {ev['name']}: {ev['chars']} chars" + (" (error)" if ev["is_error"] else "")
    if t == "text":
        return f"assistant: {ev['text']}"
    if t == "usage":
        return (
            f"usage: in {ev['input_tokens']}, out {ev['output_tokens']}, cache read "
            f"{ev['cache_read_input_tokens']}, cache write {ev['cache_creation_input_tokens']}; "
            f"stop {ev['stop_reason']}; {ev['seconds']}s"
            + (f"; request {ev['request_id']}" if ev.get("request_id") else "")
            + f"\n  {ev['cache_note']}"
        )
    if t == "proposal":
        return (
            f"proposal {ev['id']} ({ev['state']}): {ev['kind']} {ev['name']} -> {ev['target']}"
            + (f" [{plural(ev['blocking'], 'blocking finding')}]" if ev.get("blocking") else "")
            + f"; review with `workbench workshop show {ev['id']}`"
        )
    if t == "limit":
        return f"limit: {ev['message']}"
    if t == "warning":
        return f"warning: {ev['message']}"
    if t == "substitution":
        return (
            substitution_summary(ev)
            + "\n  "
            + mark_substitutions(ev["text"], ev["spans"]).replace("\n", "\n  ")
        )
    if t == "fork":
        return "\n".join(fork_lines(ev, event_line))
    return None
