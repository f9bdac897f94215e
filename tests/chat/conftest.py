"""Fixtures for the chat tests: the fake Messages API, an isolated app home, catalogs per client."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.fakeapi import FakeAPI, fake_api  # noqa: F401  (fixture re-export)
from tests.helpers import write_skill


@pytest.fixture(autouse=True)
def isolated(tmp_path, monkeypatch):
    """Settings go to a temp WORKBENCH_HOME; no real keyring, no real key, no base URL."""
    monkeypatch.setenv("WORKBENCH_HOME", str(tmp_path / "wbhome"))
    monkeypatch.setenv("WORKBENCH_NO_KEYRING", "1")
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    monkeypatch.delenv("ANTHROPIC_BASE_URL", raising=False)


@pytest.fixture()
def skills_dir(tmp_path) -> Path:
    """A folder of two skills (``pdf`` with scripts, ``csv``), used as an extra root."""
    d = tmp_path / "collection"
    write_skill(
        d / "pdf",
        "pdf",
        "Use for PDF files - extract, merge, fill forms.",
        body="# PDF\n\nRun scripts/fill.py on $ARGUMENTS.\nAssets in {baseDir}/assets.\n",
    )
    (d / "pdf" / "scripts").mkdir()
    (d / "pdf" / "scripts" / "fill.py").write_text("print('x')\n")
    write_skill(d / "csv", "csv", "Use for CSV files and spreadsheets.", body="# CSV\n\nUse pandas.\n")
    return d


@pytest.fixture()
def make_catalog(tmp_path, skills_dir, fake_home):
    """``make_catalog(client_id)`` -> a real ``discovery.scan`` catalog of ``skills_dir``."""
    from workbench.core.discovery import scan
    from workbench.core.model import Environment

    ws = tmp_path / "ws"
    ws.mkdir(exist_ok=True)
    (ws / "notes.txt").write_text("workspace file\n")

    def make(client_id: str = "claude-code"):
        env = Environment(workspace=ws, home=fake_home, extra_roots=[skills_dir], env={}, bins=set())
        cat = scan(env, client_id)
        assert sorted(s.name for s in cat.listed()) == ["csv", "pdf"], [
            (s.name, s.status, s.reason) for s in cat.skills
        ]
        return cat

    return make


@pytest.fixture()
def session_for(make_catalog, fake_api):
    """``session_for(client_id, **settings)`` -> a ChatSession wired to the fake server (closed,
    with its SDK client, after the test)."""
    from workbench.core.chat.engine import ChatSession
    from workbench.core.chat.settings import ChatSettings

    made = []

    def make(client_id: str = "claude-code", *, api_key: str = "sk-test", session_kw=None, **kw):
        kw.setdefault("max_retries", 0)
        s = ChatSettings(base_url=fake_api.url, client=client_id, **kw)
        made.append(ChatSession(make_catalog(client_id), settings=s, api_key=api_key, **(session_kw or {})))
        return made[-1]

    yield make
    for session in made:
        assert session.close(), "a chat request thread outlived close()"
