"""Gemini CLI: how a skill is loaded in the chat loop.

Source: ../shared/reference/clients.md section 4.3/4.5 and chat-loop.md section 2.4
(google-gemini/gemini-cli ``packages/core/src/tools/activate-skill.ts``,
``tools/definitions/dynamic-declaration-helpers.ts``).

* **Listing** — system prompt section (``# Available Agent Skills`` + ``<available_skills>``, from the
  listing module).
* **Load tool** — ``activate_skill`` with ``{name: enum[<listed names>]}``; with no skills the
  parameter is a plain string described as "No skills are currently available".
* **Result** — exactly::

    <activated_skill name="{name}">
      <instructions>
        {body trimmed}
      </instructions>

      <available_resources>
        {folder structure}
      </available_resources>
    </activated_skill>

  The body is inserted as is (its own lines are not re-indented). No argument substitution.

Unverified / not simulated: the folder-structure format (``loadkit.folder_tree``); the consent
dialog Gemini CLI shows for non-built-in skills (the chat loop behaves as if the user agreed);
Gemini's wording for an unknown name (the enum normally prevents it; ours is our own).
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
    folder_tree,
    make_read_tool,
)


def render_result(name: str, body: str, tree: str) -> str:
    """The ``<activated_skill>`` block (module docstring)."""
    return (
        f'<activated_skill name="{name}">\n  <instructions>\n    {body.strip()}\n  </instructions>\n\n'
        f"  <available_resources>\n    {tree}\n  </available_resources>\n</activated_skill>"
    )


class GeminiLoader(Loader):
    def tools(self, skills: list[Any]) -> list[ToolSpec]:
        names = [s.name for s in skills]
        if names:
            prop = {"type": "string", "enum": names, "description": "The name of the skill to activate."}
            avail = ", ".join(f"'{n}'" for n in names)
        else:
            prop = {"type": "string", "description": "No skills are currently available"}
            avail = ""
        desc = (
            f"Activate one of the agent skills by name (Available: {avail}). The result holds "
            "the skill's instructions inside <activated_skill> tags; follow them. Use names "
            "exactly as listed in <available_skills>."
        )
        schema = {"type": "object", "properties": {"name": prop}, "required": ["name"]}
        return [ToolSpec("activate_skill", desc, schema, self._load)]

    def read_tool(self) -> ToolSpec:
        return make_read_tool("read_file", "path")

    def _load(self, inp: dict[str, Any], ctx: ToolContext) -> ToolOutcome:
        name = inp.get("name")
        skill = find_listed(ctx.skills, name)
        if skill is None:
            names = ", ".join(s.name for s in ctx.skills) or "(none)"
            return ToolOutcome(
                f'Skill "{name}" not found. Available skills are: {names}', is_error=True, resolved=str(name)
            )
        text = render_result(skill.name, current_body(skill), folder_tree(skill.dir))
        return ToolOutcome(
            text,
            skill=skill.name,
            skill_path=str(skill.path),
            resolved=skill.name,
            body_chars=len(text),
            notes=["Gemini CLI would ask the user to consent first (not simulated)"],
        )


LOADER = GeminiLoader(
    client_id="gemini-cli",
    placement="system",
    placement_note="system prompt section; the tool's enum also carries the names",
    load_tool="activate_skill",
    source="clients.md §4 (google-gemini/gemini-cli tools/activate-skill.ts)",
    unverified=["folder-structure format in <available_resources>", "unknown-name wording"],
)
