"""The persistent lint result cache and the parallel lint path give exactly the serial results."""

from __future__ import annotations

import marshal
import os
import re
import time
from pathlib import Path

import pytest

from tests.helpers import backdate
from workbench.core.cache.cachefile import write_cache_file
from workbench.core.cache.resultcache import ResultCache, profile_fingerprint, rules_version
from workbench.core.lint import (
    PROFILES,
    CatalogEntry,
    CatalogIndex,
    find_skill_files,
    lint_paths,
    lint_skillfile,
)
from workbench.core.lint.runner import CATALOG_RULES
from workbench.core.lint.runner import catalog_desc as _catalog_desc
from workbench.core.lint.runner import catalog_name as _catalog_name
from workbench.core.skillfile import read_skill_file

RULES_DIR = Path(__file__).resolve().parents[2] / "workbench" / "core" / "lint" / "rules"


def _skill(
    root: Path, name: str, desc: str, body: str = "# T\n", extra: dict[str, str] | None = None
) -> Path:
    d = root / name
    d.mkdir(parents=True)
    p = d / "SKILL.md"
    p.write_text(f"---\nname: {name}\ndescription: {desc}\n---\n{body}")
    for rel, text in (extra or {}).items():
        (d / rel).parent.mkdir(parents=True, exist_ok=True)
        (d / rel).write_text(text)
    return p


def _reference(root: Path, profile: str) -> dict[Path, list]:
    """The pre-cache lint_paths behaviour: parse everything, one catalog, lint_skillfile each."""
    sfs = [read_skill_file(f) for f in find_skill_files(root)]
    cat = CatalogIndex([CatalogEntry(_catalog_name(sf), _catalog_desc(sf), sf.path) for sf in sfs])
    return {sf.path: lint_skillfile(sf, profile, cat) for sf in sfs}


@pytest.fixture()
def tree(tmp_path: Path) -> Path:
    root = tmp_path / "skills"
    _skill(
        root,
        "pdf-tools",
        "Extracts text from PDF files. Use when the user asks to read a PDF.",
        "See [forms](references/forms.md) and [missing](references/nope.md).\n```bash\nx\n",
        {"references/forms.md": "forms", "README.md": "hi"},
    )
    _skill(root, "pdf-copy", "Extracts text from PDF files. Use when the user asks to read a PDF.")
    _skill(root, "dup", "First.")
    (root / "other").mkdir()
    _skill(root / "other", "dup", "Second skill of the same name. Use when testing.")
    (root / "bad").mkdir()
    (root / "bad" / "SKILL.md").write_text("---\nname: bad\ndescription: Use when: colons\n---\nBody\n")
    (root / "nofm").mkdir()
    (root / "nofm" / "SKILL.md").write_text("# just a body\n")
    backdate(root)
    return root


def test_only_catalog_rules_read_the_catalog():
    """Per-file rules run with an empty catalog in workers and from the cache: that is only sound
    while no other rule reads ``ctx.catalog``/``ctx.others``."""
    for f in RULES_DIR.glob("*.py"):
        src = f.read_text()
        code = re.search(r'@rule\("([A-Z]+\d+)"', src)
        if code and code.group(1) not in CATALOG_RULES:
            assert "ctx.catalog" not in src and "ctx.others" not in src, f.name


@pytest.mark.parametrize("profile", ["agentskills", "claude-code", "codex", "openclaw"])
def test_cache_cold_and_warm_equal_serial(tree, tmp_path, profile):
    ref = _reference(tree, profile)
    prof = PROFILES[profile]
    c1 = ResultCache(prof, tmp_path / "cache")
    assert lint_paths([tree], profile, cache=c1) == ref
    assert c1.stored == len(ref) and c1.path.is_file()
    c2 = ResultCache(prof, tmp_path / "cache")
    assert lint_paths([tree], profile, cache=c2) == ref
    assert c2.hits == len(ref) and c2.misses == 0


def test_parallel_equals_serial(tree):
    ref = _reference(tree, "claude-code")
    assert lint_paths([tree], "claude-code", jobs=2) == ref
    assert lint_paths([tree], "claude-code", jobs=1) == ref


