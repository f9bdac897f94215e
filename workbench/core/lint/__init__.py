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

Modules: ``runner`` (rules over one file), ``batch`` (many files: cache, process pool, catalog
rules), ``records`` (compact diagnostics, ``DiagnosticList``), ``facts`` (what the catalog rules
need of a file), ``fixes`` (``apply_fix``), ``context``, ``registry``, ``profiles``, ``types``;
the walker is ``workbench.core.skillwalk``.
"""

from workbench.core.lint.batch import lint_paths
from workbench.core.lint.context import CatalogEntry, CatalogIndex, LintContext
from workbench.core.lint.fixes import apply_fix
from workbench.core.lint.profiles import PROFILE_IDS, PROFILES, Profile, lint_profile
from workbench.core.lint.records import DiagnosticList, diagnostic_records, severity_totals
from workbench.core.lint.registry import Finding, Rule
from workbench.core.lint.ruleset import load_rules
from workbench.core.lint.runner import lint_file, lint_skillfile, lint_text
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
from workbench.core.skillwalk import SKIP_DIRS, find_skill_files


def __getattr__(name: str) -> object:
    # ``RULES`` is loaded on first use, not at import: a warm ``workbench lint`` answers every
    # file from the result cache and never needs the ~100 rule modules (~60 ms of imports and
    # regex compiles). ``from workbench.core.lint import RULES`` gets the loaded registry.
    if name == "RULES":
        return load_rules()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


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
    "DiagnosticList",
    "diagnostic_records",
    "severity_totals",
]
