"""Issue 12 fuzz suite: 2,000 generated SKILL.md files (fixed seed) in 20 batches and 20 odd trees,
each through lint, scan (every client), listing (every client) and explain. Expected: no crash,
no run over 10 s, no run over 1 GB (peak RSS of the process). A few CLI runs in a subprocess.

Everything runs in-process (the CLI functions and the core API); ``tests/fuzz/generate.py`` makes
the inputs.
"""

from __future__ import annotations

import json
import os
import random
import resource
import subprocess
import sys
import time
import traceback
from pathlib import Path

import pytest

from tests.fuzz.generate import odd_trees, write_batch
from workbench.core.discovery import scan_all
from workbench.core.explain import explain
from workbench.core.lint import lint_paths
from workbench.core.listing import render_listing
from workbench.core.model import Environment

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX file-system shapes")

SEED = 12
FILES, BATCHES = int(os.environ.get("WB_FUZZ_FILES", 2000)), 20
MAX_SECONDS = 10.0
MAX_BYTES = 1 << 30
REPO = Path(__file__).resolve().parents[2]


def _peak_bytes() -> int:
    kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return kb if sys.platform == "darwin" else kb * 1024


class Runner:
    """Runs one operation, recording a crash (traceback) or a slow run instead of raising."""

    def __init__(self) -> None:
        self.crashes: list[str] = []
        self.slow: list[str] = []
        self.runs = 0
        self.worst = (0.0, "")
        self.by_op: dict[str, float] = {}

    def __call__(self, what: str, fn, *args, **kw):
        self.runs += 1
        t = time.perf_counter()
        try:
            return fn(*args, **kw)
        except Exception:
            self.crashes.append(f"{what}: {traceback.format_exc(limit=-4)}")
            return None
        finally:
            dt = time.perf_counter() - t
            op = what.split()[1]
            self.by_op[op] = self.by_op.get(op, 0.0) + dt
            if dt > self.worst[0]:
                self.worst = (dt, what)
            if dt > MAX_SECONDS:
                self.slow.append(f"{what}: {dt:.1f} s")


def _through_everything(run: Runner, root: Path, home: Path, label: str, explain_all: bool) -> None:
    env = Environment(workspace=root, home=home, cwd=root, extra_roots=[root], env={}, bins=set())
    run(f"{label} lint", lint_paths, [root], jobs=1, cache=False)
    cats = run(f"{label} scan", scan_all, env) or {}
    for cid, cat in cats.items():
        run(f"{label} listing {cid}", render_listing, cat)
    skills = {s.path: s for cat in cats.values() for s in cat.skills}
    # explain costs ~0.1 s (every client): every skill of an odd tree, a sample of a batch
    targets = list(skills)[:12] if explain_all else list(skills)[::40]
    for p in targets:
        run(f"{label} explain {p}", explain, env, str(p), catalogs=cats)
    names = sorted({s.name for s in skills.values() if isinstance(s.name, str)})[:2]
    for n in names:
        run(f"{label} explain {n!r}", explain, env, n, catalogs=cats)


@pytest.fixture(scope="module")
def fuzz_home(tmp_path_factory):
    home = tmp_path_factory.mktemp("fuzz-home")
    os.environ.setdefault("WORKBENCH_HOME", str(home / "wb"))
    return home


def test_generated_files_never_crash_hang_or_blow_up(tmp_path, fuzz_home, monkeypatch):
    monkeypatch.setenv("WORKBENCH_HOME", str(tmp_path / "wb"))
    rng = random.Random(SEED)
    run = Runner()
    t0 = time.perf_counter()
    total = 0
    for b in range(BATCHES):
        root = tmp_path / f"batch{b:02d}"
        total += len(write_batch(root, rng, FILES // BATCHES))
        _through_everything(run, root, fuzz_home, f"batch{b}", explain_all=False)
    assert total >= FILES
    print(
        f"\nfuzz: {total} files, {run.runs} runs in {time.perf_counter() - t0:.1f} s; slowest "
        f"{run.worst[0]:.2f} s ({run.worst[1][:80]}); peak RSS {_peak_bytes() / 2**20:.0f} MB; "
        + ", ".join(f"{k} {v:.1f} s" for k, v in run.by_op.items())
    )
    assert run.crashes == [], "\n".join(run.crashes[:5])
    assert run.slow == []
    assert _peak_bytes() < MAX_BYTES


def test_odd_trees_never_crash_hang_or_blow_up(tmp_path, fuzz_home, monkeypatch):
    monkeypatch.setenv("WORKBENCH_HOME", str(tmp_path / "wb"))
    trees = odd_trees(tmp_path / "trees")
    assert len(trees) == 20
    run = Runner()
    try:
        for t in trees:
            _through_everything(run, t, fuzz_home, t.name, explain_all=True)
        print(f"\nodd trees: {run.runs} runs; slowest {run.worst[0]:.2f} s ({run.worst[1][:80]})")
        assert run.crashes == [], "\n".join(c[:300] + " ... " + c[-300:] for c in run.crashes)
        assert run.slow == []
        assert _peak_bytes() < MAX_BYTES
        # a handful through the real CLI in a subprocess (locale, output encoding, exit codes)
        env = {
            **os.environ,
            "LC_ALL": "C.UTF-8",
            "WORKBENCH_HOME": str(tmp_path / "wb"),
            "PYTHONPATH": str(REPO),
        }
        base = tmp_path / "trees"
        for argv in (
            ["lint", "--format", "json", str(base)],
            ["lint", "--format", "sarif", str(base)],
            [
                "scan",
                "--client",
                "all",
                "--format",
                "json",
                "--home",
                str(fuzz_home),
                "--root",
                str(base / "non-utf8"),
                "--root",
                str(base / "control-names"),
                str(base),
            ],
        ):
            p = subprocess.run(
                [sys.executable, "-m", "workbench", *argv],
                capture_output=True,
                cwd=REPO,
                env=env,
                timeout=120,
            )
            assert p.returncode in (0, 1), (argv, p.stderr.decode("utf-8", "replace")[-2000:])
            assert p.stdout.strip(), (argv, p.returncode, p.stderr.decode("utf-8", "replace")[-2000:])
            json.loads(p.stdout.decode("utf-8"))  # valid UTF-8 and valid JSON
            assert b"\x1b" not in p.stdout + p.stderr
    finally:
        (tmp_path / "trees" / "unreadable" / "ro").chmod(0o755)
