"""The chat pane through real widgets (pytest-qt, offscreen) against the fake Messages API."""

from __future__ import annotations

import json

import pytest

from tests.fakeapi import fake_api, text, tool_call  # noqa: F401  (fixture)
from tests.helpers import write_skill


@pytest.fixture(autouse=True)
def _no_key_env(monkeypatch):
    monkeypatch.setenv("WORKBENCH_NO_KEYRING", "1")
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    monkeypatch.delenv("ANTHROPIC_BASE_URL", raising=False)


@pytest.fixture()
def catalog(tmp_path):
    from workbench.core.discovery import scan
    from workbench.core.model import Environment

    coll = tmp_path / "skills"
    write_skill(coll / "pdf", "pdf", "Use for PDF files.", body="# PDF\n\nDo the PDF thing.\n")
    write_skill(coll / "csv", "csv", "Use for CSV files.", body="# CSV\n")
    (tmp_path / "ws").mkdir()
    (tmp_path / "home").mkdir()
    env = Environment(
        workspace=tmp_path / "ws", home=tmp_path / "home", extra_roots=[coll], env={}, bins=set()
    )
    return scan(env, "claude-code")


@pytest.fixture()
def pane(qtbot, catalog, fake_api):
    from workbench.app.chat_pane import ChatPane
    from workbench.core.chat.settings import ChatSettings

    p = ChatPane(
        lambda: (catalog, 200_000), settings=ChatSettings(base_url=fake_api.url, max_retries=0), environ={}
    )
    qtbot.addWidget(p)
    p.resize(1100, 700)
    p.show()
    yield p
    p.shutdown()


def _finish(qtbot, pane):
    with qtbot.waitSignal(pane.turn_finished, timeout=15000) as blocker:
        pass
    return blocker.args[0]


def test_no_key_shows_what_to_set(pane, fake_api, qtbot):
    assert pane.key_banner.isVisible()
    assert "ANTHROPIC_API_KEY" in pane.key_banner.text()
    assert pane.send("hello") is False
    assert fake_api.requests == []


def test_turn_streams_loads_skill_and_traces(pane, fake_api, qtbot, artifacts):
    fake_api.on("pdf", tool_call("Skill", {"skill": "pdf"}, text="Let me load the PDF skill."))
    fake_api.after_tool = text("The PDF is filled.")
    pane.key_edit.setText("dummy")
    assert not pane.key_banner.isVisible()
    pane.input.setPlainText("fill my pdf")
    with qtbot.waitSignal(pane.skills_loaded, timeout=15000) as loaded:
        with qtbot.waitSignal(pane.turn_finished, timeout=15000):
            pane.send_btn.click()
    assert loaded.args[0] == ["pdf"]
    assert "Let me load the PDF skill." in pane.assistant_text()
    assert "The PDF is filled." in pane.assistant_text()
    rows = pane.tool_rows()
    assert len(rows) == 1 and "Skill" in rows[0].button.text() and "pdf" in rows[0].button.text()
    assert not rows[0].details.isVisible()
    rows[0].button.click()
    assert rows[0].details.isVisible() and "Launching skill: pdf" in rows[0].details.toPlainText()
    turn = pane.trace.topLevelItem(0)
    kinds = [turn.child(i).text(0) for i in range(turn.childCount())]
    assert kinds[0] == "listing" and "skill_loaded" in kinds and kinds.count("usage") == 2
    pane.trace.setCurrentItem(turn.child(kinds.index("skill_loaded")))
    assert json.loads(pane.trace_details.toPlainText())["name"] == "pdf"
    copied = json.loads(pane.copy_json())
    assert copied["turns"][0]["triggered"] == ["pdf"]
    assert "dummy" not in json.dumps(copied)
    assert pane.send_btn.isEnabled() and not pane.stop_btn.isEnabled()
    pane.grab().save(str(artifacts / "chat_pane.png"))


def test_stop_cancels(pane, fake_api, qtbot):
    fake_api.queue(text("z" * 3000))
    fake_api.event_delay = 0.05
    pane.key_edit.setText("dummy")
    assert pane.send("go")
    qtbot.waitUntil(lambda: "zz" in pane.assistant_text(), timeout=10000)
    assert pane.stop_btn.isEnabled()
    with qtbot.waitSignal(pane.turn_finished, timeout=10000) as done:
        pane.stop_btn.click()
    assert done.args[0].stop_reason == "cancelled"
    assert len(pane.assistant_text()) < 3000


