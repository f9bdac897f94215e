"""End-to-end flows through the real main window (the issues' "Done when" scenarios).

Each test opens the real ``MainWindow`` (``open_window`` fixture) on a temporary workspace and a
fake HOME, drives real widgets with qtbot (mouse clicks on the tree and the tab bar, key clicks in
the editor, combo selections, button clicks, shortcuts) and talks to the fake Messages API server
(``tests/fakeapi.py``) through ``ANTHROPIC_BASE_URL`` + a dummy ``ANTHROPIC_API_KEY`` — the way a
user would point the app at a server. Only modal confirmations are stubbed, through the panes'
injectable hooks (``WorkshopPane.confirm``, ``EditorPane.conflict_prompt``) and, for File > Open
folder, the folder chooser (``QFileDialog.getExistingDirectory``).

1. Issue 7: chat ``propose_skill`` -> proposal card -> Review in Workshop -> diff/findings -> apply
   -> tree + listing show the skill -> roll back -> folder gone, tree + listing no longer show it.
2. Issue 4: tree -> Editor -> broken name -> squiggle + problem on line 2 -> quick fix -> description
   edit -> Ctrl+S -> exact bytes -> listing + tree show the saved description; an external change
   while editing -> conflict prompt (stubbed "cancel") -> nothing overwritten.
3. Issue 3: unsaved description edit -> listing text changes (< 1 s, figure printed) -> Ctrl+2 ->
   Codex's listing, with the unsaved description.
4. Issue 5: a matching chat request loads the skill (trace ``skill_loaded``, listing marks it);
   an unrelated one loads nothing.
5. Issue 6: Evals tab runs a 20-query set (live progress, chart), then "Improve description…" leaves
   a pending proposal that the Workshop tab shows.
6. File > Open folder switches every tab (tree, listing, workshop queue, evals skill list).

Screenshots of each final state: ``tests/_artifacts/flow_*.png``.

Faults these flows found (fixed in the app, each guarded by an assertion here):
* flow 1: ``make_workshop`` iterated the single ``Path`` that ``WorkshopPane.files_changed`` carries
  (TypeError in the slot), so an applied create never reached the tree or the listing;
* flow 2: the editor's debounced lint, firing after Ctrl+S, re-sent the saved text as an unsaved
  overlay; the context then kept showing that text whatever happened to the file on disk;
* flow 5: the Evals query-set advice label did not wrap, so inside the window the results table
  and chart were squeezed to a sliver.

Decision (spec silent): File > Open folder leaves the editor's open file open (it may hold unsaved
work); picking a skill in the new tree replaces it. Every other tab follows the new workspace.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QTextCharFormat, QTextCursor
from PySide6.QtWidgets import QApplication

from tests.fakeapi import fake_api, text, tool_call  # noqa: F401  (fixture)
from tests.gui.conftest import grab
from tests.helpers import NEG, POS, write_skill
from workbench.app.skills_tree import SkillRole
from workbench.core.model import Environment

pytestmark = pytest.mark.gui


# --------------------------------------------------------------------------------- helpers


@pytest.fixture(autouse=True)
def _api_env(monkeypatch):
    """No keyring; the key and the server come from the environment (set per test)."""
    monkeypatch.setenv("WORKBENCH_NO_KEYRING", "1")
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    monkeypatch.delenv("ANTHROPIC_BASE_URL", raising=False)


@pytest.fixture()
def window(open_window):
    """``open_window`` whose close never blocks on the unsaved-changes message box (a failing
    flow would otherwise hang at teardown): it answers "discard" unless a test replaces it."""

    def make(*a, **kw):
        win = open_window(*a, **kw)
        win.unsaved_prompt = lambda path: "discard"
        return win

    return make


def point_at(monkeypatch, url: str) -> None:
    """Point the chat and the evals at the fake server, as a user would from a shell."""
    monkeypatch.setenv("ANTHROPIC_BASE_URL", url)
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test-dummy")


def tree_hashes(root: Path) -> dict[str, str]:
    out: dict[str, str] = {}
    for dirpath, dirnames, filenames in os.walk(root):
        d = Path(dirpath)
        for n in dirnames:
            out[(d / n).relative_to(root).as_posix() + "/"] = "dir"
        for n in filenames:
            out[(d / n).relative_to(root).as_posix()] = hashlib.sha256((d / n).read_bytes()).hexdigest()
    return out


def tree_rows(win) -> dict[str, tuple[str, str]]:
    """name -> (status, description column) of every skill row the tree shows."""
    px = win.skills.proxy
    out = {}
    for r in range(px.rowCount()):
        parent = px.index(r, 0)
        for c in range(px.rowCount(parent)):
            s = px.data(px.index(c, 0, parent), SkillRole)
            out[s.name] = (px.data(px.index(c, 1, parent)), px.data(px.index(c, 3, parent)))
    return out


def click_tree_skill(qtbot, win, path: Path) -> None:
    """Click the tree row of ``path`` with the mouse."""
    src = win.skills.model.index_of_path(path)
    assert src.isValid(), f"{path} is not in the tree"
    idx = win.skills.proxy.mapFromSource(src)
    win.skills.tree.scrollTo(idx)
    rect = win.skills.tree.visualRect(idx)
    qtbot.mouseClick(win.skills.tree.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    assert win.ctx.selected_path == path


def click_tab(qtbot, win, key: str):
    """Click the tab ``key`` in the tab bar; returns its real (built) pane."""
    i = win.tabs.indexOf(win.panes[key])
    bar = win.tabs.tabBar()
    qtbot.mouseClick(bar, Qt.MouseButton.LeftButton, pos=bar.tabRect(i).center())
    assert win.tabs.currentIndex() == i
    return win.pane(key)


def press(qtbot, widget, key, modifier=Qt.KeyboardModifier.NoModifier) -> None:
    """A key press the way a user makes it: the window is active and ``widget`` has focus."""
    win = widget.window()
    win.activateWindow()
    widget.setFocus()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is win, timeout=2000)
    qtbot.keyClick(widget, key, modifier)


def select_range(editor, line: int, start_col: int, end_col: int | None = None) -> None:
    """Put the caret / a selection on 1-based ``line``, 0-based columns (end None = end of line)."""
    block = editor.document().findBlockByNumber(line - 1)
    cur = QTextCursor(block)
    cur.setPosition(block.position() + start_col)
    end = block.position() + (len(block.text()) if end_col is None else end_col)
    cur.setPosition(end, QTextCursor.MoveMode.KeepAnchor)
    editor.setTextCursor(cur)
    editor.setFocus()


def squiggle_blocks(editor) -> list[int]:
    return [
        s.cursor.block().blockNumber()
        for s in editor.extraSelections()
        if s.format.underlineStyle() == QTextCharFormat.UnderlineStyle.WaveUnderline
    ]


def settle(win) -> None:
    """Wait for a running scan and pending incremental updates, then process events."""
    win.settle(60_000)
    QApplication.processEvents()


# ------------------------------------------------------------------- 1. chat -> workshop (issue 7)

NEW_SKILL = (
    "---\nname: changelog-writer\ndescription: Use when the user asks for release notes or a "
    "CHANGELOG entry from recent commits.\n---\n# Changelog writer\n\n1. Read `git log`.\n"
    "2. Group by type.\n"
)


def test_flow_chat_proposal_review_apply_rollback(
    window, qtbot, tmp_path, fake_home, fake_api, monkeypatch, artifacts
):
    ws = tmp_path / "proj"
    write_skill(ws / ".claude" / "skills" / "alpha", "alpha", "Use when testing alpha things.")
    env = Environment(workspace=ws, home=fake_home, env={}, bins=set())
    point_at(monkeypatch, fake_api.url)
    fake_api.on(
        "changelog skill",
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
    fake_api.after_tool = text("The draft is waiting in the Workshop; nothing is installed yet.")
    before = tree_hashes(ws)

    win = window(env, client_id="claude-code")
    assert set(tree_rows(win)) == {"alpha"}
    chat = click_tab(qtbot, win, "chat")
    assert not chat.propose_check.isChecked()  # off by default: the person opts in
    chat.propose_check.setChecked(True)
    qtbot.keyClicks(chat.input, "please write me a changelog skill")
    with qtbot.waitSignal(chat.turn_finished, timeout=30_000) as done:
        qtbot.mouseClick(chat.send_btn, Qt.MouseButton.LeftButton)
    assert done.args[0].error is None, done.args[0].error
    cards = chat.proposal_cards()
    assert len(cards) == 1 and "(pending)" in cards[0].title.text()
    assert tree_hashes(ws) == before  # nothing written by the chat
    pid = cards[0].proposal_id

    # "Review in Workshop" switches to the Workshop tab with the proposal selected
    chat.scroll.ensureWidgetVisible(cards[0].button)
    qtbot.mouseClick(cards[0].button, Qt.MouseButton.LeftButton)
    assert win.tabs.currentWidget() is win.panes["workshop"]
    wpane = win.pane("workshop")
    assert wpane.current is not None and wpane.current.id == pid and wpane.current.state == "pending"
    assert "Use when the user asks for release notes" in wpane.diff_view.toPlainText()
    assert wpane.file_combo.count() == 2  # SKILL.md + references/format.md
    qtbot.mouseClick(
        wpane.tabs.tabBar(),
        Qt.MouseButton.LeftButton,
        pos=wpane.tabs.tabBar().tabRect(wpane.findings_index).center(),
    )
    tops = [
        wpane.findings_tree.topLevelItem(i).text(0) for i in range(wpane.findings_tree.topLevelItemCount())
    ]
    assert tops[0].startswith("Scanner (") and tops[1].startswith("Lint")
    assert wpane.tabs.tabText(wpane.findings_index).startswith("Findings (")

    # apply (confirmation stubbed): the skill appears in the tree and in the Listing tab
    confirms: list[str] = []
    wpane.confirm = lambda title, body: confirms.append(title) or True
    assert wpane.buttons["apply"].isEnabled()
    qtbot.mouseClick(wpane.buttons["apply"], Qt.MouseButton.LeftButton)
    target = ws / ".claude" / "skills" / "changelog-writer"
    assert (target / "SKILL.md").read_bytes() == NEW_SKILL.encode(), wpane.message.text()
    qtbot.waitUntil(lambda: "changelog-writer" in tree_rows(win), timeout=10_000)
    settle(win)
    assert tree_rows(win)["changelog-writer"][0] == "listed in full"
    click_tab(qtbot, win, "listing")
    assert "- changelog-writer: Use when the user asks for release notes" in win.listing.text.toPlainText()
    grab(win, artifacts / "flow_1_applied.png")

    # roll back: the folder is gone, the workspace is byte-for-byte as before
    click_tab(qtbot, win, "workshop")
    assert wpane.current.id == pid and wpane.current.state == "applied"
    qtbot.mouseClick(wpane.buttons["rollback"], Qt.MouseButton.LeftButton)
    assert not target.exists(), wpane.message.text()
    assert tree_hashes(ws) == before
    qtbot.waitUntil(lambda: "changelog-writer" not in tree_rows(win), timeout=10_000)
    settle(win)
    assert "changelog-writer" not in win.listing.text.toPlainText()
    assert confirms == ["Apply changelog-writer", "Roll back changelog-writer"]
    grab(win, artifacts / "flow_1_rolled_back.png")


# -------------------------------------------------------------- 2. editor in the window (issue 4)

ALPHA = "---\nname: alpha\ndescription: Use when testing alpha things.\n---\n# Alpha\n\nRun `ls`.\n"


def test_flow_editor_quick_fix_save_and_external_conflict(window, qtbot, tmp_path, fake_home, artifacts):
    ws = tmp_path / "proj"
    alpha = write_skill(ws / ".claude" / "skills" / "alpha", raw=ALPHA)
    write_skill(ws / ".claude" / "skills" / "beta", "beta", "Use when testing beta things.")
    env = Environment(workspace=ws, home=fake_home, env={}, bins=set())
    win = window(env, client_id="claude-code", watch=True)

    click_tree_skill(qtbot, win, alpha)
    pane = click_tab(qtbot, win, "editor")
    asked: list[tuple[str, str | None]] = []
    answer = {"value": "cancel"}

    def prompt(_parent, path, mine, theirs):
        asked.append((path, theirs))
        return answer["value"]

    pane.conflict_prompt = prompt
    qtbot.waitUntil(lambda: pane.path == str(alpha) and bool(pane.applied_tokens), timeout=10_000)
    assert pane.text() == ALPHA
    ed = pane.editor

    # a broken name: squiggle + problem entry on line 2
    select_range(ed, 2, len("name: "))
    with qtbot.waitSignal(pane.lint_applied, timeout=10_000):
        qtbot.keyClicks(ed, "Alpha")
    qtbot.waitUntil(lambda: any(it.code == "NAME003" for it in ed.diagnostics.items), timeout=10_000)
    name_diag = next(it for it in ed.diagnostics.items if it.code == "NAME003")
    assert name_diag.block_number() == 1
    assert 1 in squiggle_blocks(ed)
    rows = [pane.problems.topLevelItem(i) for i in range(pane.problems.topLevelItemCount())]
    assert any(r.text(2) == "NAME003" and r.text(1).startswith("2:") for r in rows)

    # the quick fix (context menu at the caret)
    menu = ed.build_context_menu(ed.textCursor().position() - 1)
    fixes = [a for a in menu.actions() if a.text().startswith("Fix:") and "NAME003" in a.text()]
    assert fixes, [a.text() for a in menu.actions()]
    fixes[0].trigger()
    menu.deleteLater()
    assert pane.text() == ALPHA

    # a new description, saved with Ctrl+S
    new_desc = "Use when the flux capacitor needs recalibrating."
    select_range(ed, 3, len("description: "))
    qtbot.keyClicks(ed, new_desc)
    expected = ALPHA.replace("Use when testing alpha things.", new_desc)
    assert pane.text() == expected and pane.has_unsaved_changes()
    with qtbot.waitSignal(pane.saved, timeout=5000):
        press(qtbot, ed, Qt.Key.Key_S, Qt.KeyboardModifier.ControlModifier)
    assert alpha.read_bytes() == expected.encode()
    assert not pane.has_unsaved_changes()
    qtbot.waitUntil(lambda: tree_rows(win)["alpha"][1] == new_desc, timeout=10_000)
    settle(win)
    assert f"- alpha: {new_desc}" in win.listing.text.toPlainText()
    assert not win.ctx.has_overlay(alpha)
    assert asked == []  # our own save is not an external change

    # an external change while editing: the conflict prompt, nothing overwritten
    qtbot.keyClicks(ed, " Really.")
    qtbot.waitUntil(
        lambda: tree_rows(win)["alpha"][1] == new_desc + " Really.", timeout=10_000
    )  # unsaved: live
    assert pane.has_unsaved_changes()
    theirs = ALPHA.replace("Use when testing alpha things.", "Changed by another program.").encode()
    alpha.write_bytes(theirs)
    qtbot.waitUntil(lambda: len(asked) == 1, timeout=10_000)  # the watcher saw it
    assert asked[0][1] == theirs.decode()
    assert alpha.read_bytes() == theirs
    assert "Really." in pane.text() and pane.has_unsaved_changes()
    # saving now asks again (hash mismatch); "cancel" writes nothing
    press(qtbot, ed, Qt.Key.Key_S, Qt.KeyboardModifier.ControlModifier)
    assert len(asked) == 2 and alpha.read_bytes() == theirs
    assert "Really." in pane.text()
    settle(win)
    # the tree and listing keep showing the buffer (unsaved edits win over the disk file)
    assert tree_rows(win)["alpha"][1] == new_desc + " Really."
    assert win.ctx.has_overlay(alpha)
    grab(win, artifacts / "flow_2_editor_conflict.png")
    # closing the window asks about the unsaved buffer (stubbed: discard); the disk keeps theirs
    closing: list[str] = []
    win.unsaved_prompt = lambda path: closing.append(path) or "discard"
    assert win.close()
    assert closing == [str(alpha)] and alpha.read_bytes() == theirs


# ------------------------------------------------------------- 3. live listing + Ctrl+2 (issue 3)


def test_flow_live_listing_then_codex_with_ctrl_2(window, qtbot, tmp_path, fake_home, artifacts):
    # No client roots in the workspace: it is an extra root for every client, so both Claude
    # Code and Codex list the skill being edited.
    ws = tmp_path / "proj"
    alpha = write_skill(ws / "pack" / "alpha", raw=ALPHA)
    write_skill(ws / "pack" / "beta", "beta", "Use when testing beta things.")
    env = Environment(workspace=ws, home=fake_home, env={}, bins=set())
    win = window(env, client_id="claude-code")
    assert win.ctx.extra_root == ws

    click_tree_skill(qtbot, win, alpha)
    pane = click_tab(qtbot, win, "editor")
    qtbot.waitUntil(lambda: pane.path == str(alpha), timeout=10_000)
    click_tab(qtbot, win, "listing")  # the user watches the listing; the editor buffer is live
    ed = pane.editor
    select_range(ed, 3, len(ALPHA.splitlines()[2]))  # end of the description line
    ed.setFocus()
    # type all but the last character, let that settle, then time the last keystroke
    qtbot.keyClicks(ed, " Also for flux checks")
    settle(win)
    assert "Also for flux check" in win.listing.text.toPlainText()
    t0 = time.perf_counter()
    qtbot.keyClicks(ed, "!")
    qtbot.waitUntil(lambda: "Also for flux checks!" in win.listing.text.toPlainText(), timeout=5000)
    elapsed = time.perf_counter() - t0
    print(
        f"\nkeystroke -> Listing tab text: {elapsed * 1000:.0f} ms "
        f"(editor lint debounce {pane.LINT_DELAY_MS} ms; incremental update "
        f"{win.ctx.last_update_seconds * 1000:.1f} ms)"
    )
    assert elapsed < 1.0, f"listing took {elapsed:.2f} s"
    assert pane.has_unsaved_changes() and alpha.read_bytes() == ALPHA.encode()
    claude_text = win.listing.text.toPlainText()
    assert claude_text.startswith("The following skills are available for use with the Skill tool")

    # Ctrl+2: Codex, with the unsaved description
    with qtbot.waitSignal(win.ctx.client_changed, timeout=5000):
        press(qtbot, win.listing.text, Qt.Key.Key_2, Qt.KeyboardModifier.ControlModifier)
    assert win.ctx.client_id == "codex" and win.client_combo.currentData() == "codex"
    settle(win)
    codex_text = win.listing.text.toPlainText()
    assert codex_text.startswith("<skills_instructions>")
    # Codex 0.169.0 writes paths through its skill-roots table (r0, r1, ...)
    line = next(ln for ln in codex_text.split("\n") if ln.startswith("- alpha: "))
    assert line.startswith("- alpha: Use when testing alpha things. Also for flux checks! (file: r")
    assert line.endswith(f"/{alpha.parent.name}/SKILL.md)")
    assert "Codex" in win.listing.header.text()
    assert tree_rows(win)["alpha"][1].endswith("Also for flux checks!")
    grab(win, artifacts / "flow_3_codex_listing.png")


# ------------------------------------------------------------------ 4. chat loads a skill (issue 5)


def test_flow_chat_loads_skill_and_listing_marks_it(
    window, qtbot, tmp_path, fake_home, fake_api, monkeypatch, artifacts
):
    ws = tmp_path / "proj"
    sk = ws / ".claude" / "skills"
    write_skill(
        sk / "pdf",
        "pdf",
        "Use for PDF files - merge, split, extract, fill forms.",
        body="# PDF\n\nUse pypdf.\n",
    )
    write_skill(sk / "csv", "csv", "Use for CSV files and charts.", body="# CSV\n")
    env = Environment(workspace=ws, home=fake_home, env={}, bins=set())
    point_at(monkeypatch, fake_api.url)
    fake_api.on("merge these two PDFs", tool_call("Skill", {"skill": "pdf"}))
    fake_api.after_tool = text("Merged with pypdf.")
    win = window(env, client_id="claude-code")
    chat = click_tab(qtbot, win, "chat")

    def turn(msg: str):
        qtbot.keyClicks(chat.input, msg)
        with qtbot.waitSignal(chat.turn_finished, timeout=30_000) as done:
            qtbot.mouseClick(chat.send_btn, Qt.MouseButton.LeftButton)
        assert done.args[0].error is None, done.args[0].error
        return done.args[0]

    res = turn("please merge these two PDFs into one")
    assert res.triggered == ["pdf"]
    item = chat.trace.topLevelItem(0)
    kinds = [item.child(i).text(0) for i in range(item.childCount())]
    assert "skill_loaded" in kinds and kinds.index("tool_use") < kinds.index("skill_loaded")
    assert item.child(kinds.index("skill_loaded")).text(1).startswith("pdf via Skill")
    assert win.ctx.loaded_names == {"pdf"}
    click_tab(qtbot, win, "listing")
    tm = win.listing.table_model
    names = [tm.data(tm.index(r, 0)) for r in range(tm.rowCount())]
    assert "pdf  ⟵ loaded" in names and "csv" in names
    from workbench.app import icons

    tinted = [
        s
        for s in win.listing.text.extraSelections()
        if s.format.background().color() == icons.color("listing", "loaded_bg")
    ]
    assert len(tinted) == 1 and tinted[0].cursor.selectedText().startswith("- pdf:")
    assert "Merged with pypdf." in chat.assistant_text()

    # an unrelated request loads nothing
    click_tab(qtbot, win, "chat")
    res2 = turn("what's the weather tomorrow?")
    assert res2.triggered == []
    item2 = chat.trace.topLevelItem(1)
    kinds2 = [item2.child(i).text(0) for i in range(item2.childCount())]
    assert "skill_loaded" not in kinds2 and "tool_use" not in kinds2
    assert win.ctx.loaded_names == {"pdf"}
    click_tab(qtbot, win, "listing")
    names = [tm.data(tm.index(r, 0)) for r in range(tm.rowCount())]
    assert names.count("csv") == 1 and "csv  ⟵ loaded" not in names
    grab(win, artifacts / "flow_4_loaded.png")
    click_tab(qtbot, win, "chat")
    chat.trace.setCurrentItem(item.child(kinds.index("skill_loaded")))
    grab(win, artifacts / "flow_4_chat_trace.png")


# --------------------------------------------------------------- 5. evals + improve (issue 6)


def test_flow_evals_run_and_improve_to_workshop(window, qtbot, tmp_path, fake_home, monkeypatch, artifacts):
    from tests.evals.conftest import EvalFake

    ws = tmp_path / "proj"
    sk = ws / ".claude" / "skills"
    pdf = write_skill(sk / "pdf", "pdf", "Use for PDF files - merge, split.", body="# PDF\n")
    write_skill(sk / "csv", "csv", "Use for CSV files and charts.", body="# CSV\n")
    (ws / "evals").mkdir()
    (ws / "evals" / "pdf.json").write_text(
        json.dumps(
            [{"query": q, "should_trigger": True} for q in POS]
            + [{"query": q, "should_trigger": False} for q in NEG]
        )
    )
    env = Environment(workspace=ws, home=fake_home, env={}, bins=set())
    with EvalFake() as fake:
        # the current description triggers on merge/split requests only; a description with the
        # marker (the improver's reply) triggers on every PDF request
        load = [[tool_call("Skill", {"skill": "pdf"})]]
        miss = [[text("Here is how you could do that by hand.")]]
        fake.plans = {q: (load if i in (0, 3, 5, 7) else miss) for i, q in enumerate(POS)}
        fake.plans.update({q: [[text("ok")]] for q in NEG})
        fake.plans[NEG[0]] = [[tool_call("Skill", {"skill": "csv"})]]
        good = {q: load for q in POS}
        good.update({q: [[text("ok")]] for q in NEG})
        fake.alt_plans = [("WHOLE-PDF-LIFECYCLE", good)]
        fake.improver_replies = [
            "<new_description>Use this skill for the WHOLE-PDF-LIFECYCLE: create, edit, "
            "merge, split, sign, OCR or read PDF files.</new_description>"
        ] * 5
        point_at(monkeypatch, fake.url)
        before = pdf.read_bytes()
        win = window(env, client_id="claude-code")
        wshop = click_tab(qtbot, win, "workshop")  # built before: it must refresh on its own
        assert wshop.model.rows == []
        pane = click_tab(qtbot, win, "evals")
        i = pane.skill_combo.findText("pdf")
        assert i >= 0
        pane.skill_combo.setCurrentIndex(i)  # the workspace's evals/pdf.json is loaded
        assert len(pane.queries()) == 20 and "10 should trigger" in pane.queries_label.text()

        with qtbot.waitSignal(pane.finished, timeout=120_000) as run:
            qtbot.mouseClick(pane.run_btn, Qt.MouseButton.LeftButton)
            assert pane.running and not pane.run_btn.isEnabled()
            qtbot.waitUntil(lambda: 0 < pane.progress.value() < pane.progress.maximum(), timeout=60_000)
        rep = run.args[0]
        qtbot.waitUntil(lambda: not pane.running, timeout=10_000)
        dones = [d for d, _t in pane.progress_seen]
        assert dones == list(range(1, 61))  # live, one step per run (20 queries x 3 runs)
        sm = rep.summary
        assert (sm.total, sm.passed, sm.failed, sm.errored) == (20, 14, 6, 0), rep.summary
        assert (
            len(pane.chart.rows) == 20
            and pane.chart.rows[0]["rate"] == 1.0
            and pane.chart.rows[1]["rate"] == 0.0
        )
        assert (
            pane.results_table.item(1, 8).text() == "FAIL"
            and pane.results_table.item(10, 7).text() == "csv×3"
        )
        assert "14/20 passed" in pane.summary_label.text()
        # the results + chart part is not squeezed by the query box (its advice label wraps)
        top, bottom = pane.splitter.sizes()
        assert bottom > top and pane.queries_label.wordWrap(), (top, bottom)
        grab(win, artifacts / "flow_5_eval_run.png")

        # Improve description…: a pending proposal in the Workshop tab
        pane.runs_spin.setValue(1)
        with qtbot.waitSignal(pane.proposal_created, timeout=120_000) as made:
            qtbot.mouseClick(pane.improve_btn, Qt.MouseButton.LeftButton)
        pid = made.args[0]
        qtbot.waitUntil(lambda: not pane.running, timeout=10_000)
        assert pid in pane.status.text()
        assert pdf.read_bytes() == before  # nothing applied
        assert fake.improver_requests
        # the Workshop pane (already built) lists it without a manual refresh
        assert [p.id for p in wshop.model.rows] == [pid]
        click_tab(qtbot, win, "workshop")
        assert wshop.select(pid)
        assert wshop.current.state == "pending" and wshop.current.source == "eval"
        assert "WHOLE-PDF-LIFECYCLE" in wshop.diff_view.toPlainText()
        grab(win, artifacts / "flow_5_improve_workshop.png")


# --------------------------------------------------------------------- 6. File > Open folder


def test_flow_open_folder_switches_every_tab(
    window, qtbot, tmp_path, fake_home, fake_api, monkeypatch, artifacts
):
    from PySide6.QtWidgets import QFileDialog

    from workbench.core.workshop import WorkshopStore

    old = tmp_path / "old"
    write_skill(old / ".claude" / "skills" / "alpha", "alpha", "Use when testing alpha things.")
    WorkshopStore(old).propose_create(
        "old-draft",
        "---\nname: old-draft\ndescription: Use when old.\n---\n# O\n",
        {},
        old / ".claude" / "skills",
        "test",
        "",
    )
    new = tmp_path / "new"
    one = write_skill(new / ".claude" / "skills" / "one", "one", "Use when doing the first thing.")
    write_skill(new / ".claude" / "skills" / "two", "two", "Use when doing the second thing.")
    new_p = WorkshopStore(new).propose_create(
        "three",
        "---\nname: three\ndescription: Use when doing the third thing.\n---\n# T\n",
        {},
        new / ".claude" / "skills",
        "test",
        "",
    )
    win = window(Environment(workspace=old, home=fake_home, env={}, bins=set()), client_id="claude-code")
    # build every tab on the old workspace first
    click_tree_skill(qtbot, win, old / ".claude" / "skills" / "alpha" / "SKILL.md")
    editor = click_tab(qtbot, win, "editor")
    wshop = click_tab(qtbot, win, "workshop")
    evals = click_tab(qtbot, win, "evals")
    point_at(monkeypatch, fake_api.url)
    chat = click_tab(qtbot, win, "chat")
    with qtbot.waitSignal(chat.turn_finished, timeout=30_000):
        assert chat.send("hello")
    assert "- alpha: Use when testing alpha things." in json.dumps(fake_api.message_requests[-1].body)
    assert [p.name for p in wshop.model.rows] == ["old-draft"]
    assert [evals.skill_combo.itemText(i) for i in range(evals.skill_combo.count())] == ["alpha"]
    click_tab(qtbot, win, "listing")

    chosen: list[str] = []
    monkeypatch.setattr(
        QFileDialog,
        "getExistingDirectory",
        staticmethod(lambda parent, title, start: chosen.append(start) or str(new)),
    )
    win.actions["open_folder"].trigger()
    assert chosen == [str(old)]
    assert win.settle(60_000)
    assert win.ctx.env.workspace == new
    assert set(tree_rows(win)) == {"one", "two"}
    text_now = win.listing.text.toPlainText()
    assert "- one: Use when doing the first thing." in text_now and "alpha" not in text_now
    assert [p.id for p in wshop.model.rows] == [new_p.id]
    assert [evals.skill_combo.itemText(i) for i in range(evals.skill_combo.count())] == ["one", "two"]
    assert "new" in win.windowTitle()
    assert win.ctx.selected_path is None
    assert win.details.empty.isVisible() and "Select one in the tree" in win.details.empty.label.text()
    # the chat's next message is a new conversation over the new catalog
    click_tab(qtbot, win, "chat")
    qtbot.waitUntil(lambda: not chat.is_busy(), timeout=10_000)
    with qtbot.waitSignal(chat.turn_finished, timeout=30_000):
        assert chat.send("hello again")
    sent = json.dumps(fake_api.message_requests[-1].body)
    assert "- one: Use when doing the first thing." in sent and "alpha" not in sent
    # Decision: an editor buffer stays open across Open folder (it may hold unsaved work); the
    # next skill picked in the new tree replaces it.
    assert editor.path == str(old / ".claude" / "skills" / "alpha" / "SKILL.md")
    click_tab(qtbot, win, "listing")
    click_tree_skill(qtbot, win, one)
    qtbot.waitUntil(lambda: editor.path == str(one), timeout=5000)
    grab(win, artifacts / "flow_6_open_folder.png")
