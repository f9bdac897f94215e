r"""CX003 codex-disable-model-invocation: Codex ignores ``disable-model-invocation``.

Codex reads only ``name``, ``description`` and ``metadata.short-description`` from the frontmatter;
the one way to keep a skill out of its model's listing is the sidecar ``agents/openai.yaml`` with
``policy: {allow_implicit_invocation: false}`` (codex-rs ``core-skills/src/loader.rs``, clients.md
2.2). A skill that sets ``disable-model-invocation: true`` for Claude Code is therefore still listed
— and picked by the model — in Codex. Not reported when the sidecar already hides the skill.

PASS (profile=codex, dir=deploy):
    ---
    name: deploy
    description: Deploys the app. Use only when the user types /deploy.
    ---
FAIL (profile=codex, dir=deploy):
    ---
    name: deploy
    description: Deploys the app. Use only when the user types /deploy.
    disable-model-invocation: true
    ---
"""

from collections.abc import Iterator

import yaml

from workbench.core.lint.context import LintContext
from workbench.core.lint.registry import Finding, rule

try:
    from yaml import CSafeLoader as _Loader
except ImportError:  # pragma: no cover
    from yaml import SafeLoader as _Loader

SIDECAR = "agents/openai.yaml"
SIDECAR_TEXT = "policy:\n  allow_implicit_invocation: false\n"


def sidecar_hides(ctx: LintContext) -> bool:
    """Whether the skill's ``agents/openai.yaml`` sets ``policy.allow_implicit_invocation: false``."""
    folder, skill_dir = ctx.folder(), ctx.skill_dir
    if not folder or skill_dir is None or "agents/" not in folder[""]:
        return False
    p = skill_dir / "agents" / "openai.yaml"
    ctx.depend(p)
    try:
        data = yaml.load(p.read_text(encoding="utf-8"), Loader=_Loader)
    except (OSError, UnicodeDecodeError, yaml.YAMLError):
        return False
    policy = data.get("policy") if isinstance(data, dict) else None
    return isinstance(policy, dict) and policy.get("allow_implicit_invocation") is False


@rule("CX003", "codex-disable-model-invocation", "off", profiles={"codex": "warning"})
def check(ctx: LintContext) -> Iterator[Finding]:
    if ctx.sf.state != "ok":
        return
    f = ctx.field("disable-model-invocation")
    if f is None or f.value is not True or sidecar_hides(ctx):
        return
    yield Finding(
        f.key_span,
        "Codex ignores disable-model-invocation: the skill stays in its listing and the "
        f"model may pick it; to hide it from Codex's model, add {SIDECAR} with "
        "'policy: allow_implicit_invocation: false'",
    )
