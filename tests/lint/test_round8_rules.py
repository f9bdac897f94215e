"""Issue 14 round 8: the per-file rules' cheaper paths find exactly what the old code found (the
old code kept here as the oracle; hypothesis): BODY005/006 share one list of local link targets
(``LintContext.local_links``), frontmatter lines come from one split (``frontmatter_lines``), the
SEC002/003 and FM011 pre-checks are one search each."""

from __future__ import annotations

import os

from hypothesis import given, settings
from hypothesis import strategies as st

from workbench.core.lint.bodyscan import local_target
from workbench.core.lint.context import LintContext
from workbench.core.lint.profiles import lint_profile
from workbench.core.lint.registry import RULES
from workbench.core.lint.ruleset import load_rules
from workbench.core.lint.runner import EMPTY_CATALOG
from workbench.core.skillfile import parse_skill_text

_PROF = lint_profile("agentskills")
_HEADS = ["", "---\nname: a\ndescription: b\n---\n", "---\r\nname: a\r\n---\r\n", "---\nname: a\n---"]
_PIECES = [
    "a",
    " ",
    "\n",
    "\r\n",
    "\t",
    "\u3000",
    "\\",
    "scripts\\run.py",
    "C:\\Users\\bob\\x",
    "/home/alice/",
    "/Users/me/x",
    "<!--",
    "-->",
    "ignore previous",
    "```",
    "```ps1",
    "~~~",
    "[a](",
    ")",
    "references/x.md",
    "../up.md",
    "#frag",
    "http://x",
    "a/b/c/d.md",
    "%20",
    ":",
    "/",
    ".",
    "é",
    "`",
]
_TEXTS = st.tuples(st.sampled_from(_HEADS), st.lists(st.sampled_from(_PIECES), max_size=40)).map(
    lambda hp: hp[0] + "".join(hp[1])
)


def _ctx(text: str, path: str | None = "/tmp/nowhere-s9/skill/SKILL.md") -> LintContext:
    return LintContext(parse_skill_text(text, path), _PROF, EMPTY_CATALOG)


def _found(code: str, ctx: LintContext) -> list[tuple[object, ...]]:
    load_rules()
    return [(f.span, f.message, f.fix, f.severity) for f in RULES[code].check(ctx)]


def _old_local(ctx: LintContext) -> list[tuple[str, int, int]]:
    out = []
    for target, s, e in ctx.links:
        t = local_target(target)
        if t is not None:
            out.append((t, s, e))
    return out


@settings(max_examples=300, deadline=None)
@given(_TEXTS)
def test_local_links_are_the_local_targets(text):
    ctx = _ctx(text)
    assert ctx.local_links == _old_local(_ctx(text))
    # BODY006 as before round 8: every link, local_target per link
    old6 = []
    for target, s, e in ctx.links:
        t = local_target(target)
        if t is None or t.startswith("/") or t.startswith(".."):
            continue
        parts = [p for p in t.split("/") if p not in ("", ".")]
        if len(parts) >= 3:
            old6.append(ctx.span(s, e))
    assert [f[0] for f in _found("BODY006", ctx)] == old6


def test_body005_messages_unchanged(tmp_path):
    skill = tmp_path / "s"
    (skill / "references").mkdir(parents=True)
    (skill / "references" / "ok.md").write_text("x")
    text = (
        "---\nname: s\ndescription: d\n---\n[a](references/ok.md) [b](references/no.md) [c](/abs.md) "
        "[d](../out.md) [e](http://x) [f](#top) [g](references/ok.md#x) [h](<references/no%20x.md>)\n"
    )
    ctx = _ctx(text, os.fspath(skill / "SKILL.md"))
    assert [f[1] for f in _found("BODY005", ctx)] == [
        "link target 'references/no.md' does not exist",
        "link to an absolute path '/abs.md': it breaks when the skill is installed elsewhere; link "
        "relative to the skill folder",
        "link '../out.md' leaves the skill folder; it breaks when the skill is installed on its own",
        "link target 'references/no x.md' does not exist",
    ]


