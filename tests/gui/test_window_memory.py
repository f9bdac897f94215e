"""The window's scan pass keeps its peak memory down (issue 14): each client's listing rendered
right after its scan, equal values shared across the clients' catalogs, free memory released."""

from __future__ import annotations

from tests.helpers import write_skill
from workbench.app import memory, scanpass
from workbench.app.memory import ValueSharer
from workbench.core.listing import ListingReport
from workbench.core.model import CLIENT_IDS, Catalog, Environment, Root, Skill


def _env(tmp_path, fake_home) -> Environment:
    ws = tmp_path / "ws"
    for n in ("alpha", "beta"):
        write_skill(ws / ".agents" / "skills" / n, n, f"Use when testing {n}.\n  Twice.")
        write_skill(ws / ".claude" / "skills" / n, n, f"Use when testing {n}.")
    return Environment(workspace=ws, home=fake_home)


def test_each_listing_is_rendered_right_after_its_clients_scan(tmp_path, fake_home, monkeypatch):
    events: list[tuple[str, str]] = []
    real_scan, real_render = scanpass.scan, scanpass.render_listings

    def scan(env, cid, **kw):
        events.append(("scan", cid))
        return real_scan(env, cid, **kw)

    def render(catalogs, *a, **kw):
        events.extend(("render", c) for c in catalogs)
        return real_render(catalogs, *a, **kw)

    monkeypatch.setattr(scanpass, "scan", scan)
    monkeypatch.setattr(scanpass, "render_listings", render)
    order = ["codex", *[c for c in CLIENT_IDS if c != "codex"]]
    res = scanpass.scan_everything(
        _env(tmp_path, fake_home), scanpass.make_parse_cache({}), 200_000, False, order
    )
    assert events == [(kind, c) for c in order for kind in ("scan", "render")]
    # only the first client keeps its listing text
    assert type(res.listings["codex"]) is ListingReport and res.listings["codex"].text
    assert all(isinstance(res.listings[c], scanpass.TextlessReport) for c in order[1:])


def test_with_a_partial_result_the_first_listing_follows_its_emit(tmp_path, fake_home, monkeypatch):
    events: list[str] = []
    real_render = scanpass.render_listings

    def render(catalogs, *a, **kw):
        events.extend(f"render {c}" for c in catalogs)
        return real_render(catalogs, *a, **kw)

    monkeypatch.setattr(scanpass, "render_listings", render)
    res = scanpass.scan_everything(
        _env(tmp_path, fake_home),
        scanpass.make_parse_cache({}),
        200_000,
        False,
        emit=lambda part: events.append(f"emit {sorted(part.listings)}"),
    )
    first = CLIENT_IDS[0]
    assert events[:3] == ["emit []", f"render {first}", f"emit ['{first}']"]
    assert sorted(e.split()[1] for e in events if e.startswith("render")) == sorted(CLIENT_IDS)
    assert res.listings[first].text and set(res.listings) == set(CLIENT_IDS)


def test_the_clients_catalogs_share_equal_values(tmp_path, fake_home):
    res = scanpass.scan_everything(_env(tmp_path, fake_home), scanpass.make_parse_cache({}), 200_000, False)
    by_path: dict[str, list[Skill]] = {}
    for cat in res.catalogs.values():
        for s in cat.skills:
            by_path.setdefault(str(s.path), []).append(s)
    shared = 0
    for skills in by_path.values():
        first = skills[0]
        for s in skills[1:]:
            if s.fields == first.fields:
                assert s.fields is first.fields
                shared += 1
            if s.description == first.description:
                assert s.description is first.description
    assert shared > 10


def test_value_sharer_swaps_only_equal_values(tmp_path):
    root = Root(path=tmp_path, scope="project", precedence=0, exists=True)
    env = Environment(workspace=tmp_path)

    def skill(desc: str, fields: dict, unverified: list[str]) -> Skill:
        return Skill(tmp_path / "a" / "SKILL.md", root, "a", desc, fields=fields, unverified=unverified)

    a = skill("".join(["Use ", "when x."]), {"name": "a"}, [])  # built: two equal str objects
    b = skill("".join(["Use when", " x."]), {"name": "a"}, ["rule"])
    c = skill("Other.", {"name": "a", "x": 1}, ["rule"])
    d = skill("".join(["Oth", "er."]), {"name": "a", "x": 1}, [])
    other = Skill(tmp_path / "b" / "SKILL.md", root, "b", "Use when x.", unverified=["rule"])
    sharer = ValueSharer()
    assert sharer.share(Catalog("codex", env, [root], [a])) == 0
    assert sharer.share(Catalog("cursor", env, [root], [b, other])) == 4  # desc, fields, flags, unverified
    assert b.description is a.description and b.fields is a.fields and b.flags is a.flags
    assert b.unverified == ["rule"] and b.unverified is not a.unverified  # not equal: kept
    assert other.unverified is b.unverified  # equal lists shared across paths
    assert other.description == "Use when x." and other.flags is not a.flags  # another path
    sharer.share(Catalog("gemini-cli", env, [root], [c]))
    assert c.description == "Other." and c.fields == {"name": "a", "x": 1} and c.fields is not a.fields
    assert c.unverified is b.unverified
    sharer.share(Catalog("opencode", env, [root], [d]))  # any earlier value of the path, not only the first
    assert d.description is c.description and d.fields is c.fields and d.unverified is a.unverified


def test_release_free_memory_is_safe_to_call(monkeypatch):
    assert memory.release_free_memory() in (True, False)
    monkeypatch.setattr(memory, "_TRIM", None)  # not glibc
    assert memory.release_free_memory() is False


def test_the_window_fixes_the_mmap_threshold_before_its_parse_pool(monkeypatch):
    """Issue 14: glibc raised its mmap threshold after the parse pool's big messages were freed,
    and the window's peak RSS came out 6-7 MB higher in some runs: ``start_parse_pool`` fixes
    it first (``memory.fix_mmap_threshold``; a no-op elsewhere)."""
    from types import SimpleNamespace

    from workbench.app import main
    from workbench.core import parsepool

    calls: list[str] = []
    monkeypatch.setattr(memory, "fix_mmap_threshold", lambda: calls.append("fix") or True)
    monkeypatch.setattr(parsepool.ParsePool, "start", classmethod(lambda cls, **kw: calls.append("pool")))
    main.start_parse_pool(SimpleNamespace(workspace=None), SimpleNamespace(workspace=None))
    assert calls == ["fix", "pool"]
    monkeypatch.undo()
    assert memory.fix_mmap_threshold() is (memory._MALLOPT is not None)
    monkeypatch.setattr(memory, "_MALLOPT", None)  # not glibc
    assert memory.fix_mmap_threshold() is False
