"""The faster frontmatter split and key handling give what the line-by-line version gave (issue 14).

``_reference_split`` is the previous implementation (every line split, the body re-joined),
kept here as the oracle."""

from __future__ import annotations

import dataclasses
import json
import os

from hypothesis import given, settings
from hypothesis import strategies as st

from workbench.core.skillfile import _DELIM, SkillFile, Span, _split, parse_skill_text


def _reference_split(sf: SkillFile) -> None:
    text = sf.text
    lines = text.split("\n")
    first = lines[0] if lines else ""
    if not _DELIM.fullmatch(first):
        sf.state = "no-frontmatter"
        if first.strip() == "---":
            sf.message = "the first line is not exactly '---' (leading whitespace)"
        elif any(_DELIM.fullmatch(ln) for ln in lines[1:6]) and not first.strip():
            sf.message = "frontmatter must start on line 1; blank line(s) before '---'"
        else:
            sf.message = "no frontmatter: the file must start with a '---' line"
        sf.error_span = Span(1, 1, 1, max(2, len(first.rstrip("\r")) + 1))
        sf.body, sf.body_line = text, 1
        return
    sf.open_line = 1
    sf.open_trailing_ws = first.rstrip("\r") != "---"
    close = next((i for i in range(1, len(lines)) if _DELIM.fullmatch(lines[i])), None)
    if close is None:
        sf.state = "unclosed"
        sf.message = "frontmatter opened with '---' on line 1 is never closed by a '---' line"
        sf.error_span = Span(1, 1, 1, 4)
        sf.frontmatter = "\n".join(ln.rstrip("\r") for ln in lines[1:])
        sf.body, sf.body_line = "", len(lines) + 1
        return
    sf.close_line = close + 1
    fm_lines = [ln.rstrip("\r") for ln in lines[1:close]]
    sf.frontmatter = "\n".join(fm_lines)
    sf.body = "\n".join(lines[close + 1 :])
    sf.body_line = close + 2
    sf.dash_lines.extend(
        j + 2 for j, ln in enumerate(fm_lines) if "---" in ln and not ln.lstrip().startswith("#")
    )
    if not sf.frontmatter.strip() or all(not ln.strip() or ln.lstrip().startswith("#") for ln in fm_lines):
        sf.state = "empty"
        sf.message = "the frontmatter between the '---' lines is empty"
        sf.error_span = Span(1, 1, sf.close_line, 4)


_LINES = st.sampled_from(
    [
        "---",
        "--- ",
        "---\t",
        "---\r",
        "---\r\r",
        " ---",
        "----",
        "",
        " ",
        "\r",
        "name: x",
        "description: >",
        "  folded text",
        "# c",
        "a: b---",
        "x: 1",
        "```",
        "body ---",
        "é",
    ]
)


@settings(max_examples=600, deadline=None)
@given(st.lists(_LINES, max_size=12), st.booleans())
def test_split_matches_the_line_by_line_version(lines, trailing):
    text = "\n".join(lines) + ("\n" if trailing else "")
    got, want = SkillFile(path=None, text=text), SkillFile(path=None, text=text)
    _split(got)
    _reference_split(want)
    fields = (
        "state",
        "message",
        "error_span",
        "open_line",
        "open_trailing_ws",
        "close_line",
        "frontmatter",
        "body",
        "body_line",
        "dash_lines",
    )
    assert {f: getattr(got, f) for f in fields} == {f: getattr(want, f) for f in fields}


def test_keys_and_duplicates_of_every_scalar_kind():
    sf = parse_skill_text("---\nname: a\n1: x\n\"1\": y\ntrue: z\n!!str 2: w\nname: b\n---\n")
    assert sf.state == "ok"
    assert sf.duplicate_keys == [("1", Span(4, 1, 4, 4)), ("name", Span(7, 1, 7, 5))]  # 1 and "1" alike
    assert list(sf.fields) == ["name", "1", "true", "2"]
    assert sf.data == {"name": "b", "1": "y", "2": "w"}


def test_block_scalar_value_span_stops_at_its_last_content_line():
    crlf = "---\r\nname: a\r\ndescription: >\r\n  one\r\n  two\r\n\r\nlicense: MIT\r\n---\r\nb\r\n"
    for text, value in (
        (crlf, "one two\n"),
        ("---\nname: a\ndescription: |\n  one\n  two\n\n\n---\nbody\n", "one\ntwo\n"),
    ):
        sf = parse_skill_text(text)
        assert sf.fields["description"].value_span == Span(3, 14, 5, 6)  # "  two" ends at column 6
        assert sf.data["description"] == value


