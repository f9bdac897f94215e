"""``workbench lint`` PATH arguments and its summary line (QA faults h13 #3 and #4).

#3: a file argument that is not a SKILL.md (``afile.txt``) used to be linted as a SKILL.md, with an
STR005 info for every sibling folder; it is now a usage error (exit 2) that names the path. A
SKILL.md in another case (``skill.md``) is linted and STR001 notes the exact case.
#4: "1 files: 4 errors" -> "1 file: 4 errors, 0 warnings, 0 infos" (each noun singular for 1).
"""

from __future__ import annotations

import json
import os

import pytest

from workbench.cli import main
from workbench.commands.lint import plural, summary_text

GOOD = "---\nname: {n}\ndescription: Extracts text from PDF files. Use when the user asks to read a PDF.\n---\n# x\n"


@pytest.fixture(autouse=True)
def _home(tmp_path, monkeypatch):
    monkeypatch.setenv("WORKBENCH_HOME", str(tmp_path / "wbhome"))


def skill(root, name, text=None):
    d = root / name
    d.mkdir(parents=True, exist_ok=True)
    (d / "SKILL.md").write_text(text if text is not None else GOOD.format(n=name), encoding="utf-8")
    return d


def run(capsys, *argv):
    rc = main(["lint", *map(str, argv)])
    out, err = capsys.readouterr()
    return rc, out, err


# ---- #3: what a PATH may be ----------------------------------------------------------------


def test_text_file_is_a_usage_error(tmp_path, capsys):
    for sub in ("scripts", "stuff", "more"):
        (tmp_path / sub).mkdir()
    f = tmp_path / "afile.txt"
    f.write_text("hello\n")
    rc, out, err = run(capsys, f)
    assert rc == 2 and out == ""
    assert f"{f}: not a SKILL.md file" in err and "STR005" not in err
    assert "give a SKILL.md, a skill folder or a folder of skills" in err


@pytest.mark.parametrize("name", ["README.md", "notes.txt", "SKILL.md.bak", "SKILL.markdown"])
def test_other_file_in_a_skill_folder_suggests_the_folder(tmp_path, capsys, name):
    d = skill(tmp_path, "pdf-tools")
    (d / name).write_text("# readme\n")
    rc, out, err = run(capsys, d / name)
    assert rc == 2 and out == ""
    assert f"not a SKILL.md file; to lint the skill it belongs to, give its folder: {d}" in err


def test_mixed_arguments_fail_before_linting_anything(tmp_path, capsys):
    d = skill(tmp_path, "pdf-tools")
    (tmp_path / "x.txt").write_text("x")
    rc, out, err = run(capsys, d, tmp_path / "x.txt")
    assert rc == 2 and out == "" and "x.txt: not a SKILL.md file" in err


def test_skill_md_file_works_as_before(tmp_path, capsys):
    d = skill(tmp_path, "pdf-tools")
    rc, out, err = run(capsys, d / "SKILL.md")
    assert rc == 0 and out == "" and err.startswith("1 file: 0 errors, 0 warnings, 0 infos")


def test_case_variant_is_linted_with_a_note_about_exact_case(tmp_path, capsys):
    d = tmp_path / "pdf-tools"
    d.mkdir()
    (d / "skill.md").write_text(GOOD.format(n="pdf-tools"))
    rc, out, err = run(capsys, d / "skill.md")
    assert rc == 0 and "warning STR001 the file is named 'skill.md'" in out
    rc, out, err = run(capsys, d / "skill.md", "--client", "codex")
    assert rc == 1 and "error STR001" in out


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="POSIX only")
def test_special_paths(tmp_path, capsys):
    os.mkfifo(tmp_path / "pipe")
    rc, _, err = run(capsys, tmp_path / "pipe")
    assert rc == 2 and "pipe: not a SKILL.md file (pipe is not a regular file (FIFO))" in err
    os.symlink(tmp_path / "nowhere", tmp_path / "dl")
    rc, _, err = run(capsys, tmp_path / "dl")
    assert rc == 2 and f"dl is a broken symlink to {tmp_path / 'nowhere'}" in err
    rc, _, err = run(capsys, tmp_path / "missing.txt")
    assert rc == 2 and "missing.txt: no such file or directory" in err
    # named SKILL.md: linted, and STR003 says what is wrong (a FIFO is never opened)
    (tmp_path / "s").mkdir()
    os.mkfifo(tmp_path / "s" / "SKILL.md")
    rc, out, err = run(capsys, tmp_path / "s" / "SKILL.md")
    assert rc == 1 and "error STR003 SKILL.md is not a regular file (FIFO)" in out


def test_folders_still_work(tmp_path, capsys):
    skill(tmp_path, "a")
    skill(tmp_path, "b")
    rc, out, err = run(capsys, tmp_path, "--format", "json")
    summary = json.loads(out)["summary"]
    assert rc == 0 and summary["files"] == 2 and summary["errors"] == 0


# ---- #4: plurals ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "n,noun,want",
    [
        (0, "file", "0 files"),
        (1, "file", "1 file"),
        (2, "file", "2 files"),
        (1, "info", "1 info"),
        (3, "info", "3 infos"),
        (1, "error", "1 error"),
        (11, "warning", "11 warnings"),
    ],
)
def test_plural(n, noun, want):
    assert plural(n, noun) == want


@pytest.mark.parametrize(
    "counts,want",
    [
        ((1, 4, 0, 0), "1 file: 4 errors, 0 warnings, 0 infos"),
        ((1, 1, 1, 1), "1 file: 1 error, 1 warning, 1 info"),
        ((2, 0, 2, 5), "2 files: 0 errors, 2 warnings, 5 infos"),
        ((0, 1, 0, 0), "0 files: 1 error, 0 warnings, 0 infos"),
    ],
)
def test_summary_text(counts, want):
    keys = ("files", "errors", "warnings", "infos")
    assert summary_text(dict(zip(keys, counts))) == want


def test_summary_line_end_to_end(tmp_path, capsys):
    # 1 file with exactly 1 error (FLD001), 1 warning (DESC004) and no info
    d = skill(
        tmp_path,
        "pdf-tools",
        "---\nname: pdf-tools\ndescription: Extracts text from PDF files.\nmodel: opus\n---\n# x\n",
    )
    rc, out, err = run(capsys, d)
    n_err, n_warn, n_info = (
        sum(f" {s} " in ln for ln in out.splitlines()) for s in ("error", "warning", "info")
    )
    assert rc == 1
    assert err.strip() == (
        f"1 file: {plural(n_err, 'error')}, {plural(n_warn, 'warning')}, "
        f"{plural(n_info, 'info')} (profile agentskills, the default; "
        "--profile ID for a client's rules)"
    )
    assert "1 files" not in err
