"""A risk that the workshop's checks (``workshop.risks``) found in a proposal, and its severity.

Pure Python (no Qt). ``Risk`` is stored with each generation of a proposal (``to_json`` /
``from_json``); ``blocking`` and ``counts`` summarise a list of them.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Any


class Severity(StrEnum):
    """How bad a risk is: a critical one added by the proposal blocks apply. A ``StrEnum``:
    its values serialise to JSON as the plain strings "critical", "warning", "info"."""

    CRITICAL = "critical"
    WARNING = "warning"
    INFO = "info"


CRITICAL, WARNING, INFO = Severity.CRITICAL, Severity.WARNING, Severity.INFO
SEVERITIES = tuple(Severity)
RANK = {CRITICAL: 0, WARNING: 1, INFO: 2}


@dataclass(frozen=True, slots=True)
class Risk:
    """One risk the workshop's checks found in a proposed file.

    Attributes:
        severity: "critical" | "warning" | "info".
        code: stable id, e.g. "WS-PIPE-SHELL" (see the module table).
        file: path relative to the skill folder ("SKILL.md", "scripts/run.sh").
        line: 1-based line (0 = the whole file).
        column: 1-based column in code points (0 = the whole file/line).
        message: one line for people.
        excerpt: the matched text (at most 120 chars; invisible characters shown as ``<U+XXXX>``).
        preexisting: the same finding exists in the live file this proposal replaces.
    """

    severity: Severity
    code: str
    file: str
    line: int
    column: int
    message: str
    excerpt: str = ""
    preexisting: bool = False

    @property
    def blocking(self) -> bool:
        """True when this finding blocks apply: critical and added by the proposal."""
        return self.severity == CRITICAL and not self.preexisting

    def to_json(self) -> dict[str, Any]:
        return {
            "severity": self.severity,
            "code": self.code,
            "file": self.file,
            "line": self.line,
            "column": self.column,
            "message": self.message,
            "excerpt": self.excerpt,
            "preexisting": self.preexisting,
            "blocking": self.blocking,
        }

    @staticmethod
    def from_json(d: dict[str, Any]) -> Risk:
        return Risk(
            Severity(d["severity"]),
            d["code"],
            d["file"],
            int(d["line"]),
            int(d["column"]),
            d["message"],
            d.get("excerpt", ""),
            bool(d.get("preexisting", False)),
        )


def blocking(risks: list[Risk]) -> list[Risk]:
    """The findings that block apply (critical and not pre-existing)."""
    return [f for f in risks if f.blocking]


def counts(risks: list[Risk]) -> dict[str, int]:
    """{"critical": n, "warning": n, "info": n, "blocking": n}."""
    out: dict[str, int] = {s: 0 for s in SEVERITIES}
    for f in risks:
        out[f.severity] += 1
    out["blocking"] = len(blocking(risks))
    return out