def test_linting_leaves_no_cyclic_garbage(corpus):
    """``lint_paths`` keeps the cyclic GC off while it reads, parses and lints (issue 14): that is
    only free if a file's work leaves no reference cycles behind. Measured in a fresh interpreter:
    in the test process, threads left by earlier (GUI) tests make garbage of their own."""
    import subprocess
    import sys

    code = (
        "import gc, sys\n"
        "from workbench.core.lint.batch import records_chunk\n"
        "from workbench.core.lint.profiles import lint_profile\n"
        "from workbench.core.skillwalk import find_skill_files\n"
        f"files = [str(f) for f in find_skill_files({str(corpus)!r})][:400]\n"
        "prof = lint_profile('claude-code')\n"
        "records_chunk(files[:5], prof, 2**62, 2**62)\n"  # imports and one-time tables first
        "gc.collect()\n"
        "gc.disable()\n"
        "out = records_chunk(files, prof, 2**62, 2**62)\n"
        "assert len(out) == len(files)\n"
        "print(gc.collect())\n"
    )
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert run.stdout.strip() == "0"


def test_crlf_and_dashes_in_frontmatter_keep_their_facts():
    """The LF fast paths (no CRLF count, no per-line split) give what the full work gives."""
    for nl in ("\n", "\r\n"):
        text = nl.join(["---", "name: a-b", "description: x --- y", "# c ---", "---", "body", ""])
        sf = parse_skill_text(text)
        assert sf.state == "ok" and sf.data == {"name": "a-b", "description": "x --- y"}
        assert sf.frontmatter == "name: a-b\ndescription: x --- y\n# c ---"
        assert sf.dash_lines == [3] and sf.close_line == 5
        assert sf.newline == nl
        assert sf.fields["description"].value_span == Span(3, 14, 3, 21)


def test_non_str_keys_are_rekeyed_and_sha256_is_lazy():
    sf = parse_skill_text("---\n2: two\n3.5: x\nname: a\n---\n")
    assert sf.data == {"2": "two", "3.5": "x", "name": "a"}
    assert list(sf.fields) == ["2", "3.5", "name"]
    import hashlib

    assert sf._sha256 is None
    assert sf.sha256 == hashlib.sha256(sf.raw).hexdigest()


def test_partial_skillfile_is_completed_by_load_full(tmp_path):
    """A SkillFile rebuilt from persisted facts is ``partial`` until ``load_full()``; every slot
    is either persisted or one of ``LAZY_ATTRS``; unknown attributes raise as usual."""
    from workbench.core.cache.skillfacts import FACT_SLOTS, skillfile_facts, skillfile_from_facts
    from workbench.core.skillfile import LAZY_ATTRS, read_skill_file

    # ``_body_at``: where ``body`` starts until it is sliced (-1 on a partial file)
    assert set(FACT_SLOTS) | set(LAZY_ATTRS) | {"path", "_lazy", "_body_at"} == set(SkillFile.__slots__)
    p = tmp_path / "a" / "SKILL.md"
    p.parent.mkdir()
    p.write_text("---\nname: a\ndescription: Use when testing.\n---\n# A\n\nBody.\n")
    full = read_skill_file(p)
    lz = skillfile_from_facts(p, skillfile_facts(full))
    assert lz.partial and lz.state == "ok" and lz.data == full.data
    assert lz.load_full() is lz and not lz.partial
    assert (lz.text, lz.body, set(lz.fields)) == (full.text, full.body, set(full.fields))
    assert lz.load_full() is lz  # a no-op now
    lz2 = skillfile_from_facts(p, skillfile_facts(full))
    assert lz2.body == full.body and not lz2.partial  # reading a lazy attribute completes it
    assert not hasattr(lz2, "no_such_attribute")


def test_diagnostic_list_is_a_read_only_sequence():
    from collections.abc import Sequence

    from workbench.core.lint import DiagnosticList, lint_text
    from workbench.core.lint.records import encode_diag

    diags = lint_text("---\nname: Bad Name\n---\n")
    dl = DiagnosticList(tuple(encode_diag(d) for d in diags))
    assert isinstance(dl, Sequence) and not isinstance(dl, list)
    assert not hasattr(dl, "append")
    assert len(dl) == len(diags) and dl == diags and list(dl) == diags and dl[0] == diags[0]
    assert dl.records() == [encode_diag(d) for d in diags]


def test_one_walker_skips_never_walked(tmp_path):
    from workbench.core.clients.common import NEVER_WALKED
    from workbench.core.skillwalk import SKIP_DIRS, find_skill_files, walk_tree

    assert SKIP_DIRS is NEVER_WALKED
    for d in ("ok", *NEVER_WALKED):
        (tmp_path / d / "s").mkdir(parents=True)
        (tmp_path / d / "s" / "SKILL.md").write_text("---\nname: s\n---\n")
    assert [p.relative_to(tmp_path).parts[0] for p in find_skill_files(tmp_path)] == ["ok"]
    seen = {os.path.relpath(dp, tmp_path).split(os.sep)[0] for dp, _d, fn in walk_tree(tmp_path) if fn}
    assert seen == {"ok"}


