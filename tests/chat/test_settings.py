"""Connection settings, the key (env / keyring, never in files), the model list."""

from __future__ import annotations

import json

import keyring
import pytest
from keyring.backend import KeyringBackend

from workbench.core.chat import settings as st
from workbench.core.chat.backend import list_models
from workbench.core.chat.errors import ChatError
from workbench.core.chat.settings import ChatSettings


class MemoryKeyring(KeyringBackend):
    priority = 1

    def __init__(self):
        super().__init__()
        self.store = {}

    def get_password(self, service, username):
        return self.store.get((service, username))

    def set_password(self, service, username, password):
        self.store[(service, username)] = password

    def delete_password(self, service, username):
        self.store.pop((service, username))


@pytest.fixture()
def mem_keyring(monkeypatch):
    monkeypatch.delenv("WORKBENCH_NO_KEYRING", raising=False)
    old = keyring.get_keyring()
    kr = MemoryKeyring()
    keyring.set_keyring(kr)
    yield kr
    keyring.set_keyring(old)


def test_settings_round_trip_and_bad_values(tmp_path):
    s = ChatSettings(base_url="http://x:1", model="m", max_tokens=100, temperature=0.5)
    p = st.save_settings(s)
    assert st.load_settings() == s
    p.write_text(json.dumps({"max_tokens": "lots", "temperature": 7, "model": 3, "bogus": 1}))
    s2 = st.load_settings()
    assert s2.max_tokens == 4096 and s2.temperature is None and s2.model == st.DEFAULT_MODEL
    p.write_text("{not json")
    assert st.load_settings() == ChatSettings()


def test_base_url_from_setting_then_env():
    assert (
        ChatSettings(base_url="http://a/").effective_base_url({"ANTHROPIC_BASE_URL": "http://b"})
        == "http://a"
    )
    assert ChatSettings().effective_base_url({"ANTHROPIC_BASE_URL": "http://b"}) == "http://b"
    assert ChatSettings().effective_base_url({}) is None


def test_key_sources_order(mem_keyring, monkeypatch):
    assert st.get_api_key(environ={}) == (None, "none")
    assert st.store_api_key("from-keyring")
    assert st.get_api_key(environ={}) == ("from-keyring", "keyring")
    assert st.get_api_key(environ={"ANTHROPIC_API_KEY": "from-env"}) == ("from-env", "env")
    assert st.get_api_key("typed", environ={"ANTHROPIC_API_KEY": "from-env"}) == ("typed", "typed")
    assert st.delete_api_key() and st.get_api_key(environ={}) == (None, "none")


def test_key_goes_to_keyring_not_settings_file(mem_keyring):
    secret = "sk-ant-KEYRING-SECRET"
    assert st.store_api_key(secret)
    p = st.save_settings(ChatSettings(base_url="http://x"))
    assert secret not in p.read_text()
    assert mem_keyring.store[(st.KEYRING_SERVICE, st.KEYRING_USER)] == secret


def test_no_keyring_means_nothing_stored():
    assert not st.keyring_available()
    assert st.store_api_key("k") is False


def test_list_models_active_only(fake_api):
    models = list_models(ChatSettings(base_url=fake_api.url, max_retries=0), "k")
    assert [m["id"] for m in models] == ["claude-sonnet-5-5", "claude-haiku-5-5"]


def test_list_models_missing_endpoint(fake_api):
    fake_api.serve_models = False
    with pytest.raises(ChatError) as ei:
        list_models(ChatSettings(base_url=fake_api.url, max_retries=0), "k")
    assert ei.value.kind == "not-found"


def test_list_models_without_key():
    with pytest.raises(ChatError) as ei:
        list_models(ChatSettings(), None)
    assert ei.value.kind == "no-key"
