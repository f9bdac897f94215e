"""The recorder's default replies, one shape per API (Anthropic Messages, OpenAI Responses and Chat
Completions, Gemini), carrying a given text; shapes from real-clients.md and chat-loop.md."""

from __future__ import annotations

import json
import time
from typing import Any


def schema_instance(schema: Any) -> Any:
    """A minimal value that satisfies a JSON schema (first enum value, 1 for numbers, "ok" for strings).

    Used to answer structured-output calls (Gemini CLI's router asks for
    ``{"complexity_reasoning": str, "complexity_score": int}``).
    """
    if not isinstance(schema, dict):
        return "ok"
    if "enum" in schema and schema["enum"]:
        return schema["enum"][0]
    kind = schema.get("type")
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), "string")
    kind = str(kind or "").lower()
    if kind == "object" or "properties" in schema:
        props = schema.get("properties") or {}
        return {k: schema_instance(v) for k, v in props.items()}
    if kind == "array":
        return [schema_instance(schema.get("items"))] if schema.get("minItems") else []
    if kind in ("integer", "number"):
        low = schema.get("minimum")
        return low if isinstance(low, (int, float)) else 1
    if kind == "boolean":
        return False
    return "ok"


def sse_event(event: str | None, data: Any) -> bytes:
    """One server-sent event: an ``event:`` line when ``event`` is given, then ``data:`` (JSON
    unless ``data`` is a string), then the blank line."""
    payload = data if isinstance(data, str) else json.dumps(data)
    head = f"event: {event}\n" if event else ""
    return f"{head}data: {payload}\n\n".encode()


# -- default replies per API --------------------------------------------------------------------


def anthropic_events(model: str, text: str) -> list[bytes]:
    """The SSE events of a streamed Messages reply holding ``text`` (stop_reason end_turn)."""
    msg: dict[str, Any] = {
        "id": "msg_recorder",
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": [],
        "stop_reason": None,
        "stop_sequence": None,
        "usage": {"input_tokens": 1, "output_tokens": 1},
    }
    return [
        sse_event("message_start", {"type": "message_start", "message": msg}),
        sse_event(
            "content_block_start",
            {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
        ),
        sse_event(
            "content_block_delta",
            {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": text}},
        ),
        sse_event("content_block_stop", {"type": "content_block_stop", "index": 0}),
        sse_event(
            "message_delta",
            {
                "type": "message_delta",
                "delta": {"stop_reason": "end_turn", "stop_sequence": None},
                "usage": {"output_tokens": max(1, len(text) // 4)},
            },
        ),
        sse_event("message_stop", {"type": "message_stop"}),
    ]


def anthropic_message(model: str, text: str) -> dict[str, Any]:
    """A non-streamed Messages reply holding ``text``."""
    return {
        "id": "msg_recorder",
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": [{"type": "text", "text": text}],
        "stop_reason": "end_turn",
        "stop_sequence": None,
        "usage": {"input_tokens": 1, "output_tokens": max(1, len(text) // 4)},
    }


def responses_events(model: str, text: str) -> list[bytes]:
    """The SSE events of a streamed OpenAI Responses reply (sequence from real-clients.md, Codex)."""
    item = {
        "type": "message",
        "id": "msg_recorder",
        "status": "in_progress",
        "role": "assistant",
        "content": [],
    }
    part = {"type": "output_text", "text": "", "annotations": []}
    done_part = dict(part, text=text)
    done_item = dict(item, status="completed", content=[done_part])
    resp = {
        "id": "resp_recorder",
        "object": "response",
        "created_at": int(time.time()),
        "status": "in_progress",
        "model": model,
        "output": [],
    }
    usage = {
        "input_tokens": 1,
        "input_tokens_details": {"cached_tokens": 0},
        "output_tokens": 1,
        "output_tokens_details": {"reasoning_tokens": 0},
        "total_tokens": 2,
    }
    seq = iter(range(1000))
    return [
        sse_event(
            "response.created", {"type": "response.created", "sequence_number": next(seq), "response": resp}
        ),
        sse_event(
            "response.output_item.added",
            {
                "type": "response.output_item.added",
                "sequence_number": next(seq),
                "output_index": 0,
                "item": item,
            },
        ),
        sse_event(
            "response.content_part.added",
            {
                "type": "response.content_part.added",
                "sequence_number": next(seq),
                "item_id": "msg_recorder",
                "output_index": 0,
                "content_index": 0,
                "part": part,
            },
        ),
        sse_event(
            "response.output_text.delta",
            {
                "type": "response.output_text.delta",
                "sequence_number": next(seq),
                "item_id": "msg_recorder",
                "output_index": 0,
                "content_index": 0,
                "delta": text,
            },
        ),
        sse_event(
            "response.output_text.done",
            {
                "type": "response.output_text.done",
                "sequence_number": next(seq),
                "item_id": "msg_recorder",
                "output_index": 0,
                "content_index": 0,
                "text": text,
            },
        ),
        sse_event(
            "response.content_part.done",
            {
                "type": "response.content_part.done",
                "sequence_number": next(seq),
                "item_id": "msg_recorder",
                "output_index": 0,
                "content_index": 0,
                "part": done_part,
            },
        ),
        sse_event(
            "response.output_item.done",
            {
                "type": "response.output_item.done",
                "sequence_number": next(seq),
                "output_index": 0,
                "item": done_item,
            },
        ),
        sse_event(
            "response.completed",
            {
                "type": "response.completed",
                "sequence_number": next(seq),
                "response": dict(resp, status="completed", output=[done_item], usage=usage),
            },
        ),
    ]


def chat_completion_events(model: str, text: str) -> list[bytes]:
    """The SSE chunks of a streamed OpenAI Chat Completions reply."""
    base = {
        "id": "chatcmpl-recorder",
        "object": "chat.completion.chunk",
        "created": int(time.time()),
        "model": model,
    }
    return [
        sse_event(
            None,
            dict(
                base,
                choices=[{"index": 0, "delta": {"role": "assistant", "content": ""}, "finish_reason": None}],
            ),
        ),
        sse_event(
            None, dict(base, choices=[{"index": 0, "delta": {"content": text}, "finish_reason": None}])
        ),
        sse_event(
            None,
            dict(
                base,
                choices=[{"index": 0, "delta": {}, "finish_reason": "stop"}],
                usage={"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
            ),
        ),
        b"data: [DONE]\n\n",
    ]


def gemini_response(text: str) -> dict[str, Any]:
    """A Gemini ``GenerateContentResponse`` holding ``text``."""
    return {
        "candidates": [
            {"content": {"role": "model", "parts": [{"text": text}]}, "finishReason": "STOP", "index": 0}
        ],
        "usageMetadata": {"promptTokenCount": 1, "candidatesTokenCount": 1, "totalTokenCount": 2},
        "modelVersion": "recorder",
    }


def gemini_schema(data: Any) -> Any:
    """The JSON response schema a Gemini request asks for (``{}`` for plain JSON), else None."""
    if not isinstance(data, dict):
        return None
    cfg = data.get("generationConfig") or data.get("generation_config") or {}
    if not isinstance(cfg, dict):
        return None
    for key in ("responseJsonSchema", "responseSchema", "response_json_schema", "response_schema"):
        if cfg.get(key):
            return cfg[key]
    if cfg.get("responseMimeType") == "application/json":
        return {}
    return None
