"""FM011's node walk (issue 14, round 7: iterative, no generator per node, no tracking without a
``*``) finds what the recursive generator it replaced found, in the same order: on generated
YAML (hypothesis) and on every SKILL.md of the corpus."""

from __future__ import annotations

from collections.abc import Iterator

import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from workbench.core.lint.rules.fm011_strict_yaml import _walk
from workbench.core.skillfile import parse_skill_text, read_skill_file
from workbench.core.skillwalk import find_skill_files


def _old_walk(node: yaml.Node, seen: set[int]) -> Iterator[tuple[str, yaml.Node]]:
    """The walk before round 7."""
    if id(node) in seen:
        yield ("alias", node)
        return
    seen.add(id(node))
    if isinstance(node, (yaml.SequenceNode, yaml.MappingNode)):
        if node.flow_style:
            yield ("flow", node)
            return
        if isinstance(node, yaml.SequenceNode):
            for n in node.value:
                yield from _old_walk(n, seen)
        else:
            for k, v in node.value:
                yield from _old_walk(k, seen)
                yield from _old_walk(v, seen)


def _same(fm: str, fields: dict) -> None:
    seen: set[int] = set()
    want = [(k, id(n)) for f in fields.values() if f.node is not None for k, n in _old_walk(f.node, seen)]
    roots = [f.node for f in fields.values() if f.node is not None]
    assert [(k, id(n)) for k, n in _walk(roots, "*" in fm)] == want


_VALUES = [
    "x",
    "[a, b]",
    "{a: 1}",
    "&a x",
    "*a",
    "&b [1, [2]]",
    "*b",
    "\n  - [q]\n  - r",
    "\n  k: {z: 1}\n  j: *a",
]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["a", "b", "c", "d"]), st.sampled_from(_VALUES)), max_size=6))
def test_walk_equals_the_old_walk_on_generated_yaml(pairs: list[tuple[str, str]]) -> None:
    text = "---\n" + "".join(f"{k}: {v}\n" for k, v in pairs) + "---\n"
    sf = parse_skill_text(text)
    if sf.state == "ok":
        _same(sf.frontmatter, sf.fields)


def test_walk_equals_the_old_walk_over_the_corpus(corpus):
    n = 0
    for p in find_skill_files(corpus):
        sf = read_skill_file(p)
        if sf.state == "ok":
            _same(sf.frontmatter, sf.fields)
            n += 1
    assert n > 1000
