"""GitHub Copilot CLI discovery rules (``@github/copilot``).

Source: the real client, checked on GitHub Copilot CLI 1.0.102 by the conformance lab
(tests/conformance, scenarios ``copilot-*`` and the shared matrix); ``copilot help environment``.
The client is closed source; everything here is observed behaviour.

Roots, first wins on a name clash: workspace ``.github/skills`` > ``.agents/skills`` >
``.claude/skills`` > personal ``~/.copilot/skills`` (``$COPILOT_HOME/skills``) > ``~/.agents/skills``.
Folder trust does not gate them: ``copilot -p`` lists workspace skills without
``COPILOT_ALLOW_ALL=true`` (lab: copilot-untrusted); interactively the trust prompt comes first.
``~/.claude/skills``, ``.codex`` and ``.gemini`` folders are not read.

Walk: the root itself and any depth below it (grouping folders and ``node_modules`` are entered),
folders starting with "." are not, nothing below a folder that holds a SKILL.md (a SKILL.md in the
root itself hides every skill below it), symlinked folders and symlinked SKILL.md files followed,
the file name must be exactly ``SKILL.md``.
"""

from __future__ import annotations

import re
from pathlib import Path

from workbench.core.clients.base import Found, ReadResult
from workbench.core.clients.common import CommonProfile, WalkRules, folder_name, unreadable
from workbench.core.model import Environment, Root, Skill, SkillStatus
from workbench.core.skillfile import SkillFile, collapse_ws

CLIENT_VERSION = "1.0.102"
_SPACES = re.compile(r"\s+")
MAX_DESCRIPTION = 1024  # a longer description refuses the skill (lab: long-description)


class CopilotCliProfile(CommonProfile):
    """GitHub Copilot CLI: workspace before personal, first wins; strict YAML."""

    id = "copilot-cli"
    display_name = "GitHub Copilot CLI"
    version_note = f"GitHub Copilot CLI {CLIENT_VERSION} (observed by the conformance lab)"
    client_version = CLIENT_VERSION  # lab: tests/conformance (pinned version)
    lab_checked = True
    collision = "higher-wins"
    rules = WalkRules(
        max_depth=8,
        min_depth=0,
        skip_dot=True,
        stop_at_skill=True,
        skip_names=frozenset({".git"}),
        walk_names=frozenset({"node_modules"}),
        symlinks="follow",
        client="Copilot CLI",
    )

    def copilot_home(self, env: Environment) -> Path:
        """``$COPILOT_HOME`` or ``~/.copilot``."""
        v = env.getenv("COPILOT_HOME")
        return Path(v).expanduser() if v else env.home / ".copilot"

    def roots(self, env: Environment) -> list[Root]:
        ws = env.cwd or env.workspace
        src = f"observed on Copilot CLI {CLIENT_VERSION} by the lab"
        out = [
            self.make_root(ws / sub / "skills", "project", f"workspace ({sub}/skills)", src)
            for sub in (".github", ".agents", ".claude")
        ]
        out += [
            self.make_root(self.copilot_home(env) / "skills", "user", "personal (~/.copilot/skills)", src),
            self.make_root(env.home / ".agents" / "skills", "user", "personal (~/.agents/skills)", src),
        ]
        self.number(out)
        out.extend(self.extra_roots(env, len(out)))
        return out

    def read(self, sf: SkillFile, found: Found, root: Root, env: Environment) -> ReadResult:
        """Strict YAML frontmatter (a YAML error such as an unquoted ``: `` in a plain value, a
        tab indent, an unclosed block, a key defined twice → refused, as ``copilot skill list``
        reports; frontmatter that is not a mapping counts as empty); a BOM, CRLF
        and spaces after the fences are accepted. ``name``: a non-empty string (runs of
        whitespace become "-"), or the folder name when missing; ``description``: a string
        (trimmed; an empty one is kept), or the whole body with whitespace collapsed when
        missing; any other type, or a description over 1,024 chars → refused. Checked on
        Copilot CLI 1.0.102 by the lab (yaml-*, name-*, description-*, long-description)."""
        folder = folder_name(found)
        if unreadable(sf):
            return ReadResult(False, name=folder, mode="failed", reason=sf.message or sf.state)
        if not sf.ok and sf.state != "not-mapping":
            return ReadResult(
                False,
                name=folder,
                mode="failed",
                reason=f"invalid frontmatter ({sf.state}): {sf.message}; not loaded",
            )
        if sf.duplicate_keys:
            key = sf.duplicate_keys[0][0]
            return ReadResult(
                False,
                name=folder,
                mode="failed",
                reason=f"invalid frontmatter: the key '{key}' is defined twice; not loaded",
            )
        data = sf.data if isinstance(sf.data, dict) else {}
        name, desc = data.get("name", folder), data.get("description")
        if not isinstance(name, str):
            return ReadResult(
                False,
                name=folder,
                mode="failed",
                fields=data,
                reason=f"name must be a string, got {type(name).__name__}; not loaded",
            )
        if not name.strip():
            return ReadResult(False, name=folder, mode="failed", fields=data, reason="empty name; not loaded")
        notes = [] if "name" in data else ["no name: folder name used"]
        clean = _SPACES.sub("-", name.strip())
        if clean != name:
            notes.append(f"name written as {clean} (spaces become '-')")
        if desc is None:
            desc = collapse_ws(sf.body)
            notes.append("no description: the body (whitespace collapsed) used")
        if not isinstance(desc, str):
            return ReadResult(
                False,
                name=clean,
                mode="failed",
                fields=data,
                reason=f"description must be a string, got {type(desc).__name__}; not loaded",
            )
        if len(desc.strip()) > MAX_DESCRIPTION:
            return ReadResult(
                False,
                name=clean,
                mode="failed",
                fields=data,
                reason=f"description longer than {MAX_DESCRIPTION} characters "
                f"({len(desc.strip())}); not loaded",
            )
        return ReadResult(
            True,
            name=clean,
            description=desc.strip(),
            fields=dict(data),
            mode="strict",
            note="; ".join(notes),
        )

    def gate(self, skill: Skill, env: Environment) -> tuple[SkillStatus, str] | None:
        """``disable-model-invocation: true`` → not listed (the user can still run it)."""
        if skill.fields.get("disable-model-invocation") is True:
            return (SkillStatus.HIDDEN, "disable-model-invocation: true: not listed")
        if skill.fields.get("user-invocable") is False:
            skill.flags["user_invocable"] = False
        return None

    def shadow_reason(self, loser: Skill, winner: Skill) -> str:
        return (
            f"name '{loser.name}' is also defined in {winner.root.label or winner.root.path}, "
            "which comes first (first found wins)"
        )

    def listing_order(self, skills: list[Skill]) -> list[Skill]:
        """Workspace skills (all three roots together) by name in code-point order, then each
        personal root in turn by name, then extra roots. Checked on Copilot CLI 1.0.102 by the
        lab (copilot-order, clash scenarios)."""

        def key(s: Skill) -> tuple[int, int, str]:
            if s.root.scope == "project":
                return (0, 0, s.name)
            return (1, s.root.precedence, s.name)

        return sorted(skills, key=key)


PROFILE = CopilotCliProfile()
