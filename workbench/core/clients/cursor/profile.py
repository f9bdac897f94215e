"""Cursor discovery rules (closed source; almost everything here is *unverified*).

Sources (../shared/reference/clients.md section 7): cursor.com/docs/context/skills [docs] (2026);
third-party guides [3p] for ``.agents/skills``.

Roots [docs]: project ``.cursor/skills``, ``.claude/skills``, ``.codex/skills`` (+ ``.agents/skills``
[3p]); user ``~/.cursor/skills``, ``~/.claude/skills``, ``~/.codex/skills`` (+ ``~/.agents/skills``
[3p]). ``~/.cursor/skills-cursor`` holds Cursor's built-ins (not simulated).

Best-known behaviour, all *unverified* (precedence, depth, symlinks, invalid files): project
before user, in the order above; first wins on a name clash; one level deep; symlinks followed;
``name`` required and equal to the folder name, ``description`` required, otherwise skipped;
bad YAML skipped; ``disable-model-invocation: true`` → hidden.
"""

from __future__ import annotations

from workbench.core.clients.base import Found, ReadResult
from workbench.core.clients.common import CommonProfile, WalkRules, folder_name, unreadable
from workbench.core.model import Environment, Root, Skill, SkillStatus
from workbench.core.skillfile import SkillFile

UNV_ORDER = "Cursor precedence/collision rule (project > user, first wins) is unverified"
UNV_READ = (
    "Cursor's handling of invalid skills is unverified (docs: name must match folder, description required)"
)


class CursorProfile(CommonProfile):
    """Cursor: project then user roots, first wins, one level (all unverified)."""

    id = "cursor"
    display_name = "Cursor"
    version_note = "cursor.com/docs/context/skills (2026); mostly unverified"
    collision = "higher-wins"
    rules = WalkRules(max_depth=1, min_depth=1, skip_dot=False, symlinks="follow", client="Cursor")

    def roots(self, env: Environment) -> list[Root]:
        ws, h = env.workspace, env.home
        doc = "cursor.com/docs/context/skills"
        out = [
            self.make_root(
                ws / ".cursor" / "skills", "project", "project (.cursor/skills)", doc, verified=False
            ),
            self.make_root(
                ws / ".claude" / "skills", "project", "project (.claude/skills)", doc, verified=False
            ),
            self.make_root(
                ws / ".codex" / "skills", "project", "project (.codex/skills)", doc, verified=False
            ),
            self.make_root(
                ws / ".agents" / "skills",
                "project",
                "project (.agents/skills) [3p]",
                "third-party guides",
                verified=False,
            ),
            self.make_root(h / ".cursor" / "skills", "user", "user (~/.cursor/skills)", doc, verified=False),
            self.make_root(h / ".claude" / "skills", "user", "user (~/.claude/skills)", doc, verified=False),
            self.make_root(h / ".codex" / "skills", "user", "user (~/.codex/skills)", doc, verified=False),
            self.make_root(
                h / ".agents" / "skills",
                "user",
                "user (~/.agents/skills) [3p]",
                "third-party guides",
                verified=False,
            ),
        ]
        self.number(out)
        out.extend(self.extra_roots(env, len(out)))
        return out

    def read(self, sf: SkillFile, found: Found, root: Root, env: Environment) -> ReadResult:
        """Docs rules applied strictly (skip otherwise); all marked unverified."""
        folder = folder_name(found)
        unv = [UNV_READ, UNV_ORDER]
        if unreadable(sf):
            return ReadResult(
                False, name=folder, mode="failed", reason=sf.message or sf.state, unverified=unv
            )
        if not sf.ok:
            return ReadResult(
                False,
                name=folder,
                mode="failed",
                unverified=unv,
                reason=f"{sf.message or sf.state} (assumed skipped)",
            )
        data = sf.data or {}
        name, desc = data.get("name"), data.get("description")
        if not isinstance(name, str) or not name.strip():
            return ReadResult(
                False,
                name=folder,
                mode="failed",
                unverified=unv,
                fields=dict(data),
                reason="name is required (assumed skipped)",
            )
        if name != folder:
            return ReadResult(
                False,
                name=name,
                mode="failed",
                unverified=unv,
                fields=dict(data),
                reason=f"name '{name}' must match the folder '{folder}' (assumed skipped)",
            )
        if not isinstance(desc, str) or not desc.strip():
            return ReadResult(
                False,
                name=name,
                mode="failed",
                unverified=unv,
                fields=dict(data),
                reason="description is required (assumed skipped)",
            )
        return ReadResult(True, name=name, description=desc, fields=dict(data), unverified=unv)

    def gate(self, skill: Skill, env: Environment) -> tuple[SkillStatus, str] | None:
        if skill.fields.get("disable-model-invocation") is True:
            return (SkillStatus.HIDDEN, "disable-model-invocation: true: explicit /name only")
        return None


PROFILE = CursorProfile()