def test_pool_chunks_stay_small_enough_to_balance_the_tail():
    from workbench.core.lint.batch import CHUNK_MAX, CHUNK_MIN, chunk_size

    assert chunk_size(10_000, 2) == CHUNK_MAX == 50  # 1,250 then 200: a core idle ~0.9 / 0.1 s at the end
    assert chunk_size(1_000, 2) == 32 and chunk_size(200, 2) == CHUNK_MIN
    assert chunk_size(5, 0) == CHUNK_MIN


def test_a_fully_cached_lint_imports_no_rule_module(tmp_path):
    """Warm lint (issue 14 item 4): every result, catalog results included, comes from the result
    cache, so the ~100 rule modules (and their regexes) are never imported."""
    import subprocess
    import sys
    import time

    for name in ("a-skill", "b-skill"):
        d = tmp_path / "tree" / name
        d.mkdir(parents=True)
        (d / "SKILL.md").write_text(f"---\nname: {name}\ndescription: Same text. Use when testing.\n---\n")
    old = time.time() - 60  # not "racily clean": the cache keeps it
    for p in [*tmp_path.rglob("*"), tmp_path / "tree"]:
        os.utime(p, (old, old))
    code = (
        "import sys, json\n"
        "from workbench.core.cache.resultcache import ResultCache\n"
        "from workbench.core.lint import lint_paths\n"
        "from workbench.core.lint.profiles import lint_profile\n"
        "p = lint_profile('agentskills')\n"
        f"r = lint_paths([{str(tmp_path / 'tree')!r}], p, jobs=1, cache=ResultCache(p, {str(tmp_path / 'c')!r}))\n"
        "n = sum(len(v) for v in r.values())\n"
        "print(json.dumps([n, sorted(m for m in sys.modules if '.lint.rules.' in m)]))\n"
    )
    runs = [
        subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True) for _ in "12"
    ]
    (n1, mods1), (n2, mods2) = (json.loads(r.stdout) for r in runs)
    assert n1 == n2 > 0 and mods1  # the cold run loaded the rules; both found the same
    assert mods2 == []


def test_pool_workers_build_the_same_cache_entries_as_serial(corpus, tmp_path):
    """Issue 14 round 3: pool workers build the result-cache and parse-store entries themselves
    (one marshal blob per chunk) while the parent lints chunks from the back: the entries, the
    results and the catalog results are those of a serial run."""
    import shutil
    import time

    from workbench.core.cache.parsestore import ParseStore
    from workbench.core.cache.resultcache import ResultCache
    from workbench.core.lint import lint_paths
    from workbench.core.lint.profiles import lint_profile

    root = tmp_path / "skills"
    shutil.copytree(corpus / "openclaw", root)
    old = time.time() - 60  # not "racily clean": the caches keep it
    for p in [root, *root.rglob("*")]:
        os.utime(p, (old, old), follow_symlinks=False)
    prof = lint_profile("openclaw")
    got = {}
    for jobs in (1, 2):
        cache = ResultCache(prof, tmp_path / f"c{jobs}", parse_store=ParseStore(tmp_path / f"p{jobs}"))
        res = lint_paths([root], prof, jobs=jobs, cache=cache)
        got[jobs] = (
            {k: list(v) for k, v in res.items()},
            dict(cache._load()),
            dict(cache.parse_store._load()),
        )
        assert cache.stored == len(res) > 1
    assert got[1] == got[2]


def test_body_is_sliced_on_first_use(tmp_path):
    """``_split`` leaves ``body`` unsliced (``_body_at``); the first read slices it from ``text``,
    equal to what it was before; a partial file's body comes from ``load_full``."""
    from workbench.core.cache.skillfacts import skillfile_facts, skillfile_from_facts
    from workbench.core.skillfile import parse_skill_text, read_skill_file

    for text in (
        "---\nname: a\n---\nBody\r\nmore",
        "---\nname: a\n---",
        "---\n---\nx",
        "x\n---",
        "---\nname: a\n",
    ):
        sf = parse_skill_text(text)
        want = (
            text
            if sf.open_line is None
            else ("" if sf.close_line is None else "\n".join(text.split("\n")[sf.close_line :]))
        )
        assert sf.body == want and sf.body == want, text
    sf = parse_skill_text("---\nname: a\n---\nB\n")
    assert sf._body_at == 16 and sf.body == "B\n" and dataclasses.replace(sf).body == "B\n"
    p = tmp_path / "SKILL.md"
    p.write_bytes(b"---\nname: a\n---\nPart\n")
    lz = skillfile_from_facts(p, skillfile_facts(read_skill_file(p)))
    assert lz.partial and lz._body_at == -1 and lz.body == "Part\n" and not lz.partial
