"""The lint engine API: lint_text / lint_file / lint_paths, positions, profiles, catalog, fixes."""

from __future__ import annotations

from pathlib import Path

import pytest

from workbench.core.lint import (
    PROFILE_IDS,
    PROFILES,
    RULES,
    CatalogEntry,
    Diagnostic,
    Fix,
    TextEdit,
    apply_fix,
    find_skill_files,
    lint_file,
    lint_paths,
    lint_text,
)
from workbench.core.model import CLIENT_IDS, Root, Skill

GOOD = "---\nname: pdf-tools\ndescription: Extracts text from PDF files. Use when the user asks to read a PDF.\n---\n# PDF\n"
PATH = Path("/x/pdf-tools/SKILL.md")


def codes(ds):
    return {d.code for d in ds}


def test_profiles_cover_every_client_and_claude_api():
    assert set(CLIENT_IDS) <= set(PROFILE_IDS)
    assert "claude-api" in PROFILES


def test_rules_registered_and_well_formed():
    assert len(RULES) >= 60
    for code, r in RULES.items():
        assert r.code == code and r.name and r.doc.startswith(code)
        for pid in r.profiles:
            assert pid in PROFILES, (code, pid)


def test_clean_skill_has_no_findings():
    assert lint_text(GOOD, PATH) == []


def test_acceptance_probe_positions():
    text = "---\nname: Demo_Skill\ndescription: Use when: the user asks for a demo\n---\n# Demo\n"
    ds = lint_text(text, Path("/tmp/demo-skill/SKILL.md"))
    errs = [d for d in ds if d.severity == "error"]
    assert errs and all(d.line >= 2 for d in errs)
    name = [d for d in errs if d.code == "NAME003"][0]
    assert (name.line, name.column, name.end_line, name.end_column) == (2, 7, 2, 17)
    yaml = [d for d in errs if d.code == "FM003"][0]
    assert yaml.line == 3


def test_sorted_by_position():
    text = "---\nname: My_Skill\ndescription: I do things\nfoo: 1\n---\n"
    ds = lint_text(text, profile="agentskills")
    assert ds == sorted(ds, key=lambda d: d.sort_key)
    assert [d.line for d in ds] == sorted(d.line for d in ds)


def test_unknown_profile_raises():
    with pytest.raises(KeyError):
        lint_text(GOOD, profile="nope")


def test_codex_refuses_long_description_claude_code_warns():
    text = GOOD.replace("Use when the user asks to read a PDF.", "x" * 1100)
    assert [d.severity for d in lint_text(text, PATH, "codex") if d.code == "DESC002"] == ["error"]
    assert [d.severity for d in lint_text(text, PATH, "claude-code") if d.code == "DESC002"] == ["warning"]


def test_codex_counts_collapsed_whitespace():
    # 1000 chars + 40 spaces: 1040 raw, 1001 collapsed -> error in agentskills, fine in codex
    desc = "a" * 500 + " " * 40 + "b" * 500
    text = f'---\nname: pdf-tools\ndescription: "{desc}"\n---\n# x\n'
    assert "DESC002" in codes(lint_text(text, PATH, "agentskills"))
    assert "DESC002" not in codes(lint_text(text, PATH, "codex"))


def test_claude_code_accepts_its_fields_and_checks_them():
    text = GOOD.replace("---\n# PDF", "model: gpt-4\ncontext: fork\nagent: Explore\n---\n# PDF")
    ds = lint_text(text, PATH, "claude-code")
    assert "FLD001" not in codes(ds)
    assert "CC001" in codes(ds)
    assert "FLD001" in codes(lint_text(text, PATH, "agentskills"))


def test_reserved_word_only_an_error_for_claude_api():
    text = GOOD.replace("pdf-tools", "claude-pdf")
    p = Path("/x/claude-pdf/SKILL.md")
    assert "NAME008" not in codes(lint_text(text, p, "agentskills"))
    assert [d.severity for d in lint_text(text, p, "claude-api") if d.code == "NAME008"] == ["error"]


def test_lenient_fields_when_yaml_breaks():
    text = "---\nname: Bad Name\ndescription: Use when: x\n---\n"
    ds = lint_text(text)
    assert {"FM003", "NAME004"} <= codes(ds)


