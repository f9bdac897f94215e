"""The first scan result's turns on the GUI thread stay short (issue 14): the tree's columns are
fitted asking the delegate for a few rows, the tallies come made from the scan thread, the
workspace's banner comes before the first client, and deferred work gets its own turns."""

from __future__ import annotations

import gc

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QTreeView

from tests.helpers import write_skill
from workbench.app import scanpass, skills_tree, tallies, treefit
from workbench.app.skills_tree import SkillsPanel
from workbench.app.turns import defer
from workbench.core.listing import listing_states, render_listing
from workbench.core.model import Catalog, Environment, Root, Skill


def _catalog(tmp_path, names: list[str]) -> Catalog:
    roots = [
        Root(path=tmp_path / "a", scope="project", precedence=0, exists=True),
        Root(
            path=tmp_path / "gone", scope="user", precedence=1, exists=False, label="a long label for a root"
        ),
    ]
    skills = [
        Skill(
            tmp_path / "a" / f"s{i}" / "SKILL.md",
            roots[i % 2],
            n,
            "Use when testing.",
            status=("listed", "shadowed", "hidden")[i % 3],
            unverified=["a rule"] if i % 4 == 0 else [],
        )
        for i, n in enumerate(names)
    ]
    return Catalog(client="claude-code", env=Environment(workspace=tmp_path), roots=roots, skills=skills)


class _Ctx:
    """What ``SkillsPanel`` reads of the context."""

    def __init__(self, cat: Catalog) -> None:
        from PySide6.QtCore import QObject, Signal

        class Sig(QObject):
            catalog_changed = Signal()
            listing_changed = Signal()
            client_changed = Signal(str)
            skill_selected = Signal(object)
            loaded_changed = Signal()

        self._sig = Sig()
        for name in (
            "catalog_changed",
            "listing_changed",
            "client_changed",
            "skill_selected",
            "loaded_changed",
        ):
            setattr(self, name, getattr(self._sig, name))
        self.cat, self.loaded_names, self.selected_path = cat, set(), None

    def catalog(self):
        return self.cat

    def listing(self):
        return None

    def select_skill(self, path) -> None:
        pass


def _widths(panel: SkillsPanel) -> tuple[int, int]:
    return panel.tree.columnWidth(0), panel.tree.columnWidth(1)


def test_the_column_fit_gives_what_resize_column_to_contents_gives(qtbot, tmp_path, monkeypatch):
    names = [f"skill-{'w' * (i % 17)}-{i}" for i in range(60)] + ["日本語のスキル", "x", "M" * 40]
    panel = SkillsPanel(_Ctx(_catalog(tmp_path, names)))
    qtbot.addWidget(panel)
    panel.resize(600, 500)
    panel.show()
    for filled in (False, True):
        panel.model.set_catalog(None)
        panel.reload()
        if filled:
            panel.model.fill_step(skills_tree.FIRST_ROWS)
        treefit.fit_columns(panel.tree, panel._view_rows, (0, 1))
        mine = _widths(panel)
        for col in (0, 1):
            panel.tree.header().resizeSection(col, 5)
            QTreeView.resizeColumnToContents(panel.tree, col)
        assert mine == _widths(panel)


def test_the_column_fit_asks_the_delegate_for_a_few_rows_only(qtbot, tmp_path, monkeypatch):
    panel = SkillsPanel(_Ctx(_catalog(tmp_path, [f"skill-{i}" for i in range(40)])))
    qtbot.addWidget(panel)
    panel.show()
    asked: list[int] = []
    real = QTreeView.sizeHintForIndex
    monkeypatch.setattr(QTreeView, "sizeHintForIndex", lambda self, i: asked.append(i.row()) or real(self, i))
    treefit.fit_columns(panel.tree, panel._view_rows, (0, 1))
    assert 0 < len(asked) < 12  # not one per row and column (82)


