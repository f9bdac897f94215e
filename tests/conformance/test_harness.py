"""The lab harness without real clients: every scenario builds and simulates; outputs are text-free."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conformance import report
from tests.conformance.lab import Comparison, build, simulate
from tests.conformance.scenarios import SCENARIOS
from workbench.core.capture import RUNNABLE_CLIENTS


def test_matrix_size_and_ids() -> None:
    ids = [s.id for s in SCENARIOS]
    assert len(ids) == len(set(ids))
    for client in ("claude-code", "opencode", "openclaw"):
        assert sum(s.applies_to(client) for s in SCENARIOS) >= 40


@pytest.mark.parametrize("client", ["claude-code", "opencode", "openclaw"])
def test_every_scenario_builds_and_simulates(tmp_path: Path, client: str) -> None:
    for s in SCENARIOS:
        if not s.applies_to(client) or s.id.startswith("budget-300"):
            continue
        ws, home = build(s, client, tmp_path / s.id)
        assert (ws / ".git").is_dir()
        _, rep = simulate(s, client, ws, home)
        assert isinstance(rep.text, str)


def test_results_and_table_hold_no_text(tmp_path: Path) -> None:
    cmp = Comparison(
        "basic-one",
        "claude-code",
        True,
        checks={"listing": True},
        real_skills=["alpha"],
        sim_skills=["alpha"],
        listing_sha="ab",
        listing_chars=9,
    )
    data = report.results_json([cmp], ["claude-code"], 1.0)
    assert data["clients"]["claude-code"]["agree"] == 1
    assert "listing" not in json.dumps(data["results"][0]).replace('"listing"', "").replace("listing_", "")
    docs = tmp_path / "CLIENTS.md"
    docs.write_text("# Client support\n", "utf-8")
    readme = tmp_path / "README.md"
    readme.write_text("# X\n\n" + report.VBEGIN + "\nold\n" + report.VEND + "\n\nmore\n", "utf-8")
    report.write_docs(data, docs, readme)
    report.write_docs(data, docs, readme)  # idempotent: one block
    assert "| Claude Code | 2.1.328 |" in readme.read_text("utf-8")
    assert "old" not in readme.read_text("utf-8") and "more" in readme.read_text("utf-8")
    text = docs.read_text("utf-8")
    assert text.count(report.BEGIN) == 1 and "| `basic-one` | ✓ |" in text
    assert set(RUNNABLE_CLIENTS) >= {"claude-code", "opencode", "openclaw"}
