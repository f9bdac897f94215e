"""Issue 14 round 5 (output): a warm ``workbench lint --format json`` joins each file's JSON text
kept in the result cache (``records.escaped_json``) and writes it escaped in one call
(``SafeTextStream.write_escaped_utf8``); the report stays byte for byte the same."""

from __future__ import annotations

import io
import json
import marshal
import os
import time
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from tests.helpers import write_skill
from workbench.commands.lint import json_text, write_json
from workbench.core.cache.parsestore import ParseStore
from workbench.core.cache.resultcache import ResultCache
from workbench.core.lint import batch, catalogpass, lint_paths
from workbench.core.lint import records as records_mod
from workbench.core.lint.records import (
    DiagnosticList,
    escaped_json,
    json_diagnostics,
    json_fragment,
    merged_json,
    tuple_sort_key,
)
from workbench.core.text import SafeTextStream, escape_unsafe

_DESC = "description: Use when testing. Same.\n"


def _tree(root: Path) -> Path:
    # a C1 control in a folder name: raw in the plain report, escaped by SafeTextStream
    write_skill(root / "t" / "a\x85", raw="---\nname: a\n" + _DESC + "---\n# A\n")
    write_skill(root / "t" / "b", raw="---\nname: b\n" + _DESC + "---\n# B é\n")
    write_skill(root / "t" / "c", raw="---\nname: Bad_Name\ndescription: x\n---\n\ufeff# c\n")
    past = time.time() - 60  # the cache stores no racily new file
    for dp, _dn, fn in os.walk(root / "t"):
        for f in fn:
            os.utime(os.path.join(dp, f), (past, past))
        os.utime(dp, (past, past))
    return root / "t"


def _cache(root: Path) -> ResultCache:
    return ResultCache("agentskills", root / "results", parse_store=ParseStore(root / "parse"))


def _want(results: dict) -> str:
    summary = {"files": len(results), "errors": 0, "warnings": 0, "infos": 0}
    flat = [(p, d) for p, ds in results.items() for d in ds]
    doc = {"diagnostics": [dict(path=str(p), **d.to_json()) for p, d in flat], "summary": summary}
    return json.dumps({**doc, "profile": "agentskills"}, indent=2, ensure_ascii=False) + "\n"


def test_json_fragments_from_the_cache_give_the_same_report(tmp_path):
    t = _tree(tmp_path)
    summary = {"files": 3, "errors": 0, "warnings": 0, "infos": 0}
    plain = lint_paths([t], "agentskills")
    want = _want(plain)
    assert "\x85" in want  # the unsafe character reaches the plain report raw
    cold = lint_paths([t], "agentskills", cache=_cache(tmp_path), render_json=True)
    assert all(isinstance(v, DiagnosticList) and v._json is not None for v in cold.values())
    warm_cache = _cache(tmp_path)
    warm = lint_paths([t], "agentskills", cache=warm_cache, render_json=True)
    assert warm_cache.hits == 3 and warm_cache.catalog_hits == 3
    for v in warm.values():  # the text came from the cache: no diagnostic decoded
        assert isinstance(v, DiagnosticList) and v._json is not None and isinstance(v._src, bytes)
    for res in (cold, warm):
        assert json_text(res, summary, "agentskills") == want
        assert json_text(res, summary, "agentskills", escaped=True) == escape_unsafe(want)
    assert "\\u0085" in json_text(warm, summary, "agentskills", escaped=True)


def test_a_cache_without_json_text_gets_it(tmp_path):
    """A text or sarif run stores no JSON text; the next json run renders and stores it."""
    t = _tree(tmp_path)
    lint_paths([t], "agentskills", cache=_cache(tmp_path))  # render_json=False
    c = _cache(tmp_path)
    got = lint_paths([t], "agentskills", cache=c, render_json=True)
    assert c.catalog_hits == 3  # (saved by lint_paths: the next run reads the text)
    assert json_text(got, {"files": 3, "errors": 0, "warnings": 0, "infos": 0}, "agentskills") == _want(got)
    again = lint_paths([t], "agentskills", cache=_cache(tmp_path), render_json=True)
    assert all(v._json is not None and isinstance(v._src, bytes) for v in again.values())


def test_json_diagnostics_puts_each_path_back():
    fix = ("t\x9b", ((1, 1, 1, 2, "\x85"),))
    recs = [
        (1, 1, 1, 2, "error", "X1", "m\t\x85", fix, "r", False),
        (2, 1, 2, 1, "info", "X2", "n", None, "r", True),
    ]
    frag = json_fragment(recs)
    assert escaped_json(recs) == escape_unsafe(frag).encode() and b"\\u009b" in escaped_json(recs)
    assert frag.count("\t") == 1  # the separator; the message's tab is escaped by JSON
    parts = [(b'"/p"', frag.encode()), (b'"/q"', b""), (b'"/r"', json_fragment(recs[:1]).encode())]
    got = json.loads(b"".join(json_diagnostics(parts)))
    assert [d["path"] for d in got] == ["/p", "/p", "/r"]
    assert got[0]["message"] == "m\t\x85" and got[1]["unverified"] is True
    assert json_diagnostics([(b'"/q"', b"")]) == [b"[]"]


