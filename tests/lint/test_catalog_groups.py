"""CAT001/DESC009 on a big group of duplicates (issue 14): each file looks at no more of its group
than the 3 entries it names, so a cold lint is not quadratic in the group's size."""

from __future__ import annotations

from pathlib import Path

from workbench.core.lint import lint_text
from workbench.core.lint.catalogindex import CatalogEntry, CatalogIndex


def test_others_than_stops_at_the_limit(monkeypatch) -> None:
    entries = [CatalogEntry("s", "same", Path(f"/c/s{i}/SKILL.md")) for i in range(2000)]
    index = CatalogIndex(entries)
    calls = 0

    class Keys(dict):  # the entries' keys, counting the look-ups
        def get(self, k, default=None):
            nonlocal calls
            calls += 1
            return super().get(k, default)

    monkeypatch.setattr(index, "keys", Keys(index.keys))
    got = index.others_than("/c/s0/SKILL.md", index.by_desc["same"], limit=3)
    assert [e.path for e in got] == [Path(f"/c/s{i}/SKILL.md") for i in (1, 2, 3)]
    assert calls == 4
    assert index.others_than("/c/s0/SKILL.md", index.by_desc["same"], limit=0) == []
    assert [e.path for e in index.others_than(None, index.by_desc["same"], limit=2)] == [
        Path("/c/s0/SKILL.md"),
        Path("/c/s1/SKILL.md"),
    ]
    assert len(index.others_than("/c/s0/SKILL.md", index.by_desc["same"])) == 1999


def test_duplicate_rules_still_name_three_of_a_big_group() -> None:
    catalog = [("s", "Same words. Use when testing.", Path(f"/c/s{i}/SKILL.md")) for i in range(500)]
    diags = lint_text(
        "---\nname: s\ndescription: Same words. Use when testing.\n---\n# S\n\nBody.\n",
        path=Path("/c/s0/SKILL.md"),
        catalog=catalog,
    )
    by_code = {d.code: d.message for d in diags}
    assert by_code["DESC009"].count("/c/s") == 3 and "/c/s0/" not in by_code["DESC009"]
    assert by_code["CAT001"].count("/c/s") == 3
