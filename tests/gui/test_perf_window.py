"""Window work on the GUI thread stays small (issue 14): the tree expands its root rows only."""

from __future__ import annotations

from tests.helpers import write_skill
from workbench.core.model import Environment


def test_every_root_row_is_expanded_after_load_and_filter(open_window, tmp_path, fake_home):
    ws = tmp_path / "proj"
    write_skill(ws / ".claude" / "skills" / "alpha", "alpha", "Use when testing alpha.")
    write_skill(fake_home / ".claude" / "skills" / "beta", "beta", "Use when testing beta.")
    win = open_window(Environment(workspace=ws, home=fake_home), client_id="claude-code")
    tree, px = win.skills.tree, win.skills.proxy

    def expanded() -> list[bool]:
        return [tree.isExpanded(px.index(r, 0)) for r in range(px.rowCount()) if px.rowCount(px.index(r, 0))]

    assert len(expanded()) == 2 and all(expanded())
    win.skills.filter.setText("beta")
    assert expanded() == [True]
    win.skills.filter.clear()
    assert len(expanded()) == 2 and all(expanded())


def _big_catalog(tmp_path, n: int):
    from workbench.core.model import Catalog, Root, Skill

    roots = [Root(path=tmp_path / "a", scope="extra", precedence=1, exists=True)]
    roots.append(Root(path=tmp_path / "b", scope="user", precedence=2, exists=True))
    skills = [
        Skill(
            path=tmp_path / "a" / f"s{i:04d}" / "SKILL.md", root=roots[0], name=f"s{i:04d}", description="d"
        )
        for i in range(n)
    ]
    skills.append(Skill(path=tmp_path / "b" / "x" / "SKILL.md", root=roots[1], name="x", description="d"))
    return Catalog(client="claude-code", env=Environment(workspace=tmp_path), roots=roots, skills=skills)


def test_big_roots_are_fetched_in_chunks(qtmodeltester, tmp_path, monkeypatch):
    """Issue 14: the view is given FETCH_CHUNK rows of a big root at a time (laying out 10,000
    rows held the GUI thread up to 1.9 s); look-ups, filtering and fetchMore give it the rest."""
    from workbench.app import skills_tree
    from workbench.app.skills_tree import SkillFilterProxy, SkillRole, SkillsTreeModel

    monkeypatch.setattr(skills_tree, "FETCH_CHUNK", 10)
    monkeypatch.setattr(skills_tree, "WHOLE_ROOT_MAX", 12)
    cat = _big_catalog(tmp_path, 25)
    m = SkillsTreeModel()
    m.set_catalog(cat)
    big, small = m.index(0, 0), m.index(1, 0)
    assert (m.rowCount(big), m.rowCount(small)) == (10, 1)
    assert m.skill_count() == 26 and len(m.skills()) == 26  # the model holds them all
    assert m.canFetchMore(big) and not m.canFetchMore(small) and not m.canFetchMore(m.index(0, 0, big))
    m.fetchMore(big)
    assert m.rowCount(big) == 20
    idx = m.index_of_path(cat.skills[23].path)  # beyond what was fetched: fetched first
    assert idx.isValid() and m.rowCount(big) == 24 and m.data(idx, SkillRole) is cat.skills[23]
    # an incremental update reaches only the fetched rows
    m.set_catalog(None)
    m.set_catalog(cat)
    assert m.rowCount(m.index(0, 0)) == 10
    px = SkillFilterProxy()
    px.setSourceModel(m)
    px.set_filter_text("s0024")  # the filter searches every skill, fetched or not
    assert px.rowCount() == 1 and px.rowCount(px.index(0, 0)) == 1
    assert m.rowCount(m.index(0, 0)) == 25 and not m.canFetchMore(m.index(0, 0))
    m.set_catalog(cat.__class__(cat.client, cat.env, cat.roots, list(cat.skills)))
    qtmodeltester.check(m, force_py=True)  # fetchMore included


def test_panel_on_a_big_root_selects_an_unfetched_skill(open_window, tmp_path, fake_home, monkeypatch):
    from workbench.app import skills_tree

    monkeypatch.setattr(skills_tree, "FETCH_CHUNK", 3)
    monkeypatch.setattr(skills_tree, "WHOLE_ROOT_MAX", 4)
    ws = tmp_path / "coll"
    for i in range(8):
        write_skill(ws / f"s{i}", f"s{i}", f"Use when testing {i}.")
    win = open_window(Environment(workspace=ws, home=fake_home), client_id="claude-code")
    tree, px = win.skills.tree, win.skills.proxy
    last = max(win.skills.model.skills(), key=lambda s: s.name)
    win.ctx.select_skill(last.path)
    assert px.data(tree.currentIndex(), skills_tree.SkillRole) is last


