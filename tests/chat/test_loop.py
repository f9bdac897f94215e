"""The loop itself: stop reasons, turn limit, Stop, caching, errors, the trace, the key."""

from __future__ import annotations

import json
import socket
import threading

import pytest

from tests.fakeapi import Turn, text, tool_call
from workbench.core.chat.engine import ChatSession
from workbench.core.chat.settings import ChatSettings, save_settings, settings_path


def test_plain_answer_without_tools(session_for, fake_api):
    res = session_for().send("hello")
    assert res.text == "OK" and res.triggered == [] and res.stop_reason == "end_turn"
    assert len(fake_api.message_requests) == 1 and fake_api.message_requests[0].stream
    u = [e for e in res.events if e["type"] == "usage"][0]
    assert u["request_id"] == fake_api.requests[-1].headers.get("request-id") or u["request_id"].startswith(
        "req_"
    )
    assert res.usage["input_tokens"] > 0 and res.usage["output_tokens"] > 0


def test_json_shape_of_design_section_3(session_for, fake_api):
    fake_api.on("csv", tool_call("Skill", {"skill": "csv"}))
    d = session_for().send("open the csv").to_json()
    for k in ("client", "model", "triggered", "events", "usage", "stop_reason"):
        assert k in d
    assert set(d["usage"]) == {
        "input_tokens",
        "output_tokens",
        "cache_read_input_tokens",
        "cache_creation_input_tokens",
    }
    types = [e["type"] for e in d["events"]]
    assert types[0] == "listing"
    assert {"tool_use", "skill_loaded", "tool_result", "text", "usage"} <= set(types)
    json.dumps(d)  # serialisable


def test_unknown_skill_name_is_an_error_result(session_for, fake_api):
    fake_api.on("x", tool_call("Skill", {"skill": "nope"}))
    res = session_for().send("x")
    assert res.triggered == []
    tr = fake_api.message_requests[1].tool_results[0]
    assert tr["is_error"] is True and "csv" in tr["content"] and "pdf" in tr["content"]


def test_opencode_unknown_name_wording(session_for, fake_api):
    fake_api.on("x", tool_call("skill", {"name": "nope"}))
    session_for("opencode").send("x")
    tr = fake_api.message_requests[1].tool_results[0]
    assert tr["content"] == 'Skill "nope" not found. Available skills: csv, pdf'


def test_claude_code_args_substitution_end_to_end(session_for, fake_api, skills_dir):
    fake_api.on("fill", tool_call("Skill", {"skill": "pdf", "args": "form.pdf"}))
    res = session_for().send("fill it")
    body = fake_api.message_requests[1].last_user["content"][1]["text"]
    assert "Run scripts/fill.py on form.pdf." in body
    ev = [e for e in res.events if e["type"] == "skill_loaded"][0]
    assert ev["args"] == "form.pdf"


def test_pause_turn_is_resent(session_for, fake_api):
    fake_api.queue(Turn([{"type": "text", "text": "thinking..."}], "pause_turn"), text("done"))
    res = session_for().send("go")
    assert res.text == "done" and res.stop_reason == "end_turn"
    assert fake_api.message_requests[1].ends_with_assistant
    assert fake_api.invalid == []


def test_max_tokens_cut_tool_use_is_not_run(session_for, fake_api):
    cut = Turn(
        [
            {"type": "text", "text": "Loading"},
            {"type": "tool_use", "id": "", "name": "Skill", "input": {"skill": "pdf"}},
        ],
        "max_tokens",
    )
    fake_api.queue(cut)
    s = session_for()
    res = s.send("go")
    assert res.stop_reason == "max_tokens" and res.triggered == []
    tu = [e for e in res.events if e["type"] == "tool_use"]
    assert tu and tu[0]["truncated"] is True
    assert len(fake_api.message_requests) == 1
    # the conversation stays valid: the cut call is answered with an error result next time
    res2 = s.send("again")
    assert res2.error is None and fake_api.invalid == []
    tr = fake_api.message_requests[1].tool_results
    assert tr and tr[0]["is_error"] is True and "max_tokens" in tr[0]["content"]


