r"""CAT001 duplicate-name: another skill in the catalog has the same name.

skillscheck 1g.duplicate-name (validators.md K1). What happens depends on the client
(clients.md 8 "Collision"): Claude Code and OpenClaw keep the higher-precedence one, Gemini CLI
and OpenCode the later one, VS Code the first, Codex lists both. Needs a catalog.

PASS (dir=pdf-tools, catalog=docx-tools=Reads Word files.):
    ---
    name: pdf-tools
    description: Extracts text from PDF files. Use when the user asks to read a PDF.
    ---
FAIL (dir=pdf-tools, catalog=pdf-tools=Another PDF skill.):
    ---
    name: pdf-tools
    description: Extracts text from PDF files. Use when the user asks to read a PDF.
    ---
"""

from collections.abc import Iterator

from workbench.core.lint.context import LintContext
from workbench.core.lint.registry import Finding, rule

_WHAT = {
    "claude-code": "Claude Code keeps only the higher-precedence one",
    "codex": "Codex lists both under the same name",
    "openclaw": "OpenClaw keeps only the higher-precedence one",
    "gemini-cli": "Gemini CLI keeps the one found last",
    "opencode": "OpenCode keeps whichever it parses last (nondeterministic)",
    "vscode-copilot": "VS Code keeps the first one found",
}


@rule("CAT001", "duplicate-name", "warning")
def check(ctx: LintContext) -> Iterator[Finding]:
    if not ctx.catalog or not ctx.has_fields and ctx.sf.state != "no-frontmatter":
        return
    name = ctx.name_str() or ctx.dir_name
    if not name:
        return
    dups = ctx.others(ctx.catalog.by_name.get(name, ()), limit=3)
    if not dups:
        return
    f = ctx.field("name")
    span = f.value_span if f is not None else ctx.top_span()
    where = ", ".join(str(e.path) if e.path else repr(e.name) for e in dups[:3])
    what = _WHAT.get(ctx.profile.id, "clients shadow one of them")
    yield Finding(span, f"name {name!r} is also used by {where}; {what}")
