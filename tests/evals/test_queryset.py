"""Query-set loading: formats, positioned errors, save/load."""

from __future__ import annotations

import json

import pytest

from workbench.core.evals.queryset import Query, QuerySetError, load_queries, parse_queries, save_queries


def test_skill_creator_json(tmp_path):
    p = tmp_path / "q.json"
    p.write_text(
        json.dumps(
            [
                {"query": "merge pdfs", "should_trigger": True},
                {"query": "weather", "should_trigger": False, "extra": 1},
            ]
        )
    )
    qs = load_queries(p)
    assert [(q.query, q.should_trigger) for q in qs.queries] == [("merge pdfs", True), ("weather", False)]
    assert qs.queries[1].extra == {"extra": 1} and qs.positives == 1 and qs.negatives == 1
    assert qs.queries[0].line == 1


def test_yaml_two_lists_and_items():
    qs = parse_queries(
        "skill: pdf\nshould_trigger:\n  - merge a.pdf\n  - query: fill the form\n"
        "    note: explicit\nshould_not_trigger:\n  - what's up\n",
        "q.yaml",
    )
    assert qs.skill == "pdf"
    assert [(q.query, q.should_trigger, q.note) for q in qs.queries] == [
        ("merge a.pdf", True, ""),
        ("fill the form", True, "explicit"),
        ("what's up", False, ""),
    ]
    assert [q.line for q in qs.queries] == [3, 4, 7]


def test_waza_keys():
    qs = parse_queries(
        "skill: x\nshould_trigger_prompts:\n  - prompt: do x\n    reason: r\n    confidence: high\n"
        "should_not_trigger_prompts:\n  - prompt: do y\n    confidence: medium\n"
    )
    assert [(q.query, q.should_trigger) for q in qs.queries] == [("do x", True), ("do y", False)]
    assert qs.queries[0].note == "r" and qs.queries[1].extra == {"confidence": "medium"}


@pytest.mark.parametrize(
    "text,line,col,words",
    [
        (
            '[{"query": "a", "should_trigger": true},\n {"query": "b" "should_trigger": false}]',
            2,
            16,
            "invalid JSON",
        ),
        ('[{"query": "a", "should_trigger": true},\n {"query": "b"}]', 2, 2, 'missing "should_trigger"'),
        ('[{"query": "a", "should_trigger": "yes"}]', 1, 35, "must be true or false"),
        ('[{"query": "", "should_trigger": true}]', 1, 2, "empty query"),
        ('[{"should_trigger": true}]', 1, 2, 'missing "query"'),
        ('[]', 1, 1, "no queries"),
        ('{"foo": 1}', 1, 1, "expected a list"),
        ("should_trigger:\n  - a\n  - [b\n", 4, 1, "invalid YAML"),
        ("should_trigger: hello\n", 1, 17, "expected a list"),
        ("should_trigger:\n  - 3\n", 2, 5, "expected a string"),
    ],
)
def test_positioned_errors(text, line, col, words):
    with pytest.raises(QuerySetError) as ei:
        parse_queries(text, "q.json" if text.lstrip()[:1] in "[{" else "q.yaml")
    e = ei.value
    assert words in e.message, e.message
    assert (e.line, e.column) == (line, col), str(e)
    assert str(e).startswith(f"q.{'json' if text.lstrip()[:1] in '[{' else 'yaml'}:{line}:{col}: ")


def test_conflicting_labels_error_and_duplicate_warning():
    with pytest.raises(QuerySetError, match="both labels"):
        parse_queries('[{"query": "a", "should_trigger": true},\n{"query": "a", "should_trigger": false}]')
    qs = parse_queries(
        '[{"query": "a", "should_trigger": true},\n{"query": "a", "should_trigger": true}]', "q.json"
    )
    assert len(qs.queries) == 2 and "duplicate" in qs.warnings[0] and qs.warnings[0].startswith("q.json:2")


def test_file_errors(tmp_path):
    with pytest.raises(QuerySetError, match="no such file"):
        load_queries(tmp_path / "missing.json")
    (tmp_path / "bad.json").write_bytes(b'[{"query": "\xff", "should_trigger": true}]')
    with pytest.raises(QuerySetError, match="not UTF-8"):
        load_queries(tmp_path / "bad.json")
    (tmp_path / "empty.yaml").write_text("  \n")
    with pytest.raises(QuerySetError, match="empty file"):
        load_queries(tmp_path / "empty.yaml")


def test_save_roundtrip(tmp_path):
    qs = [Query("a \"quoted\" ü", True, "n"), Query("b", False)]
    save_queries(tmp_path / "out.json", qs)
    data = json.loads((tmp_path / "out.json").read_text(encoding="utf-8"))
    assert data == [
        {"query": "a \"quoted\" ü", "should_trigger": True, "note": "n"},
        {"query": "b", "should_trigger": False},
    ]
    back = load_queries(tmp_path / "out.json").queries
    assert [(q.query, q.should_trigger, q.note) for q in back] == [
        (q.query, q.should_trigger, q.note) for q in qs
    ]


def test_bom_and_queries_key():
    qs = parse_queries('\ufeff{"queries": [{"query": "a", "should_trigger": true}]}')
    assert qs.queries[0].query == "a"


def test_demo_query_set_is_valid():
    from pathlib import Path

    p = Path(__file__).resolve().parents[2] / "workbench" / "resources" / "demo" / "workspace" / "evals"
    files = sorted(p.glob("*.json")) + sorted(p.glob("*.yaml"))
    assert files
    for f in files:
        qs = load_queries(f)
        assert qs.positives >= 8 and qs.negatives >= 8
