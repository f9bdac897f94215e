"""The faster YAML construction and resolution (issue 14, ``skillyaml.construct_plain`` and the
loader's ``resolve``) give exactly what PyYAML's own C safe loader gives: same values, same types,
same errors, over the corpus and generated YAML."""

from __future__ import annotations

import datetime

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st
from yaml.resolver import BaseResolver

from workbench.core.skillfile import parse_skill_text, read_skill_file
from workbench.core.skillwalk import find_skill_files
from workbench.core.skillyaml import BoundedLoader, check_yaml_size, load_yaml


def _typed(x: object) -> object:
    """``x`` with every value's type kept (``1 == True == 1.0`` in Python; NaN != NaN)."""
    if isinstance(x, dict):
        return ("dict", [(_typed(k), _typed(v)) for k, v in x.items()])
    if isinstance(x, list):
        return ("list", [_typed(v) for v in x])
    return (type(x).__name__, repr(x))


class _Reference(BoundedLoader):
    """The loader with PyYAML's own resolver (our limits kept)."""

    resolve = BaseResolver.resolve
    descend_resolver = BaseResolver.descend_resolver
    ascend_resolver = BaseResolver.ascend_resolver


def _pyyaml(text: str) -> object:
    """PyYAML's own result (C safe loader, its own resolver and ``construct_document``, with
    ``load_yaml``'s limits), or the error."""
    loader = _Reference(text)
    try:
        node = loader.get_single_node()
        if node is not None and "*" in text:
            check_yaml_size(node)
        return _typed(None if node is None else loader.construct_document(node))
    except (yaml.YAMLError, ValueError, TypeError, OverflowError) as exc:
        return ("error", type(exc).__name__, str(exc))
    finally:
        loader.dispose()


def _ours(text: str) -> object:
    try:
        return _typed(load_yaml(text))
    except (yaml.YAMLError, ValueError, TypeError, OverflowError) as exc:
        return ("error", type(exc).__name__, str(exc))


_SCALARS = [
    "x",
    "Use when: a",
    "yes",
    "No",
    "on",
    "OFF",
    "true",
    "~",
    "null",
    "NULL",
    "",
    "0",
    "-12",
    "+3",
    "0x1F",
    "0o17",
    "017",
    "0b101",
    "1_000",
    "1:20",
    "190:20:30",
    "1.5",
    ".5",
    "-.inf",
    ".NaN",
    "1e3",
    "1.0e+3",
    "2020-01-01",
    "2001-12-14t21:59:43.10-05:00",
    "2001-13-45",
    "2020-02-30",
    "<<",
    "=",
    "!",
    "'quoted yes'",
    '"dq \\u00e9"',
    "|\n  block\n  text",
    ">-\n  folded\n  text",
    "[a, 1, yes]",
    "{a: 1, b: [x]}",
    "!!str 12",
    "!!int '7'",
    "!!binary aGk=",
    "!!set {a, b}",
    "!!omap [a: 1]",
    "!custom x",
    "&a x",
    "*a",
    "é",
    "1" * 4100,
]


@st.composite
def _yaml_docs(draw: st.DrawFn) -> str:
    keys = draw(
        st.lists(st.sampled_from(["name", "description", "a", "1", "<<", "=", "yes", "? [k]"]), max_size=5)
    )
    lines = []
    for k in keys:
        v = draw(st.sampled_from(_SCALARS))
        if draw(st.booleans()) and "\n" not in v:  # a nested map or list under the key
            sub = draw(st.sampled_from(_SCALARS))
            if "\n" in sub:
                sub = "x"
            v = "\n  - " + v + "\n  - " + sub if draw(st.booleans()) else "\n  k: " + v + "\n  j: " + sub
        lines.append(f"{k}: {v}")
    return "\n".join(lines) + "\n"


@settings(max_examples=400, deadline=None)
@given(_yaml_docs())
def test_generated_yaml_constructs_like_pyyaml(text: str) -> None:
    assert _ours(text) == _pyyaml(text)


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("ab:- \n'\"[]{},#&*!|>~01yY.<=\t")), max_size=40))
def test_arbitrary_yaml_text_constructs_like_pyyaml(text: str) -> None:
    assert _ours(text) == _pyyaml(text)


