"""The credentials service (issue 15 item 6): one object on the context holds the session's API
key; the Chat pane writes it, the Evals pane reads it, neither touches the other's widgets; keyring
failures come back with a reason."""

from __future__ import annotations

import logging

import pytest

from workbench.app.credentials import Credentials, KeyringOutcome


@pytest.fixture
def no_keyring(monkeypatch):
    monkeypatch.setenv("WORKBENCH_NO_KEYRING", "1")


def test_session_key_wins_and_is_never_in_repr(qtbot, no_keyring):
    cred = Credentials(environ={"ANTHROPIC_API_KEY": "from-env"})
    assert cred.api_key() == ("from-env", "env")
    seen = []
    cred.changed.connect(lambda: seen.append(1))
    cred.set_session_key("  sk-ant-SESSION  ")
    assert cred.api_key() == ("sk-ant-SESSION", "typed") and seen == [1]
    assert "sk-ant-SESSION" not in repr(cred)
    cred.set_session_key("")
    assert cred.key() == "from-env" and seen == [1, 1]


def test_keyring_failure_has_a_reason(qtbot, no_keyring):
    cred = Credentials(environ={})
    out = cred.save_to_keyring("sk-ant-X")
    assert out == KeyringOutcome(False, "WORKBENCH_NO_KEYRING is set")
    assert cred.save_to_keyring("") == KeyringOutcome(False, "no key to save")
    assert not cred.forget_keyring().ok and cred.forget_keyring().reason


def test_keyring_error_is_redacted_and_logged(qtbot, monkeypatch, caplog):
    """A backend that raises: the reason names the error, never the key."""
    import keyring

    from workbench.app import credentials as mod

    class Broken:
        def set_password(self, *_a):
            raise RuntimeError("locked collection for sk-ant-SECRET")

    monkeypatch.delenv("WORKBENCH_NO_KEYRING", raising=False)
    monkeypatch.setattr(mod, "_keyring_module", lambda: (Broken(), ""))
    with caplog.at_level(logging.DEBUG):
        out = Credentials(environ={}).save_to_keyring("sk-ant-SECRET")
    assert not out.ok and "RuntimeError" in out.reason and "sk-ant-SECRET" not in out.reason
    assert all("sk-ant-SECRET" not in r.getMessage() for r in caplog.records)
    assert keyring  # the real module stays untouched


def test_chat_key_reaches_evals_through_the_service(open_window, tmp_path, fake_home, no_keyring):
    """Typing a key in the Chat pane makes it the Evals pane's key (no widget reading)."""
    from tests.helpers import write_skill
    from workbench.core.model import Environment

    ws = tmp_path / "proj"
    write_skill(ws / ".claude" / "skills" / "alpha", "alpha", "Use when testing alpha things.")
    win = open_window(Environment(workspace=ws, home=fake_home, env={}))
    win.ctx.credentials.environ = {}
    chat, evals = win.pane("chat"), win.pane("evals")
    assert chat.credentials is win.ctx.credentials is evals.credentials
    assert evals._key() is None
    chat.key_edit.setText("sk-ant-TYPED")
    assert evals._key() == "sk-ant-TYPED"
    assert not chat.save_key()
    assert "WORKBENCH_NO_KEYRING is set" in chat.status.text()
