"""Claude Code: how a skill is loaded in the chat loop.

Source: ../shared/reference/clients.md section 1.3/1.5 and chat-loop.md section 2.1 (Claude Code
2.1.x; Piebald-AI/claude-code-system-prompts ``tool-description-invoke-skill.md``; code.claude.com
/docs/en/skills).

* **Listing** — a ``<system-reminder>`` block at the start of the first user turn (not the system
  prompt). The listing text itself (header + ``- name: description`` lines) comes from the listing
  module; here it is only wrapped.
* **Load tool** — ``Skill`` with input ``{skill: string (required), args?: string}`` (names and
  schema exact; the descriptions are the workbench's own words).
* **Result** (checked on Claude Code 2.1.328 with the recorder) — the ``tool_result`` says
  ``Launching skill: <name>``; the body arrives as a separate user-turn text block
  ``Base directory for this skill: <dir>`` + blank line + the substituted body, after the
  tool_results of the same turn.
* **Substitution** — ``arguments.py`` (checked on 2.1.328, every rule there).
* **Fork** (``context: fork``, checked on 2.1.328) — the body does not enter this conversation: a
  subagent request is made with its own system prompt and a first user message that ends with the
  same ``Base directory …`` block (the listing reminder is there, the conversation is not); the
  ``tool_result`` is ``Skill "<name>" completed (forked execution).`` + blank line + ``Result:`` +
  the subagent's final text. The engine runs it as a separate conversation (``ChatSession._run_fork``)
  and the trace shows it as a ``fork`` event with its own sub-transcript.
  ``!`cmd``` lines are reported (trace) and left as written: the workbench never runs them (Claude
  Code would run them and splice in their output).

Decisions: ``${CLAUDE_EFFORT}`` is left as written (no effort level is simulated). An unknown skill
name gets an error result listing the valid names (Claude Code's own wording is not reproduced).
"""

from __future__ import annotations

from typing import Any

from workbench.core.chat.loadkit import (
    Loader,
    ToolContext,
    ToolOutcome,
    ToolSpec,
    current_body,
    find_injections,
    find_listed,
    make_read_tool,
)
from workbench.core.clients.claude_code.arguments import (
    CHECKED_ON,
    declared_arguments,
    split_args,
    substitute,
    substitute_spans,
)
from workbench.core.text import plural

__all__ = ["LOADER", "split_args", "substitute", "substitute_spans"]


def _declared(skill: Any) -> list[str]:
    return declared_arguments((getattr(skill, "fields", None) or {}).get("arguments"))


class ClaudeCodeLoader(Loader):
    def wrap_listing(self, text: str) -> str:
        t = text.strip("\n")
        if t.startswith("<system-reminder>"):
            return t
        return f"<system-reminder>\n{t}\n</system-reminder>"

    def tools(self, skills: list[Any]) -> list[ToolSpec]:
        schema = {
            "type": "object",
            "properties": {
                "skill": {
                    "type": "string",
                    "description": "Exact name of a skill from the skills listing (no leading slash).",
                },
                "args": {"type": "string", "description": "Arguments for the skill, if any."},
            },
            "required": ["skill"],
        }
        desc = (
            "Run one of the skills named in the skills listing (a system-reminder in the "
            "conversation). When a listed skill fits the user's task, call this first with its "
            "exact name; the skill's instructions then appear in the conversation. Do not "
            "invent names."
        )
        return [ToolSpec("Skill", desc, schema, self._load)]

    def read_tool(self) -> ToolSpec:
        return make_read_tool("read_file", "path")

    def _load(self, inp: dict[str, Any], ctx: ToolContext) -> ToolOutcome:
        name = inp.get("skill")
        args = inp.get("args")
        if args is not None and not isinstance(args, str):
            args = str(args)
        skill = find_listed(ctx.skills, name)
        if skill is None:
            names = ", ".join(s.name for s in ctx.skills) or "(none)"
            return ToolOutcome(
                f"Unknown skill: {name}. Available skills: {names}", is_error=True, resolved=str(name)
            )
        raw = current_body(skill)
        injections = find_injections(raw)
        body, spans = substitute_spans(raw, args, skill.dir, ctx.session_id, _declared(skill))
        head = f"Base directory for this skill: {skill.dir}\n\n"
        text = head + body
        events: list[dict[str, Any]] = []
        if spans:
            events.append(
                {
                    "type": "substitution",
                    "skill": skill.name,
                    "args": args,
                    "checked_on": CHECKED_ON,
                    "text": text,
                    "spans": [
                        {
                            "start": len(head) + sp.start,
                            "end": len(head) + sp.end,
                            "placeholder": sp.placeholder,
                            "value": sp.value,
                            "kind": sp.kind,
                        }
                        for sp in spans
                    ],
                }
            )
        notes = [f"body delivered as a separate user-turn block after the tool_result ({CHECKED_ON})"]
        if spans:
            notes.append(
                f"{plural(len(spans), 'substitution')} in the body: "
                + ", ".join(f"{sp.placeholder or 'ARGUMENTS:'}→{sp.value[:20]!r}" for sp in spans[:6])
            )
        if injections:
            notes.append(f"{plural(len(injections), '!`command` injection')} left unrun")
        fork = (getattr(skill, "fields", None) or {}).get("context") == "fork"
        if fork and ctx.subagent is not None:
            agent = (getattr(skill, "fields", None) or {}).get("agent")
            ev = ctx.subagent(text, {"skill": skill.name, "agent": agent if isinstance(agent, str) else None})
            notes.append(
                "context: fork — the body ran as a subagent that does not see this "
                "conversation; only its final text comes back"
            )
            result = ev.get("text") or ""
            if ev.get("error"):
                result = f"(the subagent failed: {ev['error']})"
            return ToolOutcome(
                f'Skill "{skill.name}" completed (forked execution).\n\nResult:\n{result}',
                skill=skill.name,
                skill_path=str(skill.path),
                resolved=skill.name,
                body_chars=len(text),
                injections=injections,
                args=args,
                notes=notes,
                events=events + [ev],
            )
        return ToolOutcome(
            f"Launching skill: {skill.name}",
            skill=skill.name,
            skill_path=str(skill.path),
            resolved=skill.name,
            body_chars=len(text),
            extra_blocks=[{"type": "text", "text": text}],
            injections=injections,
            args=args,
            notes=notes,
            events=events,
        )


LOADER = ClaudeCodeLoader(
    client_id="claude-code",
    placement="user-reminder",
    placement_note="a <system-reminder> block at the start of the first user turn",
    load_tool="Skill",
    source="clients.md §1 (Claude Code 2.1.x; Piebald-AI/claude-code-system-prompts "
    "tool-description-invoke-skill.md; code.claude.com/docs/en/skills)",
    unverified=["exact listing line template"],
)
