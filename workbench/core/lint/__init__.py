"""Lint SKILL.md files against the Agent Skills spec and per-client rules.

Public API::

    from workbench.core.lint import lint_text, lint_file, lint_paths, apply_fix, PROFILES, RULES
    diags = lint_text(text, path=Path("skills/pdf/SKILL.md"), profile="claude-code")
    for d in diags:
        d.line, d.column, d.end_line, d.end_column   # 1-based, end exclusive, code points
        d.severity, d.code, d.message, d.fix          # fix: Fix(title, edits=[TextEdit(...)])
    new_text = apply_fix(text, diags[0].fix)

``RULES`` maps codes to ``Rule`` objects (one module per rule in ``lint/rules/``, PASS/FAIL
examples in each docstring); ``PROFILES`` maps profile ids to ``Profile`` objects.
"""

from workbench.core.lint.context import CatalogEntry, CatalogIndex, LintContext
from workbench.core.lint.engine import (
    SKIP_DIRS,
    apply_fix,
    find_skill_files,
    lint_file,
    lint_paths,
    lint_skillfile,
    lint_text,
)
from workbench.core.lint.profiles import PROFILE_IDS, PROFILES, Profile, lint_profile
from workbench.core.lint.registry import RULES, Finding, Rule, load_rules
from workbench.core.lint.types import (
    ERROR,
    INFO,
    OFF,
    SEVERITIES,
    WARNING,
    Diagnostic,
    Fix,
    TextEdit,
)

load_rules()

__all__ = [
    "lint_text",
    "lint_file",
    "lint_paths",
    "lint_skillfile",
    "apply_fix",
    "find_skill_files",
    "PROFILES",
    "PROFILE_IDS",
    "Profile",
    "lint_profile",
    "RULES",
    "Rule",
    "Finding",
    "load_rules",
    "Diagnostic",
    "Fix",
    "TextEdit",
    "ERROR",
    "WARNING",
    "INFO",
    "OFF",
    "SEVERITIES",
    "CatalogEntry",
    "CatalogIndex",
    "LintContext",
    "SKIP_DIRS",
]
