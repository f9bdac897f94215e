from workbench.core.text import plural


def test_plural():
    assert plural(1, "file") == "1 file"
    assert plural(0, "file") == "0 files"
    assert plural(2, "query", "queries") == "2 queries"
    assert plural(1234, "skill") == "1,234 skills"


def test_escape_unsafe_utf8_equals_the_str_way():
    from workbench.core.text import escape_unsafe, escape_unsafe_utf8

    samples = ["", "abc", "tab\tnl\n", "a\x1b[31mb", "\x7f", "é©\u00a0ŀ¿", "é\x85x", "\x9f", "x\udcffy"]
    samples += ["ü" * 1000 + "\x07", "日本語 \U0001f600", "\r\n"]
    for s in samples:
        assert escape_unsafe_utf8(s) == escape_unsafe(s).encode("utf-8"), repr(s)


def test_write_utf8_through_the_buffer():
    import io

    from workbench.core.text import SafeTextStream, escape_unsafe_utf8, utf8_buffer, write_utf8

    raw = io.TextIOWrapper(io.BytesIO(), encoding="utf-8")
    safe = SafeTextStream(raw)
    assert utf8_buffer(safe) is raw.buffer
    assert utf8_buffer(raw) is None  # only under the escaping proxy
    safe.write("before ")
    write_utf8(safe, ["{", escape_unsafe_utf8("é\x1b"), "\x07}\n"])
    raw.flush()
    assert raw.buffer.getvalue() == "before {é\\u001b\\u0007}\n".encode()
    latin = io.TextIOWrapper(io.BytesIO(), encoding="latin-1")
    safe = SafeTextStream(latin)
    assert utf8_buffer(safe) is None
    write_utf8(safe, ["[", escape_unsafe_utf8("é\u20ac"), "]"])  # text: the stream's own way
    latin.flush()
    assert latin.buffer.getvalue() == "[é\\u20ac]".encode("latin-1")
