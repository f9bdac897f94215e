"""Claude Code: how a skill is loaded in the chat loop.

Source: ../shared/reference/clients.md section 1.3/1.5 and chat-loop.md section 2.1 (Claude Code
2.1.x; Piebald-AI/claude-code-system-prompts ``tool-description-invoke-skill.md``; code.claude.com
/docs/en/skills).

* **Listing** — a ``<system-reminder>`` block at the start of the first user turn (not the system
  prompt). The listing text itself (header + ``- name: description`` lines) comes from the listing
  module; here it is only wrapped.
* **Load tool** — ``Skill`` with input ``{skill: string (required), args?: string}`` (names and
  schema exact; the descriptions are the workbench's own words).
* **Result** — the ``tool_result`` says ``Launching skill: <name>``; the body arrives as a separate
  user-turn text block starting ``Base directory for this skill: <dir>`` (observed by third parties,
  unverified). The Messages API requires tool_results first in a user turn, so the block follows
  the tool_results of the same turn.
* **Substitution** — ``$ARGUMENTS``, ``$ARGUMENTS[N]``, ``$N`` (0-based, shell-quoting aware),
  ``$<name>`` for names declared in the ``arguments`` frontmatter, ``${CLAUDE_SKILL_DIR}``,
  ``${CLAUDE_SESSION_ID}``; with args but no placeholder, ``ARGUMENTS: <value>`` is appended.
  ``!`cmd``` lines are reported (trace) and left as written: the workbench never runs them (Claude
  Code would run them and splice in their output).

Decisions (reference silent): any argument placeholder ($ARGUMENTS, $ARGUMENTS[N], $N, $name)
suppresses the appended ``ARGUMENTS:`` line; missing positions become ""; ``${CLAUDE_EFFORT}`` is
left as written (no effort level is simulated). An unknown skill name gets an error result listing
the valid names (OpenCode's behaviour; Claude Code's own wording is not public).
"""

from __future__ import annotations

import re
import shlex
from pathlib import Path
from typing import Any

from workbench.core.chat.loadkit import (Loader, ToolContext, ToolOutcome, ToolSpec, current_body,
                                         find_injections, find_listed, make_read_tool)
from workbench.core.text import plural

_ARG_INDEX = re.compile(r"\$ARGUMENTS\[(\d+)\]")
_ARG_ALL = re.compile(r"\$ARGUMENTS(?![\[\w])")
_ARG_POS = re.compile(r"\$(\d+)(?!\w)")


def split_args(args: str) -> list[str]:
    """Positional arguments, shell-quoting aware (``shlex``); falls back to whitespace split on
    unbalanced quotes."""
    try:
        return shlex.split(args)
    except ValueError:
        return args.split()


def _declared(skill: Any) -> list[str]:
    v = (getattr(skill, "fields", None) or {}).get("arguments")
    if isinstance(v, str):
        return [x for x in v.split() if x]
    if isinstance(v, list):
        return [str(x) for x in v if isinstance(x, (str, int))]
    return []


def substitute(body: str, args: str | None, skill_dir: Path, session_id: str = "",
               declared: list[str] | None = None) -> str:
    """Apply Claude Code's body substitutions (module docstring). ``args`` None or "" = no args.

    >>> substitute("Run $0 then $ARGUMENTS[1].", "a 'b c'", Path("/s"))
    'Run a then b c.'
    >>> substitute("Do it.", "x y", Path("/s"))
    'Do it.\\n\\nARGUMENTS: x y'
    """
    a = args or ""
    pos = split_args(a) if a else []
    declared = declared or []
    named = re.compile(r"\$(" + "|".join(re.escape(n) for n in declared) + r")(?!\w)") if declared else None
    had = bool(_ARG_INDEX.search(body) or _ARG_ALL.search(body) or _ARG_POS.search(body)
               or (named and named.search(body)))

    def at(i: int) -> str:
        return pos[i] if 0 <= i < len(pos) else ""

    out = _ARG_INDEX.sub(lambda m: at(int(m.group(1))), body)
    out = _ARG_ALL.sub(lambda m: a, out)
    out = _ARG_POS.sub(lambda m: at(int(m.group(1))), out)
    if named:
        out = named.sub(lambda m: at(declared.index(m.group(1))), out)
    out = out.replace("${CLAUDE_SKILL_DIR}", str(skill_dir))
    if session_id:
        out = out.replace("${CLAUDE_SESSION_ID}", session_id)
    if a and not had:
        out = out.rstrip("\n") + f"\n\nARGUMENTS: {a}"
    return out


class ClaudeCodeLoader(Loader):
    def wrap_listing(self, text: str) -> str:
        t = text.strip("\n")
        if t.startswith("<system-reminder>"):
            return t
        return f"<system-reminder>\n{t}\n</system-reminder>"

    def tools(self, skills: list) -> list[ToolSpec]:
        schema = {
            "type": "object",
            "properties": {
                "skill": {"type": "string",
                          "description": "Exact name of a skill from the skills listing (no leading slash)."},
                "args": {"type": "string", "description": "Arguments for the skill, if any."},
            },
            "required": ["skill"],
        }
        desc = ("Run one of the skills named in the skills listing (a system-reminder in the "
                "conversation). When a listed skill fits the user's task, call this first with its "
                "exact name; the skill's instructions then appear in the conversation. Do not "
                "invent names.")
        return [ToolSpec("Skill", desc, schema, self._load)]

    def read_tool(self) -> ToolSpec:
        return make_read_tool("read_file", "path")

    def _load(self, inp: dict, ctx: ToolContext) -> ToolOutcome:
        name = inp.get("skill")
        args = inp.get("args")
        if args is not None and not isinstance(args, str):
            args = str(args)
        skill = find_listed(ctx.skills, name)
        if skill is None:
            names = ", ".join(s.name for s in ctx.skills) or "(none)"
            return ToolOutcome(f"Unknown skill: {name}. Available skills: {names}", is_error=True,
                               resolved=str(name))
        raw = current_body(skill)
        injections = find_injections(raw)
        body = substitute(raw, args, skill.dir, ctx.session_id, _declared(skill))
        text = f"Base directory for this skill: {skill.dir}\n\n{body.strip()}"
        notes = ["body delivered as a separate user-turn block after the tool_result "
                 "('Base directory for this skill:' prefix unverified)"]
        if injections:
            notes.append(f"{plural(len(injections), '!`command` injection')} left unrun")
        return ToolOutcome(f"Launching skill: {skill.name}", skill=skill.name, skill_path=str(skill.path),
                           resolved=skill.name, body_chars=len(text),
                           extra_blocks=[{"type": "text", "text": text}], injections=injections,
                           args=args, notes=notes)


LOADER = ClaudeCodeLoader(
    client_id="claude-code",
    placement="user-reminder",
    placement_note="a <system-reminder> block at the start of the first user turn",
    load_tool="Skill",
    source="clients.md §1 (Claude Code 2.1.x; Piebald-AI/claude-code-system-prompts "
           "tool-description-invoke-skill.md; code.claude.com/docs/en/skills)",
    unverified=["'Base directory for this skill:' body prefix", "exact listing line template",
                "which placeholders suppress the appended 'ARGUMENTS:' line"],
)
