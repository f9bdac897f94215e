"""Per-skill keys of the scan made cheaper (issue 14 round 7): the same order or value as the
plain definitions they replace."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from workbench.core.clients.gemini_cli.profile import reversed_order_key

# code points from every UTF-8 length, '/', and lone surrogates (undecodable path bytes)
_CHARS = st.one_of(
    st.sampled_from("/a.-_Z"),
    st.characters(min_codepoint=0x80, max_codepoint=0x7FF),
    st.characters(min_codepoint=0x800, max_codepoint=0xFFFF),
    st.characters(min_codepoint=0x10000, max_codepoint=0x10FFFF),
    st.characters(min_codepoint=0xDC80, max_codepoint=0xDCFF),
)


def _reference(s: str) -> str:
    return "".join(chr(0x10FFFF - ord(c)) for c in s)


@settings(max_examples=400, deadline=None)
@given(st.lists(st.text(_CHARS, max_size=8), min_size=2, max_size=12))
def test_reversed_order_key_sorts_as_the_code_point_mapping(texts: list[str]) -> None:
    # with prefixes of one another (a prefix sorts first in both)
    texts = texts + [t[: len(t) // 2] for t in texts]
    assert sorted(texts, key=reversed_order_key) == sorted(texts, key=_reference)
