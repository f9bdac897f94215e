"""The editor pane through real widgets (pytest-qt, offscreen): typing, diagnostics, quick fixes,
saving exact bytes, stale lint results, find/replace, preview, hover."""

from __future__ import annotations

import re
import threading

import pytest
from PySide6.QtCore import QPoint, Qt, QUrl
from PySide6.QtGui import QTextCharFormat, QTextCursor, QTextDocument
from PySide6.QtWidgets import QApplication

from workbench.app.editor import EditorPane
from workbench.app.editor.highlighter import BODY, FENCE, FRONTMATTER, state_kind
from workbench.app.editor.lintbridge import Diagnostic, Fix, TextEdit
from workbench.app.editor.preview import render_html
from workbench.core.recovery import RecoveryStore

pytestmark = pytest.mark.gui

SKILL = "---\nname: demo-skill\ndescription: Use when testing the editor.\n---\n# Demo\n\nBody text.\n"


@pytest.fixture()
def make_pane(qtbot, tmp_path, monkeypatch):
    """Factory: ``make_pane(**kwargs)`` -> a shown EditorPane with a temp recovery store."""
    monkeypatch.setenv("WORKBENCH_HOME", str(tmp_path / "wbhome"))
    panes = []

    def make(**kw):
        kw.setdefault("recovery_store", RecoveryStore(tmp_path / "recovery"))
        pane = EditorPane(**kw)
        qtbot.addWidget(pane)
        pane.resize(1100, 700)
        pane.show()
        panes.append(pane)
        return pane

    yield make
    for p in panes:
        p.shutdown()


def open_and_wait(qtbot, pane, path):
    with qtbot.waitSignal(pane.lint_applied, timeout=5000):
        assert pane.open_file(path)
    return pane


def squiggle_blocks(pane) -> list[int]:
    return [
        s.cursor.block().blockNumber()
        for s in pane.editor.extraSelections()
        if s.format.underlineStyle() == QTextCharFormat.UnderlineStyle.WaveUnderline
    ]


def upper_name_lint(text, path=None, profile="agentskills"):
    """A deterministic test linter: uppercase letters in ``name`` -> warning with a fix."""
    out = []
    for i, line in enumerate(text.lstrip("\ufeff").replace("\r\n", "\n").split("\n"), 1):
        m = re.match(r"name: (.*)$", line)
        if m and m.group(1) != m.group(1).lower():
            c, e = m.start(1) + 1, m.end(1) + 1
            out.append(
                Diagnostic(
                    i,
                    c,
                    i,
                    e,
                    "warning",
                    "T-NAME",
                    "name must be lowercase",
                    Fix("Make the name lowercase", [TextEdit(i, c, i, e, m.group(1).lower())]),
                )
            )
    return out


# --------------------------------------------------------------------------- typing & lint


def test_typing_shows_squiggle_and_problem_on_the_right_line(qtbot, make_pane, tmp_path):
    f = tmp_path / "demo-skill" / "SKILL.md"
    f.parent.mkdir()
    f.write_text(SKILL, encoding="utf-8")
    pane = open_and_wait(qtbot, make_pane(), f)
    assert pane.editor.diagnostics.items == []
    cur = pane.editor.textCursor()
    cur.setPosition(pane.editor.document().findBlockByNumber(2).position())  # line 3
    pane.editor.setTextCursor(cur)
    pane.editor.setFocus()
    with qtbot.waitSignal(pane.diagnostics_changed, timeout=5000) as sig:
        qtbot.keyClicks(pane.editor, "oops: a: b")
        qtbot.keyClick(pane.editor, Qt.Key.Key_Return)
    assert sig.args[1] >= 1  # errors
    errors = [it for it in pane.editor.diagnostics.items if it.severity == "error"]
    assert errors and errors[0].block_number() == 2  # line 3, 0-based block 2
    assert 2 in squiggle_blocks(pane)
    rows = [pane.problems.topLevelItem(i) for i in range(pane.problems.topLevelItemCount())]
    assert any(r.text(0) == "error" and r.text(1).startswith("3:") for r in rows)
    # clicking the problem selects its exact range
    row = next(r for r in rows if r.text(1).startswith("3:"))
    pane.problems.itemClicked.emit(row, 0)
    sel = pane.editor.textCursor()
    assert sel.blockNumber() == 2 and sel.hasSelection()
    assert sel.selectionStart() == errors[0].start()


