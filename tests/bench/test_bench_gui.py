"""Time-to-populated of the main window on the corpus (1,241 skills x 8 clients).

Product target: the tree shows the corpus within 2 s of start. Measured in a fresh interpreter
(imports included) from the first line of the script, offscreen:

* ``populated``: the skills tree holds every skill of the current client (the current client is
  scanned first and shown while the other seven are scanned);
* ``complete``: every client scanned and every listing rendered.

Run: ``.venv/bin/python -m pytest -m bench tests/bench/test_bench_gui.py -s``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

SCRIPT = r'''
import time
T0 = time.perf_counter()
import json, os, sys
from pathlib import Path
from PySide6.QtCore import QCoreApplication, QTimer
from PySide6.QtWidgets import QApplication
app = QApplication([])
from workbench.cli import gui_parser
from workbench.app.main import build_window
args = gui_parser().parse_args([sys.argv[1], "--home", sys.argv[2]])
settings, ctx, win = build_window(args, persist_settings=False, watch=False)
win.resize(1400, 900); win.show()
out = {}
def check():
    if "populated" not in out and win.skills.model.skill_count() >= 1241:
        out["populated"] = time.perf_counter() - T0
    if "populated" in out and not ctx.scanning and not ctx.listings_pending:
        out["complete"] = time.perf_counter() - T0
        out["scan_seconds"] = ctx.scan_seconds
        app.quit()
t = QTimer(); t.timeout.connect(check); t.start(5)
QTimer.singleShot(120000, app.quit)
app.exec()
print(json.dumps(out))
'''


@pytest.mark.bench
def test_time_to_populated_corpus(corpus, tmp_path):
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", WORKBENCH_HOME=str(tmp_path / "wb"))
    home = tmp_path / "home"
    home.mkdir()
    runs = []
    for _ in range(3):
        r = subprocess.run(
            [sys.executable, "-c", SCRIPT, str(corpus), str(home)],
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
            cwd=Path(__file__).resolve().parents[2],
        )
        assert r.returncode == 0, r.stderr
        runs.append(json.loads(r.stdout.strip().splitlines()[-1]))
    best = min(x["populated"] for x in runs)
    print(
        "\ntime to populated (s):",
        [round(x["populated"], 2) for x in runs],
        "complete (s):",
        [round(x["complete"], 2) for x in runs],
        "best populated",
        round(best, 2),
    )
    assert all("populated" in x for x in runs)
    assert best < 10  # generous (shared CI machines); the target (2 s) is reported, see docstring
