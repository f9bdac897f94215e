"""Faults found by trying the product as a new user (QA pass); one test per fix, real widgets.

Each test failed before its fix. Panes are driven offscreen through pytest-qt, no mocks (the
fake Messages API from tests/fakeapi.py stands in for the network).
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from tests.fakeapi import fake_api, text, tool_call  # noqa: F401  (fixture)
from tests.helpers import write_skill

pytestmark = pytest.mark.gui


@pytest.fixture(autouse=True)
def _isolated(tmp_path, monkeypatch):
    monkeypatch.setenv("WORKBENCH_HOME", str(tmp_path / "wbhome"))
    monkeypatch.setenv("WORKBENCH_NO_KEYRING", "1")
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    monkeypatch.delenv("ANTHROPIC_BASE_URL", raising=False)


def _tables(frame):
    from PySide6.QtGui import QTextTable

    for f in frame.childFrames():
        if isinstance(f, QTextTable):
            yield f
        yield from _tables(f)


# -- (a) workshop diff header of a new file ------------------------------------------------------


@pytest.mark.parametrize("old", [None, b"---\nname: x\ndescription: short\n---\nbody\n"])
def test_diff_header_stays_on_one_line(qtbot, old):
    """A new file with a long line rendered "SKILL.md — (new file)" one character per line (the
    empty left half let Qt squeeze the header column); long lines now wrap inside their cell."""
    from PySide6.QtWidgets import QTextBrowser

    from workbench.app.workshop.render import diff_html

    new = b"---\nname: x\ndescription: " + b"long words " * 80 + b"\n---\nbody\n"
    view = QTextBrowser()
    qtbot.addWidget(view)
    view.resize(900, 600)
    view.show()
    view.setHtml(diff_html(old, new, "SKILL.md"))
    qtbot.wait(20)
    table = next(_tables(view.document().rootFrame()))
    head = table.cellAt(0, 0).firstCursorPosition().block()
    assert head.text().startswith("SKILL.md")
    assert head.layout().lineCount() == 1
    assert view.horizontalScrollBar().maximum() == 0  # wrapped, not wider than the view


# -- (d) + (e) workshop pane follows the workspace; preview results are not lost ------------------


def _ctx_for(tmp_path, qtbot):
    from workbench.app.context import AppContext
    from workbench.app.settings import Settings
    from workbench.core.model import Environment

    ws1, ws2 = tmp_path / "one", tmp_path / "two"
    write_skill(ws1 / ".claude" / "skills" / "alpha", "alpha", "Use when alpha.")
    write_skill(ws2 / ".claude" / "skills" / "beta", "beta", "Use when beta.")
    home = tmp_path / "home"
    home.mkdir()
    ctx = AppContext(Settings(persist=False), Environment(workspace=ws1, home=home), watch=False)
    ctx.rescan()
    assert ctx.wait_for_scan(60_000)
    return ctx, ws1, ws2, home


def test_workshop_pane_follows_open_folder(qtbot, tmp_path):
    from workbench.app.workshop_pane import WorkshopPane
    from workbench.core.model import Environment
    from workbench.core.workshop import WorkshopStore

    ctx, ws1, ws2, home = _ctx_for(tmp_path, qtbot)
    WorkshopStore(ws2).propose_create(
        "gamma",
        "---\nname: gamma\ndescription: Use when gamma.\n---\n# G\n",
        target_root=ws2 / ".claude" / "skills",
        source="cli",
    )
    pane = WorkshopPane(ctx, confirm=lambda t, x: True, ask_reason=lambda t, x: "")
    qtbot.addWidget(pane)
    assert pane.model.rowCount() == 0
    try:
        ctx.open_workspace(Environment(workspace=ws2, home=home))
        assert ctx.wait_for_scan(60_000)
        assert Path(pane.store.workspace).resolve() == ws2.resolve()
        assert [p.name for p in pane.model.rows] == ["gamma"]
    finally:
        ctx.shutdown()


class _SyncPool:
    """A thread pool that runs a job at once, on the calling thread: the job's signals fire
    before ``run_in_background`` returns, the worst case of a fast job."""

    def start(self, job):
        job.run()


def test_workshop_preview_result_not_lost_when_fast(qtbot, tmp_path, monkeypatch):
    from workbench.app import workers
    from workbench.app.workshop_pane import WorkshopPane
    from workbench.core.workshop import WorkshopStore

    ctx, ws1, _ws2, _home = _ctx_for(tmp_path, qtbot)
    try:
        p = WorkshopStore(ws1).propose_create(
            "delta",
            "---\nname: delta\ndescription: Use when delta.\n---\n# D\n",
            target_root=ws1 / ".claude" / "skills",
            source="cli",
        )
        pane = WorkshopPane(ctx, confirm=lambda t, x: True, ask_reason=lambda t, x: "")
        qtbot.addWidget(pane)
        assert pane.select(p.id)
        monkeypatch.setattr(workers.QThreadPool, "globalInstance", staticmethod(lambda: _SyncPool()))
        pane.tabs.setCurrentIndex(pane.preview_index)  # starts the (now instant) preview job
        qtbot.waitUntil(lambda: "delta" in pane.preview_after.toPlainText(), timeout=5000)
        assert "rendering" not in pane.preview_note.text()
    finally:
        ctx.shutdown()


# -- (b) + (c) chat pane --------------------------------------------------------------------------


@pytest.fixture()
def chat(qtbot, tmp_path, fake_api):
    from workbench.app.chat_pane import ChatPane
    from workbench.core.chat.settings import ChatSettings
    from workbench.core.discovery import scan
    from workbench.core.model import Environment

    coll = tmp_path / "skills"
    write_skill(coll / "pdf", "pdf", "Use for PDF files.", body="# PDF\n\nDo the PDF thing.\n")
    (tmp_path / "ws").mkdir()
    (tmp_path / "home").mkdir()
    env = Environment(
        workspace=tmp_path / "ws", home=tmp_path / "home", extra_roots=[coll], env={}, bins=set()
    )
    catalog = scan(env, "claude-code")
    pane = ChatPane(
        lambda: (catalog, 200_000), settings=ChatSettings(base_url=fake_api.url, max_retries=0), environ={}
    )
    qtbot.addWidget(pane)
    pane.resize(700, 600)
    pane.show()
    pane.key_edit.setText("dummy")
    yield pane
    pane.shutdown()


def test_chat_ready_when_turn_finished_fires(chat, qtbot, fake_api, monkeypatch):
    """``turn_finished`` used to fire while the worker thread was still alive, so a ``send()`` from
    a slot connected to it returned False. Here the worker lingers after its last signal."""
    from workbench.app import workers

    emit = workers.Job._emit

    def linger(job, name, *args):  # the worker thread sleeps after delivering the result
        emit(job, name, *args)
        if name == "returned":
            time.sleep(0.3)

    monkeypatch.setattr(workers.Job, "_emit", linger)
    answers: list[bool] = []
    chat.turn_finished.connect(
        lambda _res: answers.append(chat.send("second message")) if not answers else None
    )
    with qtbot.waitSignal(chat.turn_finished, timeout=15000):
        assert chat.send("first message")
    assert answers == [True]
    qtbot.waitUntil(lambda: len(chat.results) == 2, timeout=15000)


def test_chat_transcript_fits_its_view(chat, qtbot, fake_api):
    """A tool call with a long input made the row title (and so the transcript) wider than the
    view: a horizontal scrollbar and clipped bubbles. Titles are elided; the full text is the
    tooltip."""
    long_path = "/very/long/path/" + "segment/" * 40 + "report.pdf"
    fake_api.on("pdf", tool_call("Skill", {"skill": "pdf", "args": long_path}))
    with qtbot.waitSignal(chat.turn_finished, timeout=15000):
        assert chat.send("fill my pdf")
    qtbot.wait(50)
    rows = chat.tool_rows()
    assert rows and long_path in rows[0].button.toolTip()
    assert chat.transcript.minimumSizeHint().width() <= chat.scroll.viewport().width()
    assert chat.scroll.horizontalScrollBar().maximum() == 0
    assert rows[0].button.text().startswith("Skill")


# -- (f) closing the window with unsaved editor changes --------------------------------------------


@pytest.fixture()
def edited_window(open_window, tmp_path):
    from workbench.core.model import Environment

    ws = tmp_path / "ws"
    skill = write_skill(ws / ".claude" / "skills" / "alpha", "alpha", "Use when alpha.")
    (tmp_path / "h").mkdir()
    win = open_window(Environment(workspace=ws, home=tmp_path / "h"))
    editor = win.pane("editor")
    assert editor.open_file(skill)
    editor.editor.moveCursor(editor.editor.textCursor().MoveOperation.End)
    editor.editor.insertPlainText("More text.\n")
    assert editor.has_unsaved_changes()
    return win, editor, skill


@pytest.mark.parametrize("answer", ["cancel", "discard", "save"])
def test_close_with_unsaved_changes_asks(edited_window, answer):
    win, editor, skill = edited_window
    before = skill.read_text()
    asked: list[str] = []

    def prompt(path: str) -> str:
        asked.append(path)
        return answer

    win.unsaved_prompt = prompt
    closed = win.close()
    assert asked == [str(skill)]
    if answer == "cancel":
        assert not closed and win.isVisible() and editor.has_unsaved_changes()
        assert skill.read_text() == before
        win.unsaved_prompt = lambda _p: "discard"  # let the fixture close it
    elif answer == "discard":
        assert closed and skill.read_text() == before
    else:
        assert closed and skill.read_text().endswith("More text.\n")


def test_close_without_changes_does_not_ask(open_window, tmp_path):
    from workbench.core.model import Environment

    ws = tmp_path / "ws"
    write_skill(ws / ".claude" / "skills" / "alpha", "alpha", "Use when alpha.")
    win = open_window(Environment(workspace=ws, home=tmp_path))
    win.pane("editor")
    asked: list[str] = []
    win.unsaved_prompt = lambda p: asked.append(p) or "cancel"
    assert win.close()
    assert asked == []


# -- listing header: tags in the placement text, no listed skill ----------------------------------


def _rendered(label) -> str:
    from PySide6.QtGui import QTextDocument

    doc = QTextDocument()
    doc.setHtml(label.text())
    return doc.toPlainText()


def test_listing_header_shows_placement_tags(open_window, tmp_path):
    """Claude Code's placement reads "a <system-reminder> attachment"; the header showed
    "a attachment" (the tag was taken as HTML)."""
    from workbench.core.model import Environment

    ws = tmp_path / "ws"
    write_skill(ws / ".claude" / "skills" / "alpha", "alpha", "Use when alpha.")
    win = open_window(Environment(workspace=ws, home=tmp_path), client_id="claude-code")
    shown = _rendered(win.listing.header)
    assert "<system-reminder>" in shown
    assert "1 skill offered: 1 full." in shown


def test_listing_header_without_skills(open_window, tmp_path):
    from workbench.core.model import Environment

    ws = tmp_path / "ws"
    write_skill(
        ws / ".claude" / "skills" / "alpha",
        "alpha",
        "Use when alpha.",
        extra="disable-model-invocation: true\n",
    )
    win = open_window(Environment(workspace=ws, home=tmp_path), client_id="claude-code")
    shown = _rendered(win.listing.header)
    assert "0 skills offered." in shown and "offered: ." not in shown


# -- empty tree: say which client finds the skills ------------------------------------------------


def test_banner_says_which_client_finds_the_skills(open_window, tmp_path):
    """Opening a clone of anthropics/skills (skills/<name>/SKILL.md: OpenClaw's root) showed an
    empty Claude Code tree and no word about why."""
    from workbench.core.model import Environment

    ws = tmp_path / "repo"
    write_skill(ws / "skills" / "alpha", "alpha", "Use when alpha.")
    (tmp_path / "h").mkdir()
    win = open_window(Environment(workspace=ws, home=tmp_path / "h"), client_id="claude-code")
    # issue 13 item 1: a collection shows its skills for every client, and the banner says so
    assert win.banner.isVisible() and "Showing repo as a collection" in win.banner.text()
    assert [s.name for s in win.ctx.catalog().listed()] == ["alpha"]
    assert win.ctx.treatment.mode == "collection" and win.ctx.treatment.other == "project"
    win.ctx.set_workspace_mode(win.ctx.treatment.other)  # the banner's one-click toggle
    win.settle()
    assert win.ctx.treatment.mode == "project" and not win.ctx.catalog().skills
    assert win.banner.isVisible()
    assert "OpenClaw finds 1 skill under ./skills" in win.banner.text()
    assert "Show as a collection" in win.banner.text()
    win.ctx.set_client("openclaw")
    win.settle()
    assert not win.banner.isVisible() or "finds no SKILL.md" not in win.banner.text()


def test_chat_no_key_banner_speaks_of_this_pane(qtbot, tmp_path, fake_api):
    """The banner said "type a key in the chat settings" and "--base-url" (CLI words); the pane's
    fields are under "Connection"."""
    from workbench.app.chat_pane import ChatPane
    from workbench.core.chat.settings import ChatSettings

    pane = ChatPane(lambda: None, settings=ChatSettings(base_url=fake_api.url), environ={})
    qtbot.addWidget(pane)
    text = pane.key_banner.text()
    assert "Connection" in text and pane.settings_toggle.text() == "Connection"
    assert "--base-url" not in text and "ANTHROPIC_API_KEY" in text


# -- evals: the workspace's query set for the chosen skill ----------------------------------------


def test_evals_pane_loads_the_workspace_query_set(qtbot, tmp_path):
    """The demo ships evals/code-review.json, yet the Evals tab opened with an empty query set."""
    import json

    from workbench.app.evals_pane import EvalsPane
    from workbench.core.discovery import scan
    from workbench.core.model import Environment

    ws, home = tmp_path / "ws", tmp_path / "home"
    home.mkdir()
    write_skill(ws / ".claude" / "skills" / "alpha", "alpha", "Use when alpha.")
    write_skill(ws / ".claude" / "skills" / "beta", "beta", "Use when beta.")
    (ws / "evals").mkdir()
    (ws / "evals" / "beta.json").write_text(
        json.dumps(
            [{"query": "do beta", "should_trigger": True}, {"query": "make tea", "should_trigger": False}]
        )
    )
    env = Environment(workspace=ws, home=home, env={}, bins=set())
    cat = scan(env, "claude-code")
    pane = EvalsPane(provider=lambda: (env, "claude-code", cat, None), key_provider=lambda: "k")
    qtbot.addWidget(pane)
    assert pane.skill_combo.currentText() == "alpha" and pane.queries() == []  # no alpha.json
    pane.skill_combo.setCurrentText("beta")
    assert [q.query for q in pane.queries()] == ["do beta", "make tea"]
    pane.skill_combo.setCurrentText("alpha")  # the user's (loaded) queries are never replaced
    assert len(pane.queries()) == 2
