"""Persistent parse facts (``ParseStore``), folder listings (``fscache.DirCache``) and lazily
completed ``SkillFile``s give exactly the results of a plain scan: cold, warm (a new cache object
reading the files on disk, as a new process would), after edits, adds, deletes and renames, and
with corrupt cache files."""

from __future__ import annotations

import marshal
import os
from pathlib import Path

import pytest

from tests.helpers import backdate
from workbench.core.cache import fscache
from workbench.core.cache.fscache import DirCache, snapshot
from workbench.core.cache.parsestore import ParseStore
from workbench.core.cache.skillfacts import skillfile_facts, skillfile_from_facts
from workbench.core.discovery import ParseCache, scan, scan_all
from workbench.core.lint import find_skill_files
from workbench.core.model import CLIENT_IDS, Environment
from workbench.core.skillfile import read_skill_file


def _skill(root: Path, name: str, desc: str, body: str = "# T\n") -> Path:
    d = root / name
    d.mkdir(parents=True, exist_ok=True)
    p = d / "SKILL.md"
    p.write_text(f"---\nname: {name}\ndescription: {desc}\n---\n{body}")
    return p


@pytest.fixture(autouse=True)
def _fresh_dir_caches():
    """``default_dir_cache`` keeps one table per folder for the process: start each test clean."""
    fscache._defaults.clear()
    yield
    fscache._defaults.clear()


@pytest.fixture()
def tree(tmp_path: Path) -> Path:
    root = tmp_path / "skills"
    _skill(root, "pdf-tools", "Extracts text from PDF files. Use when reading a PDF.")
    _skill(root, "dup", "First.")
    _skill(root / "nested", "dup", "Second. Use when testing.")
    (root / "bad").mkdir()
    (root / "bad" / "SKILL.md").write_text("---\nname: bad\ndescription: Use when: colons\n---\nBody\n")
    (root / "nofm").mkdir()
    (root / "nofm" / "SKILL.md").write_text("# just a body\n\nFirst paragraph.\n")
    (root / "when").mkdir()
    (root / "when" / "SKILL.md").write_text(
        "---\nname: when\ndescription: Dated. Use when testing.\ncreated: 2024-01-02\n---\nBody\n"
    )
    (root / "deep" / "a" / "b").mkdir(parents=True)
    _skill(root / "deep" / "a" / "b", "leaf", "Deep one. Use when testing depth.")
    backdate(root)
    return root


def _env(tmp_path: Path, root: Path) -> Environment:
    (tmp_path / "ws").mkdir(exist_ok=True)
    (tmp_path / "home").mkdir(exist_ok=True)
    return Environment(
        workspace=tmp_path / "ws", home=tmp_path / "home", extra_roots=[root], env={}, bins=set()
    )


def _json(cats) -> dict:
    return {cid: c.to_json() for cid, c in cats.items()}


def _plain(env: Environment) -> dict:
    return _json(scan_all(env, ParseCache()))


def test_cold_warm_equal_plain_all_clients(tree, tmp_path):
    env = _env(tmp_path, tree)
    ref = _plain(env)
    c1 = ParseCache(persist=tmp_path / "c")
    assert _json(scan_all(env, c1)) == ref
    assert c1.store is not None and c1.store.path.is_file() and c1.dirs.path.is_file()
    fscache._defaults.clear()  # as a new process
    c2 = ParseCache(persist=tmp_path / "c")
    assert _json(scan_all(env, c2)) == ref
    assert c2.store.misses <= 1  # only the file with a YAML timestamp is not persisted
    assert c2.store.hits >= 6
    assert c2.dirs.misses == 0


def test_lazy_skillfile_matches_a_fresh_parse(tree):
    for p in find_skill_files(tree):
        sf = read_skill_file(p)
        try:
            facts = marshal.loads(marshal.dumps(skillfile_facts(sf)))
        except ValueError:
            continue  # not persisted (YAML timestamp)
        lz = skillfile_from_facts(p, facts)
        assert lz.state == sf.state and lz.data == sf.data and lz.message == sf.message
        # not persisted: read on first use
        assert lz.text == sf.text and lz.body == sf.body and lz.frontmatter == sf.frontmatter
        assert lz.line_fields() == sf.line_fields()
        assert lz.first_body_paragraph() == sf.first_body_paragraph()
        assert set(lz.fields) == set(sf.fields)
        assert not hasattr(lz, "no_such_attribute")


