"""The main window on small workspaces and the demo: tree, filter, details, shadowing, listing
live updates, explain, shortcuts, placeholders, live reload. Real widgets, offscreen."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from PySide6.QtCore import Qt, QUrl

from tests.gui.conftest import grab
from tests.helpers import write_skill
from workbench.app.actions import ACTIONS, ShortcutsDialog
from workbench.app.hosting import LazyPane, Placeholder
from workbench.app.skills_tree import SkillRole
from workbench.core.model import CLIENT_IDS, Environment, Skill


@pytest.fixture()
def small_ws(tmp_path: Path, fake_home: Path) -> Environment:
    """A project with .claude/skills (alpha, beta, dup) and a personal dup in the fake home."""
    ws = tmp_path / "proj"
    write_skill(ws / ".claude" / "skills" / "alpha", "alpha", "Use when testing alpha things.")
    write_skill(ws / ".claude" / "skills" / "beta", "beta", "Use when testing beta things.")
    write_skill(ws / ".claude" / "skills" / "dup", "dup", "Project dup.")
    write_skill(fake_home / ".claude" / "skills" / "dup", "dup", "Personal dup.")
    return Environment(workspace=ws, home=fake_home)


def _skills(win) -> list[Skill]:
    m = win.skills.model
    out = []
    for r in range(m.rowCount()):
        p = m.index(r, 0)
        out += [m.data(m.index(c, 0, p), SkillRole) for c in range(m.rowCount(p))]
    return out


def _visible_names(win) -> list[str]:
    px = win.skills.proxy
    out = []
    for r in range(px.rowCount()):
        p = px.index(r, 0)
        out += [px.data(px.index(c, 0, p)) for c in range(px.rowCount(p))]
    return out


def test_tree_details_shadowing(open_window, small_ws):
    win = open_window(small_ws, client_id="claude-code")
    skills = {(s.name, s.root.scope): s for s in _skills(win)}
    assert skills[("dup", "project")].status == "shadowed"
    assert skills[("dup", "user")].status == "listed"
    assert not win.banner.isVisible(), win.banner.text()  # the project has client roots: no extra root
    # Roots in precedence order, with scope and existence.
    m = win.skills.model
    roots = [m.data(m.index(r, 0), SkillRole) for r in range(m.rowCount())]
    assert [r.precedence for r in roots] == sorted(r.precedence for r in roots)
    # Details: shadowed_by is a link that selects the winner.
    loser = skills[("dup", "project")]
    win.ctx.select_skill(loser.path)
    assert "Shadowed by" in win.details.view.toHtml()
    win.details._on_link(QUrl("skill:" + str(loser.shadowed_by)))
    assert win.ctx.selected_path == loser.shadowed_by
    win.ctx.select_skill(loser.path)  # the link as the details HTML writes it: percent-encoded
    win.details._on_link(QUrl("skill:" + bytes(QUrl.toPercentEncoding(str(loser.shadowed_by))).decode()))
    assert win.ctx.selected_path == loser.shadowed_by
    assert (
        win.skills.model.data(win.skills.proxy.mapToSource(win.skills.tree.currentIndex()), SkillRole).path
        == loser.shadowed_by
    )
    # Shadowing view: one duplicated name, winner per client.
    win.show_tab("shadowing")
    sm = win.shadowing.model
    assert sm.rowCount() == 1 and sm.data(sm.index(0, 0)) == "dup"
    cc = sm.index(0, 2 + CLIENT_IDS.index("claude-code"))
    assert sm.data(cc) == "user" and sm.data(cc, Qt.ItemDataRole.ToolTipRole).startswith("user:")


def test_filter_box(open_window, small_ws, qtbot):
    win = open_window(small_ws)
    win.skills.filter.setText("status:shadowed")
    assert _visible_names(win) == ["dup"]
    win.skills.filter.setText("beta")
    assert _visible_names(win) == ["beta"]
    win.skills.filter.setText("testing things")
    assert sorted(_visible_names(win)) == ["alpha", "beta"]
    win.skills.filter.clear()
    assert len(_visible_names(win)) == 4


def test_client_switch_shortcut_and_toolbar(open_window, small_ws, qtbot):
    win = open_window(small_ws)
    with qtbot.waitSignal(win.ctx.client_changed):
        win.actions["client.codex"].trigger()
    assert win.ctx.client_id == "codex"
    assert win.client_combo.currentData() == "codex"
    assert win.actions["client.codex"].shortcut().toString() == "Ctrl+2"
    win.client_combo.setCurrentIndex(CLIENT_IDS.index("opencode"))
    assert win.ctx.client_id == "opencode"
    assert win.skills.model.catalog().client == "opencode"


def test_context_size_control(open_window, small_ws):
    win = open_window(small_ws, context_tokens=200_000)
    combo = win.context_combo
    combo.setEditText("32k")
    combo.lineEdit().editingFinished.emit()
    assert win.ctx.context_tokens == 32_000
    assert not hasattr(win.listing, "context_combo")  # one context-size box (issue 13 item 11)
    assert win.context_combo.currentText() == "32k"
    combo.setEditText("1.5M")
    combo.lineEdit().editingFinished.emit()
    assert win.ctx.context_tokens == 1_500_000
    combo.setEditText("lots")
    combo.lineEdit().editingFinished.emit()
    assert win.ctx.context_tokens == 1_500_000


def test_live_listing_update_from_editor_buffer(open_window, small_ws):
    # OpenCode: the frontmatter name is the skill's name (Claude Code 2.1.328 uses the folder's,
    # so a rename there makes no clash; lab: name-differs)
    win = open_window(small_ws, client_id="opencode")
    alpha = small_ws.workspace / ".claude" / "skills" / "alpha" / "SKILL.md"
    win.ctx.select_skill(alpha)
    new_desc = "Use when the frobnicator needs recalibrating after a flux event."
    t0 = time.perf_counter()
    win.ctx.apply_buffer(alpha, f"---\nname: alpha\ndescription: {new_desc}\n---\n# Body\n")
    win.ctx.flush_updates()
    elapsed = time.perf_counter() - t0
    assert new_desc in win.listing.text.toPlainText()
    assert win.ctx.skill(alpha).description == new_desc
    print(
        f"\nbuffer -> listing update: {elapsed * 1000:.1f} ms (ctx says {win.ctx.last_update_seconds * 1000:.1f} ms)"
    )
    assert elapsed < 1.0
    # A rename that creates a collision shadows the other skill right away (collisions redone).
    win.ctx.apply_buffer(alpha, "---\nname: beta\ndescription: now beta too\n---\n")
    win.ctx.wait_for_scan()  # the other clients are scanned in the background (updates wait for it)
    win.ctx.flush_updates()
    betas = [s for s in win.ctx.catalog().skills if s.name == "beta"]
    assert sorted(s.status for s in betas) == ["listed", "shadowed"]
    # Dropping the overlay restores the file on disk.
    win.ctx.apply_buffer(alpha, None)
    win.ctx.wait_for_scan()
    win.ctx.flush_updates()
    assert win.ctx.skill(alpha).name == "alpha"
    assert all(s.status == "listed" for s in win.ctx.catalog().skills if s.name == "beta")


def test_incremental_update_equals_full_scan(open_window, small_ws):
    """The incremental path gives the same catalog as discovery.scan for every client."""
    from workbench.core import discovery

    win = open_window(small_ws)
    dup = small_ws.workspace / ".claude" / "skills" / "dup" / "SKILL.md"
    dup.write_text("---\nname: alpha\ndescription: now alpha\n---\n", encoding="utf-8")
    win.ctx.refresh_paths([dup])
    win.ctx.flush_updates()
    assert win.settle()
    for cid in CLIENT_IDS:
        full = discovery.scan(win.ctx.env, cid)
        got = win.ctx.catalogs[cid]
        assert [(s.path, s.name, s.status, s.shadowed_by) for s in got.skills] == [
            (s.path, s.name, s.status, s.shadowed_by) for s in full.skills
        ], cid


def test_new_file_triggers_rescan(open_window, small_ws, qtbot):
    win = open_window(small_ws)
    p = write_skill(small_ws.workspace / ".claude" / "skills" / "gamma", "gamma", "New one.")
    win.ctx.refresh_paths([p])
    win.ctx.flush_updates()
    assert win.settle()
    assert "gamma" in [s.name for s in _skills(win)]


def test_live_reload_watcher(open_window, small_ws, qtbot):
    pytest.importorskip("workbench.core.watch")
    win = open_window(small_ws, watch=True)
    assert win.ctx.watcher is not None
    win.ctx.watcher.wait_ready(5)
    beta = small_ws.workspace / ".claude" / "skills" / "beta" / "SKILL.md"
    beta.write_text("---\nname: beta\ndescription: Changed on disk by someone else.\n---\n", encoding="utf-8")
    qtbot.waitUntil(
        lambda: (
            (win.ctx.skill(beta, "claude-code") or Skill(beta, None, "")).description
            == "Changed on disk by someone else."
        ),
        timeout=10_000,
    )
    # The app's own save (suppressed) causes no reload.
    before = win.ctx.catalogs["claude-code"]
    with win.ctx.suppress(beta):
        beta.write_text("---\nname: beta\ndescription: Saved by the app.\n---\n", encoding="utf-8")
    qtbot.wait(800)
    assert win.ctx.catalogs["claude-code"] is before


def test_mark_loaded(open_window, small_ws):
    win = open_window(small_ws)
    win.ctx.mark_loaded(["alpha"])
    tm = win.listing.table_model
    row = next(r for r in range(tm.rowCount()) if tm.data(tm.index(r, 0)).startswith("alpha"))
    assert "loaded" in tm.data(tm.index(row, 0))


def test_explain_pane(open_window, small_ws, qtbot):
    pytest.importorskip("workbench.core.explain")
    win = open_window(small_ws, client_id="claude-code")
    dup = small_ws.workspace / ".claude" / "skills" / "dup" / "SKILL.md"
    win.show_tab("explain")
    win.ctx.select_skill(dup)
    qtbot.waitUntil(lambda: bool(win.explain.findings("claude-code")), timeout=20_000)
    fs = win.explain.findings("claude-code")
    assert any(f.level in ("warn", "error") for f in fs)
    assert any(f.fix for f in fs)
    top = win.explain.tree.topLevelItem(0)
    assert top.data(0, 256) == "claude-code" and top.isExpanded()
    assert win.explain.tree.topLevelItemCount() == len(CLIENT_IDS)


def test_shortcuts_dialog_lists_every_shortcut(qtbot):
    dlg = ShortcutsDialog()
    qtbot.addWidget(dlg)
    n = sum(1 for a in ACTIONS if a.shortcut)
    assert dlg.table.rowCount() == n
    shortcuts = {dlg.table.item(r, 0).text() for r in range(n)}
    for key in ("Ctrl+O", "F5", "Ctrl+F", "Ctrl+Q", "Ctrl+1", "Ctrl+8"):
        assert key in shortcuts


def test_hosted_panes_never_crash(open_window, small_ws):
    win = open_window(small_ws)
    for key in ("editor", "chat", "workshop"):
        w = win.pane(key)
        assert w is not None
        assert isinstance(win.panes[key], LazyPane)
        if isinstance(w, Placeholder):
            assert w.reason


def test_demo_when_nothing_found(open_window, tmp_path, artifacts):
    pytest.importorskip("workbench.core.demo")
    empty = tmp_path / "empty"
    empty.mkdir()
    win = open_window(Environment(workspace=empty, home=tmp_path / "h"), allow_demo=True)
    assert win.ctx.demo
    assert "demo" in win.banner.text()
    counts = {}
    for cid in CLIENT_IDS:
        for st, n in win.ctx.catalogs[cid].counts().items():
            counts[st] = counts.get(st, 0) + n
    for st in ("listed", "shadowed", "hidden", "gated", "conditional", "skipped"):
        assert counts[st] > 0, st  # the demo exercises every status
    win.ctx.select_skill(next(s.path for s in win.ctx.catalog().skills if s.status == "shadowed"))
    grab(win, artifacts / "main_demo.png")


def test_open_folder_switches_workspace(open_window, small_ws, tmp_path):
    win = open_window(small_ws)
    other = tmp_path / "coll"
    write_skill(other / "pack" / "one", "one", "Use for one.")
    win.open_path(other)
    assert win.settle()
    assert win.ctx.extra_root == other
    assert "extra root" in win.banner.text()
    assert [s.name for s in _skills(win) if s.root.scope == "extra"] == ["one"]


def test_demo_when_only_unlisted_skills_found(open_window, tmp_path):
    # `workbench` with no folder, run in a checkout whose only skills wait for a touch (nested
    # roots, like this repository's resources/demo): nothing would be listed, so show the demo.
    pytest.importorskip("workbench.core.demo")
    ws = tmp_path / "repo"
    write_skill(ws / "pkg" / ".claude" / "skills" / "nested-only", "nested-only", "Use when x.")
    win = open_window(Environment(workspace=ws, home=tmp_path / "h"), allow_demo=True)
    assert win.ctx.demo
    assert "demo" in win.banner.text()
