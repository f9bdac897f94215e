"""One file decoder (issue 15 item 3): ``core.text.decode_text_bytes`` decodes SKILL.md bytes as
``skillfile.parse_skill_bytes`` does; the editor uses it (``app/editor/document.decode_file``)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from workbench.core.skillfile import parse_skill_bytes
from workbench.core.text import decode_text_bytes

_PIECES = st.sampled_from(
    [b"a", b"\xc3\xa9", b"\n", b"\r\n", b"\r", b"\xff", b"\xef\xbb\xbf", b"---\n", b" "]
)


@settings(max_examples=300, deadline=None)
@given(st.lists(_PIECES, max_size=40).map(b"".join))
def test_decoder_agrees_with_skillfile(raw):
    """BOM, text, newline and the first bad byte's position are those ``parse_skill_bytes``
    reports, for any mix of BOMs, line endings and invalid bytes."""
    d = decode_text_bytes(raw)
    sf = parse_skill_bytes(raw)
    assert (d.has_bom, d.text, d.newline) == (sf.has_bom, sf.text, sf.newline)
    if sf.encoding_span is None:
        assert d.bad_offset is None and (d.bad_line, d.bad_column) == (0, 0)
    else:
        assert (d.bad_line, d.bad_column) == (sf.encoding_span.line, sf.encoding_span.column)


def test_decoder_examples():
    d = decode_text_bytes(b"\xef\xbb\xbfa\r\nb\r\n\xe9x\n")
    assert d.has_bom and d.newline == "\r\n" and d.text == "a\r\nb\r\n\ufffdx\n"
    assert (d.bad_offset, d.bad_line, d.bad_column) == (6, 3, 1)
    assert decode_text_bytes(b"") == ("", False, "\n", None, 0, 0)
