r"""FLD006 allowed-tools-form: ``allowed-tools`` is not a space-separated string.

Spec: a space-separated string, experimental (``Bash(git:*) Read``). A YAML list is info
(skill-validator, skillscheck; Claude Code accepts lists), with a quick fix converting it; a
comma-separated string is info under the spec profiles (Claude Code documents commas); any other
type is an error (validators.md E4).

PASS:
    ---
    name: pdf-tools
    description: Extracts text from PDF files. Use when the user asks to read a PDF.
    allowed-tools: Bash(jq:*) Bash(git:*)
    ---
FAIL:
    ---
    name: pdf-tools
    description: Extracts text from PDF files. Use when the user asks to read a PDF.
    allowed-tools:
      - Read
      - Write
    ---
"""

from collections.abc import Iterator

from workbench.core.lint.context import LintContext
from workbench.core.lint.registry import Finding, rule
from workbench.core.lint.rules._util import replace_value, whole_field_span
from workbench.core.lint.types import ERROR, Fix, TextEdit


@rule("FLD006", "allowed-tools-form", "info")
def check(ctx: LintContext) -> Iterator[Finding]:
    if ctx.sf.state != "ok":
        return
    f = ctx.field("allowed-tools")
    if f is None or f.value is None:
        return
    v = f.value
    if isinstance(v, list):
        if all(isinstance(x, str) for x in v):
            sp = whole_field_span(f)
            fix = Fix(
                "Convert to a space-separated string",
                [
                    TextEdit(
                        sp.line,
                        sp.column,
                        sp.end_line,
                        sp.end_column,
                        "allowed-tools: " + " ".join(x.strip() for x in v),
                    )
                ],
            )
            yield Finding(
                f.key_span, "allowed-tools is a list; the spec defines a space-separated string", fix
            )
        else:
            yield Finding(f.value_span, "allowed-tools entries must be tool names (text)", severity=ERROR)
    elif isinstance(v, str):
        if "," in v and ctx.profile.id in ("agentskills", "claude-api") and "(" not in v:
            yield Finding(
                f.value_span,
                "allowed-tools is comma-separated; the spec separates tools with spaces",
                replace_value(
                    f, " ".join(t.strip() for t in v.split(",") if t.strip()), "Separate tools with spaces"
                ),
            )
    else:
        yield Finding(
            f.value_span,
            f"allowed-tools must be a space-separated string, not {type(v).__name__}",
            severity=ERROR,
        )
