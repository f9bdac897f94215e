"""Scan benchmarks (run with ``pytest -m bench tests/bench -s``; they print their figures).

Targets: ``workbench scan --client all --format json`` on the corpus (as ``--root``) < 3 s on the
2-core CI machine; the product target is scan + lint of 10,000 skills <= 1 s, we report what
scan alone costs for a synthetic 10,000-skill tree.
"""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import pytest

from workbench.core.discovery import ParseCache, scan, scan_all
from workbench.core.model import Environment

pytestmark = pytest.mark.bench
REPO = Path(__file__).resolve().parents[2]


def test_bench_cli_scan_all_corpus(corpus, tmp_path):
    cmd = [
        sys.executable,
        "-m",
        "workbench",
        "scan",
        str(corpus),
        "--root",
        str(corpus),
        "--client",
        "all",
        "--format",
        "json",
    ]
    best = 1e9
    for _ in range(3):
        t = time.perf_counter()
        r = subprocess.run(cmd, cwd=REPO, capture_output=True)
        best = min(best, time.perf_counter() - t)
        assert r.returncode == 0, r.stderr[-500:]
    print(f"\nworkbench scan --client all --format json on the corpus: best of 3 = {best:.2f} s")
    assert best < 3.0


def _tree(root: Path, n: int) -> None:
    for i in range(n):
        d = root / f"g{i % 50:02d}" / f"skill-{i:05d}"
        d.mkdir(parents=True)
        (d / "SKILL.md").write_text(
            f"---\nname: skill-{i:05d}\ndescription: Use when doing task number {i} "
            f"with the synthetic benchmark tree.\n---\n# Skill {i}\n\nBody.\n"
        )


def test_bench_scan_10k(tmp_path):
    root = tmp_path / "tree"
    _tree(root, 10_000)
    (tmp_path / "ws").mkdir()
    (tmp_path / "h").mkdir()
    env = Environment(workspace=tmp_path / "ws", home=tmp_path / "h", extra_roots=[root], env={}, bins=set())
    cache = ParseCache()
    t = time.perf_counter()
    cat = scan(env, "agentskills", cache)
    cold = time.perf_counter() - t
    t = time.perf_counter()
    scan(env, "agentskills", cache)
    warm = time.perf_counter() - t
    t = time.perf_counter()
    scan_all(env, cache)
    all_warm = time.perf_counter() - t
    assert len(cat.skills) == 10_000
    print(
        f"\n10,000 skills: scan one client cold (parse) {cold:.2f} s, warm {warm:.2f} s; "
        f"all 8 clients warm {all_warm:.2f} s"
    )
