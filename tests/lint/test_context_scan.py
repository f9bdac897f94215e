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
    from workbench.core.lint.bodyscan import odd_bytes

    ctx = _ctx("---\nname: a\ndescription: b\n---\né\x1b\u202e plain\n")
    assert ctx.odd == odd_bytes(ctx.utf8) == "é\x1b\u202e".encode()


#: ``bodyscan._LINK`` before its link text was unrolled (round 5)
_LINK_OLD = re.compile(
    r"\[(?:[^\]\\\n]|\\.)*\]\(\s*(<[^>\n]*>|[^)\s]+)(?:\s+(?:\"[^\"\n]*\"|'[^'\n]*'))?\s*\)"
)
_LINKY = st.text(alphabet=st.sampled_from(list("[]()\\<>\"' \na.`")), max_size=200)


@settings(max_examples=300, deadline=None)
@given(_LINKY)
def test_link_pattern_equals_the_old_one(text):
    from workbench.core.lint.bodyscan import _LINK

    def found(rx):
        return [(m.span(), m.span(1)) for m in rx.finditer(text)]

    assert found(_LINK) == found(_LINK_OLD)


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.sampled_from([" ", "\t", "\n", "\u3000", "\x1c", "a", "\r"]), max_size=20))
def test_body003_blank_test_equals_strip(body):
    assert (not body or body.isspace()) == (not body.strip())


def _old_fences(ctx: LintContext) -> list[tuple[int, int, int, str, str, bool]]:
    """``LintContext.fences`` before round 5 (candidate tuples, ``pos`` per fence)."""
    from workbench.core.lint.bodyscan import _FENCE_AT, _FENCE_NL

    out = []
    body, base = ctx.body, ctx.body_offset
    cands: list[tuple[int, int, str, str]] = []
    if "```" in body or "~~~" in body:
        cands = [(m.start() + 1, m.end(), m[1], m[2]) for m in _FENCE_NL.finditer(body)]
        m0 = _FENCE_AT.match(body)
        if m0:
            cands.insert(0, (0, m0.end(), m0[1], m0[2]))
    cur = None
    for ls, le, marker, rest in cands:
        rest = rest.rstrip("\r")
        if cur is None:
            if marker[0] == "`" and "`" in rest:
                continue
            cur = (ls, marker, rest.strip().split(" ")[0].lower() if rest.strip() else "")
        elif marker[0] == cur[1][0] and len(marker) >= len(cur[1]) and not rest.strip():
            out.append((base + cur[0], base + le, ctx.pos(base + cur[0])[0], cur[1], cur[2], True))
            cur = None
    if cur is not None:
        out.append((base + cur[0], len(ctx.text), ctx.pos(base + cur[0])[0], cur[1], cur[2], False))
    return out


_FENCE_LINES = st.sampled_from(
    [
        "```",
        "~~~~",
        "```Py x",
        "  ```",
        "text",
        "",
        "    ```",
        "``` x`",
        "~~~ a\r",
        "```\r",
        " ~~~",
        "````",
        "\u3000",
    ]
)


@settings(max_examples=500, deadline=None)
@given(st.lists(_FENCE_LINES, max_size=40), st.booleans())
def test_fences_equal_the_old_scan(parts, frontmatter):
    text = ("---\nname: a\ndescription: b\n---\n" if frontmatter else "") + "\n".join(parts)
    got = [(f.start, f.end, f.line, f.marker, f.lang, f.closed) for f in _ctx(text).fences]
    assert got == _old_fences(_ctx(text))


def _old_fm011_walk(node: object, seen: set[int]) -> list[tuple[str, object]]:
    """FM011's node walk before round 7 (a recursive generator then: same order)."""
    import yaml

    if id(node) in seen:
        return [("alias", node)]
    seen.add(id(node))
    out: list[tuple[str, object]] = []
    if isinstance(node, (yaml.SequenceNode, yaml.MappingNode)):
        if node.flow_style:
            return [("flow", node)]
        for n in node.value if isinstance(node, yaml.SequenceNode) else [x for kv in node.value for x in kv]:
            out += _old_fm011_walk(n, seen)
    return out


def _old_fm011(ctx: LintContext) -> list[tuple[object, str]]:
    """FM011's findings before round 5 (node walk and line scan whenever a trigger occurs)."""
    from workbench.core.lint.rules import fm011_strict_yaml as m

    if ctx.sf.state != "ok":
        return []
    fm = ctx.sf.frontmatter
    if not any(c in fm for c in "[{&*!"):
        return []
    out: list[tuple[object, str]] = []
    seen: set[int] = set()
    for f in ctx.fields.values():
        if f.node is not None:
            out += [(m._sp(node), kind) for kind, node in _old_fm011_walk(f.node, seen)]
    for i, s in enumerate(ctx.lines[1 : (ctx.sf.close_line or 1) - 1]):
        if ("&" not in s and "!" not in s) or s.lstrip().startswith("#"):
            continue
        head = s.split(": ", 1)
        val_start = len(head[0]) + 1 if len(head) == 2 else 0
        for mt in m._ANCHOR_TAG.finditer(s, val_start):
            tok = mt.group(1)
            q = s[: mt.start(1)]
            if tok.startswith("*") or q.count('"') % 2 or q.count("'") % 2:
                continue
            out.append(((i + 2, mt.start(1) + 1, i + 2, mt.end(1) + 1), tok))
    return out


