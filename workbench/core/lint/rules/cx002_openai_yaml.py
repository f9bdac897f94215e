r"""CX002 codex-openai-yaml: the ``agents/openai.yaml`` sidecar is broken or hides the skill.

Codex reads ``<skill>/agents/openai.yaml`` (interface.display_name / short_description / icons /
brand_color / default_prompt, dependencies.tools, policy.allow_implicit_invocation) and fails
open: a bad file is ignored (codex-rs loader.rs; validators.md E6, clients.md 2.2). Reported on
SKILL.md line 1 because the problem is in the sidecar. ``allow_implicit_invocation: false`` keeps
the skill out of the model's listing (info).

PASS (profile=codex, dir=pdf-tools):
    ---
    name: pdf-tools
    description: Extracts text from PDF files. Use when the user asks to read a PDF.
    ---
FAIL (profile=codex, dir=pdf-tools, files=agents/openai.yaml):
    ---
    name: pdf-tools
    description: Extracts text from PDF files. Use when the user asks to read a PDF.
    ---
"""

from collections.abc import Iterator

import yaml

from workbench.core.lint.context import LintContext
from workbench.core.lint.registry import Finding, rule
from workbench.core.lint.types import INFO
from workbench.core.skillfile import MAX_FILE_BYTES, load_yaml, read_regular_file

_TEXT = ("display_name", "short_description", "icon_small", "icon_large", "brand_color", "default_prompt")


@rule("CX002", "codex-openai-yaml", "off", profiles={"codex": "warning"})
def check(ctx: LintContext) -> Iterator[Finding]:
    folder, skill_dir = ctx.folder(), ctx.skill_dir
    if not folder or skill_dir is None or "agents/" not in folder[""]:
        return
    p = skill_dir / "agents" / "openai.yaml"
    ctx.depend(p)  # the result cache revalidates on this file's identity
    if not p.is_file():
        return
    where = "agents/openai.yaml"
    try:
        data = load_yaml(read_regular_file(p, MAX_FILE_BYTES).decode("utf-8"))
    except (OSError, UnicodeDecodeError, yaml.YAMLError, ValueError, TypeError, RecursionError) as exc:
        yield Finding(
            ctx.top_span(), f"{where} cannot be read ({str(exc).splitlines()[0]}); Codex ignores it"
        )
        return
    if not isinstance(data, dict):
        yield Finding(ctx.top_span(), f"{where} is empty or not a mapping; Codex ignores it")
        return
    iface = data.get("interface")
    if iface is not None:
        if not isinstance(iface, dict):
            yield Finding(ctx.top_span(), f"{where}: interface must be a mapping; Codex ignores it")
        else:
            for k in _TEXT:
                v = iface.get(k)
                if v is not None and not isinstance(v, str):
                    yield Finding(
                        ctx.top_span(), f"{where}: interface.{k} must be text; Codex ignores the file"
                    )
                elif isinstance(v, str) and len(v) > 1024:
                    yield Finding(
                        ctx.top_span(),
                        f"{where}: interface.{k} is {len(v)} characters (over 1024); Codex ignores the file",
                    )
    pol = data.get("policy")
    if isinstance(pol, dict) and pol.get("allow_implicit_invocation") is False:
        yield Finding(
            ctx.top_span(),
            f"{where}: policy.allow_implicit_invocation is false, so Codex does not "
            "list the skill to the model ($name still works)",
            severity=INFO,
        )