def test_quick_fix_then_save_exact_bytes(qtbot, make_pane, tmp_path):
    f = tmp_path / "demo" / "SKILL.md"
    f.parent.mkdir()
    f.write_bytes(b"---\nname: demo\n---\nbody\n")
    pane = open_and_wait(qtbot, make_pane(lint_function=upper_name_lint), f)
    line2 = pane.editor.document().findBlockByNumber(1)
    cur = pane.editor.textCursor()
    cur.setPosition(line2.position() + len("name: "))
    pane.editor.setTextCursor(cur)
    with qtbot.waitSignal(pane.lint_applied, timeout=5000):
        qtbot.keyClicks(pane.editor, "My")
    items = pane.editor.diagnostics.items
    assert [it.code for it in items] == ["T-NAME"] and items[0].block_number() == 1
    # the context menu offers the fix at the caret; trigger it
    menu = pane.editor.build_context_menu(pane.editor.textCursor().position())
    fix_actions = [a for a in menu.actions() if a.text().startswith("Fix:")]
    assert len(fix_actions) == 1 and "lowercase" in fix_actions[0].text()
    fix_actions[0].trigger()
    assert pane.text() == "---\nname: mydemo\n---\nbody\n"
    pane.editor.undo()  # one undo step reverts the whole fix
    assert pane.text() == "---\nname: Mydemo\n---\nbody\n"
    pane.editor.redo()
    assert pane.save()
    assert f.read_bytes() == b"---\nname: mydemo\n---\nbody\n"
    assert not pane.has_unsaved_changes()


@pytest.mark.parametrize(
    "bom,nl",
    [(False, b"\n"), (False, b"\r\n"), (True, b"\n"), (True, b"\r\n")],
    ids=["lf", "crlf", "bom-lf", "bom-crlf"],
)
def test_save_keeps_line_endings_and_bom(qtbot, make_pane, tmp_path, bom, nl):
    f = tmp_path / "s" / "SKILL.md"
    f.parent.mkdir()
    lines = [b"---", b"name: Demo", b"description: d\xc2\xa0x \xf0\x9f\x98\x80", b"---", b"body", b""]
    f.write_bytes((b"\xef\xbb\xbf" if bom else b"") + nl.join(lines))
    pane = open_and_wait(qtbot, make_pane(lint_function=upper_name_lint), f)
    assert pane.has_bom is bom and pane.newline == nl.decode()
    fixable = [it for it in pane.editor.diagnostics.items if it.fix is not None]
    assert len(fixable) == 1 and fixable[0].block_number() == 1
    assert pane.editor.apply_fix(fixable[0])
    pane.editor.moveCursor(QTextCursor.MoveOperation.End)
    qtbot.keyClicks(pane.editor, "more")
    assert pane.save()
    lines[1] = b"name: demo"
    lines[-1] = b"more"
    assert f.read_bytes() == (b"\xef\xbb\xbf" if bom else b"") + nl.join(lines)


def test_new_file_has_no_bom_and_lf(qtbot, make_pane, tmp_path):
    f = tmp_path / "new" / "SKILL.md"
    f.parent.mkdir()
    pane = make_pane()
    assert pane.open_file(f)
    assert pane.banner.isVisible()
    qtbot.keyClicks(pane.editor, "---")
    qtbot.keyClick(pane.editor, Qt.Key.Key_Return)
    qtbot.keyClicks(pane.editor, "name: new")
    assert pane.save()
    assert f.read_bytes() == b"---\nname: new"


def test_debounce_runs_one_lint_for_a_burst_of_keys(qtbot, make_pane, tmp_path):
    calls = []

    def counting(text, path=None, profile="agentskills"):
        calls.append(text)
        return []

    f = tmp_path / "SKILL.md"
    f.write_text(SKILL, encoding="utf-8")
    pane = open_and_wait(qtbot, make_pane(lint_function=counting), f)
    pane._lint_timer.setInterval(1000)  # 8 keys always fit in it, even on a loaded machine
    calls.clear()
    pane.editor.moveCursor(QTextCursor.MoveOperation.End)
    with qtbot.waitSignal(pane.lint_applied, timeout=5000):
        qtbot.keyClicks(pane.editor, "abcdefgh")
    assert len(calls) == 1 and calls[0].endswith("abcdefgh")