def test_corpus_parallel_and_cache_equal_serial(corpus, tmp_path):
    root = corpus / "openclaw"
    ref = _reference(root, "openclaw")
    assert lint_paths([root], "openclaw", jobs=2) == ref
    cache = ResultCache(PROFILES["openclaw"], tmp_path / "c")
    assert lint_paths([root], "openclaw", cache=cache) == ref
    warm = ResultCache(PROFILES["openclaw"], tmp_path / "c")
    assert lint_paths([root], "openclaw", cache=warm) == ref
    assert warm.hits == len(ref)


def test_edit_invalidates_entry(tree, tmp_path):
    prof = PROFILES["agentskills"]
    lint_paths([tree], prof, cache=ResultCache(prof, tmp_path / "c"))
    p = tree / "dup" / "SKILL.md"
    p.write_text("---\nname: Dup\ndescription: First.\n---\n")
    past = time.time() - 30
    os.utime(p, (past, past))
    c = ResultCache(prof, tmp_path / "c")
    res = lint_paths([tree], prof, cache=c)
    assert res == _reference(tree, "agentskills")
    assert c.misses == 1
    assert any(d.code == "NAME003" for d in res[p])


def test_folder_change_invalidates_entry(tree, tmp_path):
    """A new file in references/ fixes a broken link: the folder is a dependency of the result."""
    prof = PROFILES["agentskills"]
    p = tree / "pdf-tools" / "SKILL.md"
    first = lint_paths([tree], prof, cache=ResultCache(prof, tmp_path / "c"))
    assert any("nope.md" in d.message for d in first[p])
    (tree / "pdf-tools" / "references" / "nope.md").write_text("now here")
    backdate(tree / "pdf-tools", 20)
    c = ResultCache(prof, tmp_path / "c")
    res = lint_paths([tree], prof, cache=c)
    assert not any("nope.md" in d.message for d in res[p])
    assert res == _reference(tree, "agentskills")


def test_racy_new_files_are_not_stored(tmp_path):
    root = tmp_path / "s"
    _skill(root, "fresh", "Brand new. Use when testing.")
    c = ResultCache(PROFILES["agentskills"], tmp_path / "c")
    lint_paths([root], "agentskills", cache=c)
    assert c.stored == 0


def test_catalog_rules_recomputed_not_cached(tree, tmp_path):
    """Adding a skill with a clashing name changes another file's CAT001 while its entry stays valid."""
    prof = PROFILES["claude-code"]
    lint_paths([tree], prof, cache=ResultCache(prof, tmp_path / "c"))
    _skill(tree / "more", "pdf-tools", "Another PDF skill. Use when testing clashes.")
    backdate(tree / "more")
    c = ResultCache(prof, tmp_path / "c")
    res = lint_paths([tree], prof, cache=c)
    assert res == _reference(tree, "claude-code")
    assert any(d.code == "CAT001" for d in res[tree / "pdf-tools" / "SKILL.md"])
    assert c.hits == len(res) - 1


@pytest.mark.parametrize(
    "garbage",
    [
        b"",
        b"not marshal at all",
        b"\xff" * 100,
        marshal.dumps({"format": 1, "rules": "x"}),
        marshal.dumps([1, 2, 3]),
    ],
)
def test_corrupt_cache_is_ignored_and_rebuilt(tree, tmp_path, garbage):
    prof = PROFILES["agentskills"]
    c = ResultCache(prof, tmp_path / "c")
    c.folder.mkdir(parents=True)
    c.path.write_bytes(garbage)
    assert lint_paths([tree], prof, cache=c) == _reference(tree, "agentskills")
    c2 = ResultCache(prof, tmp_path / "c")
    lint_paths([tree], prof, cache=c2)
    assert c2.hits > 0


def test_malformed_entry_is_a_miss(tree, tmp_path):
    prof = PROFILES["agentskills"]
    c = ResultCache(prof, tmp_path / "c")
    lint_paths([tree], prof, cache=c)
    blob = marshal.loads(c.path.read_bytes())
    key = next(iter(blob["entries"]))
    blob["entries"][key] = ("junk",)
    write_cache_file(c.path, blob, [])
    c2 = ResultCache(prof, tmp_path / "c")
    assert lint_paths([tree], prof, cache=c2) == _reference(tree, "agentskills")
    assert c2.misses == 1