@pytest.mark.parametrize("text", _SCALARS)
def test_every_scalar_kind_resolves_like_pyyaml(text: str) -> None:
    doc = f"k: {text}\n"
    assert _ours(doc) == _pyyaml(doc)
    # and the resolver alone, on every node kind
    ours, theirs = BoundedLoader(doc), _Reference(doc)
    try:
        n1, n2 = ours.get_single_node(), theirs.get_single_node()
    except yaml.YAMLError:
        return
    finally:
        ours.dispose()
        theirs.dispose()
    assert yaml.serialize(n1) == yaml.serialize(n2)


def test_breadth_first_errors_are_pyyaml_s():
    """PyYAML constructs nested values after the top-level ones: the first error it meets is a
    later top-level value's, not the nested one's. The fast path gives the same error."""
    text = "a:\n  b: 2001-02-30\nc: 2001-13-01\n"
    assert _ours(text) == _pyyaml(text)
    assert _ours(text)[0] == "error"


def test_deep_nesting_falls_back_to_pyyaml():
    text = "a: " + "[" * 2000 + "]" * 2000 + "\n"
    assert _ours(text) == _pyyaml(text)


def test_aliases_share_one_object_like_pyyaml():
    data = load_yaml("a: &x [1, 2]\nb: *x\n")
    assert data == {"a": [1, 2], "b": [1, 2]} and data["a"] is data["b"]


def test_frontmatter_data_is_pyyaml_s_over_the_corpus(corpus):
    """Every corpus file's ``data`` equals PyYAML's C safe load of its frontmatter, types too."""
    n = 0
    for p in find_skill_files(corpus):
        sf = read_skill_file(p)
        if sf.state != "ok":
            continue
        want = yaml.load(sf.frontmatter + "\n", Loader=yaml.CSafeLoader)
        if any(not isinstance(k, str) for k in want):
            continue  # re-keyed with str(): tests/test_perf_parse.py
        assert _typed(sf.data) == _typed(want), p
        n += 1
    assert n > 1000


def test_timestamps_and_non_str_values_keep_their_types():
    sf = parse_skill_text("---\nname: a\ncreated: 2024-01-02\nn: 3\nok: yes\nnone: ~\n---\n")
    assert sf.data == {"name": "a", "created": datetime.date(2024, 1, 2), "n": 3, "ok": True, "none": None}


_PATH_CASES = [
    "/tmp/a/SKILL.md",
    "/a",
    "/",
    "//a/b",
    "/a//b",
    "/a/./b",
    "/a/.",
    "/a/",
    "/a/../b",
    "/a/ b /SKILL.md",
    "/é/ü.md",
    "relative/SKILL.md",
    "./x",
    "",
    "/a\\b",
]


@pytest.mark.parametrize("s", _PATH_CASES)
def test_fast_path_is_path(s: str) -> None:
    """``fscache.fast_path`` (the walkers' and the reader's cheap ``Path``) equals ``Path(s)`` in every way the
    rest of the code looks at it."""
    from pathlib import Path

    from workbench.core.cache.fscache import fast_path

    got, want = fast_path(s), Path(s)
    assert (type(got), got, str(got), got.parts, hash(got)) == (
        type(want),
        want,
        str(want),
        want.parts,
        hash(want),
    )
    assert (got.parent, got.name, got.parent.name) == (want.parent, want.name, want.parent.name)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from(_PATH_CASES) | st.text(alphabet="/.a é", max_size=12), max_size=8))
def test_fast_paths_are_paths(strs: list[str]) -> None:
    """``fscache.fast_paths`` (a walk's results, built inline) equals ``Path`` of each."""
    from pathlib import Path

    from workbench.core.cache.fscache import fast_path, fast_paths

    got = fast_paths(strs)
    assert len(got) == len(strs)
    for g, s in zip(got, strs):
        want = Path(s)
        assert (type(g), g, str(g), g.parts, hash(g)) == (type(want), want, str(want), want.parts, hash(want))
        assert (g.parent, g.name, g.parent.name, g / "x") == (
            want.parent,
            want.name,
            want.parent.name,
            want / "x",
        )
        assert fast_path(s) == g
