"""The faster frontmatter split and key handling give what the line-by-line version gave (issue 14).

``_reference_split`` is the previous implementation (every line split, the body re-joined),
kept here as the oracle."""

from __future__ import annotations

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
    only free if a file's work leaves no reference cycles behind."""
    import gc

    from workbench.core.lint.engine import _records_chunk, find_skill_files
    from workbench.core.lint.profiles import get_profile

    files = [str(f) for f in find_skill_files(corpus)][:400]
    while gc.collect():  # a collection can leave garbage of its own (finalizers of earlier tests' objects)
        pass
    was = gc.isenabled()
    gc.disable()
    try:
        out = _records_chunk(files, get_profile("claude-code"), True)
        assert len(out) == len(files)
        assert gc.collect() == 0
    finally:
        if was:
            gc.enable()