def test_catalog_tuples_and_skills_and_self_exclusion(tmp_path):
    me = tmp_path / "pdf-tools" / "SKILL.md"
    other = tmp_path / "other" / "SKILL.md"
    cat = [("pdf-tools", "Extracts text from PDF files. Use when the user asks to read a PDF.", me)]
    assert "CAT001" not in codes(lint_text(GOOD, me, catalog=cat))  # itself only
    cat.append(("pdf-tools", "Other.", other))
    assert "CAT001" in codes(lint_text(GOOD, me, catalog=cat))
    root = Root(tmp_path, "extra", 0)
    skills = [
        Skill(other, root, "pdf-tools", "Extracts text from PDF files. Use when the user asks to read a PDF.")
    ]
    assert {"CAT001", "DESC009"} <= codes(lint_text(GOOD, me, catalog=skills))
    entries = [CatalogEntry("pdf-tools", "x", other)]
    assert "CAT001" in codes(lint_text(GOOD, me, catalog=entries))


def test_lint_paths_catalog_from_files(tmp_path):
    for d in ("a", "b"):
        (tmp_path / d).mkdir()
        (tmp_path / d / "SKILL.md").write_text(GOOD)
    res = lint_paths([tmp_path])
    assert len(res) == 2
    assert all("CAT001" in codes(ds) and "DESC009" in codes(ds) for ds in res.values())


def test_find_skill_files_skips_git_and_node_modules(tmp_path):
    for sub in ("a", ".git/x", "node_modules/y", ".curated/z", "deep/er/still"):
        (tmp_path / sub).mkdir(parents=True)
        (tmp_path / sub / "SKILL.md").write_text(GOOD)
    found = {p.parent.relative_to(tmp_path).as_posix() for p in find_skill_files(tmp_path)}
    assert found == {"a", ".curated/z", "deep/er/still"}


def test_lint_file_unreadable_and_binary(tmp_path):
    ds = lint_file(tmp_path / "missing" / "SKILL.md")
    assert codes(ds) == {"STR003"}
    p = tmp_path / "bin" / "SKILL.md"
    p.parent.mkdir()
    p.write_bytes(b"---\x00\x01")
    assert "STR003" in codes(lint_file(p))


def test_links_and_structure_need_a_path(tmp_path):
    text = GOOD + "See [x](references/missing.md).\n"
    assert "BODY005" not in codes(lint_text(text))
    d = tmp_path / "pdf-tools"
    d.mkdir()
    assert "BODY005" in codes(lint_text(text, d / "SKILL.md"))
    (d / "references").mkdir()
    (d / "references" / "missing.md").write_text("x")
    assert "BODY005" not in codes(lint_text(text, d / "SKILL.md"))


def test_links_inside_code_are_ignored(tmp_path):
    text = GOOD + "```md\n[x](nope.md)\n```\n`[y](nope2.md)`\n"
    assert "BODY005" not in codes(lint_text(text, tmp_path / "pdf-tools" / "SKILL.md"))


# ---- fixes -----------------------------------------------------------------------------------
def fixed(text, code, path=PATH, profile="agentskills"):
    ds = [d for d in lint_text(text, path, profile) if d.code == code]
    assert ds and ds[0].fix is not None, (code, ds)
    return apply_fix(text, ds[0].fix)


