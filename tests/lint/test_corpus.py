"""Lint all of ../shared/corpus (1,241 real skills) under every profile: nothing crashes, every
position is inside its file, and a few known findings are spot-checked."""

from __future__ import annotations

from collections import Counter

import pytest

from workbench.core.lint import PROFILE_IDS, CatalogEntry, CatalogIndex, find_skill_files, lint_skillfile
from workbench.core.lint.runner import catalog_desc as _catalog_desc
from workbench.core.lint.runner import catalog_name as _catalog_name
from workbench.core.skillfile import read_skill_file


@pytest.fixture(scope="module")
def parsed(corpus):
    files = find_skill_files(corpus)
    sfs = [read_skill_file(f) for f in files]
    cat = CatalogIndex([CatalogEntry(_catalog_name(sf), _catalog_desc(sf), sf.path) for sf in sfs])
    return sfs, cat


def test_corpus_file_count(parsed):
    sfs, _ = parsed
    assert len(sfs) == 1241  # MANIFEST.md total (includes the dot-folder roots of openai-skills)


@pytest.mark.parametrize("profile", PROFILE_IDS)
def test_corpus_lints_under_every_profile(parsed, profile):
    sfs, cat = parsed
    counts: Counter = Counter()
    for sf in sfs:
        ds = lint_skillfile(sf, profile, cat)
        lines = [ln[:-1] if ln.endswith("\r") else ln for ln in sf.text.split("\n")]
        for d in ds:
            assert d.code != "LINT000", (sf.path, d.message)
            assert 1 <= d.line <= len(lines) and 1 <= d.column <= len(lines[d.line - 1]) + 1, (sf.path, d)
            counts[d.code] += 1
    assert counts  # a real corpus always has findings


def _find(sfs, tail):
    return next(sf for sf in sfs if sf.path.as_posix().endswith(tail))


def test_corpus_spot_checks(parsed):
    sfs, cat = parsed
    # leading hyphen in a real name (composio "-21risk-automation") -> NAME005 on line 2
    sf = _find(sfs, "composio-skills/-21risk-automation/SKILL.md")
    ds = lint_skillfile(sf, "agentskills", cat)
    (d,) = [d for d in ds if d.code == "NAME005"]
    assert (d.line, d.column) == (2, 7) and d.severity == "error"
    # its "requires:" key is unknown to the spec, and "mcp: [rube]" is flow style (skills-ref rejects)
    assert {"FLD001", "FM011"} <= {d.code for d in ds}
    # the same file under Codex: extra keys are only infos, the name is not checked -> no errors
    assert not [d for d in lint_skillfile(sf, "codex", cat) if d.severity == "error"]
    # OpenClaw bundled skills from the "moltbot" period use the legacy metadata key
    oc = [sf for sf in sfs if "/openclaw/skills/" in sf.path.as_posix() and "moltbot" in sf.text]
    assert oc and any("OC002" in {d.code for d in lint_skillfile(sf, "openclaw", cat)} for sf in oc)
