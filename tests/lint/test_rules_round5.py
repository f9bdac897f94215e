"""STR007 evals.json shape, STR008 skill size, DESC011 user-centric trigger, BODY011 negative delta:
behaviour beyond the docstring examples (positions, thresholds, severities, caching)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.helpers import backdate
from workbench.core.cache.resultcache import ResultCache
from workbench.core.lint import PROFILES, lint_paths, lint_text
from workbench.core.lint.rules import str008_skill_size
from workbench.core.lint.rules.str007_evals_json import shape_problems

HEAD = "---\nname: pdf-tools\ndescription: Extracts text from PDF files. Use when the user asks to read a PDF.\n---\n"


def _skill(tmp_path: Path, files: dict[str, str | bytes] | None = None, body: str = "# PDF\n") -> Path:
    d = tmp_path / "pdf-tools"
    d.mkdir(parents=True, exist_ok=True)
    (d / "SKILL.md").write_text(HEAD + body, encoding="utf-8")
    for rel, data in (files or {}).items():
        p = d / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(data, bytes):
            p.write_bytes(data)
        else:
            p.write_text(data, encoding="utf-8")
    return d


def _diags(folder: Path, code: str, profile: str = "agentskills", cache=None):
    res = lint_paths([folder], profile, cache=cache)
    return [d for ds in res.values() for d in ds if d.code == code]


# -- STR007 -------------------------------------------------------------------------------


def test_str007_good_file_passes(tmp_path):
    good = {"skill_name": "pdf-tools", "evals": [{"id": 1, "prompt": "Read a.pdf", "expected_output": "x"}]}
    assert not _diags(_skill(tmp_path, {"evals/evals.json": json.dumps(good)}), "STR007")


def test_str007_syntax_error_names_line_and_column(tmp_path):
    folder = _skill(tmp_path, {"evals/evals.json": '{\n  "evals": [\n    {"id": 1 "prompt": "x"}\n  ]\n}\n'})
    (d,) = _diags(folder, "STR007")
    assert d.severity == "warning" and (d.line, d.column) == (1, 1)
    assert d.message.startswith("evals/evals.json:3:14: not valid JSON (Expecting ',' delimiter)")


@pytest.mark.parametrize(
    "data,problems",
    [
        ([], ["the top level is list, not an object"]),
        (None, ["the top level is null, not an object"]),
        ({"cases": []}, ['there is no top-level "evals" list']),
        ({"evals": {}}, ['"evals" is not a list']),
        ({"evals": []}, []),
        ({"evals": [{"id": 1.5, "prompt": "p"}, {"id": 2, "prompt": "q", "files": []}]}, []),
        ({"evals": ["x"]}, ["evals[0] is not an object"]),
        ({"evals": [{"id": "1", "prompt": "p"}]}, ['evals[0] has no numeric "id"']),
        ({"evals": [{"id": True, "prompt": "p"}]}, ['evals[0] has no numeric "id"']),
        ({"evals": [{"id": 1}]}, ['evals[0] has no string "prompt"']),
        ({"evals": [{"id": 1, "prompt": ["p"]}]}, ['evals[0] has no string "prompt"']),
    ],
)
def test_str007_shapes(data, problems):
    assert shape_problems(data) == problems


def test_str007_many_entry_problems_are_summed_up(tmp_path):
    bad = {"evals": [{} for _ in range(4)]}  # 8 problems: 5 listed + "3 more"
    folder = _skill(tmp_path, {"evals/evals.json": json.dumps(bad)})
    msgs = [d.message for d in _diags(folder, "STR007")]
    assert len(msgs) == 6 and "evals/evals.json: 3 more entry problems" in msgs


def test_str007_only_when_the_file_exists(tmp_path):
    assert not _diags(_skill(tmp_path, {"evals/trigger_eval.json": "not json"}), "STR007")
    assert not _diags(_skill(tmp_path / "b", {"other/evals.json": "not json"}), "STR007")


def test_str007_cached_result_follows_the_evals_file(tmp_path):
    prof = PROFILES["agentskills"]
    folder = _skill(tmp_path / "s", {"evals/evals.json": "{"})
    backdate(folder)
    assert _diags(folder, "STR007", cache=ResultCache(prof, tmp_path / "c"))
    (folder / "evals" / "evals.json").write_text('{"evals": []}')
    backdate(folder, 30)
    c = ResultCache(prof, tmp_path / "c")
    assert not _diags(folder, "STR007", cache=c)
    assert c.misses == 1


# -- STR008 -------------------------------------------------------------------------------


def test_str008_big_file_and_binary(tmp_path):
    folder = _skill(
        tmp_path,
        {
            "references/big.md": "x" * 100_001,
            "references/ok.md": "x" * 100_000,
            "assets/tool.ZIP": b"PK\x03\x04",
        },
    )
    msgs = sorted(d.message for d in _diags(folder, "STR008"))
    assert msgs == [
        "assets/tool.ZIP is an opaque binary: it cannot be reviewed, and agents cannot read it",
        "references/big.md is 100 KB (over 100 KB): an agent that opens it reads it all",
    ]


def test_str008_skill_md_itself_and_images_are_not_flagged(tmp_path):
    folder = _skill(tmp_path, {"assets/logo.png": b"\x89PNG\r\n\x1a\n"}, body="x" * 200_000 + "\n")
    assert not _diags(folder, "STR008")


def test_str008_total_size_error_only_for_uploads(tmp_path):
    folder = _skill(tmp_path)
    for i in range(3):  # sparse files: 9 MiB in all without writing them
        with open(folder / f"part{i}.dat", "wb") as fh:
            fh.truncate(3 * 1024 * 1024)
    by_profile = {p: _diags(folder, "STR008", p) for p in ("agentskills", "claude-api")}
    for prof, sev in (("agentskills", "warning"), ("claude-api", "error")):
        (total,) = [d for d in by_profile[prof] if "MiB" in d.message]
        assert total.severity == sev and "9.0 MiB (over 8 MiB)" in total.message
        assert len(by_profile[prof]) == 4  # + three files over 100 KB


def test_str008_skips_git_and_node_modules_and_stops_at_the_entry_cap(tmp_path, monkeypatch):
    folder = _skill(tmp_path, {".git/objects/pack.pack": b"x" * 200_000, "node_modules/a/lib.so": b"\0"})
    assert not _diags(folder, "STR008")
    _skill(tmp_path, {f"references/r{i}.md": "r" for i in range(5)} | {"zz/tool.exe": b"MZ"})
    assert _diags(folder, "STR008")
    monkeypatch.setattr(str008_skill_size, "MAX_ENTRIES", 3)
    assert not _diags(folder, "STR008")  # the walk stopped before reaching zz/


def test_str008_cached_result_follows_the_folders_walked(tmp_path):
    prof = PROFILES["agentskills"]
    folder = _skill(tmp_path / "s", {"scripts/deep/run.py": "print(1)\n"})
    backdate(folder)
    assert not _diags(folder, "STR008", cache=ResultCache(prof, tmp_path / "c"))
    (folder / "scripts" / "deep" / "run.so").write_bytes(b"\0")
    backdate(folder, 30)
    c = ResultCache(prof, tmp_path / "c")
    assert [d.message.split(" ")[0] for d in _diags(folder, "STR008", cache=c)] == ["scripts/deep/run.so"]
    assert c.misses == 1


# -- DESC011 ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "desc,fires",
    [
        ("Extracts text from PDF files. Use when the user asks to read a PDF.", False),
        ('This skill should be used when the user asks to "create a hook".', False),
        ("Formats code. Use whenever the user asks.", True),
        ("Formats code. Use when a user wants help, or for code.", True),
        ("Formats code. Use if the user asks about it", True),
        ("Formats code. Use WHEN THE USER ASKS FOR ANYTHING.", True),
        ("Formats code when users mention formatting.", False),
        ("Formats code for every user.", False),
        ("Formats code. Use when the user asks: 'format this file'.", False),
        ("Formats code. Use when the user says, 'tidy up', or 'lint'.", False),
        ("Formats code whenever the user asks, or on save.", True),
    ],
)
def test_desc011(desc, fires):
    codes = {d.code for d in lint_text(f"---\nname: fmt\ndescription: {desc}\n---\n# T\n")}
    assert ("DESC011" in codes) == fires


# -- BODY011 ------------------------------------------------------------------------------


def _body011(body: str):
    return [d for d in lint_text(HEAD + body) if d.code == "BODY011"]


def test_body011_two_step_ones_outside_code():
    (d,) = _body011("Step 1: a\nStep 2: b\n\n**Step 1**: c\n")
    assert (d.line, d.column) == (8, 3) and "2 procedures" in d.message and d.severity == "info"
    assert not _body011("Step 1: a\n```\nStep 1: in code\n```\n")


def test_body011_checks_no_escape_hatch():
    assert not _body011("Use pdftotext.\nHowever you can also use anything.\n")


def test_body011_does_not_count_absolutes():
    assert not _body011("\n".join(["Always check.", "Never guess."] * 12) + "\n")