@pytest.mark.parametrize(
    "code,text,profile",
    [
        ("FM003", "---\nname: pdf-tools\ndescription: Use when: the user asks\n---\n# x\n", "agentskills"),
        ("NAME003", "---\nname: PDF-Tools\ndescription: Use when reading PDFs.\n---\n# x\n", "agentskills"),
        ("NAME004", "---\nname: pdf_tools\ndescription: Use when reading PDFs.\n---\n# x\n", "agentskills"),
        ("NAME007", "---\nname: pdf-reader\ndescription: Use when reading PDFs.\n---\n# x\n", "agentskills"),
        ("FM001", "\n\n---\nname: pdf-tools\ndescription: Use when reading PDFs.\n---\n# x\n", "agentskills"),
        ("FM001", "# PDF tools\n\nExtracts text. Use when reading PDFs.\n", "agentskills"),
        ("FM002", "---\nname: pdf-tools\ndescription: Use when reading PDFs.\n\n# x\n", "agentskills"),
        (
            "FM004",
            "---\nname: pdf-tools\ndescription: Use when reading PDFs.\nmetadata:\n\tauthor: me\n---\n# x\n",
            "agentskills",
        ),
        (
            "FM008",
            "\ufeff---\nname: pdf-tools\ndescription: Use when reading PDFs.\n---\n# x\n",
            "agentskills",
        ),
        ("FM010", "--- \nname: pdf-tools\ndescription: Use when reading PDFs.\n---  \n# x\n", "agentskills"),
        ("FM012", "---\nname: pdf-tools\ndescription: yes\n---\n# x\n", "agentskills"),
        (
            "FLD006",
            "---\nname: pdf-tools\ndescription: Use when reading PDFs.\nallowed-tools:\n  - Read\n  - Grep\n---\n# x\n",
            "agentskills",
        ),
        (
            "CC003",
            "---\nname: pdf-tools\ndescription: Use when reading PDFs.\nuser-invocable: \"false\"\n---\n# x\n",
            "claude-code",
        ),
        (
            "SEC003",
            "---\nname: pdf-tools\ndescription: Use when\u200b reading PDFs.\n---\n# x\u2060y\n",
            "agentskills",
        ),
        (
            "SEC002",
            "---\nname: pdf-tools\ndescription: Use when reading PDFs.\n---\n# x\u202ey\n",
            "agentskills",
        ),
        (
            "BODY004",
            "---\nname: pdf-tools\ndescription: Use when reading PDFs.\n---\n```sh\nls\n",
            "agentskills",
        ),
        (
            "BODY007",
            "---\nname: pdf-tools\ndescription: Use when reading PDFs.\n---\nRun scripts\\run.py now.\n",
            "agentskills",
        ),
    ],
)
def test_fix_resolves_the_finding(code, text, profile):
    new = fixed(text, code, profile=profile)
    after = lint_text(new, PATH, profile)
    if code == "FM008":
        assert not new.startswith("\ufeff")
    if code == "FM010":  # one fix per delimiter line
        new = fixed(new, code)
        after = lint_text(new, PATH, profile)
    assert code not in codes(after), (new, after)
    assert not any(d.code in ("FM001", "FM002", "FM003") for d in after), new


def test_fix_quote_colon_result_parses():
    new = fixed("---\nname: pdf-tools\ndescription: Use when: the user asks\n---\n# x\n", "FM003")
    assert 'description: "Use when: the user asks"' in new


def test_fix_keeps_crlf():
    text = "---\r\nname: pdf-tools\r\ndescription: Use when reading PDFs.\r\n\r\n# x\r\n"
    new = fixed(text, "FM002")
    assert "\n" not in new.replace("\r\n", "")
    assert "FM002" not in codes(lint_text(new, PATH))


def test_apply_fix_errors():
    with pytest.raises(ValueError):
        apply_fix("abc\n", Fix("x", [TextEdit(5, 1, 5, 2, "")]))
    with pytest.raises(ValueError):
        apply_fix("abcdef\n", Fix("x", [TextEdit(1, 1, 1, 4, "x"), TextEdit(1, 2, 1, 5, "y")]))
    with pytest.raises(ValueError):
        apply_fix("abc", TextEdit(1, 0, 1, 1, ""))  # no BOM to remove
    assert apply_fix("abc\ndef", [TextEdit(2, 1, 2, 4, "X"), TextEdit(1, 4, 1, 4, "!")]) == "abc!\nX"


def test_diagnostic_json_shape():
    d = Diagnostic(1, 2, 1, 3, "error", "X1", "m", Fix("t", [TextEdit(1, 2, 1, 3, "z")]), rule="r")
    j = d.to_json()
    assert {"line", "column", "end_line", "end_column", "severity", "code", "message"} <= set(j)
    assert j["fix"]["edits"][0]["new_text"] == "z"


def test_every_profile_runs_on_a_messy_file():
    text = (
        "\ufeff---\nname: Bad--Name-\ndescription: I <b>do</b> TODO things, "
        + "k, " * 10
        + "\nmetadata: foo\nallowed-tools: [Bash]\nmodel: x\nhooks: 1\npaths: {a: 1}\nname: again\n---\n"
        "```\nunclosed\n!`a` !`b` !`c` !`d`\n"
    )
    for pid in PROFILE_IDS:
        ds = lint_text(text, PATH, pid)
        assert "LINT000" not in codes(ds), (pid, [d.message for d in ds if d.code == "LINT000"])
