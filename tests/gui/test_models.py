"""The item models under pytest-qt's qtmodeltester (real data: the demo and a small workspace),
plus the pure helpers behind the panes."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import Qt

from tests.helpers import write_skill
from workbench.app.explain_pane import ICON_LEVEL, findings_by_client, worst_level
from workbench.app.listing_pane import (
    AllClientsModel,
    ListingTableModel,
    entry_range,
    format_tokens,
    parse_tokens,
)
from workbench.app.shadowing_view import ShadowingModel, shadow_rows
from workbench.app.skills_tree import SkillFilterProxy, SkillsTreeModel
from workbench.core import discovery
from workbench.core.listing import render_listing
from workbench.core.model import CLIENT_IDS, Environment

pytestmark = pytest.mark.usefixtures("qapp")  # icons (QPixmap) need a QGuiApplication


@pytest.fixture()
def catalogs(tmp_path: Path, fake_home: Path):
    ws = tmp_path / "p"
    write_skill(ws / ".claude" / "skills" / "a", "a", "Alpha.")
    write_skill(ws / ".claude" / "skills" / "b", "b", "Beta <b>.")
    write_skill(ws / ".claude" / "skills" / "bad", raw="---\nname: [unclosed\n---\n")
    write_skill(ws / ".agents" / "skills" / "a", "a", "Alpha again.")
    write_skill(fake_home / ".claude" / "skills" / "a", "a", "Personal alpha.")
    env = Environment(workspace=ws, home=fake_home)
    return env, discovery.scan_all(env)


@pytest.mark.parametrize("cid", ["claude-code", "codex", "opencode"])
def test_skills_tree_model(qtmodeltester, catalogs, cid):
    import dataclasses

    _env, cats = catalogs
    m = SkillsTreeModel()
    m.set_catalog(cats[cid])
    qtmodeltester.check(m, force_py=True)  # stays connected: later changes are checked too
    assert m.skill_count() == len(cats[cid].skills)
    # an incremental update (same layout, one Skill replaced) -> dataChanged, not a reset
    skills = list(cats[cid].skills)
    skills[0] = dataclasses.replace(skills[0], description="changed")
    m.set_catalog(dataclasses.replace(cats[cid], skills=skills))
    assert m.skills()[0].description == "changed"
    m.set_catalog(None)
    assert m.rowCount() == 0


def test_filter_proxy(qtmodeltester, catalogs):
    _env, cats = catalogs
    m = SkillsTreeModel()
    m.set_catalog(cats["claude-code"])
    px = SkillFilterProxy()
    px.setSourceModel(m)
    px.set_filter_text("alpha")
    qtmodeltester.check(px, force_py=True)
    names = [
        px.data(px.index(c, 0, px.index(r, 0)))
        for r in range(px.rowCount())
        for c in range(px.rowCount(px.index(r, 0)))
    ]
    assert names and all(n.startswith("a") for n in names)


def test_shadowing_model(qtmodeltester, catalogs):
    env, cats = catalogs
    m = ShadowingModel()
    m.set_catalogs(cats, env)
    qtmodeltester.check(m, force_py=True)
    rows = shadow_rows(cats)
    assert [r.name for r in rows] == ["a"]
    cc = m.data(m.index(0, 2 + CLIENT_IDS.index("claude-code")))
    assert cc == "user"  # personal beats project in Claude Code
    tip = m.data(m.index(0, 2 + CLIENT_IDS.index("claude-code")), Qt.ItemDataRole.ToolTipRole)
    assert tip.startswith("user:")  # the full verdict with the path
    codex = m.data(m.index(0, 2 + CLIENT_IDS.index("codex")))
    assert codex.startswith(("all", "user", "project", "—", "none"))


def test_listing_models(qtmodeltester, catalogs):
    env, cats = catalogs
    rep = render_listing(cats["claude-code"], 8000)
    m = ListingTableModel()
    m.set_report(rep, {"a"})
    qtmodeltester.check(m, force_py=True)
    assert m.rowCount() == len(rep.skills)

    class Ctx:  # the AllClientsModel reads only these three things from the AppContext
        listings = {cid: render_listing(cats[cid], 8000) for cid in CLIENT_IDS}

        def skill(self, path, cid):
            return next((s for s in cats[cid].skills if s.path == path), None)

    a = m.data(m.index(0, 6 - 6), 0x0102)  # PathRole
    am = AllClientsModel()
    am.set_skill(Ctx(), Path(a))
    qtmodeltester.check(am, force_py=True)
    assert am.rowCount() == len(CLIENT_IDS)


def test_entry_range_formats():
    line = "Header:\n\n- alpha: does a\n- beta: does b\n"
    s, e = entry_range(line, "beta", None)
    assert line[s:e] == "- beta: does b"
    xml = "<available_skills>\n<skill>\n<name>a</name>\n<location>/x/a/SKILL.md</location>\n</skill>\n<skill>\n<name>b</name>\n</skill>\n</available_skills>"
    s, e = entry_range(xml, "a", "/x/a/SKILL.md")
    assert xml[s:e].startswith("<skill>") and xml[s:e].endswith("</skill>") and "<name>a</name>" in xml[s:e]
    s, e = entry_range(xml, "b", "/nope")
    assert "<name>b</name>" in xml[s:e] and "<name>a</name>" not in xml[s:e]
    assert entry_range(line, "gamma", None) is None


def test_token_parsing():
    assert parse_tokens("8k") == 8000
    assert parse_tokens("1.5M") == 1_500_000
    assert parse_tokens("200,000") == 200_000
    assert parse_tokens("128000 tokens") == 128_000
    assert parse_tokens("0") is None and parse_tokens("lots") is None and parse_tokens("-5") is None
    assert (
        format_tokens(8000) == "8k"
        and format_tokens(1_000_000) == "1M"
        and format_tokens(131072) == "131,072"
    )


def test_explain_findings_are_read_from_the_typed_result():
    """The pane reads ``explain``'s dataclasses as they are: no field-name guessing."""
    from workbench.core.explain import LEVELS, ClientExplanation, StepFinding

    found = StepFinding("found", "ok", "Found")
    cut = StepFinding("listed", "warn", "Cut", fix="Shorten")
    out = findings_by_client([ClientExplanation("codex", "Codex", "x", findings=[found, cut])])
    assert out == {"codex": [found, cut]}
    assert worst_level(out["codex"]) == "warn" and worst_level([]) == "ok"
    assert set(ICON_LEVEL) == set(LEVELS)  # every explain level has an icon
