"""VS Code Copilot's ``<skills>`` block in the customizations index.

Sources: ``microsoft/vscode`` (Copilot Chat) ``AutomaticInstructionsCollector.
_buildCustomizationsIndex`` (skills section), ``vscode-copilot-chat`` @31acd00a
``promptTypes.ts``/``agentPrompt.tsx``; ../shared/reference/clients.md section 6.2-6.4.

Template, read-file variant (tags in name/description stripped with ``/<[^>]+>/g``, no other
escaping)::

    <skills>
    Here is a list of skills that contain domain specific knowledge on a variety of topics.
    Each skill comes with a description of the topic and a file path that contains the detailed instructions.
    When a user asks you to perform a task that falls within the domain of a skill, use the 'read_file' tool to acquire the full instructions from the file URI.
    <skill>
    <name>{name}</name>
    <description>{description}</description>
    <file>{path}</file>
    </skill>
    </skills>

followed by two empty lines (the index pushes ``'</skills>', '', ''``). With a dedicated skill tool,
lines 2-3 become one line: "When a user asks you to perform a task that falls within the domain of
a skill, use the {skill tool} tool with the skill name to load it."

Budget (newest, **only with the skill tool**): entries are appended while the running total of
``entry.join('\\n').length + 1`` stays <= 15,000; the remaining skills' names are joined with
", " up to 5,000 chars: ``Additional skills available (invoke by name): a, b... and N more``.
Without the skill tool there is no cap. Only skills with a description and without
``disable-model-invocation`` are listed (description-less ones are reported ``omitted``).

Decision (spec silent): ``options["skill_tool"]`` defaults to **True**: the newest builds ship the
skill tool, and the cap is what users hit ("63 skills found, about 21 invocable"). Pass False for
the read_file variant (no cap).

How the tool is named in the prompt (``getToolReferencePromptContent``) was not found in the
public source: we write ``'read_file'`` (as the reference shows) and ``'skill'`` for the skill tool
(options ``read_tool``, ``skill_tool_name``); marked unverified.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from workbench.core.listingkit import ListingReport, ListingState, SkillListing, js_len

if TYPE_CHECKING:
    from workbench.core.model import Environment, Skill

CLIENT = "vscode-copilot"
ENTRY_BUDGET = 15_000
NAMES_BUDGET = 5_000
OVERFLOW_PREFIX = "Additional skills available (invoke by name): "
"""The "invoke by name" line's start (46 chars). VS Code's cap counts the names alone; GitHub
Copilot CLI's counts this prefix too (lab: copilot-names-cap-exact / -one-over, Copilot CLI 1.0.102)."""
LINE_1 = "Here is a list of skills that contain domain specific knowledge on a variety of topics."
LINE_2_READ = (
    "Each skill comes with a description of the topic and a file path that contains the "
    "detailed instructions."
)
LINE_3_READ = (
    "When a user asks you to perform a task that falls within the domain of a skill, use "
    "the {tool} tool to acquire the full instructions from the file URI."
)
LINE_2_SKILL = (
    "When a user asks you to perform a task that falls within the domain of a skill, use "
    "the {tool} tool with the skill name to load it."
)
PLACEMENT = (
    "user request: <skills> block of the customizations index prompt reference (only when "
    "the read_file tool is enabled)"
)
_TAG = re.compile(r"<[^>]+>")


def strip_tags(s: str) -> str:
    """``/<[^>]+>/g`` removal (idempotent on already-stripped text)."""
    return _TAG.sub("", s)


def overflow_line(
    names: list[str], budget: int, measure: Callable[[str], int] = js_len
) -> tuple[str, list[str]]:
    """``Additional skills available (invoke by name): a, b... and N more``: names joined with
    ", " while their total (``measure``, separators included) stays <= ``budget``; "" when no name
    fits. Returns (line, names shown). Shared with GitHub Copilot CLI's listing."""
    shown: list[str] = []
    total = 0
    for n in names:
        add = (2 if shown else 0) + measure(n)
        if total + add > budget:
            break
        total += add
        shown.append(n)
    if not shown:
        return "", shown
    remaining = len(names) - len(shown)
    more = f"... and {remaining} more" if remaining > 0 else ""
    return f"{OVERFLOW_PREFIX}{', '.join(shown)}{more}", shown


