r"""STR005 unknown-directory: a sub-folder other than ``scripts/``, ``references/``, ``assets/``.

The spec names those three optional folders; skill-validator warns on others (validators.md A4).
``agents/`` (Codex ``agents/openai.yaml``) and ``evals/`` (skill-creator) are also accepted.
Info only: clients load any file the body points to.

PASS (dir=pdf-tools, files=scripts/run.py):
    ---
    name: pdf-tools
    description: Extracts text from PDF files. Use when the user asks to read a PDF.
    ---
    Run `scripts/run.py`.
FAIL (dir=pdf-tools, files=stuff/run.py):
    ---
    name: pdf-tools
    description: Extracts text from PDF files. Use when the user asks to read a PDF.
    ---
    Run `stuff/run.py`.
"""

from collections.abc import Iterator

from workbench.core.lint.context import LintContext
from workbench.core.lint.registry import Finding, rule

KNOWN = {"scripts/", "references/", "assets/", "agents/", "evals/"}


@rule("STR005", "unknown-directory", "info")
def check(ctx: LintContext) -> Iterator[Finding]:
    folder = ctx.folder()
    if not folder:
        return
    for name in folder[""]:
        if (
            name.endswith("/")
            and name not in KNOWN
            and not name.startswith(".")
            and name != "__pycache__/"
            and name.lower() != "skill.md/"
        ):  # a folder named SKILL.md: STR003 reports it
            yield Finding(
                ctx.top_span(),
                f"folder {name} is not one of the spec's scripts/, references/, "
                "assets/ (fine if the body points to it)",
            )
