"""Reading SKILL.md: splitting, YAML with positions, bad input never raises."""

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from workbench.core.skillfile import MAX_FILE_BYTES, parse_skill_bytes, parse_skill_text, read_skill_file


def test_ok_with_positions():
    sf = parse_skill_text("---\nname: pdf\ndescription: Use when x.\n---\n# Body\n")
    assert sf.state == "ok"
    assert sf.data == {"name": "pdf", "description": "Use when x."}
    f = sf.fields["name"]
    assert (f.key_span.line, f.key_span.column) == (2, 1)
    assert (f.value_span.line, f.value_span.column, f.value_span.end_column) == (2, 7, 10)
    assert sf.body_line == 5 and sf.body.startswith("# Body")


def test_folded_and_wrapped_descriptions_are_the_yaml_string():
    sf = parse_skill_text("---\nname: a\ndescription: >\n  Use when\n  x.\n---\n")
    assert sf.data["description"] == "Use when x.\n"
    sf = parse_skill_text("---\nname: a\ndescription: Use when the user\n  asks for x.\n---\n")
    assert sf.data["description"] == "Use when the user asks for x."
    sf = parse_skill_text("---\nname: a\ndescription: |\n  line1\n  line2\n---\n")
    assert sf.data["description"] == "line1\nline2\n"


def test_unquoted_colon_is_a_positioned_yaml_error_and_line_parser_recovers():
    sf = parse_skill_text("---\nname: d\ndescription: Use when: x\n---\nbody")
    assert sf.state == "yaml-error"
    assert sf.error_span.line == 3
    assert sf.line_fields()["description"].value == "Use when: x"


def test_bom_crlf_trailing_spaces():
    sf = parse_skill_bytes(b"\xef\xbb\xbf---  \r\nname: a\r\ndescription: b\r\n---\r\nx\r\n")
    assert sf.state == "ok" and sf.has_bom and sf.newline == "\r\n" and sf.open_trailing_ws
    assert sf.data == {"name": "a", "description": "b"}


@pytest.mark.parametrize(
    "text,state",
    [
        ("# Canvas\n\ntext", "no-frontmatter"),
        ("\n---\nname: a\n---\n", "no-frontmatter"),
        ("---\nname: a\n", "unclosed"),
        ("---\n---\nbody", "empty"),
        ("---\n# only a comment\n---\n", "empty"),
        ("---\n- a\n- b\n---\n", "not-mapping"),
        ("---\njust a string\n---\n", "not-mapping"),
        ("---\nmetadata:\n\tx: 1\n---\n", "yaml-error"),
        ("---\nname: [invalid\n---\n", "yaml-error"),
    ],
)
def test_bad_frontmatter_states(text, state):
    sf = parse_skill_text(text)
    assert sf.state == state, sf.message
    assert sf.message and sf.error_span is not None


def test_dash_inside_value_is_not_a_delimiter():
    sf = parse_skill_text("---\nname: a\ndescription: a --- b\n---\n")
    assert sf.data["description"] == "a --- b"
    assert sf.dash_lines == [3]


def test_duplicate_keys_reported_last_wins():
    sf = parse_skill_text("---\nname: a\nname: b\n---\n")
    assert sf.data["name"] == "b"
    assert [(k, s.line) for k, s in sf.duplicate_keys] == [("name", 3)]


def test_binary_non_utf8_and_too_large(tmp_path: Path):
    assert parse_skill_bytes(b"---\nname: a\x00\n---\n").state == "binary"
    sf = parse_skill_bytes(b"---\nname: caf\xe9\ndescription: x\n---\n")
    assert sf.not_utf8 and sf.state == "ok" and "UTF-8" in sf.message
    big = tmp_path / "SKILL.md"
    big.write_bytes(b"---\nname: a\n---\n" + b"x" * (MAX_FILE_BYTES + 10))
    sf = read_skill_file(big)
    assert sf.state == "too-large" and sf.raw == b""


def test_unreadable(tmp_path: Path):
    sf = read_skill_file(tmp_path / "missing" / "SKILL.md")
    assert sf.state == "unreadable" and "cannot read" in sf.message


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=400))
def test_fuzz_never_raises(text):
    for t in (text, "---\n" + text, "---\n" + text + "\n---\n" + text):
        sf = parse_skill_text(t)
        assert sf.state in (
            "ok",
            "no-frontmatter",
            "unclosed",
            "empty",
            "yaml-error",
            "not-mapping",
            "binary",
        )
        if sf.state != "ok":
            assert sf.message


def test_whole_corpus_parses_without_crash(corpus):
    states = {}
    for p in corpus.rglob("SKILL.md"):
        sf = read_skill_file(p)
        states[sf.state] = states.get(sf.state, 0) + 1
    assert sum(states.values()) == 1241
    assert states.get("no-frontmatter") == 2 and states.get("yaml-error") == 2
