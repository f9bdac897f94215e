"""Less work per GUI-thread turn (issue 14): the tree model answers unasked roles at once and
reuses its brushes; the listing pane's budget bar does not repaint the window synchronously."""

from __future__ import annotations

from PySide6.QtCore import Qt

from tests.helpers import write_skill
from workbench.app import icons
from workbench.app.skills_tree import FilterRole, PathRole, SkillRole, SkillsTreeModel, StatusRole
from workbench.core.model import Catalog, Environment, Root, Skill

R = Qt.ItemDataRole


def _model(tmp_path) -> tuple[SkillsTreeModel, Catalog]:
    roots = [
        Root(path=tmp_path / "a", scope="project", precedence=0, exists=True),
        Root(path=tmp_path / "gone", scope="user", precedence=1, exists=False),
    ]
    skills = [
        Skill(tmp_path / "a" / "x" / "SKILL.md", roots[0], "x", "Line one\nline two", reason="ok"),
        Skill(tmp_path / "a" / "y" / "SKILL.md", roots[0], "y", "Why.", unverified=["a rule"]),
    ]
    cat = Catalog(client="claude-code", env=Environment(workspace=tmp_path), roots=roots, skills=skills)
    m = SkillsTreeModel()
    m.set_catalog(cat)
    return m, cat


def test_tree_model_answers_its_roles_and_nothing_else(qapp, qtmodeltester, tmp_path):
    m, cat = _model(tmp_path)
    qtmodeltester.check(m)
    root, gone = m.index(0, 0), m.index(1, 0)
    x, y = m.index(0, 0, root), m.index(1, 0, root)
    for role in (R.FontRole, R.SizeHintRole, R.TextAlignmentRole, R.CheckStateRole, R.EditRole):
        assert m.data(x, role) is None and m.data(root, role) is None
    assert m.data(x) == "x" and m.data(y) == "y  (?)"
    assert m.data(m.index(0, 3, root)) == "Line one line two"
    assert m.data(m.index(0, 1, root)) == "listed" and m.data(m.index(0, 2, root)) == "project"
    assert m.data(root, R.DisplayRole) == str(tmp_path / "a") and m.data(m.index(0, 1)) == "2 skills"
    assert m.data(m.index(1, 1)) == "missing" and m.data(gone, R.ForegroundRole) is not None
    assert m.data(root, R.ForegroundRole) is None
    assert m.data(x, SkillRole) is cat.skills[0] and m.data(root, SkillRole) is cat.roots[0]
    assert m.data(x, PathRole) == str(cat.skills[0].path) and m.data(x, StatusRole) == "listed"
    assert m.data(x, FilterRole).startswith("x line one\nline two listed ok ")
    assert m.data(root, StatusRole) == "" and m.data(root, FilterRole) == ""
    assert m.data(x, R.DecorationRole) is not None and m.data(m.index(0, 1, root), R.DecorationRole) is None
    assert "<b>x</b>" in m.data(x, R.ToolTipRole)


def test_tree_model_reuses_its_brushes(qapp, tmp_path):
    m, _cat = _model(tmp_path)
    root = m.index(0, 0)
    status = m.index(0, 1, root)
    b = m.data(status, R.ForegroundRole)
    assert b is m.data(status, R.ForegroundRole) and b.color() == icons.status_color("listed")
    x = m.index(0, 0, root)
    assert m.data(x, R.BackgroundRole) is None
    m.set_loaded({"x"})
    bg = m.data(x, R.BackgroundRole)
    assert bg is m.data(x, R.BackgroundRole) and bg.color() == icons.color("listing", "loaded_bg")


def test_the_budget_bar_is_set_with_its_updates_on_again(open_window, tmp_path, fake_home):
    ws = tmp_path / "ws"
    write_skill(ws / ".claude" / "skills" / "alpha", "alpha", "Use when testing alpha.")
    win = open_window(Environment(workspace=ws, home=fake_home), client_id="claude-code")
    bar = win.listing.bar
    assert bar.updatesEnabled() and bar.format() not in ("", "no listing")
    win.ctx.set_context_tokens(16_000)
    assert bar.updatesEnabled() and bar.maximum() >= 1


def test_a_big_root_is_filled_one_chunk_per_turn_after_a_reset(
    open_window, tmp_path, fake_home, monkeypatch, qtbot
):
    """Issue 14: the reset gives the view FETCH_CHUNK rows of a big root; the panel adds one
    chunk per event-loop turn up to FIRST_ROWS (the rest on scroll, as before)."""
    from workbench.app import skills_tree

    monkeypatch.setattr(skills_tree, "FETCH_CHUNK", 3)
    monkeypatch.setattr(skills_tree, "FIRST_ROWS", 8)
    monkeypatch.setattr(skills_tree, "WHOLE_ROOT_MAX", 4)
    ws = tmp_path / "coll"
    for i in range(11):
        write_skill(ws / f"s{i:02d}", f"s{i:02d}", f"Use when testing {i}.")
    win = open_window(Environment(workspace=ws, home=fake_home), client_id="claude-code")
    panel = win.skills
    m = panel.model
    big = next(r for r in range(m.rowCount()) if m.skill_count() and len(m._children[r]) == 11)
    cat = m.catalog()
    m.set_catalog(None)
    panel.reload()  # a reset: FETCH_CHUNK rows now, the next chunks on later turns
    # (this small view also fetches on its own while its viewport is not full)
    qtbot.waitUntil(lambda: m.rowCount(m.index(big, 0)) >= 8, timeout=5_000)
    assert m.skill_count() == 11 and m.catalog() is cat
    fresh = skills_tree.SkillsTreeModel()
    fresh.set_catalog(cat)
    steps = [fresh.rowCount(fresh.index(big, 0))]
    while fresh.fill_step(8):
        steps.append(fresh.rowCount(fresh.index(big, 0)))
    steps.append(fresh.rowCount(fresh.index(big, 0)))
    assert steps == [3, 6, 8]  # not beyond FIRST_ROWS: the rest on scroll (fetchMore)
    fresh.fetchMore(fresh.index(big, 0))
    assert fresh.rowCount(fresh.index(big, 0)) == 11 and not fresh.fill_step(8)
