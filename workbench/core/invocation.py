"""What happens after a skill loads, per client: the ``invoked`` step of ``workbench explain``.

A skill can be found and listed and still fail once it loads (issue 17): its body is rewritten by
argument substitution, it runs in a fork that cannot see the conversation, its name takes over a
built-in command, its relative paths resolve against the wrong folder, or the load path cuts it.
``invocation_findings(skill, client_id)`` returns ``Note(level, title, detail, fix)`` tuples (explain
turns them into its ``invoked`` findings), built from:

* the client's load mechanism (``clients/<id>/loading.py`` ``LOADER``);
* ``context: fork`` for Claude Code (checked on 2.1.328, ``clients/claude_code/loading.py``);
* the lint rules that model these cases, run with the client's profile (one place for each
  detection): CC013 (``$N`` in code), CC014 (fork relies on the conversation), CC015 (built-in
  command name), CX003 (Codex ignores ``disable-model-invocation``), BODY009 (skill-relative
  paths), BODY010 (load-path size limits).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, NamedTuple

if TYPE_CHECKING:
    from workbench.core.model import Skill


class Note(NamedTuple):
    """One finding of the ``invoked`` step (level ok|info|warn|error; ``fix`` may be None)."""

    level: str
    title: str
    detail: str = ""
    fix: str | None = None


#: Lint codes that describe what happens once a skill loads.
INVOCATION_CODES = ("CC013", "CC014", "CC015", "CX003", "BODY009", "BODY010")

_LEVEL = {"error": "error", "warning": "warn", "info": "info"}


def _mechanism(client_id: str) -> str:
    from workbench.core.chat.engine import get_loader

    try:
        d = get_loader(client_id).describe()
    except (KeyError, ImportError, ModuleNotFoundError):
        return ""
    if d.get("load_tool"):
        return f"The model loads it with the {d['load_tool']} tool."
    return f"The model loads it by reading SKILL.md ({d.get('read_tool')}); there is no skill tool."


def invocation_findings(skill: Skill, client_id: str) -> list[Note]:
    """Findings of the ``invoked`` step for one skill in one client (ordered: mechanism first)."""
    from workbench.core.lint import lint_file
    from workbench.core.lint.profiles import lint_profile

    fields: dict[str, Any] = getattr(skill, "fields", None) or {}
    out: list[Note] = []
    mech = _mechanism(client_id)
    if client_id == "claude-code" and fields.get("context") == "fork":
        agent = fields.get("agent") if isinstance(fields.get("agent"), str) else "the default agent"
        out.append(
            Note(
                "info",
                f"Runs as a subagent ({agent}), not in the conversation",
                "context: fork: the subagent's only message is this skill's body (after 'Base directory for "
                "this skill') with the arguments substituted; it does not see the conversation, and only its "
                "final text comes back as the Skill result (checked on Claude Code 2.1.328).",
                "Pass everything it needs as arguments ($ARGUMENTS), or drop context: fork if it needs "
                "the conversation.",
            )
        )
    try:
        profile = lint_profile(client_id)
    except KeyError:
        profile = None
    diags = []
    if profile is not None:
        diags = [d for d in lint_file(skill.path, profile=profile) if d.code in INVOCATION_CODES]
    for d in diags:
        out.append(
            Note(
                _LEVEL.get(d.severity, "info"),
                f"{d.code}: {d.message}",
                f"{skill.path}:{d.line}:{d.column}",
                d.fix.title if d.fix else None,
            )
        )
    if not out:
        out.append(Note("ok", "Nothing changes the skill when it loads", mech))
    elif mech:
        out[0] = out[0]._replace(detail=(mech + " " + out[0].detail).strip())
    return out
