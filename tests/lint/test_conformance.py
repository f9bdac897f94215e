"""The ``agentskills`` profile against skills-ref: its own test cases (validators.md 4.1,
test_validator.py and test_parser.py, ported to data) and the 4.2 conformance table.

Verdicts must match skills-ref ("valid" = no error-severity diagnostic); messages need not.
Where we deliberately differ, ``differs`` names the rule whose docstring says why.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from workbench.core.lint import find_skill_files, lint_paths, lint_text
from workbench.core.skillfile import read_skill_file

OK_DESC = "A test skill. Use when testing."


def fm(*lines: str, body: str = "# My Skill\n") -> str:
    return "---\n" + "".join(ln + "\n" for ln in lines) + "---\n" + body


def errors(results) -> set[str]:
    return {d.code for ds in results.values() for d in ds if d.severity == "error"}


def run(tmp_path: Path, dirname: str, text: str) -> dict:
    d = tmp_path / dirname
    d.mkdir(parents=True)
    (d / "SKILL.md").write_text(text, encoding="utf-8", newline="")
    return lint_paths([d], profile="agentskills")


# ---- test_validator.py (21) -------------------------------------------------------------
VALIDATOR = [
    # (id, dir, text, expected error code or None for valid)
    ("valid_minimal", "my-skill", fm("name: my-skill", f"description: {OK_DESC}"), None),
    ("uppercase", "MySkill", fm("name: MySkill", f"description: {OK_DESC}"), "NAME003"),
    ("too_long", "a" * 70, fm("name: " + "a" * 70, f"description: {OK_DESC}"), "NAME002"),
    ("leading_hyphen", "-my-skill", fm("name: -my-skill", f"description: {OK_DESC}"), "NAME005"),
    ("consecutive_hyphens", "my--skill", fm("name: my--skill", f"description: {OK_DESC}"), "NAME006"),
    ("invalid_chars", "my_skill", fm("name: my_skill", f"description: {OK_DESC}"), "NAME004"),
    ("dir_mismatch", "wrong-name", fm("name: correct-name", f"description: {OK_DESC}"), "NAME007"),
    (
        "unexpected_fields",
        "my-skill",
        fm("name: my-skill", f"description: {OK_DESC}", "unknown_field: x"),
        "FLD001",
    ),
    (
        "license_and_metadata",
        "my-skill",
        fm(
            "name: my-skill",
            f"description: {OK_DESC}",
            "license: MIT",
            "metadata:",
            "  author: Test",
            "  version: \"1.0\"",
        ),
        None,
    ),
    (
        "allowed_tools",
        "my-skill",
        fm("name: my-skill", f"description: {OK_DESC}", "allowed-tools: Bash(jq:*) Bash(git:*)"),
        None,
    ),
    ("chinese_name", "技能", fm("name: 技能", f"description: {OK_DESC}"), None),
    ("russian_hyphen", "мой-навык", fm("name: мой-навык", f"description: {OK_DESC}"), None),
    ("russian_lower", "навык", fm("name: навык", f"description: {OK_DESC}"), None),
    ("russian_upper", "НАВЫК", fm("name: НАВЫК", f"description: {OK_DESC}"), "NAME003"),
    ("description_too_long", "my-skill", fm("name: my-skill", "description: " + "x" * 1100), "DESC002"),
    (
        "compatibility_ok",
        "my-skill",
        fm("name: my-skill", f"description: {OK_DESC}", "compatibility: Requires Python 3.11+"),
        None,
    ),
    (
        "compatibility_too_long",
        "my-skill",
        fm("name: my-skill", f"description: {OK_DESC}", "compatibility: " + "x" * 550),
        "FLD002",
    ),
    ("nfkc", "caf\u00e9", fm("name: cafe\u0301", f"description: {OK_DESC}"), None),
]


@pytest.mark.parametrize("case_id,dirname,text,expected", VALIDATOR, ids=[c[0] for c in VALIDATOR])
def test_skills_ref_validator_cases(tmp_path, case_id, dirname, text, expected):
    errs = errors(run(tmp_path, dirname, text))
    if expected is None:
        assert errs == set(), errs
    else:
        assert expected in errs, errs


def test_validator_nonexistent_path(tmp_path):
    with pytest.raises(FileNotFoundError):
        lint_paths([tmp_path / "nope"])


def test_validator_missing_skill_md(tmp_path):
    d = tmp_path / "my-skill"
    d.mkdir()
    res = lint_paths([d])
    assert [x.code for x in res[d]] == ["STR002"]
    assert res[d][0].severity == "error"


def test_validator_file_instead_of_dir(tmp_path):
    # skills-ref: "Not a directory". We accept a file path (DESIGN: PATH may be a SKILL.md) and
    # lint it; a file that is not a skill still fails (no frontmatter).
    f = tmp_path / "notes.txt"
    f.write_text("hello\n")
    assert "FM001" in errors(lint_paths([f]))


# ---- test_parser.py (15) ------------------------------------------------------------------
def test_parser_valid_frontmatter_and_body(tmp_path):
    res = run(tmp_path, "my-skill", fm("name: my-skill", "description: A test skill"))
    assert not errors(res)
    sf = read_skill_file(tmp_path / "my-skill" / "SKILL.md")
    assert sf.get("name") == "my-skill" and "# My Skill" in sf.body


@pytest.mark.parametrize(
    "text,code",
    [
        ("# No frontmatter\n", "FM001"),
        ("---\nname: my-skill\ndescription: A test skill\n", "FM002"),
        ("---\nname: [invalid\ndescription: A test skill\n---\n", "FM003"),
        ("---\n- item1\n- item2\n---\n", "FM005"),
        (fm(f"description: {OK_DESC}"), "NAME001"),
        (fm("name: my-skill"), "DESC001"),
    ],
)
def test_parser_errors(tmp_path, text, code):
    assert code in errors(run(tmp_path, "my-skill", text))


def test_parser_read_properties_fields(tmp_path):
    run(
        tmp_path,
        "my-skill",
        fm("name: my-skill", "description: A test skill", "license: MIT", "allowed-tools: Bash(jq:*) Read"),
    )
    sf = read_skill_file(tmp_path / "my-skill" / "SKILL.md")
    assert sf.get("license") == "MIT"
    assert sf.get("allowed-tools") == "Bash(jq:*) Read"


def test_parser_metadata_number_is_info_not_error(tmp_path):
    # skills-ref turns version: 1.0 into "1.0" and reports the file valid.
    res = run(
        tmp_path,
        "my-skill",
        fm("name: my-skill", "description: A test skill", "metadata:", "  author: Test", "  version: 1.0"),
    )
    assert not errors(res)
    (d,) = [d for ds in res.values() for d in ds if d.code == "FLD004"]
    assert d.severity == "info" and d.fix is not None and d.fix.edits[0].new_text == '"1.0"'


def test_parser_empty_dir(tmp_path):
    d = tmp_path / "empty"
    d.mkdir()
    assert find_skill_files(d) == []
    assert errors(lint_paths([d])) == {"STR002"}


def test_parser_prefers_uppercase(tmp_path):
    d = tmp_path / "my-skill"
    d.mkdir()
    (d / "SKILL.md").write_text(fm("name: my-skill", "description: upper"))
    (d / "skill.md").write_text(fm("name: my-skill", "description: lower"))
    assert find_skill_files(d) == [d / "SKILL.md"]


def test_parser_accepts_lowercase_only(tmp_path):
    d = tmp_path / "my-skill"
    d.mkdir()
    (d / "skill.md").write_text(fm("name: my-skill", f"description: {OK_DESC}"))
    assert find_skill_files(d) == [d / "skill.md"]
    res = lint_paths([d], profile="agentskills")
    assert not errors(res)  # skills-ref accepts it; we warn (STR001)
    assert any(x.code == "STR001" and x.severity == "warning" for ds in res.values() for x in ds)
    # ...but a client profile reports that the client will not find it
    assert "STR001" in errors(lint_paths([d], profile="codex"))


# ---- validators.md 4.2 conformance table --------------------------------------------------
CONFORMANCE = [
    # (id, dir, text, skills-ref verdict, ours, rule that explains a difference / extra warning)
    (
        "unquoted_colon",
        "s",
        fm("name: s", "description: Use this skill when: the user asks"),
        "E",
        "E",
        "FM003",
    ),
    (
        "flow_list",
        "s",
        fm("name: s", f"description: {OK_DESC}", "allowed-tools: [Read, Write]"),
        "E",
        "E",
        "FM011",
    ),
    ("duplicate_key", "s", fm("name: s", "name: s", f"description: {OK_DESC}"), "E", "E", "FM007"),
    ("anchor", "s", fm("name: &n s", f"description: {OK_DESC}"), "E", "E", "FM011"),
    (
        "tab_metadata",
        "s",
        fm("name: s", f"description: {OK_DESC}", "metadata:", "\tauthor: me"),
        "E",
        "E",
        "FM004",
    ),
    ("empty_description", "s", fm("name: s", 'description: ""'), "E", "E", "DESC001"),
    ("bare_description", "s", fm("name: s", "description:"), "E", "E", "DESC001"),
    ("name_int", "123", fm("name: 123", f"description: {OK_DESC}"), "V", "V", "FM012"),
    ("description_yes", "s", fm("name: s", "description: yes"), "V", "V", "FM012"),
    ("dash_in_value", "s", fm("name: s", "description: a --- b"), "V", "V", "FM009"),
    ("bom", "s", "\ufeff" + fm("name: s", f"description: {OK_DESC}"), "E", "E", "FM008"),
    ("blank_line_first", "s", "\n" + fm("name: s", f"description: {OK_DESC}"), "E", "E", "FM001"),
    ("crlf", "s", fm("name: s", f"description: {OK_DESC}").replace("\n", "\r\n"), "V", "V", None),
    (
        "folded",
        "s",
        fm("name: s", "description: >", "  A test skill.", "  Use when testing."),
        "V",
        "V",
        None,
    ),
    (
        "disable_model_invocation",
        "s",
        fm("name: s", f"description: {OK_DESC}", "disable-model-invocation: true"),
        "E",
        "E",
        "FLD001",
    ),
    (
        "compatibility_empty",
        "s",
        fm("name: s", f"description: {OK_DESC}", 'compatibility: ""'),
        "V",
        "V",
        "FLD002",
    ),
    # deliberate difference: a scalar metadata cannot be the spec's map (FLD003 docstring)
    ("metadata_scalar", "s", fm("name: s", f"description: {OK_DESC}", "metadata: foo"), "V", "E", "FLD003"),
    (
        "metadata_nested",
        "s",
        fm("name: s", f"description: {OK_DESC}", "metadata:", "  a:", "    b: c"),
        "V",
        "V",
        "FLD004",
    ),
    ("description_xml", "s", fm("name: s", "description: Use <b>x</b>"), "V", "V", "DESC003"),
    ("claude_in_name", "claude-helper", fm("name: claude-helper", f"description: {OK_DESC}"), "V", "V", None),
    ("name_dir_mismatch", "other", fm("name: s", f"description: {OK_DESC}"), "E", "E", "NAME007"),
    ("cafe", "café", fm("name: café", f"description: {OK_DESC}"), "V", "V", None),
    ("1024_e_acute", "s", fm("name: s", "description: " + "é" * 1024), "V", "V", None),
    ("1020_plus_5_spaces", "s", fm("name: s", 'description: "' + "x" * 1020 + '     "'), "E", "E", "DESC002"),
]


@pytest.mark.parametrize("case_id,dirname,text,sr,ours,why", CONFORMANCE, ids=[c[0] for c in CONFORMANCE])
def test_conformance_table(tmp_path, case_id, dirname, text, sr, ours, why):
    res = run(tmp_path, dirname, text)
    errs = errors(res)
    assert ("E" if errs else "V") == ours, (case_id, errs)
    if why:
        assert why in {d.code for ds in res.values() for d in ds}
    if sr != ours:  # a deliberate difference must be explained in the rule's docstring
        from workbench.core.lint import RULES

        assert "skills-ref" in RULES[why].doc and "deliberately" in RULES[why].doc


def test_dash_in_value_not_truncated():
    # skills-ref reads "a"; we read the whole value and warn (FM009)
    ds = lint_text(fm("name: s", "description: a --- b"), profile="agentskills")
    (d,) = [d for d in ds if d.code == "FM009"]
    assert (d.line, d.column, d.end_column) == (3, 16, 19)


def test_ascii_names_option():
    from workbench.core.lint import PROFILES

    text = fm("name: café", f"description: {OK_DESC}")
    assert not [d for d in lint_text(text, profile="agentskills") if d.severity == "error"]
    strict = PROFILES["agentskills"].with_options(unicode_names=False)
    assert "NAME004" in {d.code for d in lint_text(text, profile=strict)}
    assert "NAME004" in {d.code for d in lint_text(text, profile="claude-api")}
