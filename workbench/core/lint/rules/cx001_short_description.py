r"""CX001 codex-short-description: ``metadata.short-description`` is not text or over 1,024
characters.

Codex reads ``metadata.short-description`` and refuses the skill when it is over 1,024
characters (codex-rs loader.rs; validators.md E6, clients.md 2.2).

PASS (profile=codex):
    ---
    name: pdf-tools
    description: Extracts text from PDF files. Use when the user asks to read a PDF.
    metadata:
      short-description: Read PDFs
    ---
FAIL (profile=codex):
    ---
    name: pdf-tools
    description: Extracts text from PDF files. Use when the user asks to read a PDF.
    metadata:
      short-description:
        - Read PDFs
    ---
"""

from collections.abc import Iterator

import yaml

from workbench.core.lint.context import LintContext
from workbench.core.lint.registry import Finding, rule
from workbench.core.skillfile import collapse_ws, node_span


@rule("CX001", "codex-short-description", "off", profiles={"codex": "error"})
def check(ctx: LintContext) -> Iterator[Finding]:
    if ctx.sf.state != "ok":
        return
    f = ctx.field("metadata")
    if f is None or not isinstance(f.node, yaml.MappingNode):
        return
    for knode, vnode in f.node.value:
        if getattr(knode, "value", None) != "short-description":
            continue
        sp = node_span(vnode)
        v = f.value.get("short-description")
        if not isinstance(v, str):
            yield Finding(sp, "metadata.short-description must be text; Codex refuses to load the skill")
        elif len(collapse_ws(v)) > 1024:
            yield Finding(
                sp,
                f"metadata.short-description is {len(collapse_ws(v))} characters; Codex refuses "
                "anything over 1024",
            )
