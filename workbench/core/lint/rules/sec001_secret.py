r"""SEC001 secret: something that looks like a real credential (AWS key id, GitHub / GitLab /
Slack / Stripe / Anthropic / OpenAI / Google / Hugging Face / ... tokens, a PEM private key).

The patterns are the shared table in ``workbench.core.riskpatterns`` (detect-secrets plugins plus
gitleaks rules), the same the Workshop's risk checks use.

skillscheck (warning) and skillsaw content-embedded-secrets (error) (validators.md J1): skills
are shared and loaded into prompts. Values containing EXAMPLE, xxxx or ``...`` are ignored
(documentation placeholders).

PASS:
    ---
    name: deploy-notes
    description: Explains deploy credentials. Use when the user asks how to set AWS keys.
    ---
    Set `AWS_ACCESS_KEY_ID=AKIAIOSFODNN7EXAMPLE` in your shell.
FAIL:
    ---
    name: deploy-notes
    description: Explains deploy credentials. Use when the user asks how to set AWS keys.
    ---
    Use the token ghp_Zq3v9LkP2mN8xR4tY7wB1cD5eF6gH0jK3lM9 to push.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from workbench.core.lint.registry import Finding, rule
from workbench.core.riskpatterns import find_secrets, has_secret_candidate

if TYPE_CHECKING:
    from workbench.core.lint.context import LintContext


@rule("SEC001", "secret", "error")
def check(ctx: LintContext) -> Iterator[Finding]:
    # the pre-check on the cached UTF-8 bytes: one automaton pass (riskpatterns), ~5x cheaper
    # than on the str; the regexes (and detect-secrets) only run for a file holding a literal
    if not has_secret_candidate(ctx.utf8):
        return
    for m in find_secrets(ctx.text):
        if not m.placeholder:
            yield Finding(
                ctx.span(m.start, m.end), f"this looks like a real {m.what}; remove it and rotate it"
            )