def test_lazy_skillfile_after_the_file_changed_is_consistent(tree):
    p = tree / "pdf-tools" / "SKILL.md"
    lz = skillfile_from_facts(p, skillfile_facts(read_skill_file(p)))
    p.write_text("---\nname: pdf-tools\ndescription: [unclosed\n---\n")
    assert lz.text.startswith("---\nname: pdf-tools\ndescription: [unclosed")
    assert lz.state == "yaml-error"  # every attribute came from the new read


@pytest.mark.parametrize("change", ["edit", "add", "delete", "rename", "add-deep"])
def test_changes_invalidate(tree, tmp_path, change):
    env = _env(tmp_path, tree)
    scan_all(env, ParseCache(persist=tmp_path / "c"))
    if change == "edit":
        p = tree / "pdf-tools" / "SKILL.md"
        p.write_text(
            "---\nname: pdf-tools\ndescription: Now about Word files. Use when editing .docx.\n---\n"
        )
        backdate(tree / "pdf-tools", 30)
    elif change == "add":
        _skill(tree, "newcomer", "Brand new. Use when testing adds.")
        backdate(tree, 30)
    elif change == "delete":
        (tree / "dup" / "SKILL.md").unlink()
        backdate(tree, 30)
    elif change == "rename":
        (tree / "pdf-tools").rename(tree / "pdf-renamed")
        backdate(tree, 30)
    else:
        _skill(tree / "deep" / "a" / "b", "leaf2", "Another deep one. Use when testing.")
        backdate(tree, 30)
    fscache._defaults.clear()
    got = _json(scan_all(env, ParseCache(persist=tmp_path / "c")))
    assert got == _plain(env)
    names = {s["name"] for s in got["agentskills"]["skills"]}
    if change == "add":
        assert "newcomer" in names
    if change == "add-deep":
        assert "leaf2" in names
    if change == "rename":
        assert any("pdf-renamed" in s["path"] for s in got["agentskills"]["skills"])
    if change == "edit":
        assert any("Word files" in s["description"] for s in got["agentskills"]["skills"])


def test_racy_new_files_are_not_stored(tmp_path):
    root = tmp_path / "s"
    _skill(root, "fresh", "Brand new. Use when testing.")
    env = _env(tmp_path, root)
    c = ParseCache(persist=tmp_path / "c")
    scan(env, "agentskills", c)
    assert c.store.stored == 0
    assert len(c.dirs) == 0  # the folders are racily new too


@pytest.mark.parametrize(
    "garbage", [b"", b"junk", b"\xff" * 50, marshal.dumps({"format": 1}), marshal.dumps([1])]
)
def test_corrupt_cache_files_are_ignored(tree, tmp_path, garbage):
    env = _env(tmp_path, tree)
    ref = _plain(env)
    scan_all(env, ParseCache(persist=tmp_path / "c"))
    for f in (tmp_path / "c" / "parse" / "facts.marshal", tmp_path / "c" / "fs" / "dirs.marshal"):
        f.write_bytes(garbage)
    fscache._defaults.clear()
    c = ParseCache(persist=tmp_path / "c")
    assert _json(scan_all(env, c)) == ref
    fscache._defaults.clear()
    c2 = ParseCache(persist=tmp_path / "c")  # rebuilt by the previous run
    assert _json(scan_all(env, c2)) == ref
    assert c2.store.hits > 0


def test_malformed_entries_are_misses(tree, tmp_path):
    env = _env(tmp_path, tree)
    ref = _plain(env)
    scan_all(env, ParseCache(persist=tmp_path / "c"))
    f = tmp_path / "c" / "parse" / "facts.marshal"
    obj = marshal.loads(f.read_bytes())
    for k in obj["entries"]:
        e = obj["entries"][k]
        obj["entries"][k] = e[:3] + (b"not marshal",)
    f.write_bytes(marshal.dumps(obj))
    d = tmp_path / "c" / "fs" / "dirs.marshal"
    dobj = marshal.loads(d.read_bytes())
    for k in dobj["dirs"]:
        dobj["dirs"][k] = ("junk",)
    dobj["walks"] = {k: ("junk",) for k in dobj["walks"]}
    d.write_bytes(marshal.dumps(dobj))
    fscache._defaults.clear()
    assert _json(scan_all(env, ParseCache(persist=tmp_path / "c"))) == ref