def test_new_chat_and_shutdown_close_the_session_and_its_client(pane, fake_api, qtbot):
    """Issue 15: the pane closes the ChatSession it made (its SDK client and request threads)."""
    pane.key_edit.setText("dummy")
    assert pane.send("hi")
    _finish(qtbot, pane)
    first = pane._session
    assert first is not None and not first._sdk.is_closed()
    pane.new_chat()
    assert pane._session is None and first._sdk.is_closed()
    assert pane.send("again")
    _finish(qtbot, pane)
    second = pane._session
    assert second is not None and second is not first
    pane.shutdown()
    assert pane._session is None and second._sdk.is_closed()


def test_models_from_server(pane, fake_api, qtbot):
    pane.key_edit.setText("dummy")
    pane.refresh_models()
    qtbot.waitUntil(lambda: pane.model_combo.count() == 2, timeout=10000)
    assert [pane.model_combo.itemText(i) for i in range(2)] == ["claude-sonnet-5-5", "claude-haiku-5-5"]


def test_models_fallback_free_text(pane, fake_api, qtbot):
    fake_api.serve_models = False
    pane.key_edit.setText("dummy")
    pane.model_combo.setEditText("my-local-model")
    pane.refresh_models()
    qtbot.waitUntil(lambda: "type a model id" in pane.status.text(), timeout=10000)
    assert pane.current_settings().model == "my-local-model"


def test_auth_error_is_a_message_and_focuses_key(pane, fake_api, qtbot):
    fake_api.fail(401)
    pane.key_edit.setText("wrong")
    with qtbot.waitSignal(pane.turn_finished, timeout=15000) as done:
        pane.send("hi")
    assert done.args[0].error.kind == "auth"
    assert pane.settings_box.isVisible()


def test_shell_asks_user(pane, fake_api, qtbot):
    asked = []
    pane.approve_shell = lambda cmd: asked.append(cmd) or False
    fake_api.queue(tool_call("shell", {"command": "echo hi"}))
    pane.key_edit.setText("dummy")
    with qtbot.waitSignal(pane.turn_finished, timeout=15000):
        pane.send("run it")
    assert asked == ["echo hi"]
    assert "declined" in fake_api.message_requests[1].tool_results[0]["content"]


def test_key_saved_never_in_settings_file(pane, fake_api, qtbot, monkeypatch):
    from workbench.core.chat.settings import settings_path

    pane.key_edit.setText("sk-ant-GUI-SECRET")
    assert pane.save_key() is False  # no keyring here: memory only, and it says so
    assert "session only" in pane.status.text()
    with qtbot.waitSignal(pane.turn_finished, timeout=15000):
        pane.send("hello")
    assert "sk-ant-GUI-SECRET" not in settings_path().read_text()


def test_local_server_preset_sets_url_and_session_key(pane, qtbot):
    from workbench.app.chat.connection import SERVER_PRESETS

    i = next(n for n, (label, _) in enumerate(SERVER_PRESETS) if "Ollama" in label)
    assert pane.api_key()[0] is None
    pane.apply_preset(i)
    assert pane.base_url.text() == "http://localhost:11434"
    assert pane.api_key() == ("local", "typed")  # session only: nothing is stored
    assert not pane.key_banner.isVisible()
    assert "says little about" in pane.status.text()
    pane.apply_preset(0)
    assert pane.base_url.text() == ""


def test_fork_shows_subtranscript_and_substitution_marks(pane, fake_api, qtbot, catalog, artifacts):
    pdf = next(s for s in catalog.skills if s.name == "pdf")
    pdf.path.write_text(
        "---\nname: pdf\ndescription: Use for PDF files.\ncontext: fork\n"
        "agent: general-purpose\n---\n\nMerge the files $ARGUMENTS and report.\n"
    )
    pdf.fields.update({"context": "fork", "agent": "general-purpose"})  # as a rescan would read them
    fake_api.on("merge", tool_call("Skill", {"skill": "pdf", "args": "a.pdf b.pdf"}))
    fake_api.on("Merge the files", text("Merged both."))
    fake_api.after_tool = text("Done: merged.")
    pane.key_edit.setText("dummy")
    pane.input.setPlainText("merge my pdfs")
    with qtbot.waitSignal(pane.turn_finished, timeout=15000):
        pane.send_btn.click()
    rows = pane.tool_rows()
    skill_row = next(r for r in rows if r.title.startswith("Skill"))
    assert "⟦$ARGUMENTS→a.pdf b.pdf⟧" in skill_row.details.toPlainText()
    fork = next(r for r in rows if r.property("fork"))
    assert "does not see this conversation" in fork.title
    fork.button.click()
    assert "assistant: Merged both." in fork.details.toPlainText()
    turn = pane.trace.topLevelItem(0)
    kinds = [turn.child(i).text(0) for i in range(turn.childCount())]
    assert "fork" in kinds and "substitution" in kinds
    fork_item = turn.child(kinds.index("fork"))
    assert fork_item.childCount() >= 2  # the sub-transcript's own events
    pane.grab().save(str(artifacts / "chat_pane_fork.png"))
