"""OpenCode: how a skill is loaded in the chat loop.

Source: ../shared/reference/clients.md section 5.3/5.5 and chat-loop.md section 2.2
(anomalyco/opencode ``packages/opencode/src/tool/skill.ts``, ``skill/index.ts``, ``session/system.ts``).

* **Listing** — in the system prompt (the two intro lines + ``<available_skills>`` come from the
  listing module).
* **Load tool** — ``skill`` with ``{name: string}`` (required).
* **Result** — exactly::

    <skill_content name="{name}">
    # Skill: {name}

    {body trimmed}

    Base directory for this skill: {file:// URL of the skill folder}
    Relative paths in this skill (e.g., scripts/, reference/) are relative to this base directory.
    Note: file list is sampled.

    <skill_files>
    <file>{abs path}</file>          (at most 10; SKILL.md excluded; hidden files included)
    </skill_files>
    </skill_content>

* **Unknown name** — error ``Skill "X" not found. Available skills: a, b``.
* No argument substitution.

Decisions (reference silent): the file sample is sorted by relative path (OpenCode uses ripgrep
order); with no files the block is ``<skill_files>\\n</skill_files>`` (unverified).
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

from workbench.core.chat.loadkit import (
    Loader,
    ToolContext,
    ToolOutcome,
    ToolSpec,
    current_body,
    find_listed,
    make_read_tool,
    skill_file_sample,
)


def render_result(name: str, body: str, skill_dir: Path, files: Iterable[object]) -> str:
    """The ``<skill_content>`` block (module docstring). ``files``: absolute paths."""
    file_lines = "".join(f"<file>{f}</file>\n" for f in files)
    return (
        f'<skill_content name="{name}">\n# Skill: {name}\n\n{body.strip()}\n\n'
        f"Base directory for this skill: {skill_dir.as_uri()}\n"
        "Relative paths in this skill (e.g., scripts/, reference/) are relative to this base directory.\n"
        "Note: file list is sampled.\n\n"
        f"<skill_files>\n{file_lines}</skill_files>\n</skill_content>"
    )


class OpenCodeLoader(Loader):
    def tools(self, skills: list[Any]) -> list[ToolSpec]:
        schema = {
            "type": "object",
            "properties": {
                "name": {"type": "string", "description": "The skill's name exactly as in available_skills."}
            },
            "required": ["name"],
        }
        desc = (
            "Load a skill listed in <available_skills> when the user asks for it or the task "
            "clearly matches its description; returns the skill's instructions and files."
        )
        return [ToolSpec("skill", desc, schema, self._load)]

    def read_tool(self) -> ToolSpec:
        return make_read_tool("read_file", "path")

    def _load(self, inp: dict[str, Any], ctx: ToolContext) -> ToolOutcome:
        name = inp.get("name")
        skill = find_listed(ctx.skills, name)
        if skill is None:
            names = ", ".join(s.name for s in ctx.skills)
            return ToolOutcome(
                f'Skill "{name}" not found. Available skills: {names}', is_error=True, resolved=str(name)
            )
        body = current_body(skill)
        text = render_result(skill.name, body, skill.dir, skill_file_sample(skill.dir))
        return ToolOutcome(
            text, skill=skill.name, skill_path=str(skill.path), resolved=skill.name, body_chars=len(text)
        )


LOADER = OpenCodeLoader(
    client_id="opencode",
    placement="system",
    placement_note="system prompt section",
    load_tool="skill",
    source="clients.md §5 (anomalyco/opencode tool/skill.ts, session/system.ts)",
    unverified=["order of the sampled file list", "empty <skill_files> shape"],
)
