"""The editor's access to the lint engine, with a stand-in until ``workbench.core.lint`` exists.

``resolve_lint()`` returns ``workbench.core.lint.lint_text`` when that package provides it, else
``standin_lint_text`` (same signature). It is looked up again on every call until the real engine
is found, then cached, so the editor switches as soon as the engine lands.

The stand-in reports only what ``workbench.core.skillfile`` already knows (file state with its
``error_span``, duplicate keys, ``---`` inside values). It is a placeholder, not a rule set: its
codes are prefixed ``SF`` so nothing confuses them with the real rule ids. No Qt here.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from workbench.core.skillfile import parse_skill_text

try:  # the engine's value types, when present (a half-built engine must not break the editor)
    from workbench.core.lint.types import Diagnostic, Fix, TextEdit  # type: ignore[assignment]
except Exception:  # noqa: BLE001 - pragma: no cover - only before the lint package works

    @dataclass(frozen=True, slots=True)
    class TextEdit:  # type: ignore[no-redef]
        """Replace (line, column)-(end_line, end_column) with new_text; 1-based, code points."""

        line: int
        column: int
        end_line: int
        end_column: int
        new_text: str

    @dataclass(frozen=True, slots=True)
    class Fix:  # type: ignore[no-redef]
        """A quick fix: menu title and edits applied together."""

        title: str
        edits: list = field(default_factory=list)

    @dataclass(frozen=True, slots=True)
    class Diagnostic:  # type: ignore[no-redef]
        """One finding (1-based, end column exclusive, code points)."""

        line: int
        column: int
        end_line: int
        end_column: int
        severity: str
        code: str
        message: str
        fix: Any = None


LintFunction = Callable[..., list]

_real: LintFunction | None = None

_STATE_CODES = {
    "unreadable": "SF001",
    "too-large": "SF002",
    "binary": "SF003",
    "no-frontmatter": "SF004",
    "unclosed": "SF005",
    "empty": "SF006",
    "yaml-error": "SF007",
    "not-mapping": "SF008",
}


def standin_lint_text(text: str, path: Any = None, profile: str = "agentskills", catalog: Any = None) -> list:
    """Minimal lint from ``skillfile`` facts (stand-in for ``workbench.core.lint.lint_text``).

    Args:
        text: the whole file as str (a leading U+FEFF counts as a BOM).
        path, profile, catalog: accepted for signature compatibility; ignored.

    Returns ``Diagnostic``s sorted by position: one error for any file state other than ``ok``
    (at ``SkillFile.error_span``), a warning per duplicate key, an info per ``---`` inside a value.
    Never raises.
    """
    sf = parse_skill_text(text, path)
    out: list = []
    if sf.state != "ok":
        sp = sf.error_span
        line, col, el, ec = (sp.line, sp.column, sp.end_line, sp.end_column) if sp else (1, 1, 1, 2)
        out.append(
            Diagnostic(
                line, col, el, ec, "error", _STATE_CODES.get(sf.state, "SF000"), sf.message or sf.state
            )
        )
    for key, sp in sf.duplicate_keys:
        out.append(
            Diagnostic(
                sp.line,
                sp.column,
                sp.end_line,
                sp.end_column,
                "warning",
                "SF010",
                f"duplicate key '{key}': YAML keeps the last one",
            )
        )
    for ln in sf.dash_lines:
        out.append(
            Diagnostic(
                ln,
                1,
                ln,
                2,
                "info",
                "SF011",
                "'---' inside the frontmatter: some readers cut the frontmatter here",
            )
        )
    out.sort(key=lambda d: (d.line, d.column, d.code))
    return out


def resolve_lint() -> tuple[LintFunction, bool]:
    """``(lint_text, is_real)``: the engine's function when importable, else the stand-in."""
    global _real
    if _real is not None:
        return _real, True
    try:
        from workbench.core.lint import lint_text  # type: ignore[attr-defined]
    except Exception:  # noqa: BLE001 - missing or broken engine: use the stand-in, retry later
        return standin_lint_text, False
    _real = lint_text
    return lint_text, True


def run_lint(text: str, path: Any = None, profile: str | None = None) -> list:
    """Lint a buffer with whatever engine is available; any exception becomes one diagnostic.

    A crash inside a rule must never take the editor down: it is reported at line 1 as an
    ``error`` with code ``LINT-CRASH`` and the exception text.
    """
    fn, _ = resolve_lint()
    try:
        return list(fn(text, path=path, profile=profile or "agentskills"))
    except Exception as exc:  # noqa: BLE001 - reported as a diagnostic instead
        return [
            Diagnostic(
                1,
                1,
                1,
                2,
                "error",
                "LINT-CRASH",
                f"the linter failed on this buffer: {type(exc).__name__}: {exc}",
            )
        ]
