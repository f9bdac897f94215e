r"""NAME011 side-effect-name: a deploy/publish/delete-style skill the model may invoke on its own.

agnix CC-SK-006 (validators.md C11): a name containing deploy, ship, publish, delete, release or
push without ``disable-model-invocation: true`` lets the model run it unasked
(code.claude.com skills docs recommend the flag for side effects). Warning in ``claude-code``,
info in the other clients that honour the flag (OpenClaw, VS Code, Cursor), off elsewhere.

PASS (profile=claude-code, dir=deploy-prod):
    ---
    name: deploy-prod
    description: Deploys the app to production. Use when the user asks to deploy.
    disable-model-invocation: true
    ---
FAIL (profile=claude-code, dir=deploy-prod):
    ---
    name: deploy-prod
    description: Deploys the app to production. Use when the user asks to deploy.
    ---
"""

import re
from collections.abc import Iterator

from workbench.core.lint.context import LintContext
from workbench.core.lint.registry import Finding, rule
from workbench.core.lint.types import Fix, TextEdit

_RISKY = re.compile(r"(?:^|-)(deploy|ship|publish|delete|release|push|drop|destroy)(?:-|$)")


@rule(
    "NAME011",
    "side-effect-name",
    "off",
    profiles={"claude-code": "warning", "openclaw": "info", "vscode-copilot": "info", "cursor": "info"},
)
def check(ctx: LintContext) -> Iterator[Finding]:
    if not ctx.has_fields:
        return
    name = ctx.name_str() or ""
    m = _RISKY.search(name)
    if not m:
        return
    dmi = ctx.field("disable-model-invocation")
    if dmi is not None and dmi.value is True:
        return
    f = ctx.fields["name"]
    fix = None
    if dmi is None and ctx.sf.close_line:
        cl = ctx.sf.close_line
        fix = Fix(
            "Add 'disable-model-invocation: true'",
            [TextEdit(cl, 1, cl, 1, "disable-model-invocation: true\n")],
        )
    yield Finding(
        f.value_span,
        f"'{m.group(1)}' suggests side effects; add 'disable-model-invocation: true' "
        "so only the user can start it",
        fix,
    )