def test_profile_and_version_keys():
    a = PROFILES["agentskills"]
    assert profile_fingerprint(a) == profile_fingerprint(PROFILES["agentskills"])
    assert profile_fingerprint(a) != profile_fingerprint(a.with_options(unicode_names=False))
    assert re.fullmatch(r"[0-9a-f]{64}", rules_version())


def test_unwritable_cache_folder_does_not_fail(tree, tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    c = ResultCache(PROFILES["agentskills"], blocker / "sub")
    assert lint_paths([tree], "agentskills", cache=c) == _reference(tree, "agentskills")
    assert c.notes


def test_find_skill_files_matches_os_walk(tree):
    (tree / "node_modules" / "x").mkdir(parents=True)
    (tree / "node_modules" / "x" / "SKILL.md").write_text("x")
    (tree / "a-b").mkdir()
    (tree / "a-b" / "SKILL.md").write_text("x")
    (tree / "a" / "b").mkdir(parents=True)
    (tree / "a" / "b" / "SKILL.md").write_text("x")
    os.symlink(tree / "a", tree / "link")
    expected = []
    for dp, dn, fn in os.walk(tree):
        dn[:] = [d for d in dn if d not in (".git", "node_modules")]
        if "SKILL.md" in fn:
            expected.append(Path(dp) / "SKILL.md")
    assert find_skill_files(tree) == sorted(expected)


# ----------------------------------------------------------------------------------------
# round 2: lazy diagnostics, catalog fingerprint, walks through the listing cache


def test_diagnostic_list_behaves_like_a_list(tree, tmp_path):
    import copy
    import json
    import pickle
    from collections.abc import Sequence

    from workbench.core.lint.records import DiagnosticList

    prof = PROFILES["agentskills"]
    lint_paths([tree], prof, cache=ResultCache(prof, tmp_path / "c"))
    ref = _reference(tree, "agentskills")
    for warm in (False, True):
        got = lint_paths([tree], prof, cache=ResultCache(prof, tmp_path / "c"))
        for p, want in ref.items():
            v = got[p]
            assert isinstance(v, Sequence) and isinstance(v, DiagnosticList)
            c = v.counts()  # before anything is built
            assert c == {s: sum(d.severity == s for d in want) for s in ("error", "warning", "info")}
            if warm:
                assert want == v and v == want and not (v != want)  # reflected comparison first
            else:
                assert len(v) == len(want) and list(v) == want
            assert [] + v == want and v + [] == want
            assert json.dumps([d.to_json() for d in v]) == json.dumps([d.to_json() for d in want])
            assert pickle.loads(pickle.dumps(v)) == want and copy.copy(v) == want
            assert v.counts() == c
    lazy = DiagnosticList((), (), (0, 0, 0))
    assert lazy == [] and not lazy and len(lazy) == 0
    other = lint_paths([tree], prof, cache=ResultCache(prof, tmp_path / "c"))
    a, b = (
        other[tree / "pdf-tools" / "SKILL.md"],
        lint_paths([tree], prof, cache=ResultCache(prof, tmp_path / "c"))[tree / "pdf-tools" / "SKILL.md"],
    )
    assert a == b  # two unbuilt lists compare by content


def test_catalog_results_reused_while_catalog_unchanged(tree, tmp_path):
    prof = PROFILES["claude-code"]
    ref = _reference(tree, "claude-code")
    lint_paths([tree], prof, cache=ResultCache(prof, tmp_path / "c"))
    c = ResultCache(prof, tmp_path / "c")
    assert lint_paths([tree], prof, cache=c) == ref
    assert c.catalog_hits == len(ref)
    # a body edit keeps the catalog: only the edited file's catalog rules run again
    p = tree / "pdf-copy" / "SKILL.md"
    p.write_text(p.read_text() + "\nMore body.\n")
    backdate(tree / "pdf-copy", 20)
    c2 = ResultCache(prof, tmp_path / "c")
    assert lint_paths([tree], prof, cache=c2) == _reference(tree, "claude-code")
    assert c2.catalog_hits == len(ref) - 1 and c2.misses == 1
    # a description edit changes the catalog: every file's catalog rules run again
    p.write_text("---\nname: pdf-copy\ndescription: Something else entirely. Use when testing.\n---\n")
    backdate(tree / "pdf-copy", 10)
    c3 = ResultCache(prof, tmp_path / "c")
    res = lint_paths([tree], prof, cache=c3)
    assert res == _reference(tree, "claude-code")
    assert c3.catalog_hits == 0
    assert not any(d.code == "DESC009" for d in res[tree / "pdf-tools" / "SKILL.md"])


def test_explicit_catalog_and_file_list(tree, tmp_path):
    prof = PROFILES["agentskills"]
    files = find_skill_files(tree)
    ref = _reference(tree, "agentskills")
    c = ResultCache(prof, tmp_path / "c")
    assert lint_paths([str(f) for f in files], prof, cache=c) == {f: ref[f] for f in files}
    cat = [("pdf-tools", "Extracts text from PDF files. Use when the user asks to read a PDF.", tree / "x")]
    one = tree / "pdf-copy" / "SKILL.md"
    want = lint_skillfile(read_skill_file(one), prof, cat)
    for _ in range(2):  # cold, then warm: an explicit catalog never reuses the files' fingerprint
        got = lint_paths([one], prof, catalog=cat, cache=ResultCache(prof, tmp_path / "c"))
        assert got[one] == want
        assert any(d.code == "DESC009" for d in got[one])


def test_missing_path_still_raises(tmp_path):
    with pytest.raises(FileNotFoundError):
        lint_paths([tmp_path / "nope"], "agentskills")


def test_warm_lint_uses_listing_cache(tree, tmp_path):
    from workbench.core.cache import fscache

    prof = PROFILES["agentskills"]
    fscache._defaults.clear()
    lint_paths([tree], prof, cache=ResultCache(prof, tmp_path / "c"))
    fscache._defaults.clear()
    c = ResultCache(prof, tmp_path / "c")
    assert lint_paths([tree], prof, cache=c) == _reference(tree, "agentskills")
    assert c.dirs.misses == 0 and c.hits == len(find_skill_files(tree))
    fscache._defaults.clear()


def test_rules_version_hashes_every_module_the_rules_use():
    """A lint result depends on the code of ``lint/`` and of every module it (or the parser)
    imports: each is hashed by ``rules_version`` (``HASHED``) or listed as not changing a result
    (``UNHASHED``), so that editing, say, ``riskpatterns.py`` invalidates the cached results."""
    from workbench.core.cache import resultcache

    core = Path(resultcache.__file__).resolve().parent.parent
    sources = [*sorted((core / "lint").rglob("*.py")), core / "skillfile.py"]
    imported = set()
    for f in sources:
        imported |= set(
            re.findall(r"(?:from|import) workbench\.core\.([a-z_.]+)", f.read_text(encoding="utf-8"))
        )
    covered = resultcache.HASHED + resultcache.UNHASHED
    missing = sorted(
        m
        for m in imported
        if not m.startswith("lint")
        and not any(m.replace(".", "/") + ".py" == c or m.split(".")[0] == c for c in covered)
    )
    assert missing == []


def test_rules_version_changes_with_a_hashed_module(tmp_path, monkeypatch):
    from workbench.core.cache import resultcache

    core = Path(resultcache.__file__).resolve().parent.parent
    copy = tmp_path / "core"
    for rel in ["lint", "cache/resultcache.py", *resultcache.HASHED]:
        src = core / rel
        if src.is_dir():
            import shutil

            shutil.copytree(src, copy / rel)
        else:
            (copy / rel).parent.mkdir(parents=True, exist_ok=True)
            (copy / rel).write_bytes(src.read_bytes())
    monkeypatch.setattr(resultcache, "_PKG", copy)
    monkeypatch.setattr(resultcache, "_version", None)
    before = resultcache.rules_version()
    monkeypatch.setattr(resultcache, "_version", None)
    (copy / "riskpatterns.py").write_text("# changed\n", encoding="utf-8")
    assert resultcache.rules_version() != before