_YAML_LINES = st.sampled_from(
    [
        "a: [x, y]",
        "b: &anc v",
        "c: *anc",
        "d: !!str 5",
        "e: {k: v}",
        "f: plain! yes",
        "g:\n  - x\n  - [y]",
        "h: 'q[x'",
        "i: \"a & b\"",
        "j:\n  <<: *anc",
        "k: &m {z: 1}",
        "l: !custom x",
        "# c: &x",
    ]
)


@settings(max_examples=400, deadline=None)
@given(st.lists(_YAML_LINES, max_size=6, unique=True))
def test_fm011_equals_the_old_walk(lines):
    from workbench.core.lint.rules import fm011_strict_yaml

    text = "---\nname: a\ndescription: b\n" + "\n".join(lines) + "\n---\nbody\n"

    def key(sp: object) -> tuple[int, int, int, int]:
        return sp if isinstance(sp, tuple) else (sp.line, sp.column, sp.end_line, sp.end_column)  # type: ignore[attr-defined,return-value]

    got = []
    for f in fm011_strict_yaml.check(_ctx(text)):
        msg = f.message
        kind = (
            "flow"
            if msg.startswith("flow")
            else "alias"
            if msg.startswith("YAML alias")
            else msg.split("'")[1]
        )
        got.append((key(f.span), kind))
    assert got == [(key(sp), kind) for sp, kind in _old_fm011(_ctx(text))]


def test_body010_counts_the_bytes_of_a_long_non_ascii_file():
    from workbench.core.lint.rules import body010_surface_limit

    text = "---\nname: a\ndescription: b\n---\n" + "é ü\n" * 3000
    found = list(body010_surface_limit.check(_ctx(text)))
    assert found and f"{len(text.encode()):,}-byte file" in found[0].message
    ctx = _ctx(text)  # a text holding a lone surrogate (an editor buffer could)
    ctx.text = text + "\ud800"
    try:
        list(body010_surface_limit.check(ctx))
    except UnicodeEncodeError:
        pass  # as before: text.encode() raises (the runner reports LINT000)
    else:
        raise AssertionError("a lone surrogate must take the old path")


@settings(max_examples=200, deadline=None)
@given(st.integers(0, 12_000), st.text(alphabet=st.sampled_from(["a", "é", "\n", "✓"]), max_size=40))
def test_surface_lost_range_of_ascii_text_needs_no_decoding(n, tail):
    """Issue 14 round 6: an ASCII text's lost range is its byte range (no decode of the bytes)."""
    from workbench.core.clients.surfaces import SURFACES

    for text in ("a" * n, "a" * n + tail):
        data = text.encode()
        for s in SURFACES:
            want = None
            if s.unit == "bytes" and len(data) > s.limit:
                end = len(data) - s.tail
                want = (
                    len(data[: s.head].decode("utf-8", "ignore")),
                    len(data[:end].decode("utf-8", "ignore")),
                )
            elif s.unit != "bytes" and len(text) > s.limit:
                want = (s.head, len(text) - s.tail)
            assert s.lost_range(text, data) == want == s.lost_range(text)


_FENCE_LINES_7 = st.sampled_from(
    ["```", "````", "   ````x", "    ````", " ~~~", "~~~~", "``` a`", "x```", "text", "", "\r", "  ```py\r"]
)


@settings(max_examples=500, deadline=None)
@given(st.lists(_FENCE_LINES_7, max_size=30), st.booleans())
def test_in_code_and_unclosed_fence_equal_the_fence_list(parts, frontmatter):
    """Round 7: ``in_code`` bisects the flat start/end list, ``unclosed_fence`` reads its last
    block; both answer as the ``Fence`` list does (the backtick-only and the tilde scans)."""
    text = ("---\nname: a\ndescription: b\n---\n" if frontmatter else "") + "\n".join(parts)
    ref = _ctx(text).fences
    assert [(f.start, f.end, f.line, f.marker, f.lang, f.closed) for f in ref] == _old_fences(_ctx(text))
    ctx = _ctx(text)
    for off in range(len(text) + 1):
        assert ctx.in_code(off) == any(f.start <= off < f.end for f in ref), off
    for off in range(len(text) + 1):
        assert ctx.code_lang(off) == next((f.lang for f in ref if f.start <= off < f.end), None), off
    open_ = [f for f in ref if not f.closed]
    got = _ctx(text).unclosed_fence()
    assert got == (open_[0] if open_ else None)
    assert _ctx(text).code_ranges() == [(f.start, f.end) for f in ref]


