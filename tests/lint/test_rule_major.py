"""Rule-major linting (issue 14: ``runner.run_rules_batch`` / ``lint_record_batch``) gives what
file-by-file linting gives, crashes included, under every profile."""

from __future__ import annotations

import pytest

from workbench.core.lint.context import LintContext
from workbench.core.lint.profiles import PROFILES, lint_profile
from workbench.core.lint.registry import Rule
from workbench.core.lint.runner import (
    EMPTY_CATALOG,
    lint_record,
    lint_record_batch,
    per_file_rules,
    run_rules,
    run_rules_batch,
)
from workbench.core.skillfile import parse_skill_text
from workbench.core.skillwalk import find_skill_files


@pytest.mark.parametrize("profile", ["agentskills", "claude-code", "codex"])
def test_batch_records_equal_file_by_file_over_the_corpus(profile: str, corpus) -> None:
    prof = lint_profile(profile)
    paths = [str(p) for p in find_skill_files(corpus)][:300]
    got = list(lint_record_batch(paths, prof))
    assert len(got) == len(paths)
    for p, (rec, sf, deps) in zip(paths, got):
        want_rec, want_sf, want_deps = lint_record(p, prof)
        assert (rec, sf.sha256, deps) == (want_rec, want_sf.sha256, want_deps), p


def test_every_profile_batches_alike() -> None:
    texts = [
        "---\nname: Bad Name\n---\n",
        "no frontmatter",
        "---\nname: a\ndescription: I can help. TODO\n---\n",
    ]
    for pid in PROFILES:
        prof = lint_profile(pid)
        ctxs = [LintContext(parse_skill_text(t), prof, EMPTY_CATALOG) for t in texts]
        rules = per_file_rules(prof)
        again = [LintContext(parse_skill_text(t), prof, EMPTY_CATALOG) for t in texts]
        assert run_rules_batch(rules, ctxs) == [run_rules(rules, c) for c in again]


def test_a_crashing_rule_gives_lint000_in_batch_too() -> None:
    def boom(ctx):  # noqa: ANN001, ANN202
        if ctx.text.startswith("x"):
            raise RuntimeError("bad")
        return iter(())

    r = Rule("ZZZ001", "boom", "warning", {}, boom)
    prof = lint_profile("agentskills")
    ctxs = [LintContext(parse_skill_text(t), prof, EMPTY_CATALOG) for t in ("x", "y", "x2")]
    got = run_rules_batch([(r, "warning")], ctxs)
    assert [len(d) for d in got] == [1, 0, 1]
    assert got[0][0].code == "LINT000" and "RuntimeError: bad" in got[0][0].message
    assert got == [run_rules([(r, "warning")], c) for c in ctxs]


@pytest.mark.parametrize(
    "p", ["SKILL.md", "a/SKILL.md", "/x/y/SKILL.md", "a/../b/SKILL.md", "/SKILL.md", "./a/SKILL.md"]
)
def test_context_folder_name_and_key_without_path_objects(p: str) -> None:
    """``LintContext`` derives the folder name and key from the path's text: the same values
    ``Path.parent`` gives."""
    import os
    from pathlib import Path

    ctx = LintContext(parse_skill_text("---\nname: a\n---\n", p), lint_profile("agentskills"), EMPTY_CATALOG)
    assert ctx.dir_name == (Path(p).parent.name or None)
    assert ctx.self_key == os.path.abspath(Path(p))
    assert (os.path.dirname(str(Path(p))) or ".") == str(Path(p).parent)


def test_encoded_batch_equals_encoded_diagnostics_clamped_and_with_fixes() -> None:
    """``lint_record_batch`` builds the encoded tuples directly (no ``Diagnostic``): same
    clamping, fixes and severities as ``encode_diag(clamp(Diagnostic))``."""
    from workbench.core.lint.records import encode_diag
    from workbench.core.lint.registry import Finding
    from workbench.core.lint.runner import _crashed_encoded, _encoded, _run_batch
    from workbench.core.lint.types import Fix, TextEdit
    from workbench.core.skillfile import Span

    def odd(ctx):  # noqa: ANN001, ANN202
        yield Finding(Span(0, 0, 99, 99), "out of range", Fix("t", [TextEdit(1, 1, 1, 2, "x")]))
        yield Finding(Span(2, 5, 1, 1), "backwards", None, "info")
        yield Finding(Span(1, 1, 1, 2), "fine")
        if "boom" in ctx.text:
            raise ValueError("boom")

    r = Rule("ZZZ002", "odd", "warning", {}, odd)
    prof = lint_profile("agentskills")
    texts = ["---\nname: a\n---\nbody\n", "", "x\r\ny boom"]
    ctxs = [LintContext(parse_skill_text(t), prof, EMPTY_CATALOG) for t in texts]
    want = [[encode_diag(d) for d in run_rules([(r, "error")], c)] for c in ctxs]
    assert _run_batch([(r, "error")], ctxs, _encoded, _crashed_encoded) == want
