r"""FM011 strict-yaml: flow collections (``[a, b]``, ``{a: b}``), anchors/aliases or explicit tags.

skills-ref parses with strictyaml, which rejects all of them ("Invalid YAML in frontmatter"),
while PyYAML / js-yaml accept them (validators.md B5, 4.2 "allowed-tools: [Read, Write]": skills-ref
E, quick_validate valid). Error under ``agentskills`` (matches skills-ref), info elsewhere.

PASS:
    ---
    name: pdf-tools
    description: Extracts text from PDF files. Use when the user asks to read a PDF.
    allowed-tools: Read Write
    ---
FAIL:
    ---
    name: pdf-tools
    description: Extracts text from PDF files. Use when the user asks to read a PDF.
    allowed-tools: [Read, Write]
    ---
"""

import re
from collections.abc import Iterator

import yaml

from workbench.core.lint.context import LintContext
from workbench.core.lint.registry import Finding, rule
from workbench.core.skillfile import Span, node_span

_Scalar = yaml.ScalarNode
#: What a flow collection, an anchor, an alias or a tag needs in the source (= ``any(c in fm for
#: c in "[{&*!")`` in one pass); and what the node walk needs: a flow collection or an alias.
_MARKS = re.compile(r"[\[{&*!]")
_NODE_MARKS = re.compile(r"[\[{*]")
_ANCHOR_TAG = re.compile(r"(?:^|[\s:\-\[,])([&*][\w\-]+|!{1,2}[\w/:.\-]*)(?=\s|$)")


def _walk(roots: list[yaml.Node], alias: bool) -> list[tuple[str, yaml.Node]]:
    """("flow" | "alias", node) for each flow collection and repeated (aliased) node under
    ``roots``, in document order (pre-order: a key before its value). ``alias``: the text has a
    ``*`` (without one no node is met twice, so none is tracked, and a scalar root holds
    nothing). Iterative (no recursion limit), no generator per node."""
    out: list[tuple[str, yaml.Node]] = []
    seen: set[int] = set()
    stack = [n for n in reversed(roots) if alias or type(n) is not _Scalar]
    while stack:
        node = stack.pop()
        if alias:
            if id(node) in seen:
                out.append(("alias", node))
                continue
            seen.add(id(node))
        t = type(node)
        if t is _Scalar or not isinstance(node, (yaml.SequenceNode, yaml.MappingNode)):
            continue
        if node.flow_style:
            out.append(("flow", node))
        elif isinstance(node, yaml.SequenceNode):
            stack.extend(reversed(node.value))
        else:
            for k, v in reversed(node.value):
                stack.append(v)
                stack.append(k)
    return out


def _sp(node: yaml.Node) -> Span:
    return node_span(node)


@rule("FM011", "strict-yaml", "info", profiles={"agentskills": "error"})
def check(ctx: LintContext) -> Iterator[Finding]:
    if ctx.sf.state != "ok":
        return
    fm = ctx.sf.frontmatter
    if _MARKS.search(fm) is None:
        return
    # a flow collection needs "[" or "{", an alias (or a node met twice) a "*": without them the
    # node walk finds nothing
    if _NODE_MARKS.search(fm) is not None:
        roots = [f.node for f in ctx.fields.values() if f.node is not None]
        for kind, node in _walk(roots, "*" in fm):
            if kind == "flow":
                yield Finding(
                    _sp(node),
                    "flow-style collection: strict YAML parsers (skills-ref) reject "
                    "'[...]' and '{...}'; use block style or a plain string",
                )
            else:
                yield Finding(
                    _sp(node), "YAML alias: strict YAML parsers (skills-ref) reject anchors and aliases"
                )
    # anchors and explicit tags (not visible on nodes): scan the frontmatter source
    if "&" not in fm and "!" not in fm:
        return
    fm_lines = ctx.head_lines((ctx.sf.close_line or 1) - 1)[1:]
    for i, s in enumerate(fm_lines):
        if ("&" not in s and "!" not in s) or s.lstrip().startswith("#"):
            continue
        head = s.split(": ", 1)
        val_start = len(head[0]) + 1 if len(head) == 2 else 0
        for m in _ANCHOR_TAG.finditer(s, val_start):
            tok = m.group(1)
            if tok.startswith("*"):
                continue  # aliases are found on nodes
            q = s[: m.start(1)]
            if q.count('"') % 2 or q.count("'") % 2:
                continue
            what = "anchor" if tok.startswith("&") else "explicit tag"
            yield Finding(
                Span(i + 2, m.start(1) + 1, i + 2, m.end(1) + 1),
                f"YAML {what} {tok!r}: strict YAML parsers (skills-ref) reject it",
            )
