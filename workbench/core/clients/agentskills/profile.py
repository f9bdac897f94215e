"""The plain Agent Skills specification (agentskills.io) as a lenient reference client.

Sources (../shared/reference/clients.md section 0): ``agentskills/agentskills`` @69ef37e9:
``docs/specification.mdx``, ``docs/client-implementation/adding-skills-support.mdx`` (the client
guide: roots, scan bounds, collisions, lenient loading, trust), ``skills-ref`` validator.

The spec fixes no locations; the client guide recommends ``<project>/.agents/skills`` and
``~/.agents/skills`` ("project-level skills override user-level skills"). Our choices where the
guide leaves a range (decisions, documented here): scan depth 6 (the guide suggests 4–6), no
descent below a folder that holds a SKILL.md (its subfolders are its resources), ``.git`` and
``node_modules`` skipped, symlinks followed, first found (sorted path) wins inside one scope,
project skills gated when the folder is untrusted (the guide "suggests gating project skills on
folder trust").
"""

from __future__ import annotations

from workbench.core.clients.base import Found, ReadResult
from workbench.core.clients.common import (
    CommonProfile,
    WalkRules,
    folder_name,
    quote_retry,
    unreadable,
)
from workbench.core.model import Environment, Root, Skill, SkillStatus
from workbench.core.skillfile import SkillFile

MAX_NAME = 64
SCAN_DEPTH = 6


class AgentSkillsProfile(CommonProfile):
    """The spec's lenient client guide: project > user; warn-and-load on name problems."""

    id = "agentskills"
    display_name = "Agent Skills spec"
    version_note = "agentskills/agentskills @69ef37e9 (specification.mdx, adding-skills-support.mdx)"
    client_version = "spec"
    collision = "higher-wins"
    rules = WalkRules(
        max_depth=SCAN_DEPTH,
        min_depth=1,
        skip_dot=False,
        stop_at_skill=True,
        symlinks="follow",
        client="the agentskills client guide",
    )

    def roots(self, env: Environment) -> list[Root]:
        guide = "adding-skills-support.mdx: recommended locations"
        cond = (
            None if env.trusted else "untrusted folder: project skills gated on folder trust (client guide)"
        )
        out = [
            self.make_root(
                env.workspace / ".agents" / "skills",
                "project",
                "project (.agents/skills)",
                guide,
                condition=cond,
                active=env.trusted,
            ),
            self.make_root(env.home / ".agents" / "skills", "user", "user (~/.agents/skills)", guide),
        ]
        self.number(out)
        out.extend(self.extra_roots(env, len(out)))
        return out

    def read(self, sf: SkillFile, found: Found, root: Root, env: Environment) -> ReadResult:
        """Lenient loading (client guide): unparseable YAML → retry with quoting for unquoted
        ``key: value: with colon`` values, else skip; missing/empty description → skip; name
        missing → folder name; name ≠ folder or > 64 chars → warn and load."""
        folder = folder_name(found)
        if unreadable(sf):
            return ReadResult(False, name=folder, mode="failed", reason=sf.message or sf.state)
        mode, note = "strict", ""
        if sf.ok:
            data = dict(sf.data or {})
        elif sf.state == "yaml-error":
            retried = quote_retry(sf.frontmatter)
            if retried is None:
                return ReadResult(False, name=folder, mode="failed", reason=f"unparseable YAML: {sf.message}")
            data = retried
            mode, note = "fallback", "YAML failed; loaded after quoting values with unquoted colons"
        elif sf.state == "no-frontmatter":
            return ReadResult(False, name=folder, mode="failed", reason="no frontmatter: description missing")
        else:
            return ReadResult(False, name=folder, mode="failed", reason=sf.message or sf.state)
        desc = data.get("description")
        raw_name = data.get("name")
        name = raw_name.strip() if isinstance(raw_name, str) and raw_name.strip() else folder
        if not isinstance(desc, str) or not desc.strip():
            return ReadResult(
                False, name=name, mode="failed", fields=data, reason="description missing or empty: skipped"
            )
        warns = []
        if not isinstance(raw_name, str) or not raw_name.strip():
            warns.append("name missing: folder name used")
        elif name != folder:
            warns.append(f"warning: name '{name}' differs from the folder '{folder}' (loaded anyway)")
        if len(name) > MAX_NAME:
            warns.append(f"warning: name is {len(name)} chars, over {MAX_NAME} (loaded anyway)")
        if warns:
            note = "; ".join(([note] if note else []) + warns)
        return ReadResult(True, name=name, description=desc, fields=data, mode=mode, note=note)

    def gate(self, skill: Skill, env: Environment) -> tuple[SkillStatus, str] | None:
        """Filtered skills (``disable-model-invocation``) are hidden from the catalog entirely."""
        if skill.fields.get("disable-model-invocation") is True:
            return (SkillStatus.HIDDEN, "disable-model-invocation: true: hidden from the catalog")
        return None

    def shadow_reason(self, loser: Skill, winner: Skill) -> str:
        if loser.root.path == winner.root.path:
            return f"warning: name '{loser.name}' found twice in one scope; first found wins ({winner.path})"
        return f"project-level skills override user-level skills: '{loser.name}' also in {winner.root.label}"


PROFILE = AgentSkillsProfile()