def test_stale_lint_result_never_replaces_a_newer_one(qtbot, make_pane, tmp_path):
    """Several edits in flight; the first lint is slow and finishes last: only the last shows."""
    release = threading.Event()
    first_started = threading.Event()
    seen = []

    def slow_first(text, path=None, profile="agentskills"):
        n = len(seen)
        seen.append(text)
        if n == 0:
            first_started.set()
            release.wait(10)
        line = text.count("\n") + 1
        return [Diagnostic(line, 1, line, 2, "warning", f"RUN{n}", f"result of run {n}")]

    f = tmp_path / "SKILL.md"
    f.write_text("a\n", encoding="utf-8")
    pane = make_pane(lint_function=slow_first)
    pane.open_file(f)
    qtbot.waitUntil(first_started.is_set, timeout=5000)  # run 0 (the open) is stuck
    pane.editor.moveCursor(QTextCursor.MoveOperation.End)
    tokens = []
    for s in ("b\n", "c\n", "d\n"):
        pane.editor.insertPlainText(s)
        tokens.append(pane.lint_now())
    qtbot.waitUntil(lambda: tokens[-1] in pane.applied_tokens, timeout=5000)
    release.set()  # now the slow first result arrives, last of all
    assert pane.wait_idle()
    qtbot.waitUntil(lambda: len(pane.applied_tokens) + len(pane.dropped_tokens) == 4, timeout=5000)
    assert pane.applied_tokens == [tokens[-1]]
    assert set(pane.dropped_tokens) == {1, tokens[0], tokens[1]}
    assert [it.code for it in pane.editor.diagnostics.items] == ["RUN3"]


def test_lint_crash_becomes_a_diagnostic(qtbot, make_pane, tmp_path):
    def broken(text, path=None, profile="agentskills"):
        raise ValueError("rule exploded")

    f = tmp_path / "SKILL.md"
    f.write_text(SKILL, encoding="utf-8")
    pane = open_and_wait(qtbot, make_pane(lint_function=broken), f)
    assert [it.code for it in pane.editor.diagnostics.items] == ["LINT-CRASH"]


def test_profile_provider_is_asked(qtbot, make_pane, tmp_path):
    got = []

    def record(text, path=None, profile="x"):
        got.append(profile)
        return []

    f = tmp_path / "SKILL.md"
    f.write_text(SKILL, encoding="utf-8")
    open_and_wait(qtbot, make_pane(lint_function=record, profile_provider=lambda: "codex"), f)
    assert got == ["codex"]


# --------------------------------------------------------------------------- hover, gutter, fixes


def test_hover_tooltip_has_message_and_code(qtbot, make_pane, tmp_path):
    f = tmp_path / "demo" / "SKILL.md"
    f.parent.mkdir()
    f.write_text("---\nname: Demo\n---\n", encoding="utf-8")
    pane = open_and_wait(qtbot, make_pane(lint_function=upper_name_lint), f)
    it = pane.editor.diagnostics.items[0]
    c = QTextCursor(pane.editor.document())
    c.setPosition(it.start() + 1)
    pos = pane.editor.cursorRect(c).center()
    tip = pane.editor.tooltip_at(pos)
    assert "name must be lowercase" in tip and "T-NAME" in tip
    c.setPosition(pane.editor.document().findBlockByNumber(3).position())
    assert pane.editor.tooltip_at(pane.editor.cursorRect(c).center() + QPoint(0, 40)) == ""


def test_ctrl_dot_menu_lists_fixes(qtbot, make_pane, tmp_path):
    f = tmp_path / "demo" / "SKILL.md"
    f.parent.mkdir()
    f.write_text("---\nname: Demo\n---\n", encoding="utf-8")
    pane = open_and_wait(qtbot, make_pane(lint_function=upper_name_lint), f)
    pane.editor.goto_line(2, 8)
    menu = pane.editor.show_quick_fix_menu()
    assert [a.text() for a in menu.actions()] == ["Fix: Make the name lowercase  [T-NAME]"]
    menu.close()


