r"""FM004 yaml-tab: a tab character in the indentation of a frontmatter line.

YAML forbids tabs for indentation: skills-ref (strictyaml) and quick_validate (PyYAML) both
fail (validators.md B5, 4.2 "tab-indented metadata"). Under a client profile the severity follows
the client (``_util.fallback_severity``): a warning when it still loads the file through its line
parser. Quick fix: replace each leading tab with two spaces.

PASS:
    ---
    name: pdf-tools
    description: Extracts text from PDF files. Use when the user asks to read a PDF.
    metadata:
      author: me
    ---
FAIL:
    ---
    name: pdf-tools
    description: Extracts text from PDF files. Use when the user asks to read a PDF.
    metadata:
    \tauthor: me
    ---
"""

from collections.abc import Iterator

from workbench.core.lint.context import LintContext
from workbench.core.lint.registry import Finding, rule
from workbench.core.lint.rules._util import fallback_severity
from workbench.core.lint.types import Fix, TextEdit
from workbench.core.skillfile import Span


@rule("FM004", "yaml-tab", "error")
def check(ctx: LintContext) -> Iterator[Finding]:
    sf = ctx.sf
    if not sf.open_line or "\t" not in sf.frontmatter:
        return
    last = (sf.close_line or (len(ctx.lines) + 1)) - 1
    verdict = None
    for ln in range(2, last + 1):
        s = ctx.lines[ln - 1]
        ws = len(s) - len(s.lstrip(" \t"))
        if "\t" in s[:ws] and s.strip():
            if verdict is None:
                verdict = fallback_severity(ctx, "tab in the indentation: YAML indentation must use spaces")
            fix = Fix("Replace tabs with spaces", [TextEdit(ln, 1, ln, ws + 1, s[:ws].replace("\t", "  "))])
            yield Finding(Span(ln, 1, ln, ws + 1), verdict[1], fix, severity=verdict[0])