def test_dircache_listing_follows_folder_mtime(tmp_path):
    root = tmp_path / "r"
    (root / "a").mkdir(parents=True)
    backdate(root)
    dc = DirCache(persist=False)
    first = dc.listing(str(root))
    assert tuple(first[1]) == ("a",) and dc.misses == 1
    assert dc.listing(str(root))[1] == ("a",) and dc.hits == 1
    (root / "b").mkdir()
    backdate(root, 30)
    assert sorted(dc.listing(str(root))[1]) == ["a", "b"]
    assert dc.misses == 2


def test_symlinks_are_rechecked(tmp_path):
    root = tmp_path / "r"
    target = tmp_path / "elsewhere"
    _skill(target, "linked", "Through a link. Use when testing.")
    root.mkdir()
    os.symlink(target / "linked", root / "linked")
    backdate(tmp_path)
    env = _env(tmp_path, root)
    c = ParseCache(persist=tmp_path / "c")
    assert [s.name for s in scan(env, "agentskills", c).skills] == ["linked"]
    (target / "linked" / "SKILL.md").unlink()  # the folder holding the link is unchanged
    (target / "linked").rmdir()
    fscache._defaults.clear()
    # The dangling link is not listed from the stale cache; it is reported as a broken skill
    # folder (tests/core/test_bad_entries.py), never silently dropped.
    got = scan(env, "agentskills", ParseCache(persist=tmp_path / "c")).skills
    assert [(s.status, s.reason.split(" to ")[0]) for s in got] == [
        ("skipped", "the skill folder linked/ is a broken symlink")
    ]


def test_find_skill_files_with_and_without_dircache(tree, tmp_path):
    (tree / "node_modules" / "x").mkdir(parents=True)
    (tree / "node_modules" / "x" / "SKILL.md").write_text("x")
    os.symlink(tree / "deep", tree / "link")
    backdate(tree)
    plain = find_skill_files(tree)
    dc = DirCache(tmp_path / "fs")
    with snapshot():
        assert find_skill_files(tree, dirs=dc) == plain
    assert find_skill_files(tree, dirs=dc) == plain


def test_snapshot_memoises_stat(tmp_path):
    p = tmp_path / "f"
    p.write_text("x")
    with snapshot() as memo:
        st = fscache.stat(str(p))
        p.unlink()
        assert fscache.stat(str(p)) is st  # the snapshot's view
        assert str(p) in memo
    assert fscache.stat(str(p)) is None  # outside: the real state


def test_parallel_prefetch_equals_serial(corpus, tmp_path):
    root = corpus / "openclaw"
    env = _env(tmp_path, root.resolve())
    ref = _plain(env)
    c = ParseCache(persist=tmp_path / "c")
    paths = [str(p) for p in find_skill_files(root.resolve())]
    from workbench.core.lint.batch import parallel_ok as _parallel_ok

    # forked workers only when no other thread runs in this process (earlier GUI tests may leave one)
    assert c.prefetch(paths, jobs=2) > 0 or not _parallel_ok()
    assert _json(scan_all(env, c)) == ref


def test_corpus_warm_equals_plain(corpus, tmp_path):
    env = _env(tmp_path, corpus.resolve())
    ref = _plain(env)
    assert _json(scan_all(env, ParseCache(persist=tmp_path / "c"))) == ref
    fscache._defaults.clear()
    c = ParseCache(persist=tmp_path / "c")
    assert _json(scan_all(env, c)) == ref
    assert c.store.hits > 0


def test_store_skips_unmarshallable_yaml(tree, tmp_path):
    p = tree / "when" / "SKILL.md"
    store = ParseStore(tmp_path / "p")
    sf = read_skill_file(p)
    assert store.put(str(p), sf, os.stat(p)) is False  # date value: not persisted
    q = tree / "dup" / "SKILL.md"
    assert store.put(str(q), read_skill_file(q), os.stat(q)) is True
    assert store.save()
    again = ParseStore(tmp_path / "p")
    got = again.get(str(q), os.stat(q))
    assert got is not None and got.data == read_skill_file(q).data
    assert again.get(str(p), os.stat(p)) is None


def test_all_clients_in_scan_all_read_from_the_store(tree, tmp_path):
    env = _env(tmp_path, tree)
    scan_all(env, ParseCache(persist=tmp_path / "c"))
    fscache._defaults.clear()
    c = ParseCache(persist=tmp_path / "c")
    cats = scan_all(env, c)
    assert set(cats) == set(CLIENT_IDS)
    assert c.misses == len({s.path for cat in cats.values() for s in cat.skills})  # each file once