def test_the_column_fit_falls_back_for_many_rows_or_a_multi_line_text(qtbot, tmp_path, monkeypatch):
    panel = SkillsPanel(_Ctx(_catalog(tmp_path, ["two\nlines", "b"])))
    qtbot.addWidget(panel)
    panel.show()
    fitted: list[int] = []
    monkeypatch.setattr(QTreeView, "resizeColumnToContents", lambda self, col: fitted.append(col))
    treefit.fit_columns(panel.tree, panel._view_rows, (0, 1))
    assert fitted == [-1, 0]  # the pending layout, then Name by Qt (Status: by the few rows)
    fitted.clear()
    treefit.fit_columns(panel.tree, lambda limit: None, (0, 1))
    assert fitted == [-1, 0, 1]


def test_tallies_are_made_once_per_object_and_not_kept_alive(tmp_path):
    cat = _catalog(tmp_path, ["a", "b", "c"])
    counts = tallies.catalog_counts(cat)
    assert counts == cat.counts() and tallies.catalog_counts(cat) is counts
    rep = render_listing(cat, 200_000, None)
    tallies.prepare({"claude-code": cat}, {"claude-code": rep})
    assert tallies.states(rep) == listing_states(rep) and tallies.states(rep) is tallies.states(rep)
    assert tallies.listing_counts(rep) == rep.counts() and tallies.states(None) == {}
    before = len(tallies._memo)
    del cat, rep
    gc.collect()
    assert len(tallies._memo) == before - 3  # counts of both, the states


def test_the_workspace_banner_is_emitted_before_the_first_client(tmp_path, fake_home):
    ws = tmp_path / "collection"
    for n in ("alpha", "beta", "gamma"):
        write_skill(ws / n, n, f"Use when testing {n}.")
    parts: list[scanpass.ScanResult] = []
    res = scanpass.scan_everything(
        Environment(workspace=ws, home=fake_home),
        scanpass.make_parse_cache({}),
        200_000,
        False,
        emit=parts.append,
    )
    assert res.notes and parts[0].notes == res.notes and not parts[0].catalogs
    assert parts[1].catalogs and not parts[1].listings and parts[2].listings


def test_deferred_calls_get_turns_of_their_own(qtbot):
    """A chain of ``defer`` calls lets a timer that came due run between them (Qt 6 posts a
    ``singleShot(0)`` as an event: a chain of them and the paints they caused ran as one block)."""
    from PySide6.QtCore import QObject

    owner, order = QObject(), []
    tick = QTimer()
    tick.setInterval(0)
    tick.timeout.connect(lambda: order.append("tick"))

    def first() -> None:
        order.append("first")
        tick.start()
        defer(owner, lambda: order.append("second"))

    defer(owner, first)
    qtbot.waitUntil(lambda: "second" in order, timeout=2000)
    tick.stop()
    assert order.index("first") < order.index("tick") < order.index("second")


def test_a_busy_turn_and_a_slice_do_not_share_a_block(qapp):
    """After a turn of other work (a paint, a pane's turn) the slicer lets the timers due
    meanwhile run before the next slice, once (a busy loop must not starve the job)."""
    from workbench.app.turns import BUSY_S, LoopTurns

    turns = LoopTurns()
    given: list[float] = []

    class Baton:
        def run_slice(self, timeout_s: float) -> bool:
            given.append(timeout_s)
            return True

    turns.baton = Baton()  # type: ignore[assignment]
    turns.start_slicing()
    turns._slice()
    turns._slice()
    assert len(given) == 2  # an idle loop: a slice per tick
    turns._last_tick -= 2 * BUSY_S  # the loop was busy since the last tick
    turns._slice()
    assert len(given) == 2 and turns._slicer.isActive()  # no slice in that turn
    turns._last_tick -= 2 * BUSY_S  # busy again: the slice is not put off twice
    turns._slice()
    assert len(given) == 3
    turns.stop_slicing()
