r"""FLD004 metadata-value-type: a ``metadata`` value is not a string.

Spec: string -> string map (validators.md E3). Nested maps and lists are warnings (skill-validator
and skillscheck reject them; skills-ref stringifies). Numbers, booleans and dates are infos with
a quick fix to quote them (skills-ref turns ``version: 1.0`` into "1.0", test_parser). OpenClaw's
own ``metadata.openclaw`` (and legacy ``clawdbot``/``moltbot``) blocks are nested by design and
are checked by OC001 instead.

PASS:
    ---
    name: pdf-tools
    description: Extracts text from PDF files. Use when the user asks to read a PDF.
    metadata:
      version: "1.0"
    ---
FAIL:
    ---
    name: pdf-tools
    description: Extracts text from PDF files. Use when the user asks to read a PDF.
    metadata:
      tags:
        - pdf
    ---
"""

from collections.abc import Iterator

import yaml

from workbench.core.lint.context import LintContext
from workbench.core.lint.registry import Finding, rule
from workbench.core.lint.rules._util import yaml_quote
from workbench.core.lint.types import INFO, Fix, TextEdit
from workbench.core.skillfile import Span, node_span

CLIENT_BLOCKS = {"openclaw", "clawdbot", "moltbot"}


def _sp(node: yaml.Node) -> Span:
    return node_span(node)


@rule("FLD004", "metadata-value-type", "warning", profiles={"gemini-cli": "info", "codex": "info"})
def check(ctx: LintContext) -> Iterator[Finding]:
    if ctx.sf.state != "ok":
        return
    f = ctx.field("metadata")
    if f is None or not isinstance(f.value, dict) or not isinstance(f.node, yaml.MappingNode):
        return
    for knode, vnode in f.node.value:
        key = knode.value if isinstance(knode, yaml.ScalarNode) else "?"
        if key in CLIENT_BLOCKS:
            continue
        if isinstance(vnode, (yaml.MappingNode, yaml.SequenceNode)):
            kind = "a mapping" if isinstance(vnode, yaml.MappingNode) else "a list"
            yield Finding(
                _sp(knode),
                f"metadata.{key} is {kind}; the spec expects text values (strict validators reject it)",
            )
        elif isinstance(vnode, yaml.ScalarNode) and not vnode.style and vnode.tag != "tag:yaml.org,2002:str":
            sp = _sp(vnode)
            fix = None
            if sp.line == sp.end_line:
                fix = Fix(
                    f"Quote metadata.{key}",
                    [TextEdit(sp.line, sp.column, sp.end_line, sp.end_column, yaml_quote(vnode.value))],
                )
            yield Finding(
                sp,
                f"metadata.{key}: YAML reads {vnode.value!r} as "
                f"{vnode.tag.rsplit(':', 1)[-1]}, not text; quote it",
                fix,
                severity=INFO,
            )
