"""Issue 15: whoever makes an SDK client closes it (``ChatSession.close``, ``list_models``), a client
passed in is never closed, and a stopped turn's request thread ends when the session is closed."""

from __future__ import annotations

import threading
import time

import pytest

from tests.fakeapi import text, tool_call
from workbench.core.chat import backend
from workbench.core.chat.backend import list_models
from workbench.core.chat.engine import ChatSession
from workbench.core.chat.errors import ChatError
from workbench.core.chat.settings import ChatSettings


def _request_threads() -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name == "wb-chat-request" and t.is_alive()]


def _closes(monkeypatch) -> list[object]:
    """Record every ``close()`` of a client made by ``backend.make_client``."""
    closed: list[object] = []
    cls = backend._capped_client_class()
    real = cls.close

    def close(self) -> None:
        closed.append(self)
        real(self)

    monkeypatch.setattr(cls, "close", close)
    return closed


def test_a_session_closes_the_client_it_made_once(session_for, fake_api, monkeypatch):
    closed = _closes(monkeypatch)
    s = session_for()
    assert s.send("hi").error is None
    sdk = s._sdk
    assert s.close() is True and closed == [sdk]
    assert s.close() is True and closed == [sdk]  # idempotent
    res = s.send("again")  # a closed session says so, it does not reach the server
    assert res.error is not None and res.error.kind == "other" and "closed" in res.error.message
    assert len(fake_api.message_requests) == 1


def test_a_passed_in_client_is_never_closed(make_catalog, fake_api):
    sdk = fake_api.client()
    with ChatSession(make_catalog(), settings=ChatSettings(base_url=fake_api.url), client=sdk) as s:
        assert s.send("hi").error is None
    assert not sdk.is_closed()
    fake_api.queue(text("still open"))
    with ChatSession(make_catalog(), settings=ChatSettings(base_url=fake_api.url), client=sdk) as s2:
        assert s2.send("hi").text == "still open"


@pytest.mark.parametrize("kind", ["silent", "keepalive"])
def test_close_ends_a_stopped_turns_request_thread(session_for, fake_api, kind):
    """A silent server never sends headers: the request thread waits in ``recv`` until the SDK's
    timeout (60 s here) unless ``close`` shuts its socket down."""
    before = set(_request_threads())
    fake_api.misbehave(kind)
    s = session_for(timeout=60)
    cancel = threading.Event()
    out: dict[str, object] = {}
    th = threading.Thread(target=lambda: out.update(res=s.send("go", cancel=cancel)))
    th.start()
    time.sleep(0.5)  # the request is in flight
    cancel.set()
    th.join(5)
    assert not th.is_alive()
    t = time.monotonic()
    assert s.close(timeout=5) is True
    assert time.monotonic() - t < 2.0
    assert set(_request_threads()) - before == set()


def test_close_from_another_thread_stops_a_running_turn(session_for, fake_api):
    fake_api.misbehave("silent")
    s = session_for(timeout=60)
    out: dict[str, object] = {}
    th = threading.Thread(target=lambda: out.update(res=s.send("go")))
    th.start()
    time.sleep(0.5)
    assert s.close(timeout=5) is True
    th.join(5)
    assert not th.is_alive() and out["res"].stop_reason == "cancelled"


def test_list_models_closes_only_its_own_client(fake_api, monkeypatch):
    closed = _closes(monkeypatch)
    settings = ChatSettings(base_url=fake_api.url, max_retries=0)
    assert list_models(settings, "k")
    assert len(closed) == 1
    mine = fake_api.client()
    assert list_models(settings, None, client=mine)
    assert len(closed) == 1 and not mine.is_closed()
    fake_api.serve_models = False  # an error closes it too
    with pytest.raises(ChatError):
        list_models(settings, "k")
    assert len(closed) == 2


def test_close_reaches_a_forked_subagents_request(session_for, fake_api, skills_dir):
    """The subagent shares the parent's request slot: Stop/close end its request thread too."""
    p = skills_dir / "pdf" / "SKILL.md"
    p.write_text(
        "---\nname: pdf\ndescription: Use for PDF files.\ncontext: fork\nagent: general-purpose\n"
        "---\n\nDo the pdf work.\n"
    )

    def script(req):
        if "merge" in str(req.messages[-1].get("content")):
            fake_api.misbehave("silent")  # the next request (the subagent's) gets no answer
            return tool_call("Skill", {"skill": "pdf"})
        return None

    fake_api.script = script
    before = set(_request_threads())
    s = session_for(timeout=60)
    out: dict[str, object] = {}
    th = threading.Thread(target=lambda: out.update(res=s.send("merge the pdfs")))
    th.start()
    deadline = time.monotonic() + 5
    while len(fake_api.message_requests) < 2 and time.monotonic() < deadline:
        time.sleep(0.05)
    time.sleep(0.3)
    assert s.close(timeout=5) is True
    th.join(5)
    assert not th.is_alive() and out["res"].stop_reason == "cancelled"
    assert set(_request_threads()) - before == set()
