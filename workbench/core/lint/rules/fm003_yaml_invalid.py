r"""FM003 yaml-invalid: the frontmatter is not valid YAML.

validators.md B3; the most common cause is an unquoted colon in a value
(``description: Use when: x``), which both skills-ref and quick_validate reject (4.2). Clients
differ: Claude Code loads the skill with every field dropped, Gemini CLI and OpenClaw fall back to
a line parser, Codex/OpenCode/VS Code skip the skill (clients.md 8, "Bad YAML"). The severity
follows the profile's client (``_util.fallback_severity``, the client's own reader): a warning when
it still loads the file through its line parser (Gemini CLI, OpenClaw: name and description
recovered), else an error (the author's fields are lost or the skill is skipped). Positioned at the
YAML error mark. Quick fix: quote the value when a ``key: value: with colon`` line is the cause.
Tab indentation is reported by FM004 instead.

PASS:
    ---
    name: pdf-tools
    description: "Use when: the user asks to read a PDF"
    ---
FAIL:
    ---
    name: pdf-tools
    description: Use when: the user asks to read a PDF
    ---
FAIL (profile=gemini-cli):
    ---
    name: pdf-tools
    description: Use when: the user asks to read a PDF
    ---
"""

import re
from collections.abc import Iterator

from workbench.core.lint.context import LintContext
from workbench.core.lint.registry import Finding, rule
from workbench.core.lint.rules._util import fallback_severity, yaml_quote
from workbench.core.lint.types import Fix, TextEdit
from workbench.core.skillfile import Span

_KV = re.compile(r"^([A-Za-z0-9_][\w.\-]*)[ \t]*:[ \t]+(\S.*?)[ \t]*$")


def colon_fix(ctx: LintContext, line: int) -> Fix | None:
    """A fix quoting the value of ``key: a: b`` on ``line`` (or the nearest key line above)."""
    lines = ctx.lines
    for ln in range(line, max(1, line - 20) - 1, -1):
        if ln > len(lines) or ln < 2:
            continue
        s = lines[ln - 1]
        m = _KV.match(s)
        if not m:
            if s[:1] in (" ", "\t") or not s.strip():
                continue
            return None
        val = m.group(2)
        if val[0] in "\"'[{|>&*!%@`" or ": " not in val and not val.endswith(":"):
            return None
        if " #" in val:
            return None
        return Fix(
            f"Quote the value of '{m.group(1)}'",
            [TextEdit(ln, m.start(2) + 1, ln, m.end(2) + 1, yaml_quote(val))],
        )
    return None


@rule("FM003", "yaml-invalid", "error")
def check(ctx: LintContext) -> Iterator[Finding]:
    sf = ctx.sf
    if sf.state != "yaml-error":
        return
    if "\t" in sf.frontmatter and ("tab" in sf.message.lower()):
        return  # FM004 explains it better
    span = sf.error_span or Span(2, 1, 2, 2)
    severity, message = fallback_severity(ctx, sf.message)
    yield Finding(span, message, colon_fix(ctx, span.line), severity=severity)
