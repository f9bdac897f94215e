r"""FLD003 metadata-not-map: ``metadata`` is not a mapping.

Spec: an optional map of string keys to string values. skill-validator and skillscheck reject a
scalar (validators.md E3); skills-ref silently ``str()``s it and reports the file valid (4.2
``metadata: foo``). We deliberately differ from skills-ref here: a scalar or list ``metadata``
cannot carry what the spec (and Codex/OpenClaw, which read keys inside it) expect.

PASS:
    ---
    name: pdf-tools
    description: Extracts text from PDF files. Use when the user asks to read a PDF.
    metadata:
      author: example-org
      version: "1.0"
    ---
FAIL:
    ---
    name: pdf-tools
    description: Extracts text from PDF files. Use when the user asks to read a PDF.
    metadata: foo
    ---
"""

from collections.abc import Iterator

from workbench.core.lint.context import LintContext
from workbench.core.lint.registry import Finding, rule


@rule(
    "FLD003",
    "metadata-not-map",
    "error",
    profiles={
        "claude-code": "warning",
        "gemini-cli": "info",
        "opencode": "warning",
        "vscode-copilot": "warning",
        "cursor": "warning",
    },
)
def check(ctx: LintContext) -> Iterator[Finding]:
    if ctx.sf.state != "ok":
        return
    f = ctx.field("metadata")
    if f is None or f.value is None or isinstance(f.value, dict):
        return
    kind = "a list" if isinstance(f.value, list) else "a single value"
    yield Finding(f.value_span, f"metadata must be a mapping of keys to text values, not {kind}")
