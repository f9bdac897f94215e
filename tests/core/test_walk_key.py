"""The persisted whole-walk key (``clients.walk.rules_key``) is the same in every process: a
frozenset's ``repr`` order depends on the hash seed, so a key built from ``repr(rules)`` made a
new process miss every walk the previous one stored."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

from workbench.core.clients.walk import EXTRA_RULES, WalkRules, rules_key

_PROBE = """
import sys
from pathlib import Path
from workbench.core.cache.fscache import DirCache, snapshot
from workbench.core.clients.walk import EXTRA_RULES, walk
d = DirCache(sys.argv[1])
with snapshot():
    found = walk(Path(sys.argv[2]), EXTRA_RULES, dirs=d)
print(len(found), d.misses)
d.save()
"""


def test_rules_key_sorts_sets():
    a = WalkRules(skip_names=frozenset({"b", "a", "c"}))
    assert "('a', 'b', 'c')" in rules_key(a)
    assert rules_key(a) != rules_key(EXTRA_RULES)


def test_walk_reused_across_hash_seeds(tmp_path):
    tree = tmp_path / "tree"
    for i in range(5):
        (tree / f"s{i}").mkdir(parents=True)
        (tree / f"s{i}" / "SKILL.md").write_text("---\nname: x\n---\n")
    old = time.time() - 60  # not racily new: the walk is stored
    for p in [tree, *tree.iterdir()]:
        os.utime(p, (old, old))
    cache = tmp_path / "fs"
    got = []
    for seed in ("1", "2"):
        env = {**os.environ, "PYTHONHASHSEED": seed}
        out = subprocess.run(
            [sys.executable, "-c", _PROBE, str(cache), str(tree)],
            env=env,
            capture_output=True,
            text=True,
            check=True,
        ).stdout.split()
        got.append(out)
    assert got[0] == ["5", "6"]  # the first process lists the root and the 5 folders
    assert got[1] == ["5", "0"]  # the second reuses the whole walk: no listing at all
    assert Path(cache / "dirs.marshal").is_file()