@settings(max_examples=300, deadline=None)
@given(_LINEY, st.integers(min_value=0, max_value=320))
def test_line_len_after_pos_equals_the_line_table(text, offset):
    """Round 7: ``line_len`` of the line ``pos`` last counted (or the next) is found from that
    line's start; every line still measures as the line table says."""
    ctx, lines = _ctx(text), _ctx(text).lines
    ctx.pos(min(offset, len(text)))
    for n in range(1, len(lines) + 1):
        assert ctx.line_len(n) == len(lines[n - 1]), n


def _old_body010(ctx: LintContext) -> list[tuple[tuple[int, int, int, int], str]]:
    """BODY010's findings before round 7 (``pos`` from the start for each position, ``span``)."""
    from workbench.core.clients.surfaces import surfaces_for
    from workbench.core.lint.rules.body010_surface_limit import _SURROGATE

    text = ctx.text
    if len(text) <= 5000:
        return []
    data = ctx.utf8 if ctx.is_ascii or _SURROGATE.search(ctx.odd) is None else None
    out = []
    for s in surfaces_for(ctx.profile.client):
        lost = s.lost_range(text, data)
        if lost is None:
            continue
        (l1, _), (l2, _) = ctx.pos(lost[0]), ctx.pos(max(lost[0], lost[1] - 1))
        keep = f"the first {s.head:,}" + (f" and last {s.tail:,}" if s.tail else "")
        nl = text.find("\n", lost[0])
        sp = ctx.span(lost[0], min(lost[1], nl + 1 if nl != -1 else lost[1]))
        msg = (
            f"{s.title} passes only {keep} {s.unit} of this {len(text.encode() if data is None else data):,}-byte file: "
            f"lines {l1}–{l2} do not reach the model ({s.source})"
        )
        out.append(((sp.line, sp.column, sp.end_line, sp.end_column), msg))
    return out


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.sampled_from(["a" * 900, "é" * 700, "\n", "x\n" * 300, "€" * 2000, "\r\n", "b" * 4990]),
        max_size=14,
    ),
    st.sampled_from(["agentskills", "codex", "claude-code"]),
)
def test_body010_equals_the_old_positions(parts, profile):
    from workbench.core.lint.rules import body010_surface_limit

    text = "---\nname: a\ndescription: b\n---\n" + "".join(parts)
    prof = lint_profile(profile)
    ctx = LintContext(parse_skill_text(text, None), prof, EMPTY_CATALOG)
    got = [
        ((f.span.line, f.span.column, f.span.end_line, f.span.end_column), f.message)
        for f in body010_surface_limit.check(ctx)
    ]
    assert got == _old_body010(LintContext(parse_skill_text(text, None), prof, EMPTY_CATALOG))


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("/homeUsrC:\\ x")), max_size=40))
def test_body008_precheck_equals_the_three_literals(body):
    from workbench.core.lint.rules.body008_absolute_user_path import _UNIX_HOME

    old = "/home/" in body or "/Users/" in body or ":\\Users\\" in body
    assert (_UNIX_HOME.search(body) is not None or ("\\" in body and ":\\Users\\" in body)) == old


@settings(max_examples=300, deadline=None)
@given(_LINEY, st.lists(st.integers(min_value=-3, max_value=330), max_size=20))
def test_pos_counted_from_the_previous_position_equals_the_line_table(text, offsets):
    """Round 7: ``pos`` counts line breaks from the previous position's line start (forwards or
    backwards); every answer equals the line table's (``bisect``) one."""
    from workbench.core.lint.context import _POS_DIRECT

    ctx, ref = _ctx(text), _ctx(text)
    ref.line_starts  # noqa: B018 - the table path
    for k, off in enumerate(offsets):
        want = _old_pos(text, off) if k < _POS_DIRECT else ref.pos(off)
        assert ctx.pos(off) == want, (k, off)


def _old_pos(text: str, offset: int) -> tuple[int, int]:
    return text.count("\n", 0, offset) + 1, offset - text.rfind("\n", 0, offset)


@settings(max_examples=300, deadline=None)
@given(_LINEY, st.integers(min_value=0, max_value=320), st.integers(min_value=-1, max_value=90))
def test_get_line_after_pos_equals_the_lines(text, offset, line):
    ctx = _ctx(text)
    ctx.pos(min(offset, len(text)))
    assert ctx.get_line(line) == _ctx(text).get_line(line)  # (without a position asked first)
