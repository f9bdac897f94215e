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


def test_escape_unsafe_json_utf8_equals_the_str_way_on_json_text():
    """Any value through ``json.dumps(ensure_ascii=False)`` (C0 controls escaped), then the
    JSON-text fast path: the bytes of ``escape_unsafe``; random strings too."""
    import json
    import random

    from workbench.core.text import escape_unsafe, escape_unsafe_json_utf8

    samples = ["", "abc", "tab\tnl\n", "a\x1b[31mb", "\x7f", "é©\u00a0ŀ¿", "é\x85x", "\x9f", "x\udcffy"]
    samples += ["ü" * 1000 + "\x07", "日本語 \U0001f600", "\r\n", "\u202e\u2028", "\xc2\xa0"]
    rnd = random.Random(14)
    alphabet = "a \t\n\x00\x1f\x7f\x80\x9f\xa0\xc2é€\u202e\ud800\U0001f600\"\\"
    samples += ["".join(rnd.choice(alphabet) for _ in range(rnd.randint(0, 40))) for _ in range(500)]
    for s in samples:
        for text in (json.dumps(s, ensure_ascii=False), json.dumps({"k": [s, 1]}, ensure_ascii=False)):
            assert escape_unsafe_json_utf8(text) == escape_unsafe(text).encode("utf-8"), repr(text)


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
