r"""CC010 cc-paths: Claude Code's ``paths`` is not a glob or list of globs.

``paths`` limits auto-activation to matching files (clients.md 1.2); it must be a string or a
list of strings, each a valid gitignore-style glob (compiled with pathspec, as discovery does)
and within the matching limits of ``clients.claude_code.profile.glob_problem`` (issue 12).

PASS (profile=claude-code):
    ---
    name: pdf-tools
    description: Extracts text from PDF files. Use when the user asks to read a PDF.
    paths:
      - "docs/**/*.pdf"
    ---
FAIL (profile=claude-code):
    ---
    name: pdf-tools
    description: Extracts text from PDF files. Use when the user asks to read a PDF.
    paths:
      pdf: true
    ---
"""

from collections.abc import Iterator

from workbench.core.clients.claude_code.profile import glob_problem
from workbench.core.lint.context import LintContext
from workbench.core.lint.registry import Finding, rule
from workbench.core.lint.types import WARNING


@rule("CC010", "cc-paths", "off", profiles={"claude-code": "error"})
def check(ctx: LintContext) -> Iterator[Finding]:
    if ctx.sf.state != "ok":
        return
    f = ctx.field("paths")
    if f is None:
        return
    v = f.value
    pats = [v] if isinstance(v, str) else v if isinstance(v, list) else None
    if pats is None or not all(isinstance(p, str) for p in pats):
        yield Finding(f.value_span, "paths must be a glob or a list of globs")
        return
    if not [p for p in pats if p.strip()]:
        yield Finding(
            f.value_span, "paths is empty: the skill never activates automatically", severity=WARNING
        )
        return
    import pathspec  # on first use: ~10 ms at start-up, and CC010 is off outside claude-code

    for p in pats:
        why = glob_problem(p)
        if why:
            yield Finding(f.value_span, f"paths: glob {p[:80]!r} refused ({why}); it never activates")
            continue
        try:
            pathspec.PathSpec.from_lines("gitignore", [p])
        except Exception as exc:  # pathspec raises several types for bad patterns
            yield Finding(f.value_span, f"paths: invalid glob {p!r}: {exc}")
