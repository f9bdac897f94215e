"""GitHub Copilot CLI: how a skill is loaded in the chat loop.

Observed on GitHub Copilot CLI 1.0.102 by the conformance lab (the request's ``tools``):

* **Listing** — system prompt: ``<available_skills>`` inside the ``<skill>`` section.
* **Load tool** — ``skill`` with ``{skill: string}`` (required), "Load a skill into the main
  conversation". The client's own tool description is not reproduced (its text is the client's);
  the workbench offers a short one of its own.
* **Result** — measured on 1.0.102 (lab: a scripted ``skill`` call): a one-line ``tool_result``,
  then the body in a ``<skill-context>`` user block with the base directory and the skill's files
  (``skillcontext.py``). The real client sends that block as its own user message after the
  tool_result's; the workbench appends it to the same user turn (``ToolOutcome.extra_blocks``),
  which the Messages API treats alike (consecutive user turns are merged).
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
from workbench.core.clients.copilot_cli.builtins import BUILTINS
from workbench.core.clients.copilot_cli.profile import CLIENT_VERSION
from workbench.core.clients.copilot_cli.skillcontext import LOADED, NOT_FOUND, skill_context


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
            names = [s.name for s in ctx.skills] + [b for b, _ in BUILTINS.get(CLIENT_VERSION, ())]
            text = NOT_FOUND.format(name=name, names=", ".join(names))
            return ToolOutcome(text, resolved=str(name))
        block = skill_context(skill.name, skill.dir, current_body(skill))
        return ToolOutcome(
            LOADED.format(name=skill.name),
            skill=skill.name,
            skill_path=str(skill.path),
            resolved=skill.name,
            body_chars=len(block),
            extra_blocks=[{"type": "text", "text": block}],
        )


LOADER = CopilotCliLoader(
    client_id="copilot-cli",
    placement="system",
    placement_note="system prompt: <available_skills> inside the <skill> tool section",
    load_tool="skill",
    source="observed on GitHub Copilot CLI 1.0.102 (conformance lab)",
    unverified=["the file-read tool's name and parameters"],
)
