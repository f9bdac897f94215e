"""Chat → Workshop, through real widgets (pytest-qt, offscreen) against the fake Messages API.

The scripted model calls ``propose_skill``; the ChatPane shows a proposal card and emits
``proposal_created``; a WorkshopPane on the same workspace store lists it; applying writes the
proposed bytes, rolling back restores the previous bytes (a create's folder is removed).
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import pytest

from tests.fakeapi import fake_api, text, tool_call  # noqa: F401  (fixture)
from tests.helpers import write_skill

pytestmark = pytest.mark.gui

NEW_SKILL = (
    "---\nname: changelog-writer\ndescription: Use when the user asks for release notes or a "
    "CHANGELOG entry from recent commits.\n---\n# Changelog writer\n\n1. Read `git log`.\n"
    "2. Group by type.\n"
)
ALPHA = "---\nname: alpha\ndescription: Use when testing alpha.\n---\n# Alpha\n\nRun `ls`.\n"
ALPHA_NEW = (
    "---\nname: alpha\ndescription: Use when the user asks to test alpha, or mentions alpha "
    "runs.\n---\n# Alpha\n\nRun `ls -la`.\n"
)


@pytest.fixture(autouse=True)
def _no_key_env(monkeypatch):
    monkeypatch.setenv("WORKBENCH_NO_KEYRING", "1")
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    monkeypatch.delenv("ANTHROPIC_BASE_URL", raising=False)


def tree_hashes(root: Path) -> dict[str, str]:
    out: dict[str, str] = {}
    for dirpath, dirnames, filenames in os.walk(root):
        d = Path(dirpath)
        for n in dirnames:
            out[(d / n).relative_to(root).as_posix() + "/"] = "dir"
        for n in filenames:
            out[(d / n).relative_to(root).as_posix()] = hashlib.sha256((d / n).read_bytes()).hexdigest()
    return out


@pytest.fixture()
def world(tmp_path):
    from workbench.core.discovery import scan
    from workbench.core.model import Environment

    ws = tmp_path / "ws"
    alpha = write_skill(ws / ".claude" / "skills" / "alpha", raw=ALPHA)
    home = tmp_path / "home"
    home.mkdir()
    env = Environment(workspace=ws, home=home, env={}, bins=set())
    cat = scan(env, "claude-code")
    assert [s.name for s in cat.listed()] == ["alpha"]
    return ws, alpha, cat


@pytest.fixture()
def chat(qtbot, world, fake_api):
    from workbench.app.chat_pane import ChatPane
    from workbench.core.chat.settings import ChatSettings

    _ws, _alpha, cat = world
    p = ChatPane(
        lambda: (cat, 200_000),
        settings=ChatSettings(base_url=fake_api.url, max_retries=0),
        environ={},
        allow_propose=True,
    )
    qtbot.addWidget(p)
    p.key_edit.setText("dummy")
    yield p
    p.shutdown()


def test_drafts_are_off_by_default(qtbot, world, fake_api):
    """Issue 12 item 3: the window, like the CLI, offers propose_skill only when the person opts in."""
    from workbench.app.chat_pane import ChatPane
    from workbench.core.chat.settings import ChatSettings

    cat = world[2]
    p = ChatPane(
        lambda: (cat, 200_000), settings=ChatSettings(base_url=fake_api.url, max_retries=0), environ={}
    )
    qtbot.addWidget(p)
    assert not p.propose_check.isChecked()
    p.shutdown()


def _turn(qtbot, pane, msg):
    pane.input.setPlainText(msg)
    with qtbot.waitSignal(pane.proposal_created, timeout=20000) as created:
        with qtbot.waitSignal(pane.turn_finished, timeout=20000) as done:
            pane.send_btn.click()
    assert done.args[0].error is None, done.args[0].error
    qtbot.waitUntil(lambda: not pane.is_busy(), timeout=10000)  # the worker exits just after finishing
    return created.args[0]


def test_chat_proposal_to_workshop_apply_and_rollback(qtbot, world, chat, fake_api, artifacts):
    from PySide6.QtWidgets import QSplitter

    assert chat.propose_check.isChecked()  # the fixture opted in

    fake_api.on(
        "changelog",
        tool_call(
            "propose_skill",
            {
                "action": "create",
                "name": "changelog-writer",
                "skill_md": NEW_SKILL,
                "files": {"references/format.md": "# Format\n"},
                "note": "asked for in chat",
            },
            text="I'll draft a changelog skill for you to review.",
        ),
    )
    fake_api.on(
        "alpha", tool_call("propose_skill", {"action": "update", "name": "alpha", "skill_md": ALPHA_NEW})
    )
    fake_api.after_tool = text("The draft is waiting in the Workshop; nothing is installed yet.")

    split = QSplitter()
    qtbot.addWidget(split)
    split.addWidget(chat)
    try:
        _run_scenario(qtbot, world, chat, fake_api, artifacts, split)
    finally:  # the chat fixture owns (and shuts down) the chat pane: take it back from the splitter
        chat.setParent(None)


def _run_scenario(qtbot, world, chat, fake_api, artifacts, split):
    from workbench.app.workshop_pane import WorkshopPane
    from workbench.core.workshop import WorkshopStore

    ws, alpha, _cat = world
    original = alpha.read_bytes()
    before = tree_hashes(ws)
    split.resize(1600, 800)
    split.show()
    qtbot.waitExposed(split)

    create_id = _turn(qtbot, chat, "write me a changelog skill")
    update_id = _turn(qtbot, chat, "make the alpha description better")
    assert chat.proposals == [create_id, update_id]
    cards = chat.proposal_cards()
    assert [c.title.text() for c in cards] == [
        f"Proposal {create_id} (pending) — review in Workshop",
        f"Proposal {update_id} (pending) — review in Workshop",
    ]
    assert "Nothing was written" in cards[0].detail.text()
    assert cards[0].detail.toolTip().endswith("changelog-writer/SKILL.md")
    chat.scroll.ensureWidgetVisible(cards[0])
    qtbot.wait(20)
    assert not cards[0].button.visibleRegion().isEmpty()  # the button is not pushed out of view
    assert "nothing is installed yet" in chat.assistant_text()
    # the trace has the proposal event, the live tree is untouched
    turn = chat.trace.topLevelItem(0)
    kinds = [turn.child(i).text(0) for i in range(turn.childCount())]
    assert "proposal" in kinds and create_id in turn.child(kinds.index("proposal")).text(1)
    assert tree_hashes(ws) == before
    with qtbot.waitSignal(chat.review_requested, timeout=2000) as rr:
        cards[0].button.click()
    assert rr.args == [create_id]

    # a Workshop pane on the same workspace (its own WorkshopStore object, same store folder)
    confirms: list[str] = []
    wpane = WorkshopPane(
        ws, confirm=lambda title, body: confirms.append(title) or True, ask_reason=lambda t, label: ""
    )
    split.addWidget(wpane)
    split.setSizes([700, 900])
    assert {p.id for p in wpane.model.rows} == {create_id, update_id}
    assert wpane.select(create_id)
    assert wpane.current.state == "pending" and wpane.current.source == "chat"
    assert "Use when the user asks for release notes" in wpane.diff_view.toPlainText()
    chat.scroll.verticalScrollBar().setValue(0)
    qtbot.wait(50)
    assert split.grab().save(str(artifacts / "chat_proposal.png"))

    # apply the create: the skill appears with the proposed bytes
    target = ws / ".claude" / "skills" / "changelog-writer"
    assert wpane.trigger("apply"), wpane.message.text()
    assert (target / "SKILL.md").read_bytes() == NEW_SKILL.encode()
    assert (target / "references" / "format.md").read_bytes() == b"# Format\n"
    # apply the update: the live file gets the proposed bytes
    assert wpane.select(update_id)
    assert wpane.trigger("apply"), wpane.message.text()
    assert alpha.read_bytes() == ALPHA_NEW.encode()
    store = WorkshopStore(ws)
    assert store.get(create_id).state == "applied" and store.get(update_id).state == "applied"

    # roll both back: exact previous bytes, the created folder gone
    assert wpane.select(update_id) and wpane.trigger("rollback"), wpane.message.text()
    assert alpha.read_bytes() == original
    assert wpane.select(create_id) and wpane.trigger("rollback"), wpane.message.text()
    assert not target.exists()
    assert tree_hashes(ws) == before
    assert confirms == [
        "Apply changelog-writer",
        "Apply alpha",
        "Roll back alpha",
        "Roll back changelog-writer",
    ]


def test_drafts_checkbox_off_does_not_offer_the_tool(qtbot, chat, fake_api):
    chat.propose_check.setChecked(False)
    with qtbot.waitSignal(chat.turn_finished, timeout=20000):
        assert chat.send("hello")
    assert "propose_skill" not in fake_api.message_requests[-1].tool_names
    chat.propose_check.setChecked(True)
    qtbot.waitUntil(lambda: not chat.is_busy(), timeout=10000)  # the worker exits just after finishing
    with qtbot.waitSignal(chat.turn_finished, timeout=20000):
        assert chat.send("hello again")
    assert "propose_skill" in fake_api.message_requests[-1].tool_names
    assert "new conversation" in " ".join(
        chat.transcript_layout.itemAt(i).widget().text()
        for i in range(chat.transcript_layout.count())
        if hasattr(chat.transcript_layout.itemAt(i).widget(), "text")
    )


def test_refused_proposal_is_an_error_row_not_a_card(qtbot, chat, fake_api):
    fake_api.on(
        "escape",
        tool_call(
            "propose_skill", {"action": "create", "name": "x", "skill_md": NEW_SKILL, "files": {"../x": "y"}}
        ),
    )
    with qtbot.waitSignal(chat.turn_finished, timeout=20000) as done:
        assert chat.send("escape please")
    assert done.args[0].error is None
    assert chat.proposal_cards() == [] and chat.proposals == []
    rows = chat.tool_rows()
    assert len(rows) == 1 and "'..' leaves the skill folder" in rows[0].details.toPlainText()
    assert "error" in rows[0].details.toPlainText()
