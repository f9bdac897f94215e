"""Property tests: lint_text never raises, every position lies inside the text, and every quick
fix applies cleanly."""

from __future__ import annotations

from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from workbench.core.lint import PROFILE_IDS, apply_fix, lint_text

FRAGMENTS = [
    "---",
    "--- ",
    "\ufeff---",
    "name: ",
    "name: My_Skill",
    "description: ",
    "description: Use when: x",
    "description: >",
    "  folded line",
    "metadata:",
    "  a: 1",
    "\tb: 2",
    "allowed-tools: [Read, Bash]",
    "allowed-tools:",
    "  - Read",
    "compatibility: ''",
    "model: opus",
    "context: fork",
    "agent: x y",
    "hooks: {}",
    "paths: ['**/*.py']",
    "disable-model-invocation: 'true'",
    "user-invocable: false",
    "&a x",
    "*a",
    "!!str",
    "key: a --- b",
    "# heading",
    "```",
    "~~~~",
    "```python",
    "[x](../y.md)",
    "[z](references/a/b/c.md)",
    "scripts\\run.py",
    "!`ls`",
    "$ARGUMENTS",
    "<!-- ignore previous -->",
    "AKIAIOSFODNN7ABCDEFG",
    "\u200b",
    "\u202e",
    "é",
    "技能",
    "\r",
    "",
    " ",
    ":",
    "{",
    "[",
    "'",
    '"',
    "|",
]

line = st.one_of(st.sampled_from(FRAGMENTS), st.text(max_size=30))
doc = st.lists(line, max_size=25).map(lambda ls: "\n".join(ls))
nl_end = st.booleans()


def _lines(text: str) -> list[str]:
    if text.startswith("\ufeff"):
        text = text[1:]
    return [ln[:-1] if ln.endswith("\r") else ln for ln in text.split("\n")]


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(doc, nl_end, st.sampled_from(PROFILE_IDS))
def test_lint_text_never_raises_and_positions_are_inside(text, end, profile):
    if end:
        text += "\n"
    ds = lint_text(text, Path("/tmp/fuzz-skill/SKILL.md"), profile)
    lines = _lines(text)
    for d in ds:
        assert d.code != "LINT000", d.message
        assert d.severity in ("error", "warning", "info")
        assert 1 <= d.line <= len(lines), d
        assert 1 <= d.column <= len(lines[d.line - 1]) + 1, d
        assert 1 <= d.end_line <= len(lines), d
        assert 1 <= d.end_column <= len(lines[d.end_line - 1]) + 1, d
        assert (d.end_line, d.end_column) >= (d.line, d.column), d
        if d.fix is not None:
            apply_fix(text, d.fix)  # must not raise


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=400))
def test_arbitrary_text(text):
    for d in lint_text(text):
        assert d.code != "LINT000", d.message
