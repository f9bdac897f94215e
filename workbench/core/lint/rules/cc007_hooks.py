r"""CC007 cc-hooks: ``hooks`` does not follow Claude Code's hooks schema.

agnix CC-SK-010 (validators.md F7): ``hooks`` maps event names (PreToolUse, PostToolUse, Stop,
...) to lists of ``{matcher, hooks: [{type: command, command: ...}]}``. The event list is from
the Claude Code hooks docs as mirrored by agnix (unverified against the newest release).

PASS (profile=claude-code):
    ---
    name: pdf-tools
    description: Extracts text from PDF files. Use when the user asks to read a PDF.
    hooks:
      PostToolUse:
        - matcher: Write
          hooks:
            - type: command
              command: ./scripts/check.sh
    ---
FAIL (profile=claude-code):
    ---
    name: pdf-tools
    description: Extracts text from PDF files. Use when the user asks to read a PDF.
    hooks: ./scripts/check.sh
    ---
"""

from collections.abc import Iterator

from workbench.core.lint.context import LintContext
from workbench.core.lint.registry import Finding, rule
from workbench.core.lint.types import WARNING

EVENTS = {
    "PreToolUse",
    "PostToolUse",
    "PostToolUseFailure",
    "Stop",
    "SubagentStop",
    "SubagentStart",
    "UserPromptSubmit",
    "Notification",
    "PreCompact",
    "SessionStart",
    "SessionEnd",
    "PermissionRequest",
}


@rule("CC007", "cc-hooks", "off", profiles={"claude-code": "error"}, unverified=True)
def check(ctx: LintContext) -> Iterator[Finding]:
    if ctx.sf.state != "ok":
        return
    f = ctx.field("hooks")
    if f is None:
        return
    v = f.value
    if not isinstance(v, dict):
        yield Finding(
            f.value_span,
            "hooks must be a mapping of event names (PreToolUse, PostToolUse, ...) to hook lists",
        )
        return
    for event, entries in v.items():
        if event not in EVENTS:
            yield Finding(f.value_span, f"hooks: unknown event {event!r}", severity=WARNING)
        if not isinstance(entries, list):
            yield Finding(f.value_span, f"hooks.{event} must be a list of {{matcher, hooks}} entries")
            continue
        for e in entries:
            hooks = e.get("hooks") if isinstance(e, dict) else None
            if not isinstance(hooks, list) or not all(
                isinstance(h, dict)
                and h.get("type") in ("command", "prompt", "agent", "http")
                and (h.get("command") or h.get("prompt") or h.get("url"))
                for h in hooks
            ):
                yield Finding(
                    f.value_span,
                    f"hooks.{event}: each entry needs 'hooks: [{{type: command, command: ...}}]'",
                )
                break
