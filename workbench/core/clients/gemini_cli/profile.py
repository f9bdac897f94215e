"""Gemini CLI discovery rules.

Sources (../shared/reference/clients.md section 4): ``google-gemini/gemini-cli`` @5411f113:
``packages/core/src/skills/skillLoader.ts`` (glob, frontmatter regex, js-yaml + line-parser
fallback, string checks, name sanitising), ``skillManager.ts`` (tiers, later overrides,
trust), ``docs/cli/skills.md``.

Roots, lowest → highest (a later tier overrides the same name with a warning): built-in (not
simulated) → extensions (not simulated) → ``~/.gemini/skills`` → ``~/.agents/skills`` →
``<cwd>/.gemini/skills`` → ``<cwd>/.agents/skills``. The two workspace tiers load only when the
folder is trusted. No ancestor walk, no nested discovery. We list roots highest first.

Depth: glob ``['SKILL.md', '*/SKILL.md']`` (the root itself or one level), ignoring
``**/node_modules/**`` and ``**/.git/**``. Whether ``*`` matches dot-folders (glob ``dot``
option) is *unverified*; we assume not.
"""

from __future__ import annotations

import re

from workbench.core.clients.base import Found, ReadResult
from workbench.core.clients.common import CommonProfile, WalkRules, folder_name, unreadable
from workbench.core.model import Environment, Root, Skill
from workbench.core.skillfile import SkillFile

_SANITISE = re.compile(r'[:\\/<>*?"|]')


def sanitise_name(name: str) -> str:
    """``name.replace(/[:\\\\/<>*?"|]/g, '-')`` (skillLoader.ts)."""
    return _SANITISE.sub("-", name)


class GeminiCliProfile(CommonProfile):
    """Gemini CLI: workspace (trusted only) > user tiers; root or one level deep."""

    id = "gemini-cli"
    display_name = "Gemini CLI"
    version_note = "google-gemini/gemini-cli @5411f113 skillLoader.ts, skillManager.ts"
    client_version = "0.61.0"  # real-clients.md
    collision = "higher-wins"
    within_root = "last"  # later-loaded wins with a warning; glob order within a tier assumed sorted
    rules = WalkRules(max_depth=1, min_depth=0, skip_dot=True, symlinks="follow", client="Gemini CLI")

    def roots(self, env: Environment) -> list[Root]:
        cwd = env.cwd or env.workspace
        cond = None if env.trusted else "untrusted folder: Gemini CLI loads workspace skills only in trusted folders"
        out = [
            self.make_root(cwd / ".agents" / "skills", "project", "workspace (.agents/skills)",
                           "skillManager.ts: <cwd>/.agents/skills (highest tier, trusted only)",
                           condition=cond, active=env.trusted),
            self.make_root(cwd / ".gemini" / "skills", "project", "workspace (.gemini/skills)",
                           "skillManager.ts: <cwd>/.gemini/skills (trusted only)",
                           condition=cond, active=env.trusted),
            self.make_root(env.home / ".agents" / "skills", "user", "user (~/.agents/skills)",
                           "skillManager.ts: ~/.agents/skills"),
            self.make_root(env.home / ".gemini" / "skills", "user", "user (~/.gemini/skills)",
                           "skillManager.ts: ~/.gemini/skills"),
        ]
        self.number(out)
        out.extend(self.extra_roots(env, len(out)))
        return out

    def read(self, sf: SkillFile, found: Found, root: Root, env: Environment) -> ReadResult:
        """Regex ``^---\\r?\\n([\\s\\S]*?)\\r?\\n---`` (so a BOM before ``---`` means no
        frontmatter), js-yaml then the line parser (unquoted colons, indented continuation
        lines); ``name`` and ``description`` must be (non-empty) strings or the file is silently
        skipped; name sanitised ``[:\\\\/<>*?"|]`` → ``-``. Other fields ignored."""
        folder = folder_name(found)
        if unreadable(sf):
            return ReadResult(False, name=folder, mode="failed", reason=sf.message or sf.state)
        if sf.has_bom:
            return ReadResult(False, name=folder, mode="failed",
                              reason="UTF-8 BOM before '---': the frontmatter regex does not match; "
                                     "silently skipped")
        if not sf.has_frontmatter_block:
            return ReadResult(False, name=folder, mode="failed",
                              reason="no frontmatter: silently skipped")
        mode, note = "strict", ""
        if sf.ok:
            data = sf.data or {}
        else:
            data = {k: lf.value for k, lf in sf.line_fields().items()}
            mode = "fallback"
            note = f"YAML failed ({sf.message}); read with the line parser" if sf.state != "empty" else ""
        name, desc = data.get("name"), data.get("description")
        if not isinstance(name, str) or not name:
            return ReadResult(False, name=folder, mode="failed", fields=data,
                              reason="name missing or not a string: silently skipped")
        if not isinstance(desc, str) or not desc:
            return ReadResult(False, name=name, mode="failed", fields=data,
                              reason="description missing or not a string: silently skipped")
        clean = sanitise_name(name)
        if clean != name:
            note = (note + "; " if note else "") + f"name sanitised to {clean}"
        return ReadResult(True, name=clean, description=desc,
                          fields={"name": clean, "description": desc}, mode=mode, note=note)

    def listing_order(self, skills: list[Skill]) -> list[Skill]:
        """Load order (tiers lowest → highest), as ``SkillManager`` keeps them."""
        return sorted(skills, key=lambda s: (-s.root.precedence, str(s.path)))


PROFILE = GeminiCliProfile()
