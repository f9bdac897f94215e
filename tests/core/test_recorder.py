"""The recording stand-in answers every API a real client speaks, and records requests exactly."""

from __future__ import annotations

import gzip
import json
import urllib.request

from workbench.core.capture.recorder import Recorder, schema_instance


def _post(url: str, body: bytes, headers: dict[str, str] | None = None) -> tuple[int, bytes]:
    req = urllib.request.Request(
        url, data=body, method="POST", headers={"content-type": "application/json", **(headers or {})}
    )
    with urllib.request.urlopen(req, timeout=10) as resp:  # noqa: S310 - loopback only
        return resp.status, resp.read()


def test_anthropic_streamed_and_plain() -> None:
    with Recorder(reply_text="hi there") as rec:
        body = json.dumps({"model": "m", "stream": True, "messages": []}).encode()
        status, out = _post(rec.url + "/v1/messages?beta=true", body)
        assert status == 200
        events = [line for line in out.decode().splitlines() if line.startswith("event: ")]
        assert events[0] == "event: message_start" and events[-1] == "event: message_stop"
        assert "hi there" in out.decode()
        status, out = _post(rec.url + "/v1/messages", json.dumps({"model": "m"}).encode())
        assert json.loads(out)["content"][0]["text"] == "hi there"
        status, out = _post(rec.url + "/v1/messages/count_tokens", b'{"messages": []}')
        assert json.loads(out)["input_tokens"] >= 1
        reqs = rec.requests
    assert [r.api for r in reqs] == ["anthropic-messages", "anthropic-messages", "anthropic-count-tokens"]
    assert reqs[0].body == body and reqs[0].query == {"beta": ["true"]} and reqs[0].streamed


def test_openai_responses_and_chat() -> None:
    with Recorder() as rec:
        _, out = _post(rec.url + "/v1/responses", b'{"model": "gpt-5", "stream": true}')
        kinds = [
            json.loads(line[6:])["type"] for line in out.decode().splitlines() if line.startswith("data: ")
        ]
        assert kinds[0] == "response.created" and kinds[-1] == "response.completed"
        _, out = _post(rec.url + "/v1/chat/completions", b'{"model": "x", "stream": true}')
        assert out.decode().rstrip().endswith("data: [DONE]")


def test_gemini_router_gets_schema_instance_and_gzip_body_is_decoded() -> None:
    schema = {
        "type": "object",
        "properties": {"complexity_reasoning": {"type": "string"}, "complexity_score": {"type": "integer"}},
    }
    assert schema_instance(schema) == {"complexity_reasoning": "ok", "complexity_score": 1}
    with Recorder() as rec:
        body = json.dumps({"generationConfig": {"responseJsonSchema": schema}}).encode()
        _, out = _post(
            rec.url + "/v1beta/models/gemini-2.5-flash-lite:generateContent",
            gzip.compress(body),
            {"content-encoding": "gzip"},
        )
        text = json.loads(out)["candidates"][0]["content"]["parts"][0]["text"]
        assert json.loads(text)["complexity_score"] == 1
        _, out = _post(rec.url + "/v1beta/models/g:streamGenerateContent?alt=sse", b"{}")
        assert out.startswith(b"data: ")
        assert rec.requests[0].body == body and rec.requests[0].api == "gemini-generate"
        assert rec.requests[1].api == "gemini-stream"
