"""Every rule is run on its own docstring PASS/FAIL examples (see registry.parse_examples)."""

from __future__ import annotations

from pathlib import Path

import pytest

from workbench.core.lint import RULES, lint_paths
from workbench.core.lint.catalogindex import CatalogEntry

CASES = [(code, i, ex) for code, r in RULES.items() for i, ex in enumerate(r.examples())]


def run_example(tmp_path: Path, ex) -> set[str]:
    folder = tmp_path / (ex.dir or "example-skill")
    folder.mkdir(parents=True)
    (folder / ex.options.get("file", "SKILL.md")).write_text(ex.text, encoding="utf-8", newline="")
    for rel in ex.files:
        p = folder / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text("placeholder\n", encoding="utf-8")
    catalog = None
    if ex.catalog:
        me = folder / "SKILL.md"
        from workbench.core.skillfile import read_skill_file

        sf = read_skill_file(me)
        catalog = [
            CatalogEntry(n, d, tmp_path / f"other-{i}" / "SKILL.md") for i, (n, d) in enumerate(ex.catalog)
        ]
        catalog.append(CatalogEntry(str(sf.get("name") or ""), str(sf.get("description") or ""), me))
    res = lint_paths([folder], profile=ex.profile, catalog=catalog)
    return {d.code for ds in res.values() for d in ds}


def test_every_rule_has_pass_and_fail_examples():
    for code, r in RULES.items():
        verdicts = {e.verdict for e in r.examples()}
        assert verdicts == {"PASS", "FAIL"}, f"{code} needs PASS and FAIL examples in its docstring"
        assert r.doc.strip().startswith(code), f"{code}: docstring must start with the code"


@pytest.mark.parametrize("code,i,ex", CASES, ids=[f"{c}-{i}-{e.verdict}" for c, i, e in CASES])
def test_rule_example(tmp_path, code, i, ex):
    codes = run_example(tmp_path, ex)
    assert "LINT000" not in codes
    if ex.verdict == "FAIL":
        assert code in codes, f"{code} did not fire on its FAIL example:\n{ex.text}"
    else:
        assert code not in codes, f"{code} fired on its PASS example:\n{ex.text}"
