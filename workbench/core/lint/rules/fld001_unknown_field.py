r"""FLD001 unknown-field: a top-level key the profile does not know.

skills-ref and quick_validate reject anything outside name, description, license,
allowed-tools, metadata, compatibility ("Unexpected fields", validators.md B6) — and so do uploads
to claude.ai / the API (error in ``agentskills`` and ``claude-api``). Claude Code knows its
extension fields (when_to_use, model, context, hooks, ...) and ignores the rest (agnix
CC-SK-017: warning). Codex, Gemini CLI and OpenCode read a few keys and ignore the rest (info);
OpenClaw, VS Code and Cursor have their own sets (clients.md 1-7, ``profiles.py``).

PASS:
    ---
    name: pdf-tools
    description: Extracts text from PDF files. Use when the user asks to read a PDF.
    license: MIT
    ---
FAIL:
    ---
    name: pdf-tools
    description: Extracts text from PDF files. Use when the user asks to read a PDF.
    unknown_field: x
    ---
PASS (profile=claude-code):
    ---
    name: pdf-tools
    description: Extracts text from PDF files. Use when the user asks to read a PDF.
    disable-model-invocation: true
    ---
"""

from collections.abc import Iterator

from workbench.core.lint.context import LintContext
from workbench.core.lint.profiles import SPEC_FIELDS
from workbench.core.lint.registry import Finding, rule

#: The spec's fields as the message lists them (joined once, not per finding).
_SPEC_LIST = ", ".join(sorted(SPEC_FIELDS))


@rule(
    "FLD001",
    "unknown-field",
    "info",
    profiles={"agentskills": "error", "claude-api": "error", "claude-code": "warning"},
)
def check(ctx: LintContext) -> Iterator[Finding]:
    if not ctx.has_fields:
        return
    known = ctx.profile.known_fields or SPEC_FIELDS
    who = ctx.profile.title
    for key, f in ctx.fields.items():
        if key in known:
            continue
        if key == "disable-model-invocation" and ctx.profile.id == "codex":
            continue  # CX003 says what Codex does instead
        if ctx.profile.id in ("agentskills", "claude-api"):
            msg = f"unexpected field {key!r}: the spec allows only {_SPEC_LIST}" + (
                " (uploads to claude.ai / the API are refused)" if ctx.profile.id == "claude-api" else ""
            )
        else:
            msg = f"field {key!r} is not one {who} reads; it is ignored"
        yield Finding(f.key_span, msg)