def test_pinned_diagnostics_follow_edits(qtbot, make_pane, tmp_path):
    f = tmp_path / "demo" / "SKILL.md"
    f.parent.mkdir()
    f.write_text("---\nname: Demo\n---\n", encoding="utf-8")
    pane = open_and_wait(qtbot, make_pane(lint_function=upper_name_lint), f)
    pane.editor.moveCursor(QTextCursor.MoveOperation.Start)
    pane.editor.insertPlainText("\n\n")  # two lines above: marks move before the next lint
    it = pane.editor.diagnostics.items[0]
    assert it.block_number() == 3
    assert pane.editor.diagnostics.severity_by_block() == {3: "warning"}


def test_gutter_pixel_is_error_coloured(qtbot, make_pane, tmp_path, artifacts):
    f = tmp_path / "broken" / "SKILL.md"
    f.parent.mkdir()
    f.write_text(
        "---\nname: Broken-Skill\ndescription: Use when: colons break YAML\n"
        "allowed-tools: Bash(!`git status`)\n---\n# Broken skill\n\nRun `scripts/x.sh` "
        "with $ARGUMENTS and see [docs](references/api.md).\n\n```bash\necho $1\n```\n",
        encoding="utf-8",
    )
    pane = open_and_wait(qtbot, make_pane(), f)  # the real engine
    with qtbot.waitSignal(pane.preview_updated, timeout=5000):
        pane.set_preview_visible(True)
    errs = [it for it in pane.editor.diagnostics.items if it.severity == "error"]
    assert 2 in [it.block_number() for it in errs]  # the YAML error on line 3
    pane.grab().save(str(artifacts / "editor.png"))
    g = pane.editor.gutter
    block = pane.editor.document().findBlockByNumber(2)
    geo = pane.editor.blockBoundingGeometry(block).translated(pane.editor.contentOffset())
    img = g.grab().toImage()
    ms = g.mark_size()
    fh = pane.editor.fontMetrics().height()
    # the top middle of the round error mark (its white cross runs diagonally, away from here)
    px = img.pixelColor(int(g.PAD + ms / 2), int(geo.top() + (fh - ms) / 2 + ms * 0.15))
    assert px.red() > 150 and px.green() < 120 and px.blue() < 120, px.name()


def test_engine_fix_for_yaml_error_clears_it(qtbot, make_pane, tmp_path):
    """With the real lint engine: its own fix for the YAML error, applied in the editor, works."""
    f = tmp_path / "broken" / "SKILL.md"
    f.parent.mkdir()
    f.write_bytes(b"---\r\nname: broken\r\ndescription: Use when: colons break YAML\r\n---\r\nbody\r\n")
    pane = open_and_wait(qtbot, make_pane(), f)
    errs = [it for it in pane.editor.diagnostics.items if it.severity == "error" and it.block_number() == 2]
    assert errs, [(it.code, it.message) for it in pane.editor.diagnostics.items]
    if errs[0].fix is None:
        pytest.skip(f"{errs[0].code} has no fix")
    with qtbot.waitSignal(pane.lint_applied, timeout=5000):
        assert pane.editor.apply_fix(errs[0])
    assert not [it for it in pane.editor.diagnostics.items if it.severity == "error"]
    assert pane.save()
    raw = f.read_bytes()
    assert raw.count(b"\r\n") == 5 and raw.count(b"\n") == 5  # still CRLF only
    assert b"Use when: colons break YAML" in raw


# --------------------------------------------------------------------------- highlighter


def test_highlighter_block_states(qtbot, make_pane, tmp_path):
    f = tmp_path / "SKILL.md"
    f.write_text(
        "---\nname: x\ndescription: |\n  multi\n  line\n---\n# H\n```\ncode $ARGUMENTS\n```\ntext\n",
        encoding="utf-8",
    )
    pane = open_and_wait(qtbot, make_pane(), f)
    doc = pane.editor.document()
    kinds = [state_kind(doc.findBlockByNumber(i).userState()) for i in range(doc.blockCount())]
    assert kinds[0] == FRONTMATTER and kinds[1] == FRONTMATTER
    assert kinds[5] == BODY  # closing ---
    assert kinds[7] == FENCE and kinds[8] == FENCE and kinds[9] == BODY
    fmts = pane.highlighter.formats

    def fmt_at(line, col):
        block = doc.findBlockByNumber(line - 1)
        ranges = block.layout().formats()  # keep the list alive while reading its formats
        for r in ranges:
            if r.start <= col - 1 < r.start + r.length:
                return QTextCharFormat(r.format)
        return None

    assert fmt_at(2, 1).foreground() == fmts["key"].foreground()
    assert fmt_at(4, 3).foreground() == fmts["block_scalar"].foreground()
    assert fmt_at(7, 1).foreground() == fmts["heading"].foreground()
    assert fmt_at(9, 6).background() == fmts["placeholder"].background()


