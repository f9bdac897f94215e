r"""FLD005 license-type: ``license`` is not text.

Spec: a license name or a reference to a bundled license file (validators.md section 1: skills-ref
does not check its type).

PASS:
    ---
    name: pdf-tools
    description: Extracts text from PDF files. Use when the user asks to read a PDF.
    license: Apache-2.0. See LICENSE.txt
    ---
FAIL:
    ---
    name: pdf-tools
    description: Extracts text from PDF files. Use when the user asks to read a PDF.
    license:
      - MIT
    ---
"""

from collections.abc import Iterator

from workbench.core.lint.context import LintContext
from workbench.core.lint.registry import Finding, rule


@rule("FLD005", "license-type", "warning")
def check(ctx: LintContext) -> Iterator[Finding]:
    if ctx.sf.state != "ok":
        return
    f = ctx.field("license")
    if f is not None and isinstance(f.value, (dict, list)):
        yield Finding(f.value_span, "license must be text (a license name or file reference)")
