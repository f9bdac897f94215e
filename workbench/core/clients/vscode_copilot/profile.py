"""GitHub Copilot in VS Code discovery rules.

Sources (../shared/reference/clients.md section 6): ``microsoft/vscode``
``promptSyntax/config/promptFileLocations.ts`` (``DEFAULT_SKILL_SOURCE_FOLDERS``),
``promptSyntax/service/promptsServiceImpl.ts`` (``computeSkillDiscoveryInfo``, newest and older),
``promptSyntax/utils/promptFilesLocator.ts`` (``findAgentSkillsInFolder``);
code.visualstudio.com/docs/agent-customization/agent-skills [docs].

Roots (newest), first wins: workspace ``.github/skills``, ``.agents/skills``, ``.claude/skills``,
then personal ``~/.copilot/skills``, ``~/.agents/skills``, ``~/.claude/skills`` (older builds lacked
the ``.agents`` pair), then extra roots. ``chat.agentSkillsLocations``, plugins and extension
skills are not simulated. Depth: only direct child folders holding a SKILL.md. Symlinks: not
documented; assumed followed.
"""

from __future__ import annotations

from workbench.core.clients.base import Found, ReadResult
from workbench.core.clients.common import CommonProfile, WalkRules, folder_name, strip_tags, unreadable
from workbench.core.model import Environment, Root, Skill, SkillStatus
from workbench.core.skillfile import SkillFile

MAX_NAME = 64
MAX_DESCRIPTION = 1024
OLDER = (
    "older VS Code builds skip a skill whose name is missing or differs from its folder "
    "(name-mismatch); the newest fall back to the folder name"
)


class VsCodeCopilotProfile(CommonProfile):
    """VS Code Copilot: workspace before personal, first wins; direct child folders only."""

    id = "vscode-copilot"
    display_name = "VS Code Copilot"
    version_note = "microsoft/vscode promptsServiceImpl.ts computeSkillDiscoveryInfo (newest)"
    collision = "higher-wins"  # first in the stable-sorted order wins
    rules = WalkRules(max_depth=1, min_depth=1, skip_dot=False, symlinks="follow", client="VS Code")

    def roots(self, env: Environment) -> list[Root]:
        ws, h = env.workspace, env.home
        src = "promptFileLocations.ts DEFAULT_SKILL_SOURCE_FOLDERS"
        out = [
            self.make_root(ws / ".github" / "skills", "project", "workspace (.github/skills)", src),
            self.make_root(ws / ".agents" / "skills", "project", "workspace (.agents/skills)", src),
            self.make_root(ws / ".claude" / "skills", "project", "workspace (.claude/skills)", src),
            self.make_root(h / ".copilot" / "skills", "user", "personal (~/.copilot/skills)", src),
            self.make_root(h / ".agents" / "skills", "user", "personal (~/.agents/skills)", src),
            self.make_root(h / ".claude" / "skills", "user", "personal (~/.claude/skills)", src),
        ]
        self.number(out)
        out.extend(self.extra_roots(env, len(out)))
        return out

    def read(self, sf: SkillFile, found: Found, root: Root, env: Environment) -> ReadResult:
        """Parse error → skipped (``parse-error``). Name: newest builds use the folder name when
        the frontmatter name is missing or differs (older builds skipped: noted as unverified
        version behaviour). Tags stripped (``/<[^>]+>/g``) from name and description; name cut
        to 64, description to 1024 chars. A missing description keeps the skill (not listed)."""
        folder = folder_name(found)
        if unreadable(sf):
            return ReadResult(False, name=folder, mode="failed", reason=sf.message or sf.state)
        if sf.state in ("yaml-error", "not-mapping", "unclosed"):
            return ReadResult(False, name=folder, mode="failed", reason=f"parse-error: {sf.message}")
        data = sf.data or {}
        notes, unv = [], []
        raw = data.get("name")
        name = strip_tags(raw).strip() if isinstance(raw, str) else ""
        if name != folder:
            notes.append(
                "no name: folder name used"
                if not name
                else f"name '{name}' differs from the folder: folder name used"
            )
            unv.append(OLDER)
            name = folder
        name = strip_tags(name)[:MAX_NAME]
        desc = data.get("description")
        desc = strip_tags(desc) if isinstance(desc, str) else ""
        if len(desc) > MAX_DESCRIPTION:
            notes.append(f"description cut from {len(desc)} to {MAX_DESCRIPTION} chars")
            desc = desc[:MAX_DESCRIPTION]
        return ReadResult(
            True,
            name=name,
            description=desc,
            fields=dict(data),
            mode="strict",
            note="; ".join(notes),
            unverified=unv,
        )

    def gate(self, skill: Skill, env: Environment) -> tuple[SkillStatus, str] | None:
        """Listed only with a description and without ``disable-model-invocation``."""
        if skill.fields.get("disable-model-invocation") is True:
            return (SkillStatus.HIDDEN, "disable-model-invocation: true: not listed")
        if not skill.description.strip():
            return (SkillStatus.HIDDEN, "missing-description: loaded but not listed")
        ui = skill.fields.get("user-invocable", skill.fields.get("user-invokable"))
        if ui is False:
            skill.flags["user_invocable"] = False
        return None

    def shadow_reason(self, loser: Skill, winner: Skill) -> str:
        return f"duplicate-name: '{loser.name}' already loaded from {winner.path} (first wins)"


PROFILE = VsCodeCopilotProfile()