def test_scan_job_waits_for_the_gui_to_show_the_first_client(qtbot, tmp_path, fake_home, monkeypatch):
    """Issue 14: after handing the first client to the GUI, the scan job scans the others only
    once the GUI has shown it (sharing the GIL made the GUI thread's first block 3x longer)."""
    import threading

    from workbench.app import context as context_mod
    from workbench.app.context import AppContext
    from workbench.app.settings import Settings

    monkeypatch.setattr(context_mod, "PARTIAL_WAIT_S", 30.0)
    ws = tmp_path / "ws"
    write_skill(ws / ".claude" / "skills" / "alpha", "alpha", "Use when testing alpha.")
    ctx = AppContext(Settings(persist=False), Environment(workspace=ws, home=fake_home), watch=False)
    partials: list = []
    done: list = []
    clients = ["claude-code", "codex"]

    def job() -> None:
        done.append(ctx._locked_scan(ctx.env, ctx.cache, 200_000, False, clients, emit=partials.append))

    t = threading.Thread(target=job)
    t.start()
    qtbot.waitUntil(lambda: bool(partials), timeout=30_000)
    t.join(0.3)
    assert t.is_alive() and not done and list(partials[0].catalogs) == ["claude-code"]
    assert partials[0].listings == {}  # the tree first, its listing while the tree is shown
    ctx._on_partial(-1, partials[0])  # even a stale partial ends the wait
    qtbot.waitUntil(lambda: len(partials) == 2, timeout=30_000)
    t.join(0.3)
    assert t.is_alive() and not done and list(partials[1].listings) == ["claude-code"]
    assert partials[1].catalogs == partials[0].catalogs
    ctx._on_partial(-1, partials[1])
    t.join(30)
    assert not t.is_alive() and set(done[0].catalogs) == set(clients)


def test_listing_renders_a_turn_later_while_a_scan_runs(open_window, tmp_path, fake_home, qtbot, monkeypatch):
    """Issue 14: the first client's partial result fills the tree in one event-loop turn and the
    listing in the next (two short GUI-thread blocks); after the scan, at once."""
    ws = tmp_path / "ws"
    write_skill(ws / ".claude" / "skills" / "alpha", "alpha", "Use when testing alpha.")
    win = open_window(Environment(workspace=ws, home=fake_home), client_id="claude-code")
    calls: list[int] = []
    monkeypatch.setattr(win.listing, "refresh", lambda: calls.append(1))
    monkeypatch.setattr(type(win.ctx), "scanning", property(lambda self: True))
    win.ctx.catalog_changed.emit()
    assert calls == []
    qtbot.waitUntil(lambda: calls == [1], timeout=5_000)
    monkeypatch.undo()
    monkeypatch.setattr(win.listing, "refresh", lambda: calls.append(2))
    win.ctx.catalog_changed.emit()
    assert calls == [1, 2]


def test_first_scan_parses_in_the_start_up_pool_then_ends_it(qtbot, tmp_path, fake_home):
    """Issue 14: the processes forked at start-up (``core.parsepool``) parse for the first scan
    (``ParseCache.pool``), then they are ended; later scans parse as before."""
    from workbench.app.context import AppContext
    from workbench.app.settings import Settings

    class FakePool:
        def __init__(self) -> None:
            self.asked: list[list[str]] = []
            self.ended = self.released = False

        def blobs(self, paths: list[str]) -> list[None]:
            self.asked.append(list(paths))
            return [None] * len(paths)  # None: not parsed here, the cache parses it

        def listings(self) -> dict[str, tuple[object, ...]]:
            return {}

        def release(self) -> None:
            self.released = True

        def shutdown(self) -> None:
            self.ended = True

    ws = tmp_path / "ws"
    alpha = write_skill(ws / ".claude" / "skills" / "alpha", "alpha", "Use when testing alpha.")
    pool = FakePool()
    env = Environment(workspace=ws, home=fake_home)
    ctx = AppContext(Settings(persist=False), env, watch=False, parse_pool=pool)  # type: ignore[arg-type]
    assert ctx.cache.pool == pool.blobs
    ctx.rescan()
    assert ctx.wait_for_scan(30_000)
    assert [str(alpha)] in pool.asked and pool.ended and pool.released and ctx.cache.pool is None
    assert [s.name for s in ctx.catalog("claude-code").skills] == ["alpha"]
    ctx.shutdown()


