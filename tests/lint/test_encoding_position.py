"""Invalid UTF-8 is reported where the first bad byte is (QA fault h13 #1), not at 1:1.

Position = the line of the byte and the column of its U+FFFD replacement character in the decoded
text (code points; a BOM is not a column), through every path that reports it: ``SkillFile``,
persisted parse facts, ``STR003`` via ``lint_file`` / ``lint_paths`` (cold and result-cached) and
``workbench lint``.
"""

from __future__ import annotations

import marshal

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from workbench.cli import main
from workbench.core.cache.resultcache import ResultCache
from workbench.core.cache.skillfacts import skillfile_facts, skillfile_from_facts
from workbench.core.lint import lint_file, lint_paths, lint_text
from workbench.core.skillfile import Span, parse_skill_bytes, parse_skill_text, read_skill_file

QA = b"---\nname: a\ndescription: caf\xe9\n---\n"  # the QA reproduction


def _str003(diags):
    (d,) = [d for d in diags if d.code == "STR003"]
    return d


@pytest.mark.parametrize(
    "raw,span",
    [
        (QA, Span(3, 17, 3, 18)),
        (b"\xef\xbb\xbf" + QA, Span(3, 17, 3, 18)),  # BOM: not a column
        (QA.replace(b"\n", b"\r\n"), Span(3, 17, 3, 18)),  # CRLF
        ("---\nname: a\ndescription: déjà vu ".encode() + b"\xff\n---\n", Span(3, 22, 3, 23)),  # code points
        (b"---\nname: a\ndescription: x\n---\n# T\n\n  \xc3(", Span(7, 3, 7, 4)),  # in the body
        (b"\x80---\n", Span(1, 1, 1, 2)),  # first byte (no frontmatter)
        (b"---\nname: a\ndescription: euro \xe2\x82", Span(3, 19, 3, 20)),  # truncated at end of file
        ("---\nname: 名前\ndescription: 😀 ".encode() + b"\xf0\x28\x8c\x28\n---\n", Span(3, 16, 3, 17)),
    ],
)
def test_encoding_span(raw, span):
    sf = parse_skill_bytes(raw)
    assert sf.not_utf8 and sf.encoding_span == span
    line = sf.text.split("\n")[span.line - 1]
    assert line[span.column - 1] == "\ufffd"
    assert f"line {span.line}, column {span.column}" in sf.encoding_message
    d = _str003(lint_file_bytes(raw))
    assert d.message == sf.encoding_message  # also when a frontmatter problem took ``message``
    assert (d.line, d.column, d.end_line, d.end_column) == (
        span.line,
        span.column,
        span.end_line,
        span.end_column,
    )


def lint_file_bytes(raw: bytes):
    from workbench.core.lint import lint_skillfile

    return lint_skillfile(parse_skill_bytes(raw))


def test_valid_utf8_has_no_encoding_span():
    sf = parse_skill_text("---\nname: a\ndescription: café. Use when testing.\n---\n")
    assert not sf.not_utf8 and sf.encoding_span is None
    assert "STR003" not in {d.code for d in lint_text("---\nname: a\ndescription: café\n---\n")}


def test_message_names_the_byte_and_position():
    sf = parse_skill_bytes(QA)
    assert sf.message == (
        "not valid UTF-8 (first bad byte 0xE9 at line 3, column 17); decoded with replacement characters"
    )
    assert sf.state == "ok" and sf.error_span is None  # the parse itself is fine


def test_lone_surrogate_in_an_editor_buffer():
    sf = parse_skill_text("---\nname: a\ndescription: x\ud800y\n---\n")
    assert sf.encoding_span == Span(3, 15, 3, 16)


def test_persisted_facts_keep_the_span(tmp_path):
    p = tmp_path / "a" / "SKILL.md"
    p.parent.mkdir()
    p.write_bytes(QA)
    sf = read_skill_file(p)
    lz = skillfile_from_facts(p, marshal.loads(marshal.dumps(skillfile_facts(sf))))
    assert lz.encoding_span == sf.encoding_span == Span(3, 17, 3, 18)
    ok = skillfile_from_facts(p, skillfile_facts(parse_skill_text("---\nname: a\n---\n", p)))
    assert ok.encoding_span is None


def test_lint_file_and_lint_paths_cold_and_cached(tmp_path):
    p = tmp_path / "a" / "SKILL.md"
    p.parent.mkdir()
    p.write_bytes(QA)
    want = (3, 17, 3, 18)
    d = _str003(lint_file(p))
    assert (d.line, d.column, d.end_line, d.end_column) == want and d.severity == "error"
    for _ in range(2):  # cold, then from the result cache
        res = lint_paths([tmp_path], "agentskills", cache=ResultCache("agentskills", tmp_path / "c"))
        d = _str003(res[p])
        assert (d.line, d.column, d.end_line, d.end_column) == want


def test_cli_points_at_the_bad_byte(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("WORKBENCH_HOME", str(tmp_path / "home"))
    (tmp_path / "x" / "a").mkdir(parents=True)
    (tmp_path / "x" / "a" / "SKILL.md").write_bytes(QA)
    rc = main(["lint", str(tmp_path / "x")])
    out, _ = capsys.readouterr()
    assert rc == 1
    assert f"{tmp_path / 'x' / 'a' / 'SKILL.md'}:3:17: error STR003 not valid UTF-8" in out
    assert ":1:1: error STR003" not in out


_text = st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00"), max_size=60)


@settings(max_examples=200, deadline=None)
@given(
    before=_text,
    after=_text,
    bad=st.sampled_from(
        [b"\x80", b"\xff", b"\xc3", b"\xe2\x82", b"\xed\xa0\x80", b"\xf4\x90\x80\x80", b"\xc0\xaf"]
    ),
    bom=st.booleans(),
)
def test_span_always_lands_on_the_first_replacement_character(before, after, bad, bom):
    raw = (b"\xef\xbb\xbf" if bom else b"") + before.encode() + bad + after.encode()
    sf = parse_skill_bytes(raw)
    sp = sf.encoding_span
    assert sf.not_utf8 and sp is not None and sp.end_column == sp.column + 1 and sp.end_line == sp.line
    lines = sf.text.split("\n")
    assert lines[sp.line - 1][sp.column - 1] == "\ufffd"
    # the first one: nothing before it was replaced (``before`` holds no U+FFFD of its own here)
    if "\ufffd" not in before:
        offset = sum(len(ln) + 1 for ln in lines[: sp.line - 1]) + sp.column - 1
        assert sf.text.index("\ufffd") == offset
    d = _str003(lint_file_bytes(raw))
    assert (d.line, d.column) == (sp.line, sp.column)
