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

from typing import TYPE_CHECKING

from workbench.core.lint.profiles import PROFILE_IDS, PROFILES, Profile, lint_profile

if TYPE_CHECKING:
    from workbench.core.lint.batch import lint_paths
    from workbench.core.lint.catalogindex import CatalogEntry, CatalogIndex
    from workbench.core.lint.context import LintContext
    from workbench.core.lint.fixes import apply_fix
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
    # Everything but the profiles is imported on first use (PEP 562), so that importing a
    # submodule (``workbench lint``'s parser needs ``PROFILE_IDS``; a report answered by
    # ``cache.reportcache`` needs nothing else) loads neither the engine nor PyYAML. ``RULES``
    # is loaded on first use too: a warm ``workbench lint`` answers every file from the result
    # cache and never needs the ~100 rule modules (~60 ms of imports and regex compiles).
    # ``from workbench.core.lint import RULES`` gets the loaded registry.
    if name == "RULES":
        from workbench.core.lint.ruleset import load_rules as _load

        return _load()
    if name not in _LAZY:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value: object
    match _LAZY[name]:
        case "batch":
            from workbench.core.lint import batch

            value = getattr(batch, name)
        case "catalogindex":
            from workbench.core.lint import catalogindex

            value = getattr(catalogindex, name)
        case "context":
            from workbench.core.lint import context

            value = getattr(context, name)
        case "fixes":
            from workbench.core.lint import fixes

            value = getattr(fixes, name)
        case "records":
            from workbench.core.lint import records

            value = getattr(records, name)
        case "registry":
            from workbench.core.lint import registry

            value = getattr(registry, name)
        case "ruleset":
            from workbench.core.lint import ruleset

            value = getattr(ruleset, name)
        case "runner":
            from workbench.core.lint import runner

            value = getattr(runner, name)
        case "types":
            from workbench.core.lint import types

            value = getattr(types, name)
        case _:
            from workbench.core import skillwalk

            value = getattr(skillwalk, name)
    globals()[name] = value  # looked up once
    return value


#: Lazily imported public names -> the module (of this package, or ``skillwalk``) defining them.
_LAZY = {
    "lint_paths": "batch",
    "CatalogEntry": "catalogindex",
    "CatalogIndex": "catalogindex",
    "LintContext": "context",
    "apply_fix": "fixes",
    "DiagnosticList": "records",
    "diagnostic_records": "records",
    "severity_totals": "records",
    "Finding": "registry",
    "Rule": "registry",
    "load_rules": "ruleset",
    "lint_file": "runner",
    "lint_skillfile": "runner",
    "lint_text": "runner",
    **dict.fromkeys(
        ("ERROR", "INFO", "OFF", "SEVERITIES", "WARNING", "Diagnostic", "Fix", "TextEdit"), "types"
    ),
    "SKIP_DIRS": "skillwalk",
    "find_skill_files": "skillwalk",
}


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