def test_only_the_shown_clients_listing_keeps_its_text(open_window, tmp_path, fake_home, qtbot):
    """Issue 14 (memory): after a scan only the shown client's listing has its text; the others
    keep their entries (the "every client" table) without it; switching client renders its text
    on a worker (the pane says so meanwhile) and drops the previous one's."""
    from workbench.app.scanpass import TextlessReport
    from workbench.core.listing import render_listing

    ws = tmp_path / "ws"
    alpha = write_skill(ws / ".claude" / "skills" / "alpha", "alpha", "Use when testing alpha.")
    win = open_window(Environment(workspace=ws, home=fake_home), client_id="claude-code")
    ctx = win.ctx
    assert (
        not isinstance(ctx.listings["claude-code"], TextlessReport)
        and "alpha" in ctx.listings["claude-code"].text
    )
    others = {c: r for c, r in ctx.listings.items() if c != "claude-code"}
    assert others and all(isinstance(r, TextlessReport) and r.text == "" for r in others.values())
    cid, rep = next((c, r) for c, r in others.items() if r.state_of(str(alpha)) is not None)
    assert rep.token_estimate > 0
    ctx.select_skill(alpha)
    rows = win.listing.clients_model
    row = next(r for r in range(rows.rowCount()) if rows._rows[r][0] == cid)
    assert rows.data(rows.index(row, 2)) == rep.state_of(str(alpha)).state  # from the textless one
    ctx.set_client(cid)
    assert ctx.listings_pending and "rendering…" in win.listing.header.text()
    assert isinstance(ctx.listings["claude-code"], TextlessReport)
    qtbot.waitUntil(lambda: not ctx.listings_pending, timeout=10_000)
    full = render_listing(ctx.catalog(cid), ctx.context_tokens)
    assert ctx.listing().text == full.text and win.listing.text.toPlainText() == full.text


def test_a_big_listing_fills_its_table_a_turn_after_its_text(
    open_window, tmp_path, fake_home, qtbot, monkeypatch
):
    """Issue 14: the text and the per-skill table of a listing of more than ``TABLE_LATER``
    skills are set in two event-loop turns (two short GUI-thread blocks instead of one)."""
    from workbench.app import listing_pane

    ws = tmp_path / "ws"
    alpha = write_skill(ws / ".claude" / "skills" / "alpha", "alpha", "Use when testing alpha.")
    win = open_window(Environment(workspace=ws, home=fake_home), client_id="claude-code")
    pane, ctx = win.listing, win.ctx
    ctx.select_skill(alpha)
    monkeypatch.setattr(listing_pane, "TABLE_LATER", 0)
    pane.table_model.set_report(None, set())
    pane._shown = None
    pane.refresh()
    assert pane.text.toPlainText() == ctx.listing().text and pane.table_model.rowCount() == 0
    qtbot.waitUntil(lambda: pane.table_model.rowCount() == len(ctx.listing().skills), timeout=5_000)
    assert pane.table.currentIndex().row() == pane.table_model.row_of_path(str(alpha))  # selected


def test_a_long_listing_text_is_set_in_pieces(open_window, tmp_path, fake_home, qtbot, monkeypatch):
    """Issue 14: a listing text of over ``TEXT_PIECE`` chars is set one piece per event-loop
    turn (``setPlainText`` of 2.5M chars held the GUI thread up to 0.6 s); the text view then
    holds exactly the listing, and the selected skill is highlighted once it is whole."""
    from workbench.app import listing_pane

    ws = tmp_path / "ws"
    for i in range(12):
        write_skill(ws / ".claude" / "skills" / f"s{i:02d}", f"s{i:02d}", f"Use when testing {i}.")
    win = open_window(Environment(workspace=ws, home=fake_home), client_id="opencode")
    pane, ctx = win.listing, win.ctx
    last = max(ctx.catalog().skills, key=lambda s: s.name)
    ctx.select_skill(last.path)
    monkeypatch.setattr(listing_pane, "TEXT_PIECE", 40)
    text = ctx.listing().text
    assert len(listing_pane._pieces(text)) > 3 and "\n".join(listing_pane._pieces(text)) == text
    pane._text = None
    pane._set_text(text)
    assert not pane.text_complete and pane.text.toPlainText() == listing_pane._pieces(text)[0]
    pane._on_selection()  # no highlight past the pieces set so far (Qt would warn)
    qtbot.waitUntil(lambda: pane.text_complete, timeout=5_000)
    assert pane.text.toPlainText() == text
    rng = pane.highlighted_range()
    assert rng is not None and last.name in text[rng[0] : rng[1]]


