r"""OC001 openclaw-metadata: ``metadata.openclaw`` (or legacy ``clawdbot``/``moltbot``) is malformed.

OpenClaw gates skills on ``metadata.openclaw``: ``requires`` keys bins, anyBins, env, config
(lists of strings); ``os`` among darwin, linux, win32; ``always`` a boolean; ``install[]`` entries
with a ``kind`` (docs.openclaw.ai skills; skillsaw; validators.md E7, clients.md 3.2). Install
kinds are checked against brew, node, go, uv, download (unverified list). The block may also be a
JSON string (single-line frontmatter), which is parsed as JSON.

PASS (profile=openclaw):
    ---
    name: pdf-tools
    description: Extracts text from PDF files. Use when the user asks to read a PDF.
    metadata:
      openclaw:
        requires:
          bins: [pdftotext]
        os: [linux, darwin]
    ---
FAIL (profile=openclaw):
    ---
    name: pdf-tools
    description: Extracts text from PDF files. Use when the user asks to read a PDF.
    metadata:
      openclaw:
        requires:
          binaries: [pdftotext]
        os: [windows]
    ---
"""

import json
from collections.abc import Iterator

from workbench.core.lint.context import FieldView, LintContext
from workbench.core.lint.registry import Finding, rule
from workbench.core.lint.types import INFO
from workbench.core.skillfile import Span

BLOCKS = ("openclaw", "clawdbot", "moltbot")
REQUIRES = {"bins", "anyBins", "env", "config"}
OSES = {"darwin", "linux", "win32"}
KINDS = {"brew", "node", "go", "uv", "download"}


def _span(ctx: LintContext, f: FieldView) -> Span:
    return f.key_span


@rule("OC001", "openclaw-metadata", "off", profiles={"openclaw": "warning"})
def check(ctx: LintContext) -> Iterator[Finding]:
    if ctx.sf.state != "ok":
        return
    f = ctx.field("metadata")
    if f is None or not isinstance(f.value, dict):
        return
    for key in BLOCKS:
        if key not in f.value:
            continue
        block = f.value[key]
        where = f"metadata.{key}"
        if isinstance(block, str):
            try:
                block = json.loads(block)
            except ValueError:
                yield Finding(f.value_span, f"{where} is text that is not valid JSON")
                continue
        if not isinstance(block, dict):
            yield Finding(f.value_span, f"{where} must be a mapping")
            continue
        req = block.get("requires")
        if req is not None:
            if not isinstance(req, dict):
                yield Finding(
                    f.value_span, f"{where}.requires must be a mapping (bins, anyBins, env, config)"
                )
            else:
                for k, v in req.items():
                    if k not in REQUIRES:
                        yield Finding(
                            f.value_span,
                            f"{where}.requires.{k}: unknown key (expected bins, anyBins, env, config)",
                        )
                    elif not (isinstance(v, list) and all(isinstance(x, str) for x in v)):
                        yield Finding(f.value_span, f"{where}.requires.{k} must be a list of strings")
        os_ = block.get("os")
        if os_ is not None:
            vals = [os_] if isinstance(os_, str) else os_ if isinstance(os_, list) else None
            if vals is None:
                yield Finding(f.value_span, f"{where}.os must be a list of darwin, linux, win32")
            else:
                bad = [x for x in vals if x not in OSES]
                if bad:
                    yield Finding(
                        f.value_span,
                        f"{where}.os: {', '.join(map(repr, bad))} not one of darwin, linux, "
                        "win32 (the skill is then hidden everywhere)",
                    )
        if "always" in block and not isinstance(block["always"], bool):
            yield Finding(f.value_span, f"{where}.always must be true or false")
        inst = block.get("install")
        if inst is not None:
            if not isinstance(inst, list):
                yield Finding(f.value_span, f"{where}.install must be a list")
            else:
                for it in inst:
                    kind = it.get("kind") if isinstance(it, dict) else None
                    if kind not in KINDS:
                        yield Finding(
                            f.value_span,
                            f"{where}.install: kind {kind!r} is not one of "
                            f"{', '.join(sorted(KINDS))} (unverified list)",
                            severity=INFO,
                        )
                        break
