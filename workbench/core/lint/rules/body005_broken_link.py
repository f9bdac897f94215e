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
import re
from collections.abc import Iterator
from urllib.parse import unquote

from workbench.core.lint.context import LintContext
from workbench.core.lint.registry import Finding, rule

_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.\-]*:")


def local_target(target: str) -> str | None:
    """The file part of a local link target, or None for URLs/anchors/templates."""
    t = target.strip()
    if not t or t.startswith("#") or _SCHEME.match(t) or t.startswith("//") or "{" in t or "$" in t:
        return None
    t = t.split("#", 1)[0].split("?", 1)[0]
    return unquote(t) if t else None


@rule("BODY005", "broken-link", "warning")
def check(ctx: LintContext) -> Iterator[Finding]:
    key = ctx.self_key  # the absolute, normalised SKILL.md path; None exactly without a path
    if key is None or not ctx.links:
        return
    # = normpath(abspath(skill_dir)), without building the parent Path
    root = os.path.dirname(key)
    for target, s, e in ctx.links:
        t = local_target(target)
        if t is None:
            continue
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
