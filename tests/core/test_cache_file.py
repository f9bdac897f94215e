"""Cache files (``cachefile.write_cache_file``): temp file + rename without fsync (issue 14 round 5,
a documented decision); a file cut short is detected on load and the cache rebuilt."""

from __future__ import annotations

import marshal
import os
import time
from pathlib import Path

import pytest

from tests.helpers import write_skill
from workbench.core.cache.cachefile import CACHE_TRAILER, cache_file_intact, load_entries, write_cache_file
from workbench.core.cache.resultcache import ResultCache
from workbench.core.lint import lint_paths


def test_written_with_trailer_and_no_temp_left(tmp_path):
    f = tmp_path / "sub" / "c.marshal"
    obj = {"format": 1, "entries": {"k": (1, b"x", "é")}}
    assert write_cache_file(f, obj, [])
    data = f.read_bytes()
    n = len(data) - len(CACHE_TRAILER) - 8
    assert data.endswith(CACHE_TRAILER + n.to_bytes(8, "little"))
    assert cache_file_intact(data) and marshal.loads(data) == obj
    assert os.listdir(f.parent) == ["c.marshal"]
    notes: list[str] = []
    assert load_entries(f, {"format": 1}, notes) == ({"k": (1, b"x", "é")}, False) and not notes


def test_written_in_pieces_that_load_as_the_object(tmp_path, monkeypatch):
    """``marshal_pieces``: the tables item by item (several pieces), every object at marshal
    version 2; joined they load as the object (surrogates, nesting, empty tables)."""
    from workbench.core.cache import cachefile

    monkeypatch.setattr(cachefile, "PIECE_ITEMS", 3)
    table = {f"/k/{i}\udcff": (i, b"x" * i, "é", None, (1.5, -(2**70)), [i], {"n": {}}) for i in range(10)}
    obj = {"format": 2, "entries": table, "empty": {}, "walks": {"w": ((1,), (2,), ())}, "t": ("a",)}
    pieces = list(cachefile.marshal_pieces(obj))
    assert len(pieces) > 4 and marshal.loads(b"".join(pieces)) == obj
    assert list(marshal.loads(b"".join(pieces))["entries"]) == list(table)  # order kept (trim_oldest)
    f = tmp_path / "c.marshal"
    assert write_cache_file(f, obj, []) and load_entries(f, {"format": 2}, []) == (table, False)


def test_a_value_marshal_cannot_hold_writes_nothing(tmp_path, monkeypatch):
    """A value marshal refuses after the first pieces were written: noted, the old file kept,
    no temp file left."""
    from workbench.core.cache import cachefile

    monkeypatch.setattr(cachefile, "PIECE_ITEMS", 2)
    f = tmp_path / "c.marshal"
    assert write_cache_file(f, {"format": 1, "entries": {"a": 1}}, [])
    notes: list[str] = []
    bad = {"format": 1, "entries": {**{f"k{i}": i for i in range(6)}, "bad": object()}}
    assert not write_cache_file(f, bad, notes)
    assert notes and "cache not saved" in notes[0]
    assert load_entries(f, {"format": 1}, []) == ({"a": 1}, False)
    assert os.listdir(tmp_path) == ["c.marshal"]


def test_unwritable_folder_is_noted(tmp_path):
    (tmp_path / "file").write_text("x")
    notes: list[str] = []
    assert not write_cache_file(tmp_path / "file" / "c.marshal", {"a": 1}, notes)
    assert notes and "cache not saved" in notes[0]


def test_truncated_cache_file_is_detected_at_every_length(tmp_path):
    f = tmp_path / "c.marshal"
    obj = {"format": 1, "entries": {f"/k/{i}": (i, b"\0" * 9, "x" * i) for i in range(20)}}
    write_cache_file(f, obj, [])
    data = f.read_bytes()
    for n in [*range(0, len(data), 7), len(data) - 1]:
        f.write_bytes(data[:n])
        notes: list[str] = []
        assert load_entries(f, {"format": 1}, notes) == ({}, True), n
        assert notes
    f.write_bytes(marshal.dumps(obj))  # no trailer: not written by write_cache_file
    assert load_entries(f, {"format": 1}, []) == ({}, True)


@pytest.mark.parametrize("cut", [1, 9, 5000])
def test_truncated_result_cache_is_rebuilt(tmp_path: Path, cut: int):
    for n in ("a", "b"):
        write_skill(
            tmp_path / "t" / n, raw=f"---\nname: {n}\ndescription: Same. Use when testing.\n---\n# B\n"
        )
    past = time.time() - 60
    for p in [tmp_path / "t", *(tmp_path / "t").iterdir(), *(tmp_path / "t").glob("*/SKILL.md")]:
        os.utime(p, (past, past))
    c = ResultCache("agentskills", tmp_path / "r")
    want = {k: list(v) for k, v in lint_paths([tmp_path / "t"], "agentskills", cache=c).items()}
    data = c.path.read_bytes()
    c.path.write_bytes(data[: max(0, len(data) - cut)])
    c2 = ResultCache("agentskills", tmp_path / "r")
    assert {k: list(v) for k, v in lint_paths([tmp_path / "t"], "agentskills", cache=c2).items()} == want
    assert c2.hits == 0 and any("incomplete" in n for n in c2.notes)
    c3 = ResultCache("agentskills", tmp_path / "r")  # rebuilt by the run before
    lint_paths([tmp_path / "t"], "agentskills", cache=c3)
    assert c3.hits == 2 and not c3.notes


def test_replace_file_writes_whole_or_nothing_and_leaves_no_temp_file(tmp_path, monkeypatch):
    from workbench.core.cache import cachefile

    dest = tmp_path / "sub" / "x.report"
    cachefile.replace_file(dest, b"ab", b"cd")
    assert dest.read_bytes() == b"abcd"

    def boom(src, dst):
        raise OSError("disk full")

    monkeypatch.setattr(cachefile.os, "replace", boom)
    with pytest.raises(OSError):
        cachefile.replace_file(dest, b"new")
    assert dest.read_bytes() == b"abcd"  # the old file stays
    assert sorted(p.name for p in dest.parent.iterdir()) == ["x.report"]  # no temp file left