def test_highlighter_inline_tokens(qtbot, make_pane, tmp_path):
    f = tmp_path / "SKILL.md"
    f.write_text(
        "Run !`git status` then `code` and [a](b.md) with $0 \U0001f600 $ARGUMENTS[1]\n", encoding="utf-8"
    )
    pane = open_and_wait(qtbot, make_pane(), f)
    fmts = pane.highlighter.formats
    block = pane.editor.document().firstBlock()
    layout_ranges = block.layout().formats()
    ranges = {(r.start, r.length): QTextCharFormat(r.format) for r in layout_ranges}
    text = block.text()

    def find(sub, token):
        i16 = len(text[: text.index(sub)].encode("utf-16-le")) // 2
        f16 = len(sub.encode("utf-16-le")) // 2
        return (
            ranges.get((i16, f16)) is not None
            and ranges[(i16, f16)].background() == fmts[token].background()
            and ranges[(i16, f16)].foreground() == fmts[token].foreground()
        )

    assert find("!`git status`", "injection")
    assert find("`code`", "inline_code")
    assert find("$0", "placeholder")
    assert find("$ARGUMENTS[1]", "placeholder")  # after an astral character: UTF-16 positions


# --------------------------------------------------------------------------- find / replace


def test_find_and_replace(qtbot, make_pane, tmp_path):
    f = tmp_path / "SKILL.md"
    f.write_text("foo Foo foo\nFOO\n", encoding="utf-8")
    pane = open_and_wait(qtbot, make_pane(), f)
    pane.editor.setFocus()
    qtbot.keyClick(pane.editor, Qt.Key.Key_F, Qt.KeyboardModifier.ControlModifier)
    bar = pane.find_bar
    assert bar.isVisible() and not bar.replace_edit.isVisible()
    bar.find_edit.setText("foo")
    assert bar.status.text() == "4 matches"
    bar.case_box.setChecked(True)
    assert bar.status.text() == "2 matches"
    assert pane.editor.textCursor().selectedText() == "foo"
    first = pane.editor.textCursor().selectionStart()
    assert bar.find_next() and pane.editor.textCursor().selectionStart() == 8
    assert bar.find_next() and pane.editor.textCursor().selectionStart() == first  # wraps
    assert bar.find_previous() and pane.editor.textCursor().selectionStart() == 8
    qtbot.keyClick(pane.editor, Qt.Key.Key_H, Qt.KeyboardModifier.ControlModifier)
    assert bar.replace_edit.isVisible()
    bar.replace_edit.setText("bar")
    assert bar.replace_all() == 2
    assert pane.text() == "bar Foo bar\nFOO\n"
    pane.editor.undo()
    assert pane.text() == "foo Foo foo\nFOO\n"
    bar.case_box.setChecked(False)
    assert bar.replace_one()  # selects a match first, or replaces the selected one
    qtbot.keyClick(bar.find_edit, Qt.Key.Key_Escape)
    assert not bar.isVisible()
    assert pane.editor.layers.get("search") == []


# --------------------------------------------------------------------------- preview


def test_preview_properties_table_and_body():
    html = render_html(
        "---\nname: demo\nmetadata:\n  a: 1\n---\n# Title\n\n| x | y |\n|---|---|\n| 1 | 2 |\n"
        "<script>alert(1)</script>\n"
    )
    assert "<td class='k'>name</td><td>demo</td>" in html
    assert "<h1>Title</h1>" in html and "<table>" in html
    assert "<script>" not in html  # raw HTML is escaped, not passed through


