"""Lint of a proposed SKILL.md, shown beside the workshop's risks (never blocking apply)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any


@dataclass(slots=True)
class LintResult:
    """Lint diagnostics of the proposed SKILL.md (``available`` False until the linter exists).

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
    """Run ``workbench.core.lint.lint_text`` on proposed SKILL.md text, if the linter exists.

    Never raises: a missing linter or a linter crash becomes ``available=False`` with a note.
    """
    try:
        from workbench.core.lint import lint_text
    except Exception as exc:
        return LintResult(False, [], f"linter not available ({exc.__class__.__name__})")
    try:
        diags = lint_text(text, path=path, profile=profile)
    except Exception as exc:
        return LintResult(False, [], f"linter failed: {exc}")
    out = []
    for d in diags:
        out.append(
            {
                "line": getattr(d, "line", 0),
                "column": getattr(d, "column", 0),
                "end_line": getattr(d, "end_line", 0),
                "end_column": getattr(d, "end_column", 0),
                "severity": getattr(d, "severity", "info"),
                "code": getattr(d, "code", ""),
                "message": getattr(d, "message", str(d)),
            }
        )
    return LintResult(True, out, "")