def test_a_scan_pass_saves_the_parse_cache_once_at_its_end(tmp_path, fake_home, monkeypatch):
    """Issue 14: ``discovery.scan`` saves the cache after each client; the window's pass holds
    those saves: one once the first client is shown (not between it and its tree), one at the
    end for what the others added."""
    from workbench.app import scanpass
    from workbench.core.discovery import ParseCache
    from workbench.core.model import CLIENT_IDS

    saves: list[int] = []
    monkeypatch.setattr(ParseCache, "save", lambda self: saves.append(1))
    ws = tmp_path / "ws"
    write_skill(ws / ".claude" / "skills" / "alpha", "alpha", "Use when testing alpha.")
    cache = scanpass.make_parse_cache({})
    seen: list[int] = []
    res = scanpass.scan_everything(
        Environment(workspace=ws, home=fake_home),
        cache,
        200_000,
        False,
        emit=lambda _p: seen.append(len(saves)),
    )
    assert set(res.catalogs) == set(CLIENT_IDS) and seen == [0, 0] and saves == [1, 1]
    cache.save()  # outside a pass: at once
    assert saves == [1, 1, 1]


def test_the_scan_job_resumes_once_the_gui_has_run_its_deferred_work(qtbot, tmp_path, fake_home):
    """Issue 14: after a partial result the scan job waits until every turn the panes deferred
    (``turns.defer``: tree rows, listing table) has run, not one turn: the job taking the GIL
    back meanwhile made a 0.5 s GUI block (its first listing render beside them, 100 ms)."""
    import threading
    from types import SimpleNamespace

    from workbench.app import scanpass
    from workbench.app.context import AppContext
    from workbench.app.settings import Settings

    ws = tmp_path / "ws"
    write_skill(ws / ".claude" / "skills" / "alpha", "alpha", "Use when testing alpha.")
    ctx = AppContext(Settings(persist=False), Environment(workspace=ws, home=fake_home), watch=False)
    res = scanpass.scan_everything(ctx.env, ctx.cache, 200_000, False, clients=["claude-code"])
    ran: list[int] = []
    from workbench.app.turns import defer

    ctx.catalog_changed.connect(lambda: defer(ctx, lambda: defer(ctx, lambda: ran.append(1))))
    ctx._scan_token = 7
    ctx._partial_shown.clear()
    ctx._on_partial(7, res)
    assert not ctx._partial_shown.is_set()
    qtbot.waitUntil(ctx._partial_shown.is_set, timeout=5_000)
    assert ran == [1]  # the two-turn work ran first
    ctx._partial_shown.clear()
    ctx._on_partial(7, res)
    ctx._job = SimpleNamespace(done=threading.Event())  # the scan job, waiting for the GUI
    assert not ctx.wait_for_scan(300)
    assert ctx._partial_shown.is_set()  # processEvents never blocks: run by wait_for_scan
    ctx._job = None


def test_the_first_client_is_shown_after_one_listing_of_each_folder(tmp_path, fake_home, monkeypatch):
    """Issue 14: the workspace treatment (Claude Code's nested-root search) and the first client's
    walk share one ``fscache.snapshot(dirs=)``: each folder of a collection is listed once before
    the tree is shown (it was listed twice: 0.25 s of the window's first 10,000-skill scan)."""
    import os
    import time
    from collections import Counter

    from workbench.app import scanpass
    from workbench.core.cache import fscache

    ws = tmp_path / "coll"
    for i in range(6):
        write_skill(ws / f"g{i % 2}" / f"s{i}", f"s{i}", f"Use when testing {i}.")
    old = time.time() - 3600  # not racily new: listings are kept (``fscache.RACY_NS``)
    for d in [ws, *(p for p in ws.rglob("*") if p.is_dir())]:
        os.utime(d, (old, old))
    listed: Counter[str] = Counter()
    real_scan = fscache._scan
    monkeypatch.setattr(fscache, "_scan", lambda p, *a: (listed.update([p]), real_scan(p, *a))[1])
    at_emit: list[Counter[str]] = []
    res = scanpass.scan_everything(
        Environment(workspace=ws, home=fake_home),
        scanpass.make_parse_cache({}),
        200_000,
        False,
        clients=["claude-code", "codex"],
        emit=lambda _p: at_emit.append(Counter(listed)),
    )
    assert len(res.catalogs["claude-code"].skills) == 6
    first = at_emit[0]
    assert first[str(ws)] == 1 and first[str(ws / "g0" / "s0")] == 1 and max(first.values()) == 1
