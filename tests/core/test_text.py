from workbench.core.text import plural


def test_plural():
    assert plural(1, "file") == "1 file"
    assert plural(0, "file") == "0 files"
    assert plural(2, "query", "queries") == "2 queries"
    assert plural(1234, "skill") == "1,234 skills"
