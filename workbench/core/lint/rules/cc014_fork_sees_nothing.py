r"""CC014 cc-fork-context: a forked skill's body relies on the conversation it cannot see.

With ``context: fork`` Claude Code runs the body as a subagent whose first message is the body
(after ``Base directory for this skill: …``) and nothing of the conversation; only the subagent's
final text comes back (checked on Claude Code 2.1.328 with the real client, see
``clients/claude_code/loading.py``). So a body that refers to "the conversation", "what the user
mentioned earlier" or "the code above" gets nothing; and a body that never uses ``$ARGUMENTS``
(or ``$0``, ``$ARGUMENTS[N]``, a declared ``$name``) only sees the user's request as an appended
``ARGUMENTS:`` line, or not at all when the model passes no arguments.

PASS (profile=claude-code):
    ---
    name: audit-deps
    description: Audits dependencies. Use when the user asks whether packages are outdated.
    context: fork
    agent: general-purpose
    ---
    Audit the dependency files named in $ARGUMENTS and report outdated packages with versions.
FAIL (profile=claude-code):
    ---
    name: audit-deps
    description: Audits dependencies. Use when the user asks whether packages are outdated.
    context: fork
    agent: general-purpose
    ---
    Take the tasks the user mentioned earlier in this conversation and finish each one.
"""

import re
from collections.abc import Iterator

from workbench.core.lint.context import LintContext
from workbench.core.lint.registry import Finding, rule

_CONVERSATION = re.compile(
    r"\b(?:earlier in (?:this|the) (?:conversation|chat|session)|(?:this|the) conversation|"
    r"(?:the )?user (?:has )?(?:mentioned|said|asked|described|provided) (?:earlier|before|above|previously)|"
    r"(?:mentioned|discussed|described|shown|pasted) (?:earlier|above|before|previously)|"
    r"previous (?:message|messages|turn|turns)|chat history|as discussed)\b",
    re.IGNORECASE,
)
_ARGS = re.compile(r"\$(?:ARGUMENTS|\d)")


@rule("CC014", "cc-fork-context", "off", profiles={"claude-code": "warning"})
def check(ctx: LintContext) -> Iterator[Finding]:
    if ctx.sf.state != "ok":
        return
    c = ctx.field("context")
    if c is None or c.value != "fork":
        return
    body = ctx.body
    base = ctx.body_offset
    m = _CONVERSATION.search(body)
    if m:
        yield Finding(
            ctx.span(base + m.start(), base + m.end()),
            f"'{m.group(0)}': with context: fork the body runs in a subagent that does not see "
            "the conversation; pass what it needs as arguments ($ARGUMENTS)",
        )
    declared = ctx.field("arguments")
    names = (
        declared.value.split()
        if declared is not None and isinstance(declared.value, str)
        else (
            [str(x) for x in declared.value]
            if declared is not None and isinstance(declared.value, list)
            else []
        )
    )
    uses = bool(_ARGS.search(body)) or any(re.search(rf"\${re.escape(n)}\b", body) for n in names)
    if not uses:
        yield Finding(
            c.value_span,
            "context: fork but the body never uses $ARGUMENTS: the subagent sees only "
            "this body (arguments arrive as an appended 'ARGUMENTS:' line, or not at all)",
        )
