"""Benchmark: rendering listings for every client (run with ``-m bench -s``; prints figures).

Two catalogs: the whole corpus (1,241 skills, far beyond any real install) and a typical one
(one source folder, wshobson-agents: 181 skills). The GUI re-renders on every keystroke
debounce, so the typical catalog should stay well under 20 ms per client.
"""

from __future__ import annotations

import statistics
import time
from pathlib import Path

import pytest

from workbench.core.listing import render_listing
from workbench.core.model import CLIENT_IDS, Environment

pytestmark = pytest.mark.bench


def _catalogs(root: Path, tmp: Path):
    from workbench.core.discovery import scan_all

    (tmp / "ws").mkdir(exist_ok=True)
    (tmp / "home").mkdir(exist_ok=True)
    env = Environment(workspace=tmp / "ws", home=tmp / "home", env={}, extra_roots=[root.resolve()])
    return scan_all(env)


def _median_ms(cat, ctx, runs=7) -> tuple[float, float]:
    """(median CPU ms, median wall ms). CPU time is the stable figure on a shared machine."""
    render_listing(cat, ctx)  # warm caches (collation keys)
    cpu, wall = [], []
    for _ in range(runs):
        t, c = time.perf_counter(), time.process_time()
        render_listing(cat, ctx)
        cpu.append((time.process_time() - c) * 1000)
        wall.append((time.perf_counter() - t) * 1000)
    return statistics.median(cpu), statistics.median(wall)


@pytest.mark.parametrize("which", ["typical", "corpus"])
def test_bench_render_every_client(corpus, tmp_path, which):
    root = corpus / "wshobson-agents" if which == "typical" else corpus
    cats = _catalogs(root, tmp_path)
    rows = []
    for cid in CLIENT_IDS:
        for ctx in (32_000, 200_000):
            cpu, wall = _median_ms(cats[cid], ctx)
            rows.append((cid, ctx, len(cats[cid].listed()), cpu, wall))
    total = sum(r[3] for r in rows if r[1] == 200_000)
    print(f"\n[{which}] median render time per client (CPU ms / wall ms):")
    for cid, ctx, n, cpu, wall in rows:
        print(f"  {cid:15} ctx={ctx:>7} skills={n:5}  {cpu:7.2f} cpu  {wall:7.2f} wall")
    print(f"  all 8 clients at 200k: {total:.1f} ms CPU")
    if which == "typical":
        assert max(r[3] for r in rows) < 20.0
