"""GitHub Copilot CLI: how a skill is loaded in the chat loop.

Observed on GitHub Copilot CLI 1.0.102 by the conformance lab (the request's ``tools``):

* **Listing** — system prompt: ``<available_skills>`` inside the ``<skill>`` section.
* **Load tool** — ``skill`` with ``{skill: string}`` (required), "Load a skill into the main
  conversation". The client's own tool description is not reproduced (its text is the client's);
  the workbench offers a short one of its own.
* **Result** — not captured by the lab (the stand-in never calls the tool): the workbench returns
  the SKILL.md body with its base directory (unverified shape).
"""

from __future__ import annotations

from typing import Any

from workbench.core.chat.loadkit import (
    Loader,
    ToolContext,
    ToolOutcome,
    ToolSpec,
    current_body,
    find_listed,
    make_read_tool,
)


class CopilotCliLoader(Loader):
    def tools(self, skills: list[Any]) -> list[ToolSpec]:
        schema = {
            "type": "object",
            "properties": {"skill": {"type": "string", "description": "The skill name to invoke."}},
            "required": ["skill"],
        }
        desc = (
            "Load a skill listed in <available_skills> into the conversation when the task "
            "matches its description; call it with only the skill name."
        )
        return [ToolSpec("skill", desc, schema, self._load)]

    def read_tool(self) -> ToolSpec:
        return make_read_tool("view", "path")

    def _load(self, inp: dict[str, Any], ctx: ToolContext) -> ToolOutcome:
        name = inp.get("skill")
        skill = find_listed(ctx.skills, name)
        if skill is None:
            return ToolOutcome(f"Skill not found: {name}", is_error=True, resolved=str(name))
        text = f"Base directory for this skill: {skill.dir}\n\n{current_body(skill).strip()}"
        return ToolOutcome(
            text, skill=skill.name, skill_path=str(skill.path), resolved=skill.name, body_chars=len(text)
        )


LOADER = CopilotCliLoader(
    client_id="copilot-cli",
    placement="system",
    placement_note="system prompt: <available_skills> inside the <skill> tool section",
    load_tool="skill",
    source="observed on GitHub Copilot CLI 1.0.102 (conformance lab)",
    unverified=["the skill tool's result shape", "the file-read tool's name and parameters"],
)
