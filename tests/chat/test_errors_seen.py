"""Errors are seen (issue 15 item 7): swallowed failures are logged and surfaced as events, and the
API key is in no log record, whatever goes wrong."""

from __future__ import annotations

import logging

import pytest

from tests.fakeapi import text, tool_call

KEY = "sk-ant-api03-SECRET-KEY-for-the-log-test-0123456789"


def _no_key_in(records: list[logging.LogRecord]) -> None:
    for r in records:
        blob = r.getMessage() + (logging.Formatter().formatException(r.exc_info) if r.exc_info else "")
        assert KEY not in blob, (r.name, r.levelname, blob[:300])
        assert KEY[:20] not in blob


def test_the_key_is_in_no_log_record(session_for, fake_api, caplog):
    caplog.set_level(logging.DEBUG)  # every logger, the SDK's and httpx's included
    fake_api.on("csv", tool_call("Skill", {"skill": "csv"}))
    s = session_for(api_key=KEY)

    def broken_listener(ev: dict) -> None:
        raise RuntimeError(f"listener broke on {ev['type']}")

    res = s.send("csv please", on_event=broken_listener)
    assert res.triggered == ["csv"] and res.error is None
    fake_api.fail(401)
    res = s.send("again")
    assert res.error is not None and res.error.kind == "auth"
    assert any(r.name.startswith("workbench.core.chat") for r in caplog.records)
    _no_key_in(caplog.records)


def test_a_broken_listener_is_logged_and_recorded_once(session_for, fake_api, caplog):
    caplog.set_level(logging.WARNING, logger="workbench.core.chat")
    fake_api.queue(text("hello"))
    s = session_for()
    seen = []

    def listener(ev: dict) -> None:
        seen.append(ev["type"])
        raise ValueError("display gone")

    res = s.send("hi", on_event=listener)
    assert res.text == "hello" and res.error is None  # the turn went on
    warnings = [e for e in res.events if e["type"] == "warning"]
    assert len(warnings) == 1
    assert "ValueError: display gone" in warnings[0]["message"]
    assert len(seen) > 1  # the listener was still called for later events
    logged = [r for r in caplog.records if r.name == "workbench.core.chat.engine"]
    assert logged and all(r.levelno == logging.WARNING and r.exc_info for r in logged)


def test_a_failing_tool_is_logged_and_reported_to_the_model(session_for, fake_api, caplog):
    from workbench.core.chat.tools import ToolSpec

    def boom(inp: dict, ctx: object) -> None:
        raise KeyError("inner bug")

    spec = ToolSpec("boom", "fails", {"type": "object", "properties": {}}, boom)
    fake_api.queue(tool_call("boom", {}), text("ok"))
    s = session_for(session_kw={"extra_tools": [spec]})
    caplog.set_level(logging.WARNING, logger="workbench.core.chat")
    res = s.send("go")
    result = next(e for e in res.events if e["type"] == "tool_result")
    assert result["is_error"] and "Tool failed: KeyError" in result["preview"]
    rec = [r for r in caplog.records if r.name == "workbench.core.chat.toolcalls"]
    assert len(rec) == 1 and rec[0].levelno == logging.WARNING and "boom" in rec[0].getMessage()


def test_keyring_failure_says_why_without_the_key(monkeypatch, caplog):
    from workbench.core.chat import settings as st

    class Locked:
        def set_password(self, *a: object) -> None:
            raise RuntimeError(f"keyring is locked (tried to store {a[-1]})")

        def delete_password(self, *a: object) -> None:
            raise RuntimeError("keyring is locked")

    monkeypatch.setattr(st, "_keyring", lambda: Locked())
    caplog.set_level(logging.DEBUG)
    assert st.store_api_key(KEY) is False
    why = st.last_keyring_error()
    assert why is not None and why.startswith("storing the key failed: RuntimeError: keyring is locked")
    assert KEY not in why and "[redacted]" in why
    assert st.delete_api_key() is False
    assert st.last_keyring_error() == "deleting the key failed: RuntimeError: keyring is locked"
    assert [r.levelno for r in caplog.records if r.name == "workbench.core.chat.settings"] == [
        logging.WARNING,
        logging.WARNING,
    ]
    _no_key_in(caplog.records)


@pytest.mark.parametrize(
    "module", ["engine", "stream", "toolcalls", "tools", "propose", "settings", "backend"]
)
def test_core_chat_modules_configure_no_logging(module: str) -> None:
    import importlib

    mod = importlib.import_module(f"workbench.core.chat.{module}")
    log = mod.log
    assert log.name == f"workbench.core.chat.{module}"
    assert log.handlers == [] and log.level == logging.NOTSET
