r"""OC002 openclaw-legacy-key: ``metadata.clawdbot`` / ``metadata.moltbot`` instead of
``metadata.openclaw``.

The project was renamed clawdbot -> moltbot -> OpenClaw; current releases read
``metadata.openclaw`` and keep the legacy key for compatibility (clients.md 3.2).

PASS (profile=openclaw):
    ---
    name: pdf-tools
    description: Extracts text from PDF files. Use when the user asks to read a PDF.
    metadata:
      openclaw:
        emoji: "📄"
    ---
FAIL (profile=openclaw):
    ---
    name: pdf-tools
    description: Extracts text from PDF files. Use when the user asks to read a PDF.
    metadata:
      moltbot:
        emoji: "📄"
    ---
"""

from collections.abc import Iterator

import yaml

from workbench.core.lint.context import LintContext
from workbench.core.lint.registry import Finding, rule
from workbench.core.skillfile import node_span


@rule("OC002", "openclaw-legacy-key", "off", profiles={"openclaw": "info"})
def check(ctx: LintContext) -> Iterator[Finding]:
    if ctx.sf.state != "ok":
        return
    f = ctx.field("metadata")
    if f is None or not isinstance(f.node, yaml.MappingNode):
        return
    for knode, _ in f.node.value:
        if getattr(knode, "value", None) in ("clawdbot", "moltbot"):
            yield Finding(
                node_span(knode),
                f"metadata.{knode.value} is the legacy name; current OpenClaw reads metadata.openclaw",
            )
