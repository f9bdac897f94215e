"""Value types of the lint engine: ``Diagnostic``, ``Fix``, ``TextEdit`` and severities.

Positions everywhere are 1-based (line, column) with an *exclusive* end column, counted in
Unicode code points of the decoded line — the same convention as ``workbench.core.skillfile.Span``.
A UTF-8 BOM is not a column: positions start after it. The one exception is line 1, column 0,
which addresses the BOM itself (only ``TextEdit``s that remove it use it).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

#: Severities, most severe first. A profile may also map a rule to ``OFF``.
ERROR, WARNING, INFO, OFF = "error", "warning", "info", "off"
SEVERITIES = (ERROR, WARNING, INFO)
SEVERITY_RANK = {ERROR: 0, WARNING: 1, INFO: 2}


@dataclass(frozen=True, slots=True)
class TextEdit:
    """Replace the range (line, column)-(end_line, end_column) with ``new_text``.

    1-based, end exclusive, code points. An empty range inserts. ``new_text`` uses "\\n" line
    breaks; ``apply_fix`` converts them to the file's own line ending (CRLF files stay CRLF).
    """

    line: int
    column: int
    end_line: int
    end_column: int
    new_text: str

    def to_json(self) -> dict[str, Any]:
        return {
            "line": self.line,
            "column": self.column,
            "end_line": self.end_line,
            "end_column": self.end_column,
            "new_text": self.new_text,
        }


@dataclass(frozen=True, slots=True)
class Fix:
    """A quick fix: a title for the menu and non-overlapping edits applied together."""

    title: str
    edits: list[TextEdit] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {"title": self.title, "edits": [e.to_json() for e in self.edits]}


@dataclass(frozen=True, slots=True)
class Diagnostic:
    """One finding.

    Attributes:
        line, column, end_line, end_column: the range on the exact key or value (1-based, end
            column exclusive, code points).
        severity: "error" | "warning" | "info" (after the profile's override).
        code: the rule id, e.g. "NAME003".
        message: one line, human readable; says what to do when that is obvious.
        fix: an optional ``Fix``.
        rule: the rule's slug, e.g. "name-lowercase".
        unverified: True when the rule reproduces client behaviour the reference marks unverified.
    """

    line: int
    column: int
    end_line: int
    end_column: int
    severity: str
    code: str
    message: str
    fix: Fix | None = None
    rule: str = ""
    unverified: bool = False

    @property
    def sort_key(self) -> tuple[Any, ...]:
        return (
            self.line,
            self.column,
            SEVERITY_RANK.get(self.severity, 9),
            self.code,
            self.end_line,
            self.end_column,
            self.message,
        )

    def to_json(self) -> dict[str, Any]:
        """The ``workbench lint --format json`` shape (without ``path``), plus ``rule`` and ``fix``."""
        out: dict[str, Any] = {
            "line": self.line,
            "column": self.column,
            "end_line": self.end_line,
            "end_column": self.end_column,
            "severity": self.severity,
            "code": self.code,
            "message": self.message,
            "rule": self.rule,
        }
        if self.unverified:
            out["unverified"] = True
        if self.fix is not None:
            out["fix"] = self.fix.to_json()
        return out
