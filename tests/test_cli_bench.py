"""``workbench bench`` works end to end on a small tree (fast; the real benchmark is
tests/bench/test_bench_scan_lint.py)."""

from __future__ import annotations

import json

from workbench.cli import main
from workbench.core.bench import make_tree


def test_bench_command_json(tmp_path, capsys):
    rc = main(
        [
            "bench",
            "--skills",
            "50",
            "--sample",
            "5",
            "--format",
            "json",
            "--workdir",
            str(tmp_path),
            "--repeat",
            "1",
            "--rule-sample",
            "20",
        ]
    )
    assert rc == 0
    res = json.loads(capsys.readouterr().out)
    assert res["skills"] == 50
    t = res["timings"]
    for key in (
        "scan_one_cold",
        "scan_one_warm",
        "scan_one_rescan",
        "scan_all_cold",
        "scan_all_warm",
        "lint_cold_1",
        "lint_cold_auto",
        "lint_warm",
        "lint_warm_materialised",
        "scan_lint_cold",
        "scan_lint_warm",
    ):
        assert t[key]["wall"] >= 0
        assert t[key]["mode"] in ("cold", "warm", "rescan")
    for key in ("scan_one_warm", "scan_all_warm", "lint_warm", "scan_lint_warm"):
        assert t[key]["mode"] == "warm" and t[key]["process_wall"] >= t[key]["wall"]
    assert t["scan_one_cold"]["found"] == 50 and t["scan_one_warm"]["found"] == 50
    assert t["lint_warm"]["cache_hits"] == 50 and t["lint_warm"]["catalog_hits"] == 50
    assert t["lint_warm_materialised"]["diagnostics"] == t["lint_cold_1"]["diagnostics"]
    assert t["scan_lint_warm"]["errors"] == t["scan_lint_cold"]["errors"]
    assert res["keystroke"]["p95_ms"] > 0
    assert set(res["targets"]) >= {
        "scan_lint_10k_le_1s_warm",
        "scan_lint_10k_le_1s_warm_whole_process",
        "keystroke_p95_le_20ms",
    }
    iss = res["issue"]
    assert iss["lint_cli"]["wall"] > 0 and iss["lint_cli"]["warm_wall"] > 0 and iss["scan_cli"]["wall"] > 0
    assert iss["floor"]["files"] == 50 and iss["rules"]["files"] == 20
    assert set(iss["rules"]["rules_us"]) >= {"BODY004", "BODY005", "NAME001"}
    assert iss["window"] is None or iss["window"]["populated"] > 0
    tab = res["issue_table"]
    assert {
        "lint_cli_cold",
        "lint_cli_warm",
        "lint_vs_floor",
        "scan_cli_cold",
        "lint_one_cli",
        "keystroke_p95",
    } <= set(tab)
    for r in tab.values():
        assert isinstance(r["met"], bool) and r["est_10k"] >= 0
    assert list(tmp_path.iterdir()) == []  # the temporary tree is removed


def test_bench_command_text_builtin_set(tmp_path, capsys):
    empty = tmp_path / "nocorpus"
    empty.mkdir()
    rc = main(
        [
            "bench",
            "--skills",
            "6",
            "--sample",
            "3",
            "--corpus",
            str(empty),
            "--workdir",
            str(tmp_path),
            "--repeat",
            "1",
            "--no-window",
            "--rule-sample",
            "6",
        ]
    )
    assert rc == 0
    out = capsys.readouterr().out
    assert "scan + lint, warm (fresh process)" in out and "keystroke" in out and "process s" in out
    assert "issue 14 targets" in out and "workbench lint DIR --format json, empty cache" in out
    assert "window: not measured (not asked)" in out and "rules over the" in out


def test_bench_usage_errors(capsys):
    assert main(["bench", "--skills", "0"]) == 2
    assert main(["bench", "--format", "xml", "--skills", "5"]) == 2
    assert main(["bench", "--repeat", "0", "--skills", "5"]) == 2


def test_make_tree_unique_names(tmp_path, corpus):
    dirs = make_tree(tmp_path / "t", 30, corpus)
    assert len({d.name for d in dirs}) == 30
    for d in dirs:
        assert f"name: {d.name}\n" in (d / "SKILL.md").read_text(
            encoding="utf-8", errors="replace"
        ) or "name:" not in (d / "SKILL.md").read_text(encoding="utf-8", errors="replace")


def test_scan_and_lint_cold_warm_identical(tmp_path, corpus):
    """The bench's combined path gives the plain scan's catalog and the plain lint's results."""
    from workbench.core.bench import scan_and_lint
    from workbench.core.cache import fscache
    from workbench.core.discovery import ParseCache, scan
    from workbench.core.lint import PROFILES, lint_paths
    from workbench.core.model import Environment

    root = tmp_path / "t"
    make_tree(root, 60, corpus)
    (tmp_path / "ws").mkdir()
    env = Environment(workspace=tmp_path / "ws", home=tmp_path, extra_roots=[root], env={}, bins=set())
    prof = PROFILES["agentskills"]
    ref_cat = scan(env, "agentskills", ParseCache()).to_json()
    ref_lint = lint_paths([root], prof)
    for _ in range(2):  # cold, then warm (a new process: fresh in-memory tables)
        fscache._defaults.clear()
        cat, res, tot = scan_and_lint(env, "agentskills", prof, [root], tmp_path / "cache")
        assert cat.to_json() == ref_cat
        assert res == ref_lint
        assert tot["error"] == sum(d.severity == "error" for v in ref_lint.values() for d in v)
    fscache._defaults.clear()
