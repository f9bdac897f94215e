"""The real corpus (1,241 public skills) through discovery and every client's listing.

Figures (recorded in the engineer's report, printed with ``-s``): how many descriptions survive
for Claude Code at 200k, Codex at 128k, OpenClaw with its defaults.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from workbench.core.listing import STATES, render_listing
from workbench.core.model import CLIENT_IDS, Environment


@pytest.fixture(scope="module")
def catalogs(corpus, tmp_path_factory):
    from workbench.core.discovery import scan_all

    base = tmp_path_factory.mktemp("corpus-env")
    (base / "ws").mkdir()
    (base / "home").mkdir()
    env = Environment(workspace=base / "ws", home=base / "home", env={}, extra_roots=[Path(corpus).resolve()])
    return scan_all(env)


@pytest.mark.parametrize("client", CLIENT_IDS)
def test_every_client_renders_the_corpus(catalogs, client):
    cat = catalogs[client]
    listed = cat.listed()
    assert len(listed) > 1000
    for ctx in (None, 32_000, 200_000):
        rep = render_listing(cat, ctx)
        assert len(rep.skills) == len(listed)
        assert sum(rep.counts()[s] for s in STATES) == len(listed)
        if rep.budget_limit is not None and client != "claude-code":
            assert rep.budget_used <= rep.budget_limit
        for e in rep.skills:
            assert 0 <= e.shown_chars <= e.description_chars
        rep.to_json()


def test_corpus_figures(catalogs, capsys):
    cc = render_listing(catalogs["claude-code"], 200_000)
    cx = render_listing(catalogs["codex"], 128_000)
    oc = render_listing(catalogs["openclaw"], None)
    with capsys.disabled():
        for name, r in (("claude-code@200k", cc), ("codex@128k", cx), ("openclaw defaults", oc)):
            print(f"\n{name}: {r.counts()} budget {r.budget_used}/{r.budget_limit} {r.budget_unit}")
    # Claude Code: every name stays; at 200k (8,000 chars) even the names alone overflow
    assert cc.counts()["omitted"] == 0
    assert all(f"- {e.name}" in cc.text for e in cc.skills)
    # Codex: within 2 % of 128k tokens, descriptions removed, most skills omitted
    assert cx.budget_limit == 2560 and cx.budget_used <= 2560
    assert cx.counts()["omitted"] > 0 and cx.warnings
    # OpenClaw: 150-skill cap and 18,000 chars
    assert oc.budget_used <= 18_000
    assert sum(1 for e in oc.skills if e.state != "omitted") <= 150