def listing_order(skills: list[Skill]) -> list[Skill]:
    """Discovery order (workspace, personal, plugin, extension; first wins)."""
    return list(skills)


def render(
    skills: list[Skill], env: Environment, context_tokens: int | None, options: dict[str, Any]
) -> ListingReport:
    """Render the block. With the skill tool, ``budget_used`` = the 15,000-char entry count."""
    skill_tool = bool(options.get("skill_tool", True))
    read_tool = options.get("read_tool", "'read_file'")
    tool_name = options.get("skill_tool_name", "'skill'")
    names = [strip_tags(s.name)[:64] for s in skills]
    descs = [strip_tags(s.description or "")[:1024] for s in skills]
    listable = [i for i, s in enumerate(skills) if descs[i] and not s.flags.get("disable_model_invocation")]
    in_listable = set(listable)
    states: dict[int, SkillListing] = {}
    for i, s in enumerate(skills):
        if i not in in_listable:
            states[i] = SkillListing(
                names[i], str(s.path), ListingState.OMITTED, 0, 0, "no description: not listed"
            )
    lines: list[str] = []
    used = 0
    cut_at = len(listable)
    for k, i in enumerate(listable):
        entry = [
            "<skill>",
            f"<name>{names[i]}</name>",
            f"<description>{descs[i]}</description>",
            f"<file>{skills[i].path}</file>",
            "</skill>",
        ]
        n = js_len("\n".join(entry)) + 1
        if skill_tool and used + n > ENTRY_BUDGET:
            cut_at = k
            break
        used += n
        lines += entry
        d = len(skills[i].description or "")
        states[i] = SkillListing(names[i], str(skills[i].path), ListingState.FULL, d, d)
    warnings: list[str] = []
    if cut_at < len(listable):
        rest = listable[cut_at:]
        line, shown = overflow_line([names[i] for i in rest], NAMES_BUDGET)
        remaining = len(rest) - len(shown)
        if line:
            lines.append(line)
        for k, i in enumerate(rest):
            d = len(skills[i].description or "")
            if k < len(shown):
                states[i] = SkillListing(
                    names[i],
                    str(skills[i].path),
                    ListingState.NAME_ONLY,
                    d,
                    0,
                    "past the 15,000-char cap: in the name list",
                )
            else:
                states[i] = SkillListing(
                    names[i],
                    str(skills[i].path),
                    ListingState.OMITTED,
                    d,
                    0,
                    "past the 15,000-char cap and the 5,000-char name list",
                )
        warnings.append(
            f"{len(listable)} skills are listable but only {cut_at} fit VS Code's "
            f"{ENTRY_BUDGET:,}-char skills budget with descriptions; {len(shown)} more "
            f"appear by name only" + (f" and {remaining} not at all." if remaining else ".")
        )
    if listable:
        head = ["<skills>", LINE_1]
        if skill_tool:
            head.append(LINE_2_SKILL.format(tool=tool_name))
        else:
            head += [LINE_2_READ, LINE_3_READ.format(tool=read_tool)]
        text = "\n".join(head + lines + ["</skills>", "", ""])
    else:
        text = ""
    assumptions = [
        "How VS Code names the tool inside the prompt is unverified "
        f"(we write {tool_name if skill_tool else read_tool})."
    ]
    if skill_tool:
        assumptions.append(
            "Skill tool assumed present (newest builds); the 15,000 + 5,000-char "
            "caps apply only then. Use skill_tool=False for the read_file variant."
        )
    return ListingReport(
        client=CLIENT,
        context_tokens=context_tokens,
        text=text,
        placement=PLACEMENT,
        budget_unit="chars" if skill_tool else None,
        budget_limit=ENTRY_BUDGET if skill_tool else None,
        budget_used=used if skill_tool else None,
        skills=[states[i] for i in range(len(skills))],
        warnings=warnings,
        assumptions=assumptions,
        info=[] if skill_tool else ["Without the skill tool VS Code has no listing cap."],
    )