class _Latin1(io.StringIO):
    encoding = "latin-1"


class _Utf8(io.TextIOWrapper):
    """A UTF-8 text stream over bytes (as ``sys.stdout``): the report goes to its buffer."""

    def __init__(self) -> None:
        super().__init__(io.BytesIO(), encoding="utf-8", newline="")

    def getvalue(self) -> str:
        self.flush()
        data: bytes = self.buffer.getvalue()  # type: ignore[attr-defined]
        return data.decode("utf-8")


def test_write_json_escapes_once_for_a_safe_stream(tmp_path):
    t = _tree(tmp_path)
    res = lint_paths([t], "agentskills", cache=_cache(tmp_path), render_json=True)
    summary = {"files": 3, "errors": 0, "warnings": 0, "infos": 0}
    want = json_text(res, summary, "agentskills", {"profile_source": "option"})
    plain = io.StringIO()
    write_json(plain, res, summary, "agentskills", {"profile_source": "option"})
    assert plain.getvalue() == want  # a plain stream gets the plain text
    for sink in (io.StringIO(), _Latin1(), _Utf8()):
        safe = SafeTextStream(sink)
        write_json(safe, res, summary, "agentskills", {"profile_source": "option"})
        ref = type(sink)()
        SafeTextStream(ref).write(want)
        assert sink.getvalue() == ref.getvalue()
    assert "\\u0085" in sink.getvalue()
    latin = _Latin1()
    SafeTextStream(latin).write_escaped("é ✓ \x85")  # already escaped text: only the encoding
    assert latin.getvalue() == "é \\u2713 \x85"


def test_write_escaped_utf8_keeps_the_order_of_text_writes():
    sink = _Utf8()
    safe = SafeTextStream(sink)
    safe.write("a\x85")
    safe.write_escaped_utf8("é\n".encode())
    safe.write("z")
    assert sink.getvalue() == "a\\u0085é\nz"


def test_lint_exit_skips_the_last_gc_pass(tmp_path, monkeypatch):
    """``workbench lint`` registers ``gc.freeze`` at exit once (the interpreter's last cyclic
    GC pass over the caches is skipped); the report is unchanged."""
    import atexit
    import gc

    from workbench.cli import main
    from workbench.core import model

    hooks: list = []
    monkeypatch.setattr(atexit, "register", hooks.append)
    monkeypatch.setattr(model, "_exit_hook", False)
    write_skill(tmp_path / "a", raw="---\nname: a\ndescription: Use when testing.\n---\n# A\n")
    for _ in range(2):
        assert main(["lint", str(tmp_path / "a"), "--no-cache"]) == 0
    assert hooks == [gc.freeze]


_DIAG = st.tuples(
    st.integers(1, 4),
    st.integers(1, 4),
    st.integers(1, 4),
    st.integers(1, 4),
    st.sampled_from(["error", "warning", "info"]),
    st.sampled_from(["A1", "B2", "CAT001"]),
    st.text(alphabet="ab\t\x85é\ud800 ", max_size=3),
    st.none() | st.just(("t\x9b", ((1, 1, 1, 2, "\x85"),))),
    st.just("r"),
    st.booleans(),
)


@settings(max_examples=300, deadline=None)
@given(st.lists(_DIAG, max_size=6), st.lists(_DIAG, max_size=4))
def test_merged_json_puts_the_catalog_pieces_in_place(src, more):
    """Issue 14 round 6: the workers render each file's per-file diagnostics; the catalog pass
    puts its own findings' pieces in place (``records.merged_json``) = rendering them all."""
    src.sort(key=tuple_sort_key)
    want = DiagnosticList(src, more).escaped_json()
    assert merged_json(src, escaped_json(src), more) == want
    assert merged_json(marshal.dumps(tuple(src)), escaped_json(src), more) == want
    if len(src) > 1 and more:  # a text that does not hold one piece per diagnostic
        assert merged_json(src, escaped_json(src[1:]), more) is None


def test_worker_rendered_json_equals_the_parents(tmp_path, monkeypatch):
    """``records_chunk(render=True)`` (what ``LintFeed(render_json=True)`` makes the workers do)
    gives the catalog pass the per-file text: same report as rendering it all in the parent."""
    t = _tree(tmp_path)
    summary = {"files": 3, "errors": 0, "warnings": 0, "infos": 0}
    calls: list[int] = []
    real = records_mod.merged_json

    def spy(*a):
        calls.append(1)
        return real(*a)

    monkeypatch.setattr(catalogpass, "merged_json", spy)
    got = lint_paths([t], "agentskills", render_json=True)
    assert len(calls) == 3  # every file's text came from its records_chunk row
    assert json_text(got, summary, "agentskills") == _want(lint_paths([t], "agentskills"))
    feed = batch.LintFeed(1, render_json=True)
    assert not feed.active and feed.render_json
