"""Running the model's tool calls of one reply: the handler, the trace events, the result blocks.

A tool's own failure never ends the chat: it becomes an ``is_error`` result the model sees and a
``tool_result`` event, and is logged with its traceback (``workbench.core.chat.toolcalls``).
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Any

from workbench.core.chat.result import TurnResult
from workbench.core.chat.stream import EventSink
from workbench.core.chat.tools import ToolContext, ToolOutcome, ToolSpec
from workbench.core.tokens import estimate_tokens

log = logging.getLogger(__name__)


def run_tool_calls(
    tool_uses: list[dict[str, Any]],
    tools: Sequence[ToolSpec],
    ctx: ToolContext,
    hop: int,
    emit: EventSink,
    res: TurnResult,
) -> list[dict[str, Any]]:
    """Run each ``tool_use`` block with its ``ToolSpec`` from ``tools`` and return the content of
    the next user message: one ``tool_result`` block per call, in order, then the calls' extra
    blocks (Claude Code's separate skill body). Emits ``tool_use``, ``skill_loaded``, the
    outcome's own events and ``tool_result`` per call; adds loaded skills to ``res.triggered`` and
    a fork's usage to ``res.usage``. Never raises for a tool's failure."""
    results: list[dict[str, Any]] = []
    extra: list[dict[str, Any]] = []
    for b in tool_uses:
        out = _run_tool(b, tools, ctx, hop, emit, res)
        results.append(
            {
                "type": "tool_result",
                "tool_use_id": b["id"],
                "content": out.content,
                "is_error": out.is_error,
            }
        )
        extra.extend(out.extra_blocks)
    return results + extra


def _outcome(b: dict[str, Any], tools: Sequence[ToolSpec], ctx: ToolContext) -> ToolOutcome:
    name, inp = b.get("name", ""), b.get("input") or {}
    spec = next((t for t in tools if t.name == name), None)
    if spec is None:
        return ToolOutcome(f"Unknown tool: {name}", is_error=True)
    if not isinstance(inp, dict):
        return ToolOutcome("tool input must be an object", is_error=True)
    try:
        out: ToolOutcome = spec.handler(inp, ctx)
    except Exception as exc:  # noqa: BLE001 - a tool bug must not end the chat; the model is told
        log.warning("chat tool %s failed", name, exc_info=True)
        return ToolOutcome(f"Tool failed: {type(exc).__name__}: {exc}", is_error=True)
    return out


def _run_tool(
    b: dict[str, Any], tools: Sequence[ToolSpec], ctx: ToolContext, hop: int, emit: EventSink, res: TurnResult
) -> ToolOutcome:
    name, inp = b.get("name", ""), b.get("input") or {}
    out = _outcome(b, tools, ctx)
    emit(
        {
            "type": "tool_use",
            "hop": hop,
            "id": b["id"],
            "name": name,
            "input": inp,
            "resolved": out.resolved,
            "skill": out.skill,
            "truncated": False,
        }
    )
    if out.skill and not out.is_error:
        if out.skill not in res.triggered:
            res.triggered.append(out.skill)
        emit(
            {
                "type": "skill_loaded",
                "hop": hop,
                "name": out.skill,
                "path": out.skill_path,
                "via": name,
                "body_chars": out.body_chars,
                "tokens_est": estimate_tokens(out.body_chars or 0),
                "args": out.args,
                "injections": list(out.injections),
            }
        )
    for extra_ev in out.events:  # e.g. ``proposal`` from propose_skill (workbench/core/chat/propose.py)
        if isinstance(extra_ev, dict) and isinstance(extra_ev.get("type"), str):
            if extra_ev["type"] == "fork":  # a forked skill's own requests count for this turn
                for k, v in (extra_ev.get("usage") or {}).items():
                    if k in res.usage:
                        res.usage[k] += int(v)
            emit({**extra_ev, "hop": hop, "tool_use_id": b["id"]})
    full = "\n\n".join([out.content] + [x.get("text", "") for x in out.extra_blocks])
    # chars/preview cover what the model receives for this call, including a separate body
    # block (Claude Code); the preview is the first 300 chars
    emit(
        {
            "type": "tool_result",
            "hop": hop,
            "id": b["id"],
            "name": name,
            "chars": len(full),
            "is_error": out.is_error,
            "notes": list(out.notes),
            "preview": full[:300],
        }
    )
    return out
