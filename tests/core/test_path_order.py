"""``skillwalk.path_order_key`` (issue 14 round 8): the walk's results sorted by the NUL-joined
path sort exactly as by their component lists (``str.split(os.sep)``, ``Path`` order)."""

from __future__ import annotations

import os
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from workbench.core.skillwalk import path_order_key

# characters around the separator's code point and other characters of real folder names
_name = st.text(
    alphabet=st.sampled_from(list(" !#$%+,-.0189:;=@AZ_az~é\u00a0\u4e2d")), min_size=0, max_size=4
)
_path = st.lists(_name, min_size=1, max_size=5).map(os.sep.join)


@given(st.lists(_path, max_size=30))
def test_the_key_orders_as_the_component_lists(paths: list[str]) -> None:
    assert sorted(paths, key=path_order_key) == sorted(paths, key=lambda p: p.split(os.sep))


def test_a_folder_sorts_before_its_longer_sibling() -> None:
    paths = [f"/t/a-b{os.sep}SKILL.md", f"/t/a{os.sep}b{os.sep}SKILL.md", f"/t/a{os.sep}SKILL.md"]
    got = sorted(paths, key=path_order_key)
    assert got == ["/t/a/SKILL.md", "/t/a/b/SKILL.md", "/t/a-b/SKILL.md"]
    assert got == [str(p) for p in sorted(map(Path, paths))]
