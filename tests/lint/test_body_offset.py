"""``LintContext.body_offset`` taken from the parse (``SkillFile._body_at``) equals the old count
of line breaks up to the closing delimiter line, whatever the frontmatter and line endings."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from workbench.core.lint.context import LintContext
from workbench.core.lint.profiles import lint_profile
from workbench.core.lint.runner import EMPTY_CATALOG
from workbench.core.skillfile import parse_skill_text

_PROF = lint_profile("agentskills")


def _old_offset(ctx: LintContext) -> int:
    """The pre-round-7 ``_find_body_offset``: the text after the ``close_line``-th line break."""
    sf = ctx.sf
    if sf.state in ("unclosed", "too-large", "binary", "unreadable"):
        return len(ctx.text)
    if sf.close_line is None:
        return 0
    t, idx = ctx.text, -1
    for _ in range(sf.close_line):
        idx = t.find("\n", idx + 1)
        if idx == -1:
            idx = len(t) - 1
            break
    return idx + 1


_LINES = st.lists(
    st.sampled_from(["---", "--- ", "---\r", "name: x", "description: d", "", "# c", "a: [", "body", "x\r"]),
    max_size=8,
)


@settings(max_examples=400, deadline=None)
@given(_LINES, _LINES, st.sampled_from(["", "\n", "\r\n"]))
def test_body_offset_from_the_parse_equals_the_count(head, rest, end):
    text = "\n".join(["---", *head]) + (end + "\n".join(rest) if rest else end)
    ctx = LintContext(parse_skill_text(text), _PROF, EMPTY_CATALOG)
    assert ctx.body_offset == _old_offset(ctx), text
    assert ctx.body == text[_old_offset(ctx) :]


def test_closing_line_ending_the_file():
    for text in ("---\nname: a\n---", "---\nname: a\n---  ", "---\nname: a\n---\r", "---\nname: a\n---\n"):
        ctx = LintContext(parse_skill_text(text), _PROF, EMPTY_CATALOG)
        assert ctx.body_offset == len(text) == _old_offset(ctx)
        assert ctx.body == ""


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(["a", "b\r", "\r", "", "é", "x\ry"]), max_size=8), st.integers(0, 10))
def test_head_lines_strip_only_their_own_line_ends(lines, k):
    """``head_lines(k)`` = ``lines[:k]`` (a "\\r" after the head, or inside a line, changes nothing)."""
    text = "\n".join(lines)
    ctx = LintContext(parse_skill_text(text), _PROF, EMPTY_CATALOG)
    assert ctx.head_lines(k) == [ln[:-1] if ln.endswith("\r") else ln for ln in text.split("\n")][:k]
