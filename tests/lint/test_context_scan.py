"""Issue 14 round 5: the shared lint context answers line questions without splitting the text
(``line_count``, ``line_len``, ``head_lines``; fence line numbers counted from the previous
fence), and the rewritten rule patterns match exactly what the old ones matched (hypothesis)."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from workbench.core.lint.context import LintContext
from workbench.core.lint.profiles import lint_profile
from workbench.core.lint.runner import EMPTY_CATALOG
from workbench.core.skillfile import parse_skill_text

_PROF = lint_profile("agentskills")
#: text made of the characters the line and fence code cares about
_LINEY = st.text(alphabet=st.sampled_from(["a", " ", "\n", "\r", "`", "~", "-", "é", "\t"]), max_size=300)


def _ctx(text: str) -> LintContext:
    return LintContext(parse_skill_text(text, None), _PROF, EMPTY_CATALOG)


@settings(max_examples=300, deadline=None)
@given(_LINEY, st.integers(min_value=0, max_value=120), st.booleans())
def test_line_answers_equal_the_line_table(text, k, table_first):
    ctx, ref = _ctx(text), _ctx(text)
    if table_first:
        ctx.line_starts  # noqa: B018 - the other path of line_len
    lines = ref.lines
    assert ctx.line_count == len(lines)
    assert ctx.head_lines(k) == lines[:k]
    for n in range(1, len(lines) + 1):
        assert ctx.line_len(n) == len(lines[n - 1]), n


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.sampled_from(["```", "~~~~", "```py", "  ```", "text", "", "    ```", "``` x`"]), max_size=60)
)
def test_fence_lines_equal_pos(parts):
    text = "---\nname: a\ndescription: b\n---\n" + "\n".join(parts)
    ctx = _ctx(text)
    for f in ctx.fences:
        assert f.line == text.count("\n", 0, f.start) + 1


def test_many_lines_at_the_end():
    text = "---\nname: a\ndescription: b\n---\n" + "x\r\n" * 200 + "last"
    ctx = _ctx(text)
    assert ctx.line_len(204) == 1 and ctx.line_len(205) == 4
    assert ctx._lines is not None  # past line 64 without the table: the lines are split once


def _old_sec005_maybe(b: bytes) -> bool:
    from workbench.core.lint.rules import sec005_encoded_blob as s

    return s._RUN_B64 in b.translate(s._T_B64) or s._RUN_HEX in b.translate(s._T_HEX)


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.sampled_from(["a" * 60, "0f" * 30, "Z9+/" * 20, "deadbeef" * 8, " ", "\n", "=", "é", "g" * 70]),
        max_size=12,
    )
)
def test_sec005_precheck_equals_the_two_translates(parts):
    from workbench.core.lint.rules.sec005_encoded_blob import _maybe

    data = "".join(parts).encode()
    assert _maybe(data) == _old_sec005_maybe(data)


def test_odd_is_odd_bytes_of_the_file():
    from workbench.core.lint.context import odd_bytes

    ctx = _ctx("---\nname: a\ndescription: b\n---\né\x1b\u202e plain\n")
    assert ctx.odd == odd_bytes(ctx.utf8) == "é\x1b\u202e".encode()


#: ``context._LINK`` before its link text was unrolled (round 5)
_LINK_OLD = re.compile(
    r"\[(?:[^\]\\\n]|\\.)*\]\(\s*(<[^>\n]*>|[^)\s]+)(?:\s+(?:\"[^\"\n]*\"|'[^'\n]*'))?\s*\)"
)
_LINKY = st.text(alphabet=st.sampled_from(list("[]()\\<>\"' \na.`")), max_size=200)


@settings(max_examples=300, deadline=None)
@given(_LINKY)
def test_link_pattern_equals_the_old_one(text):
    from workbench.core.lint.context import _LINK

    def found(rx):
        return [(m.span(), m.span(1)) for m in rx.finditer(text)]

    assert found(_LINK) == found(_LINK_OLD)


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.sampled_from([" ", "\t", "\n", "\u3000", "\x1c", "a", "\r"]), max_size=20))
def test_body003_blank_test_equals_strip(body):
    assert (not body or body.isspace()) == (not body.strip())
