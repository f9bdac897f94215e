r"""FLD008 allowed-tools-unknown-tool: a tool name Claude Code does not have.

agnix CC-SK-008 checks tool names against Claude Code's tools plus ``mcp__server__tool``
(validators.md E4). The tool list below is ours and **unverified** (Claude Code is closed source
and adds tools often), so this is info only, in ``claude-code``.

PASS (profile=claude-code):
    ---
    name: pdf-tools
    description: Extracts text from PDF files. Use when the user asks to read a PDF.
    allowed-tools: Read Grep Bash(pdftotext:*) mcp__files__read
    ---
FAIL (profile=claude-code):
    ---
    name: pdf-tools
    description: Extracts text from PDF files. Use when the user asks to read a PDF.
    allowed-tools: Read Grepp
    ---
"""

import re
from collections.abc import Iterator

from workbench.core.lint.context import LintContext
from workbench.core.lint.registry import Finding, rule

TOOLS = {
    "Read",
    "Write",
    "Edit",
    "MultiEdit",
    "Glob",
    "Grep",
    "LS",
    "Bash",
    "BashOutput",
    "KillShell",
    "WebFetch",
    "WebSearch",
    "Task",
    "Agent",
    "TodoWrite",
    "NotebookEdit",
    "NotebookRead",
    "Skill",
    "SlashCommand",
    "AskUserQuestion",
    "ExitPlanMode",
    "EnterPlanMode",
    "KillBash",
    "ListMcpResourcesTool",
    "ReadMcpResourceTool",
    "LSP",
    "Monitor",
    "ToolSearch",
}
_TOKEN = re.compile(r"[A-Za-z_][\w\-]*(?:\([^)]*\))?")


@rule("FLD008", "allowed-tools-unknown-tool", "off", profiles={"claude-code": "info"}, unverified=True)
def check(ctx: LintContext) -> Iterator[Finding]:
    if ctx.sf.state != "ok":
        return
    f = ctx.field("allowed-tools")
    if f is None:
        return
    v = f.value
    items = [x for x in v if isinstance(x, str)] if isinstance(v, list) else [v] if isinstance(v, str) else []
    unknown = []
    for item in items:
        for m in _TOKEN.finditer(item):
            tool = m.group(0).split("(", 1)[0]
            if tool in TOOLS or tool.startswith("mcp__") or tool == "mcp":
                continue
            unknown.append(tool)
    if unknown:
        yield Finding(
            f.value_span,
            f"unknown tool name(s) {', '.join(repr(t) for t in unknown[:5])} "
            "(checked against an unverified list of Claude Code tools)",
        )
