"""``workbench bench`` works end to end on a small tree (fast; the real benchmark is
tests/bench/test_bench_scan_lint.py)."""

from __future__ import annotations

import json

from workbench.cli import main
from workbench.core.bench import make_tree


def test_bench_command_json(tmp_path, capsys):
    rc = main(["bench", "--skills", "50", "--sample", "5", "--format", "json", "--workdir", str(tmp_path)])
    assert rc == 0
    res = json.loads(capsys.readouterr().out)
    assert res["skills"] == 50
    t = res["timings"]
    for key in ("scan_one_cold", "scan_one_warm", "scan_all_cold", "lint_cold_1", "lint_cold_auto",
                "lint_warm", "scan_lint_cold", "scan_lint_warm"):
        assert t[key]["wall"] >= 0
    assert t["scan_one_cold"]["found"] == 50
    assert t["lint_warm"]["cache_hits"] == 50
    assert res["keystroke"]["p95_ms"] > 0
    assert set(res["targets"]) >= {"scan_lint_10k_le_1s_warm", "keystroke_p95_le_20ms"}
    assert list(tmp_path.iterdir()) == []  # the temporary tree is removed


def test_bench_command_text_builtin_set(tmp_path, capsys):
    empty = tmp_path / "nocorpus"
    empty.mkdir()
    rc = main(["bench", "--skills", "6", "--sample", "3", "--corpus", str(empty), "--workdir", str(tmp_path)])
    assert rc == 0
    out = capsys.readouterr().out
    assert "scan + lint, warm" in out and "keystroke" in out


def test_bench_usage_errors(capsys):
    assert main(["bench", "--skills", "0"]) == 2
    assert main(["bench", "--format", "xml", "--skills", "5"]) == 2


def test_make_tree_unique_names(tmp_path, corpus):
    dirs = make_tree(tmp_path / "t", 30, corpus)
    assert len({d.name for d in dirs}) == 30
    for d in dirs:
        assert f"name: {d.name}\n" in (d / "SKILL.md").read_text(encoding="utf-8", errors="replace") or \
            "name:" not in (d / "SKILL.md").read_text(encoding="utf-8", errors="replace")
