"""The editor's access to the lint engine: ``workbench.core.lint.lint_text`` on a buffer.

``run_lint(text, path, profile)`` lints an editor buffer with the real engine and turns a crash
into one diagnostic (a rule bug must never take the editor down). ``Diagnostic``, ``Fix`` and
``TextEdit`` are the engine's own types (``workbench.core.lint.types``), re-exported for the
editor's modules. No Qt here.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path

from workbench.core.lint import lint_text
from workbench.core.lint.types import Diagnostic, Fix, TextEdit

__all__ = ["Diagnostic", "Fix", "LintFunction", "TextEdit", "run_lint"]

log = logging.getLogger(__name__)

#: ``fn(text, path=None, profile="agentskills") -> list[Diagnostic]``: the shape of
#: ``workbench.core.lint.lint_text`` (tests inject slow or fixed linters of this shape).
LintFunction = Callable[..., list[Diagnostic]]


def run_lint(text: str, path: Path | str | None = None, profile: str | None = None) -> list[Diagnostic]:
    """Lint a buffer with ``workbench.core.lint.lint_text``.

    Args:
        text: the whole buffer (a leading U+FEFF counts as a BOM).
        path: where the file is; None skips the rules that need its folder.
        profile: a lint profile id (``lint.PROFILES``; the editor passes the current client id),
            None = ``agentskills``.

    Returns the engine's diagnostics (1-based lines/columns in code points). Never raises: an
    unknown profile or a crash inside a rule becomes one ``error`` at line 1 with code
    ``LINT-CRASH`` and the exception text (also logged).
    """
    try:
        return list(lint_text(text, path=path, profile=profile or "agentskills"))
    except Exception as exc:  # noqa: BLE001 - reported as a diagnostic instead
        log.warning("lint of %s failed", path or "<buffer>", exc_info=True)
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