def test_turn_limit(session_for, fake_api):
    fake_api.script = lambda req: tool_call("list_directory", {"path": "."})
    s = session_for(max_turns=3)
    res = s.send("loop forever")
    assert res.stop_reason == "max_turns"
    assert len(fake_api.message_requests) == 3
    assert any(e["type"] == "limit" for e in res.events)
    fake_api.script = None
    res2 = s.send("stop now")
    assert res2.error is None and fake_api.invalid == []


def test_second_turn_does_not_resend_user_turn_listing(session_for, fake_api):
    s = session_for()
    s.send("one")
    s.send("two")
    second = fake_api.message_requests[1]
    reminders = [
        b
        for m in second.messages
        if m["role"] == "user"
        for b in m["content"]
        if b.get("type") == "text" and b["text"].startswith("<system-reminder>")
    ]
    assert len(reminders) == 1
    assert [m["role"] for m in second.messages] == ["user", "assistant", "user"]


def test_extra_tool_hook(session_for, fake_api):
    from workbench.core.chat.tools import ToolOutcome, ToolSpec

    seen = []

    def handler(inp, ctx):
        seen.append(inp)
        return ToolOutcome("proposal noted")

    extra = ToolSpec(
        "propose_skill",
        "Propose a skill.",
        {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]},
        handler,
    )
    fake_api.on("propose", tool_call("propose_skill", {"name": "new"}))
    session_for(session_kw={"extra_tools": [extra]}).send("propose one")
    assert seen == [{"name": "new"}]
    assert fake_api.message_requests[1].tool_results[0]["content"] == "proposal noted"


# -- caching ------------------------------------------------------------------------------


def test_cache_breakpoints_and_hit(session_for, fake_api):
    fake_api.cache_min_tokens = 50
    s = session_for()
    s.send("one")
    r2 = s.send("two")
    first = fake_api.message_requests[0].body
    assert first["tools"][-1]["cache_control"] == {"type": "ephemeral"}
    assert first["system"][-1]["cache_control"] == {"type": "ephemeral"}
    u = [e for e in r2.events if e["type"] == "usage"][0]
    assert u["cache_read_input_tokens"] > 0 and u["cache_note"].startswith("cache hit")


def test_small_prefix_not_cached_is_explained(session_for, fake_api):
    res = session_for("agentskills").send("hi")  # no built-ins: the stable prefix stays small
    u = [e for e in res.events if e["type"] == "usage"][0]
    assert u["cache_read_input_tokens"] == 0 and u["cache_creation_input_tokens"] == 0
    assert "below this model's minimum cacheable size" in u["cache_note"]
    assert "not a fault" in u["cache_note"]


# -- errors -------------------------------------------------------------------------------


def test_no_key_contacts_nobody(make_catalog, fake_api):
    s = ChatSession(make_catalog(), settings=ChatSettings(base_url=fake_api.url), api_key=None)
    res = s.send("hi")
    assert res.error.kind == "no-key" and "ANTHROPIC_API_KEY" in res.error.hint
    assert fake_api.requests == []


@pytest.mark.parametrize(
    "status,kind",
    [
        (401, "auth"),
        (403, "permission"),
        (404, "not-found"),
        (500, "server"),
        (503, "overloaded"),
        (529, "overloaded"),
    ],
)
def test_http_errors(session_for, fake_api, status, kind):
    fake_api.fail(status)
    res = session_for().send("hi")
    assert res.error.kind == kind and res.stop_reason == "error"
    assert res.error.request_id and res.error.request_id.startswith("req_")
    assert res.events[-1]["type"] == "error"


def test_bad_key_rejected_by_server(session_for, fake_api):
    fake_api.api_key = "right"
    res = session_for(api_key="wrong").send("hi")
    assert res.error.kind == "auth" and "Key rejected" in res.error.message