_FM_LINES = st.lists(
    st.sampled_from(
        ["---", "name: a", "description: b c", "x: [1]", "", " ", "\r", "# c", "a: 'q'", "body é"]
    ),
    max_size=14,
)


@settings(max_examples=400, deadline=None)
@given(
    _FM_LINES,
    st.sampled_from(["\n", "\r\n"]),
    st.booleans(),
    st.booleans(),
    st.integers(min_value=0, max_value=16),
)
def test_frontmatter_table_answers_equal_the_lines(parts, nl, end_nl, lead, k):
    """``frontmatter_lines`` (round 8) gives ``line_len``, ``get_line`` and ``head_lines`` for the
    frontmatter's lines: the same answers as the split lines, before and after other questions."""
    parts = ["---", *parts] if lead else parts
    text = nl.join(parts) + (nl if end_nl and parts else "")
    ctx, ref = _ctx(text), _ctx(text)
    lines = ref.lines
    head = ctx.frontmatter_lines()
    assert head == lines[: len(head)] and len(head) <= (ctx.sf.close_line or 0)
    if ctx.sf.close_line and ctx.sf.state in ("ok", "yaml-error", "not-mapping"):
        assert len(head) == ctx.sf.close_line
    assert ctx.head_lines(k) == lines[:k]
    for n in range(1, len(lines) + 1):
        assert ctx.line_len(n) == len(lines[n - 1]), n
        assert ctx.get_line(n) == lines[n - 1], n


_DESC = st.lists(st.sampled_from(["Use when", " x", "<b>", "\r", "é", "", "  more", "a: b"]), max_size=6)


@settings(max_examples=300, deadline=None)
@given(_DESC, st.sampled_from(["\n", "\r\n"]), st.sampled_from([">", "|", ""]))
def test_description_spans_as_with_the_split_lines(parts, nl, style):
    """``first_line_of`` and DESC003 take a frontmatter line from ``get_line`` (round 8), not
    from the whole text split: the same spans as before."""
    from workbench.core.lint.rules._util import first_line_of

    body = nl.join("  " + p for p in parts)
    text = nl.join(["---", "name: a", f"description: {style}", body, "---", "body"]) + nl
    ctx, ref = _ctx(text), _ctx(text)
    f = ctx.fields.get("description")
    if f is None:
        return
    sp = f.value_span
    lines = ref.lines
    old = sp
    if sp.end_line != sp.line:
        ln = lines[sp.line - 1] if sp.line <= len(lines) else ""
        old = type(sp)(sp.line, sp.column, sp.line, max(sp.column + 1, len(ln) + 1))
    assert first_line_of(sp, ctx) == old
    assert ctx._lines is None  # the text was not split for it


@settings(max_examples=400, deadline=None)
@given(
    st.lists(st.binary(min_size=1, max_size=3), min_size=1, max_size=8),
    st.lists(
        st.sampled_from([b"\xe2", b"\x80", b"\xaa", b"\xd8", b"\x9c", b"a", b"\xef\xbb\xbf"]), max_size=12
    ),
)
def test_any_of_bytes_finds_what_in_finds(seqs, pieces):
    from workbench.core.lint.rules._util import any_of_bytes

    rx = any_of_bytes(tuple(seqs))
    data = b"".join(pieces) + b"".join(pieces[:1])
    for probe in (data, data + seqs[-1], seqs[0][:1]):
        assert (rx.search(probe) is not None) == any(s in probe for s in seqs)


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("[]{}&*!a: \n#'\"é")), max_size=40))
def test_fm011_marks_are_the_in_checks(fm):
    from workbench.core.lint.rules.fm011_strict_yaml import _MARKS, _NODE_MARKS

    assert (_MARKS.search(fm) is not None) == any(c in fm for c in "[{&*!")
    assert (_NODE_MARKS.search(fm) is not None) == any(c in fm for c in "[{*")
