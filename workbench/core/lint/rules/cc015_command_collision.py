r"""CC015 cc-command-collision: the skill's name is a Claude Code built-in command.

Checked on Claude Code 2.1.328 with the real client (``clients/claude_code/commands.py``): a project
or personal skill named like a built-in command (``status``, ``help``, ``review``, ``cost``, ...)
takes over ``/<name>``: typing ``/status`` runs the skill, and the built-in is no longer reachable by
that name. Plugin skills are namespaced (``plugin:status``) and not flagged.

PASS (profile=claude-code, dir=deploy-status):
    ---
    name: deploy-status
    description: Reports the deploy state. Use when the user asks whether a deploy finished.
    ---
    Check the deploy.
FAIL (profile=claude-code, dir=status):
    ---
    name: status
    description: Reports the deploy state. Use when the user asks whether a deploy finished.
    ---
    Check the deploy.
"""

from collections.abc import Iterator

from workbench.core.clients.claude_code.commands import CHECKED_ON, collides
from workbench.core.lint.context import LintContext
from workbench.core.lint.registry import Finding, rule


@rule("CC015", "cc-command-collision", "off", profiles={"claude-code": "warning"})
def check(ctx: LintContext) -> Iterator[Finding]:
    if ctx.sf.state != "ok":
        return
    name = ctx.name_str()
    f = ctx.field("name")
    if name is None and ctx.skill_dir is not None:
        name, span = ctx.skill_dir.name, ctx.top_span()
    elif name is not None and f is not None:
        span = f.value_span
    else:
        return
    if collides(name):
        yield Finding(
            span,
            f"'{name}' is a built-in Claude Code command: typing /{name} runs this skill "
            f"instead of the built-in ({CHECKED_ON}); choose another name",
        )