def test_rate_limited_with_retry_after(session_for, fake_api):
    fake_api.fail(429, retry_after=7)
    res = session_for().send("hi")
    assert res.error.kind == "rate-limited" and res.error.retry_after == 7
    assert "Retry in 7s" in res.error.message


def test_sdk_retry_honoured_then_success(session_for, fake_api):
    fake_api.fail(529, retry_after=0.01, should_retry=True)
    res = session_for(max_retries=2).send("hi")
    assert res.error is None and res.text == "OK"


def test_context_too_long(session_for, fake_api):
    fake_api.fail(400, message="prompt is too long: 250000 tokens > 200000 maximum")
    res = session_for().send("hi")
    assert res.error.kind == "context-too-long"


def test_overloaded_inside_stream(session_for, fake_api):
    fake_api.stream_error("overloaded_error", after_events=4)
    res = session_for().send("hi")
    assert res.error.kind == "overloaded" and res.error.status == 200


def test_connection_dropped_mid_stream(session_for, fake_api):
    fake_api.drop(after_events=4)
    s = session_for()
    res = s.send("hi")
    assert res.error.kind == "connection"
    res2 = s.send("again")  # the conversation is still usable
    assert res2.error is None and fake_api.invalid == []


def test_connection_refused(make_catalog):
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    sock.close()
    with ChatSession(
        make_catalog(), settings=ChatSettings(base_url=f"http://127.0.0.1:{port}", max_retries=0), api_key="k"
    ) as s:
        res = s.send("hi")
    assert res.error.kind == "connection" and f"127.0.0.1:{port}" in res.error.message


def test_timeout(session_for, fake_api):
    fake_api.latency = 1.5
    res = session_for(timeout=0.3).send("hi")
    assert res.error.kind == "timeout"


def test_model_context_window_exceeded_stop_reason(session_for, fake_api):
    fake_api.queue(Turn([{"type": "text", "text": "partial"}], "model_context_window_exceeded"))
    res = session_for().send("hi")
    assert res.error.kind == "context-too-long"


# -- cancel -------------------------------------------------------------------------------


def test_stop_cancels_a_slow_stream(session_for, fake_api):
    fake_api.queue(text("x" * 2000))  # 125 text deltas
    fake_api.event_delay = 0.05
    s = session_for()
    cancel = threading.Event()
    deltas = []

    def on_event(ev):
        if ev["type"] == "text_delta":
            deltas.append(ev)
            cancel.set()

    res = s.send("go", cancel=cancel, on_event=on_event)
    assert res.stop_reason == "cancelled" and res.events[-1]["type"] == "cancelled"
    assert len(deltas) < 100
    fake_api.event_delay = 0
    res2 = s.send("again")
    assert res2.error is None and fake_api.invalid == []


def test_session_cancel_from_another_thread(session_for, fake_api):
    fake_api.queue(text("y" * 2000))
    fake_api.event_delay = 0.05
    s = session_for()
    started = threading.Event()
    out = {}

    def run():
        out["res"] = s.send("go", on_event=lambda ev: ev["type"] == "text_delta" and started.set())

    t = threading.Thread(target=run)
    t.start()
    assert started.wait(10)
    s.cancel()
    t.join(10)
    assert not t.is_alive() and out["res"].stop_reason == "cancelled"


# -- the key never leaks ------------------------------------------------------------------


def test_key_never_in_trace_request_or_settings(session_for, fake_api, tmp_path):
    secret = "sk-ant-SECRET-0123456789"
    fake_api.on("pdf", tool_call("Skill", {"skill": "pdf"}))
    s = session_for(api_key=secret)
    res = s.send("pdf please")
    fake_api.fail(401)
    res_err = s.send("again")
    blob = (
        json.dumps(res.to_json())
        + json.dumps(res_err.to_json())
        + json.dumps(s.last_request)
        + json.dumps(s.history)
        + repr(res_err.error)
    )
    assert secret not in blob
    save_settings(s.settings)
    assert secret not in settings_path().read_text()
    # it did reach the server, as a Bearer token
    assert fake_api.requests[0].headers.get("Authorization") == f"Bearer {secret}"
