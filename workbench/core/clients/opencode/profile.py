"""OpenCode discovery rules.

Sources (../shared/reference/clients.md section 5): ``anomalyco/opencode``
``packages/opencode/src/skill/index.ts`` @a2cc772e (V2) and @048f74f4 (older);
opencode.ai/v1/docs/skills [docs]; issue #9294.

Scan order (a later skill with the same name **overwrites** an earlier one, warning "duplicate
skill name"): (a) unless ``OPENCODE_DISABLE_EXTERNAL_SKILLS``: ``~/.claude/skills`` (not with
``OPENCODE_DISABLE_CLAUDE_CODE_SKILLS``), ``~/.agents/skills``, then ``.claude/skills`` and
``.agents/skills`` in each folder from the cwd up to the git worktree; (b) config dirs
``~/.config/opencode``, ``.opencode`` walked up from the cwd, ``$OPENCODE_CONFIG_DIR``, each with
``skill/`` and ``skills/``; then extra roots. Built-in ``opencode`` skill not simulated.

Because the last scanned wins, roots are listed in *reverse* scan order (precedence 0 = scanned
last = wins). V2 parses concurrently, so the real winner is effectively racy (*unverified*):
every collision is marked so. Depth unlimited, symlinks followed, dot-folders included.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import yaml

from workbench.core.clients.base import Found, ReadResult
from workbench.core.clients.common import (
    CommonProfile,
    WalkRules,
    folder_name,
    retry_quoted,
    unreadable,
    walk_up,
)
from workbench.core.model import Environment, Root, Skill, SkillStatus
from workbench.core.skillfile import SkillFile

try:
    from yaml import CSafeLoader as _Loader
except ImportError:  # pragma: no cover - PyYAML without libyaml
    from yaml import SafeLoader as _Loader

RACY = (
    "racy: OpenCode parses skills concurrently, so either copy can win a name clash (the lab "
    "saw both outcomes across 3 runs: clash-same-root, clash-opencode-*; OpenCode 1.18.33)"
)


def lenient_read(frontmatter: str) -> dict[str, Any] | None:
    """OpenCode's second try at frontmatter strict YAML rejects: a tab before a top-level key is
    dropped, then the text is parsed again, then once more with values holding ``": "`` quoted
    (``common.retry_quoted``). The mapping, or None (then the file is skipped). Checked on
    OpenCode 1.18.33 by the lab: ``yaml-unquoted-colon`` and ``yaml-tab`` are read;
    ``yaml-unclosed-quote``, ``yaml-bad-indent`` and ``yaml-duplicate-key`` are skipped."""
    text = "\n".join(line.lstrip("\t") for line in frontmatter.split("\n"))
    if text != frontmatter:
        try:
            data = yaml.load(text, Loader=_Loader)  # noqa: S506 - a safe loader
        except yaml.YAMLError:
            data = None
        if isinstance(data, dict):
            return data
    return retry_quoted(text)


def has_description(skill: Skill) -> bool:
    """Whether OpenCode lists ``skill``: a non-empty description, or a ``description`` key whose
    value is a string (even ``""``)."""
    return bool(skill.description.strip()) or isinstance(skill.fields.get("description"), str)


def _flag(env: Environment, key: str) -> bool:
    v = env.getenv(key)
    return v is not None and bool(v) and v.strip().lower() not in ("0", "false", "")


class OpenCodeProfile(CommonProfile):
    """OpenCode: last scanned wins; unlimited depth; description optional (unlisted without)."""

    id = "opencode"
    display_name = "OpenCode"
    version_note = "anomalyco/opencode skill/index.ts @a2cc772e (V2)"
    client_version = "1.18.33"  # lab: tests/conformance (pinned version)
    lab_checked = True
    collision = "higher-wins"  # on reverse scan order == last scanned wins
    within_root = "last"
    #: Dot-folders below a root are not entered, node_modules is (lab: dot-folder, node-modules;
    #: OpenCode 1.18.33).
    rules = WalkRules(
        max_depth=None,
        min_depth=0,
        skip_dot=True,
        symlinks="follow",
        client="OpenCode",
        skip_names=frozenset({".git"}),
        walk_names=frozenset({"node_modules"}),
    )

    def roots(self, env: Environment) -> list[Root]:
        cwd = env.cwd or env.workspace
        scan: list[Root] = []  # in scan order
        ups = walk_up(cwd, env.git_root)
        if not _flag(env, "OPENCODE_DISABLE_EXTERNAL_SKILLS"):
            if not _flag(env, "OPENCODE_DISABLE_CLAUDE_CODE_SKILLS"):
                scan.append(
                    self.make_root(
                        env.home / ".claude" / "skills",
                        "user",
                        "external (~/.claude/skills)",
                        "skill/index.ts: ~/.claude/skills/**/SKILL.md",
                    )
                )
            scan.append(
                self.make_root(
                    env.home / ".agents" / "skills",
                    "user",
                    "external (~/.agents/skills)",
                    "skill/index.ts: ~/.agents/skills/**/SKILL.md",
                )
            )
            for d in ups:
                rel = "." if d == cwd else os.path.relpath(d, cwd)
                for sub in (".claude", ".agents"):
                    if sub == ".claude" and _flag(env, "OPENCODE_DISABLE_CLAUDE_CODE_SKILLS"):
                        continue
                    scan.append(
                        self.make_root(
                            d / sub / "skills",
                            "project",
                            f"external ({rel}/{sub}/skills)",
                            "skill/index.ts: .claude/.agents found walking up from cwd to "
                            "the worktree, skills/**/SKILL.md",
                        )
                    )
        cfg_dirs = [(env.home / ".config" / "opencode", "user", "~/.config/opencode")]
        for d in ups:
            rel = "." if d == cwd else os.path.relpath(d, cwd)
            cfg_dirs.append((d / ".opencode", "project", f"{rel}/.opencode"))
        ocd = env.getenv("OPENCODE_CONFIG_DIR")
        if ocd:
            cfg_dirs.append((Path(ocd).expanduser(), "user", "$OPENCODE_CONFIG_DIR"))
        for d, scope, label in cfg_dirs:
            for sub in ("skill", "skills"):
                scan.append(
                    self.make_root(
                        d / sub,
                        scope,
                        f"config ({label}/{sub})",
                        "skill/index.ts: config dirs {skill,skills}/**/SKILL.md",
                    )
                )
        # dedupe identical paths (walk-up may meet home), keep the last scan position
        seen: dict[str, int] = {}
        for i, r in enumerate(scan):
            seen[str(r.path)] = i
        scan = [r for i, r in enumerate(scan) if seen[str(r.path)] == i]
        out = list(reversed(scan))
        # extra roots are scanned last in our simulation (skills.paths-like) but must not win
        # over installed skills: HACKING.md gives them the lowest precedence.
        self.number(out)
        out.extend(self.extra_roots(env, len(out)))
        return out

    def read(self, sf: SkillFile, found: Found, root: Root, env: Environment) -> ReadResult:
        """``name`` must be a string (else silently skipped); ``description`` optional in V2 (a
        skill without one loads but is not listed); YAML errors → session error event, skipped.
        The documented name regex / dir match are not enforced in code (#9294)."""
        folder = folder_name(found)
        if unreadable(sf):
            return ReadResult(False, name=folder, mode="failed", reason=sf.message or sf.state)
        if sf.duplicate_keys:  # lab: yaml-duplicate-key (OpenCode 1.18.33 skips the file)
            return ReadResult(
                False,
                name=folder,
                mode="failed",
                reason=f"session error event: duplicated mapping key {sf.duplicate_keys[0][0]!r}",
            )
        fallback = lenient_read(sf.frontmatter) if sf.state == "yaml-error" else None
        if sf.state == "not-mapping" or (sf.state == "yaml-error" and not fallback):
            return ReadResult(False, name=folder, mode="failed", reason=f"session error event: {sf.message}")
        data = (sf.data if fallback is None else fallback) or {}
        name = data.get("name")
        if not isinstance(name, str):  # "" is listed as is (lab: name-empty, OpenCode 1.18.33)
            why = "no frontmatter" if sf.state == "no-frontmatter" else "name missing or not a string"
            return ReadResult(
                False, name=folder, mode="failed", fields=dict(data), reason=f"{why}: silently skipped"
            )
        desc = data.get("description")
        return ReadResult(
            True,
            name=name,
            description=desc if isinstance(desc, str) else "",
            fields=dict(data),
            mode="strict" if fallback is None else "fallback",
            note=""
            if fallback is None
            else "strict YAML fails; OpenCode's second try (tabs dropped, ': ' values quoted) reads it",
        )

    def gate(self, skill: Skill, env: Environment) -> tuple[SkillStatus, str] | None:
        """No description → hidden (V2: loadable with the skill tool, not listed); an empty
        string is a description (listed empty: lab ``description-empty``, OpenCode 1.18.33)."""
        if not has_description(skill):
            return (SkillStatus.HIDDEN, "no description: loadable by name but not listed (V2)")
        return None

    def resolve_collisions(self, skills: list[Skill], env: Environment) -> None:
        super().resolve_collisions(skills, env)
        for s in skills:
            if s.status == SkillStatus.SHADOWED:
                s.reason += f" (last scanned wins, usually; {RACY})"

    def listing_order(self, skills: list[Skill]) -> list[Skill]:
        """Sorted by name (render.ts)."""
        return sorted(skills, key=lambda s: s.name)


PROFILE = OpenCodeProfile()
