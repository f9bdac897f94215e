r"""BODY005 broken-link: a relative link points to a missing file or out of the skill folder.

skill-validator (error), skillscheck and skillsaw (warning) (validators.md H1): an agent told to
read ``references/x.md`` fails if it is missing; a link out of the folder breaks when the skill is
installed elsewhere. URLs, ``#anchors`` and ``mailto:`` are skipped; needs a path.

PASS (dir=pdf-tools, files=references/forms.md):
    ---
    name: pdf-tools
    description: Extracts text from PDF files. Use when the user asks to read a PDF.
    ---
    See [forms](references/forms.md).
FAIL (dir=pdf-tools):
    ---
    name: pdf-tools
    description: Extracts text from PDF files. Use when the user asks to read a PDF.
    ---
    See [forms](references/forms.md).
"""

import os
from collections.abc import Iterator

from workbench.core.lint.context import LintContext
from workbench.core.lint.registry import Finding, rule


@rule("BODY005", "broken-link", "warning")
def check(ctx: LintContext) -> Iterator[Finding]:
    key = ctx.self_key  # the absolute, normalised SKILL.md path; None exactly without a path
    if key is None or not ctx.links:
        return
    # = normpath(abspath(skill_dir)), without building the parent Path
    root = os.path.dirname(key)
    for t, s, e in ctx.local_links:
        if t.startswith("/"):  # (all that makes a POSIX path absolute)
            yield Finding(
                ctx.span(s, e),
                f"link to an absolute path {t!r}: it breaks when the skill is installed "
                "elsewhere; link relative to the skill folder",
            )
            continue
        full = os.path.normpath(os.path.join(root, t))
        if not (full == root or full.startswith(root + os.sep)):
            yield Finding(
                ctx.span(s, e),
                f"link {t!r} leaves the skill folder; it breaks when the skill is installed on its own",
            )
        elif not ctx.exists(full):
            yield Finding(ctx.span(s, e), f"link target {t!r} does not exist")
