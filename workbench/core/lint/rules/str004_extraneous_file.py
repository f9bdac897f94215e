r"""STR004 extraneous-file: documentation meant for humans sits in the skill folder.

Anthropic's guide: "No README.md inside skill folders"; the old skill-creator "What to not
include" lists README.md, INSTALLATION_GUIDE.md, QUICK_REFERENCE.md, CHANGELOG.md
(validators.md A5; skill-validator warns, skillscheck informs). Agents may read them and waste
context. ``LICENSE*`` files are not flagged: Anthropic's own skills ship ``LICENSE.txt``.

PASS (dir=pdf-tools, files=references/forms.md):
    ---
    name: pdf-tools
    description: Extracts text from PDF files. Use when the user asks to read a PDF.
    ---
    See [forms](references/forms.md).
FAIL (dir=pdf-tools, files=README.md):
    ---
    name: pdf-tools
    description: Extracts text from PDF files. Use when the user asks to read a PDF.
    ---
"""

import re
from collections.abc import Iterator

from workbench.core.lint.context import LintContext
from workbench.core.lint.registry import Finding, rule

_EXTRA = re.compile(r"(?i)^(readme|changelog|contributing|installation_guide|quick_reference)(\.[a-z]+)?$")


@rule("STR004", "extraneous-file", "info")
def check(ctx: LintContext) -> Iterator[Finding]:
    folder = ctx.folder()
    if not folder:
        return
    for name in folder[""]:
        if not name.endswith("/") and _EXTRA.match(name):
            yield Finding(
                ctx.top_span(),
                f"{name} in the skill folder: agents may read it as part of "
                "the skill; keep human documentation outside the skill folder",
            )
