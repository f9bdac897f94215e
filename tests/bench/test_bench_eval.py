"""Benchmark: 20 queries x 3 runs against the fake server with 200 ms added latency per request,
serial (concurrency 1) against concurrency 8. Run: ``pytest -m bench tests/bench/test_bench_eval.py -s``."""

from __future__ import annotations

import time

import pytest

from tests.evals.conftest import EvalFake, text, tool_call
from tests.helpers import write_skill
from workbench.core.chat.settings import ChatSettings
from workbench.core.evals.queryset import Query
from workbench.core.evals.runner import EvalOptions, run_eval


@pytest.mark.bench
def test_bench_eval_parallel_vs_serial(tmp_path, monkeypatch):
    monkeypatch.setenv("WORKBENCH_HOME", str(tmp_path / "wbhome"))
    from workbench.core.discovery import scan
    from workbench.core.model import Environment

    ws = tmp_path / "proj"
    write_skill(ws / ".claude" / "skills" / "pdf", "pdf", "Use for PDF files.")
    write_skill(ws / ".claude" / "skills" / "csv", "csv", "Use for CSV files.")
    home = tmp_path / "home"
    home.mkdir()
    cat = scan(Environment(workspace=ws, home=home, env={}, bins=set()), "claude-code")
    qs = [Query(f"q{i:02d} do it", i < 10) for i in range(20)]
    figures = {}
    with EvalFake(latency=0.2) as f:
        f.plans = {
            f"q{i:02d}": [[tool_call("Skill", {"skill": "pdf"})]] if i < 10 else [[text("no")]]
            for i in range(20)
        }
        settings = ChatSettings(base_url=f.url, model="claude-haiku-5-5", max_retries=0)
        for conc in (1, 8):
            t0 = time.perf_counter()
            rep = run_eval(
                cat, "pdf", qs, settings=settings, api_key="k", options=EvalOptions(runs=3, concurrency=conc)
            )
            figures[conc] = time.perf_counter() - t0
            assert rep.summary.passed == 20
    print(
        f"\n20 queries x 3 runs, 200 ms latency: serial {figures[1]:.2f} s, concurrency 8 "
        f"{figures[8]:.2f} s (x{figures[1] / figures[8]:.1f})"
    )
    assert figures[1] >= 60 * 0.2
    assert figures[8] < figures[1] / 4
