"""Lint of a proposed SKILL.md, shown beside the workshop's risks (never blocking apply)."""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

log = logging.getLogger(__name__)


@dataclass(slots=True)
class LintResult:
    """Lint diagnostics of the proposed SKILL.md (``available`` False when the linter crashed; ``note``
    says why).

    Lint findings never block apply (decision: lint verdicts depend on the client profile and the
    person reviewing decides; ``workshop.risks`` is what guards safety). They are shown with the diff.
    """

    available: bool
    diagnostics: list[dict[str, Any]] = field(default_factory=list)
    note: str = ""

    def to_json(self) -> dict[str, Any]:
        return {"available": self.available, "diagnostics": self.diagnostics, "note": self.note}

    @staticmethod
    def from_json(d: dict[str, Any] | None) -> LintResult:
        d = d or {}
        return LintResult(bool(d.get("available")), list(d.get("diagnostics") or []), d.get("note", ""))


def lint_proposal(text: str, path: Path | None = None, profile: str = "agentskills") -> LintResult:
    """Run ``workbench.core.lint.lint_text`` on proposed SKILL.md text (``profile``: a lint profile
    id). Returns the diagnostics as ``{line, column, end_line, end_column, severity, code,
    message}`` dicts (1-based, columns in code points).

    Never raises: a crash of the linter is logged (warning) and becomes ``available=False`` with a
    note (lint is advice beside the risks; it must not break review).
    """
    from workbench.core.lint import lint_text  # on first use: the store loads without the linter

    try:
        diags = lint_text(text, path=path, profile=profile)
    except Exception as exc:  # noqa: BLE001 - a linter crash must not break review
        log.warning("lint of the proposed %s failed", path or "SKILL.md", exc_info=True)
        return LintResult(False, [], f"linter failed: {exc.__class__.__name__}: {exc}")
    out = [
        {
            "line": d.line,
            "column": d.column,
            "end_line": d.end_line,
            "end_column": d.end_column,
            "severity": d.severity,
            "code": d.code,
            "message": d.message,
        }
        for d in diags
    ]
    return LintResult(True, out, "")
