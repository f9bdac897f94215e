r"""DESC011 description-user-centric: the description's trigger is the user asking, with no task
named ("Use whenever the user asks for help.").

Source: skillscheck 2a.description.user-centric warns on "whenever the user" and "when the user
asks" (validators.md D7). Conflict (validators.md section 5): skill-creator's "pushy" advice
recommends exactly that phrasing ("Use when the user asks to build an MCP server"), and Anthropic's
own skills use it. Decision: the phrasing itself is fine when it names what the user asks for
(flagging it gave an info on 44 corpus skills, Anthropic's among them: noise); this rule is an
info only when the user-centric clause ends without saying what ("when the user asks.", "whenever
the user wants help, or ..."; a colon or a quote after it introduces the request): such a
trigger matches every request, so the agent either loads the skill for everything or learns to
ignore it.

PASS:
    ---
    name: pdf-tools
    description: Extracts text from PDF files. Use when the user asks to read a PDF.
    ---
FAIL:
    ---
    name: pdf-tools
    description: Extracts text from PDF files. Use this skill whenever the user asks for help.
    ---
"""

import re
from collections.abc import Iterator

from workbench.core.lint.context import LintContext
from workbench.core.lint.registry import Finding, rule
from workbench.core.lint.rules._util import first_line_of

_VAGUE = re.compile(
    r"(?i)\b(?:when(?:ever)?|if) (?:the |a )?users? (?:asks?|says?|wants?|requests?|mentions?|types?|needs?)"
    r"(?: (?:for|about|to|with))?(?: (?:help|anything|something|assistance|a question|questions|it|this|that))?"
    r"\s*(?:[.;!)]|,\s*(?:or|and|but|then)\b|$)"
)


@rule("DESC011", "description-user-centric", "info")
def check(ctx: LintContext) -> Iterator[Finding]:
    if not ctx.has_fields:
        return
    d = ctx.description_str()
    if not d or ("ser" not in d and "SER" not in d):  # cheap: most descriptions never say "user"
        return
    m = _VAGUE.search(d)
    if m is None:
        return
    yield Finding(
        first_line_of(ctx.fields["description"].value_span, ctx),
        f"the trigger is the user asking, with no task named ({m.group(0).rstrip(' .,;:!)')!r}); say "
        "what for ('Use when the user asks to extract text from a PDF'), or it matches every request",
    )