def test_preview_follows_typing(qtbot, make_pane, tmp_path):
    f = tmp_path / "SKILL.md"
    f.write_text(SKILL, encoding="utf-8")
    pane = open_and_wait(qtbot, make_pane(), f)
    with qtbot.waitSignal(pane.preview_updated, timeout=5000):
        pane.set_preview_visible(True)
    assert "Body text." in pane.preview.toPlainText()
    pane.editor.moveCursor(QTextCursor.MoveOperation.End)
    with qtbot.waitSignal(pane.preview_updated, timeout=5000):
        qtbot.keyClicks(pane.editor, "## Added heading")
    assert "Added heading" in pane.preview.toPlainText()
    assert "demo-skill" in pane.preview.toPlainText()  # the properties table


def test_preview_yaml_error_shown():
    html = render_html("---\nname: [unclosed\n---\nbody\n")
    assert "Frontmatter:" in html and "invalid YAML" in html


def test_preview_refuses_remote_and_outside_resources(qtbot, make_pane, tmp_path):
    skill = tmp_path / "skill"
    (skill / "assets").mkdir(parents=True)
    png = skill / "assets" / "a.png"
    from PySide6.QtGui import QImage

    img = QImage(4, 4, QImage.Format.Format_RGB32)
    img.fill(0xFF0000)
    img.save(str(png))
    (tmp_path / "secret.txt").write_text("secret")
    f = skill / "SKILL.md"
    f.write_text(
        "---\nname: skill\n---\n![a](assets/a.png) ![r](https://example.com/x.png) ![s](../secret.txt)\n",
        encoding="utf-8",
    )
    pane = open_and_wait(qtbot, make_pane(), f)
    with qtbot.waitSignal(pane.preview_updated, timeout=5000):
        pane.set_preview_visible(True)
    pv = pane.preview
    img_type = QTextDocument.ResourceType.ImageResource.value
    assert pv.loadResource(img_type, QUrl("https://example.com/x.png")) is None
    assert pv.loadResource(img_type, QUrl("../secret.txt")) is None
    assert pv.loadResource(img_type, QUrl.fromLocalFile(str(tmp_path / "secret.txt"))) is None
    loaded = pv.loadResource(img_type, QUrl("assets/a.png"))
    assert loaded is not None and not loaded.isNull()
    assert any("example.com" in u for u in pv.refused)


# --------------------------------------------------------------------------- encodings


def test_invalid_utf8_opens_read_only_and_is_never_written(qtbot, make_pane, tmp_path):
    f = tmp_path / "SKILL.md"
    raw = b"---\nname: x\n---\nbad byte \xff here\n"
    f.write_bytes(raw)
    pane = make_pane()
    assert pane.open_file(f)
    assert pane.read_only_reason and pane.editor.isReadOnly()
    assert not pane.save()
    assert f.read_bytes() == raw


def test_nbsp_line_separator_and_emoji_round_trip(qtbot, make_pane, tmp_path):
    f = tmp_path / "SKILL.md"
    raw = "---\nname: x\n---\na\u00a0b \U0001f600 c\u2028d\n".encode()
    f.write_bytes(raw)
    pane = open_and_wait(qtbot, make_pane(), f)
    pane.editor.moveCursor(QTextCursor.MoveOperation.End)
    qtbot.keyClicks(pane.editor, "z")
    pane.editor.undo()
    pane.editor.document().setModified(True)
    assert pane.save()
    assert f.read_bytes() == raw


def test_unreadable_path_keeps_previous_buffer(qtbot, make_pane, tmp_path):
    f = tmp_path / "SKILL.md"
    f.write_text(SKILL, encoding="utf-8")
    pane = open_and_wait(qtbot, make_pane(), f)
    assert not pane.open_file(tmp_path)  # a directory
    assert pane.path == str(f) and pane.text() == SKILL
    assert pane.banner.isVisible()


def test_status_line(qtbot, make_pane, tmp_path):
    f = tmp_path / "SKILL.md"
    f.write_bytes(b"\xef\xbb\xbf---\r\nname: x\r\n---\r\n")
    pane = open_and_wait(qtbot, make_pane(), f)
    s = pane.status.text()
    assert "UTF-8 BOM" in s and "CRLF" in s and "Ln 1, Col 1" in s


def test_app_is_qapplication():
    assert isinstance(QApplication.instance(), QApplication)