def test_prefetcher_fed_in_pieces_equals_one_scan_per_client(corpus, tmp_path, monkeypatch):
    """``prepare`` feeds the parse pool while it walks (small chunks here); the catalogs equal
    each client scanned on its own with a fresh cache (no shared pass, no pool)."""
    from workbench.core import parsecache
    from workbench.core.discovery import scan
    from workbench.core.model import CLIENT_IDS

    root = (corpus / "openclaw").resolve()
    env = _env(tmp_path, root)
    ref = {cid: scan(env, cid, ParseCache()).to_json() for cid in CLIENT_IDS}
    monkeypatch.setattr(parsecache, "PREFETCH_MIN", 3)
    monkeypatch.setattr(parsecache, "PREFETCH_CHUNK", 4)
    paths = [str(p) for p in find_skill_files(root)]
    c = ParseCache(persist=tmp_path / "c")
    pf = c.prefetcher(jobs=2)
    for i in range(0, len(paths), 5):
        pf.add(paths[i : i + 5] + paths[:2])  # a path added twice is parsed once
    got = pf.finish()
    assert got == len(paths) or not parsecache.fork_ok()
    assert _json(scan_all(env, c)) == ref
    assert _json(scan_all(env, ParseCache(persist=tmp_path / "d"))) == ref


def test_walk_reports_each_file_as_met(tree):
    """``walk(on_file=)`` (the parse starts while the walk goes on): every regular SKILL.md the
    walk returns, once, including the ones the client would skip; the result is unchanged."""
    from workbench.core.cache.fscache import DirCache
    from workbench.core.clients.walk import EXTRA_RULES, walk

    met: list[tuple[str, Path]] = []
    found = walk(tree, EXTRA_RULES, on_file=lambda s, p: met.append((s, p)))
    assert sorted(s for s, _ in met) == sorted(str(f.path) for f in found) and len(set(met)) == len(met)
    # the Path handed over is the Found's own (the file's SkillFile shares it: no second Path)
    by_path = {id(f.path) for f in found}
    assert all(str(p) == s and id(p) in by_path for s, p in met)
    dirs = DirCache(persist=False)
    walk(tree, EXTRA_RULES, dirs=dirs)
    again: list[tuple[str, Path]] = []
    assert walk(tree, EXTRA_RULES, dirs=dirs, on_file=lambda s, p: again.append((s, p))) == found


def test_deferred_saves_are_written_by_save_async(tree, tmp_path):
    """``defer_saves``: a scan's ``save`` writes nothing; ``save_async`` writes it all on a
    thread (the scan CLI), and a new cache object then reads every file from it."""
    env = _env(tmp_path, tree)
    ref = _plain(env)
    c1 = ParseCache(persist=tmp_path / "c")
    c1.defer_saves()
    assert _json(scan_all(env, c1)) == ref
    assert not c1.store.path.exists() and not c1.dirs.path.exists()
    c1.save_async()()
    assert c1.store.path.is_file() and c1.dirs.path.is_file()
    fscache._defaults.clear()  # as a new process
    c2 = ParseCache(persist=tmp_path / "c")
    assert _json(scan_all(env, c2)) == ref
    assert c2.store.hits >= 6 and c2.dirs.misses == 0


def test_parse_workers_send_each_files_facts_as_stored_bytes(tree, tmp_path):
    """``Prefetcher``'s worker entry point gives per file the ``marshal`` bytes of its facts
    (None when ``marshal`` cannot hold them: a YAML date), and the pool's files land in the
    parse store with those bytes: a new cache rebuilds the same ``SkillFile`` facts."""
    from workbench.core.parsecache import _blobs_chunk

    paths = [str(p) for p in find_skill_files(tree)]
    got = marshal.loads(_blobs_chunk(paths))
    for p, blob in zip(paths, got):
        if p.endswith("when/SKILL.md"):
            assert blob is None
        else:
            assert marshal.loads(blob) == skillfile_facts(read_skill_file(p))
    c = ParseCache(persist=tmp_path / "c")
    pf = c.prefetcher(jobs=2)
    pf.add(paths)
    from workbench.core.lint.batch import parallel_ok as _parallel_ok

    n = pf.finish()
    assert n == len(paths) - 1 or not _parallel_ok()  # the dated file is left to ``get``
    c.save()
    fscache._defaults.clear()
    again = ParseStore(tmp_path / "c" / "parse")
    for p in paths:
        sf = again.get(p, os.stat(p))
        if p.endswith("when/SKILL.md") or not n:
            continue
        assert sf is not None and skillfile_facts(sf) == skillfile_facts(read_skill_file(p))
