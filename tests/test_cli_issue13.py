"""Issue 13 (core + CLI): statuses that say where a skill ends up, inputs and errors that say why.

Each test failed on main before the fix (see the numbered items of the issue).
"""

from __future__ import annotations

import json
import re

from tests.helpers import write_skill
from workbench.cli import main
from workbench.core.model import CLIENT_IDS


def run(capsys, *argv):
    rc = main([*map(str, argv)])
    out, err = capsys.readouterr()
    return rc, out, err


def _many(tmp_path, n=120):
    ws = tmp_path / "coll"
    for i in range(n):
        write_skill(ws / f"s{i:03d}", f"s{i:03d}", "Use when " + "testing budgets carefully " * 8 + f"#{i}.")
    home = tmp_path / "home"
    home.mkdir()
    return ws, home


# -- item 2: "listed" must say where the skill ends up ----------------------------------------------

def test_scan_says_where_each_listed_skill_ends_up(capsys, tmp_path):
    ws, home = _many(tmp_path)
    rc, out, _ = run(capsys, "scan", ws, "--home", home, "--client", "codex", "--context-tokens", "32000",
                     "--format", "json")
    data = json.loads(out)
    assert rc == 0 and data["client_version"] == "0.169.0"
    states = {s["path"]: s["listing_state"] for s in data["skills"]}
    rc, out, _ = run(capsys, "listing", ws, "--home", home, "--client", "codex", "--context-tokens",
                     "32000", "--format", "json")
    listing = {s["path"]: s["state"] for s in json.loads(out)["skills"]}
    assert states == listing  # the same verdict as the listing itself
    assert "omitted" in states.values() and set(states.values()) <= {"full", "truncated", "name-only",
                                                                     "omitted"}
    rc, out, _ = run(capsys, "scan", ws, "--home", home, "--client", "codex", "--context-tokens", "32000")
    n_omitted = sum(1 for v in states.values() if v == "omitted")
    assert f"{n_omitted} omitted by budget" in out and "(listing at 32k)" in out
    assert "omitted by budget" in out.split("\n[", 2)[-1]  # the rows too, not just the counts
    assert not re.search(r"^ +listed {2,}", out, re.M)  # never a bare "listed"


def test_scan_json_has_client_version_and_listing_state_for_every_client(capsys, tmp_path):
    ws = tmp_path / "p"
    write_skill(ws / ".claude" / "skills" / "a", "a")
    write_skill(ws / ".claude" / "skills" / "b", "b", extra="disable-model-invocation: true")
    rc, out, _ = run(capsys, "scan", ws, "--home", tmp_path, "--client", "all", "--format", "json")
    for cid, cat in json.loads(out)["clients"].items():
        assert cat["client_version"], cid
        for s in cat["skills"]:
            assert (s["listing_state"] is None) == (s["status"] != "listed"), (cid, s)
    assert json.loads(out)["clients"]["cursor"]["client_version"] == "unverified"
    assert json.loads(out)["clients"]["agentskills"]["client_version"] == "spec"
    assert set(json.loads(out)["clients"]) == set(CLIENT_IDS)
