"""Lint profiles: which client's rules a SKILL.md is checked against.

A profile is the plain Agent Skills spec (``agentskills``, matching the reference validator
skills-ref), one profile per client (``claude-code``, ``codex``, ``openclaw``, ``gemini-cli``,
``opencode``, ``vscode-copilot``, ``cursor``) or the Anthropic platform (``claude-api``: uploads to
claude.ai / the API, which add reserved-word and XML rules).

Per-rule severities live with the rules (``Rule.profiles``, one module per rule); a profile holds
what is *about the client*: the frontmatter keys it knows, options (Unicode names, how it counts a
description) and the simple listing-budget model used by the catalog rules.

Sources: ../shared/reference/clients.md sections 0-8 and validators.md section 5.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

#: The six top-level keys of the spec (skills-ref ``ALLOWED_FIELDS``, validator.py).
SPEC_FIELDS = frozenset({"name", "description", "license", "allowed-tools", "metadata", "compatibility"})

#: Claude Code's documented frontmatter (code.claude.com/docs/en/skills; clients.md 1.2).
CLAUDE_CODE_FIELDS = SPEC_FIELDS | {
    "when_to_use",
    "argument-hint",
    "arguments",
    "disable-model-invocation",
    "user-invocable",
    "disallowed-tools",
    "model",
    "effort",
    "context",
    "agent",
    "hooks",
    "paths",
    "shell",
}

#: OpenClaw's keys (docs/tools/skills.md; clients.md 3.2).
OPENCLAW_FIELDS = SPEC_FIELDS | {
    "homepage",
    "user-invocable",
    "disable-model-invocation",
    "command-dispatch",
    "command-tool",
    "command-arg-mode",
}

#: VS Code Copilot (promptsServiceImpl.ts; clients.md 6.2). ``user-invokable`` is the old spelling.
VSCODE_FIELDS = SPEC_FIELDS | {
    "argument-hint",
    "user-invocable",
    "user-invokable",
    "disable-model-invocation",
}

#: Cursor (cursor.com/docs/context/skills; clients.md 7.2).
CURSOR_FIELDS = SPEC_FIELDS | {"disable-model-invocation"}


@dataclass(frozen=True)
class Profile:
    """One lint profile.

    Attributes:
        id: the profile id (also accepted by ``workbench lint --profile`` / ``--client``).
        title: human name.
        client: the client id whose behaviour it reflects (None for the spec / platform profiles).
        known_fields: top-level keys the client understands (None = it reads only a few and
            ignores the rest; the unknown-field rule then only informs).
        unicode_names: allow Unicode lowercase letters and digits in ``name`` (skills-ref's
            ``isalnum()``); False = ASCII ``[a-z0-9-]`` only (quick_validate, agnix, the API docs).
        description_count: how the client counts description length: "raw" (code points of the
            parsed string, unstripped; skills-ref) or "collapsed" (after collapsing whitespace; Codex).
        budget_chars: the simple listing-budget model for catalog rules: the client's listing
            budget in characters when the context size is unknown (None = no budget).
        entry_overhead: characters one listing entry costs besides name + description (template).
        budget_note: where the budget figure comes from.
        options: free-form extra options.
    """

    id: str
    title: str
    client: str | None = None
    known_fields: frozenset[str] | None = SPEC_FIELDS
    unicode_names: bool = True
    description_count: str = "raw"
    budget_chars: int | None = None
    entry_overhead: int = 0
    budget_note: str = ""
    options: dict[str, Any] = field(default_factory=dict)

    def with_options(self, **kw: Any) -> Profile:
        """A copy with some attributes changed, e.g. ``PROFILES["agentskills"].with_options(unicode_names=False)``."""
        return replace(self, **kw)


PROFILES: dict[str, Profile] = {
    p.id: p
    for p in (
        Profile("agentskills", "Agent Skills spec (skills-ref)", None, SPEC_FIELDS, unicode_names=True),
        Profile(
            "claude-code",
            "Claude Code",
            "claude-code",
            CLAUDE_CODE_FIELDS,
            budget_chars=8_000,
            entry_overhead=len("- : \n"),
            budget_note="1% of the context window, fallback 8,000 chars (code.claude.com skills docs); "
            "line template '- name: description' is unverified",
        ),
        Profile(
            "codex",
            "Codex CLI",
            "codex",
            None,
            description_count="collapsed",
            budget_chars=8_000,
            entry_overhead=len("- :  (file: /SKILL.md)\n") + 40,
            budget_note="2% of the context window in tokens, fallback 8,000 chars "
            "(codex render.rs default_skill_metadata_budget); path length assumed 40",
        ),
        Profile(
            "openclaw",
            "OpenClaw",
            "openclaw",
            OPENCLAW_FIELDS,
            budget_chars=18_000,
            entry_overhead=len(
                "  <skill>\n    <name></name>\n    <description></description>\n"
                "    <location>/SKILL.md</location>\n  </skill>\n"
            )
            + 40,
            budget_note="maxSkillsPromptChars 18,000 (skill-prompt-limits.ts); path length assumed 40",
        ),
        Profile(
            "gemini-cli", "Gemini CLI", "gemini-cli", None, budget_note="no listing budget (skillManager.ts)"
        ),
        Profile("opencode", "OpenCode", "opencode", None, budget_note="no listing budget"),
        Profile(
            "vscode-copilot",
            "VS Code Copilot",
            "vscode-copilot",
            VSCODE_FIELDS,
            budget_chars=15_000,
            entry_overhead=len(
                "<skill>\n<name></name>\n<description></description>\n<file>/SKILL.md</file>\n</skill>\n"
            )
            + 40,
            budget_note="15,000 chars, only when the skill tool is enabled (AutomaticInstructionsCollector); "
            "path length assumed 40",
        ),
        Profile(
            "copilot-cli",
            "GitHub Copilot CLI",
            "copilot-cli",
            None,
            budget_chars=15_000,
            entry_overhead=len(
                "<skill>\n  <name></name>\n  <description></description>\n"
                "  <location>project</location>\n</skill>\n"
            ),
            budget_note="15,000 chars of entries, built-ins included (observed on Copilot CLI 1.0.102)",
        ),
        Profile("cursor", "Cursor", "cursor", CURSOR_FIELDS, budget_note="budget unknown (unpublished)"),
        Profile(
            "claude-api",
            "Claude API / claude.ai uploads",
            None,
            SPEC_FIELDS,
            unicode_names=False,
            budget_note="no listing budget modelled",
        ),
    )
}

PROFILE_IDS = tuple(PROFILES)

#: Client-specific folders whose ``skills/`` (``skill/`` for OpenCode) is that client's root
#: (clients.md section 0 roots); ``.agents/skills`` is shared by several clients, so it has none.
ROOT_DIR_PROFILES = {
    ".claude": "claude-code",
    ".codex": "codex",
    ".openclaw": "openclaw",
    ".gemini": "gemini-cli",
    ".opencode": "opencode",
    ".github": "vscode-copilot",
    ".cursor": "cursor",
}


def profile_for_location(path: str | Path) -> tuple[str, str] | None:
    """(profile id, root folder such as ".claude/skills") when ``path`` is inside (or is) one
    client's own skill root (``ROOT_DIR_PROFILES``), else None. Pure path logic (no I/O besides
    making the path absolute); the innermost such folder wins."""
    s = os.fspath(path)
    if not os.path.isabs(s):
        s = os.path.join(os.getcwd(), s)  # ``Path.absolute()``: no normalisation
    if os.sep + "." not in s:  # every root folder of ROOT_DIR_PROFILES is a dot-folder
        return None
    parts = Path(s).parts
    for i in range(len(parts) - 1, -1, -1):
        pid = ROOT_DIR_PROFILES.get(parts[i])
        if pid and (i + 1 == len(parts) or parts[i + 1] in ("skills", "skill")):
            return pid, "/".join(parts[i : i + 2])
    return None


def lint_profile(profile: str | Profile) -> Profile:
    """The lint ``Profile`` for a profile id (a ``Profile`` passes through). Raises KeyError for an
    unknown id. Not to be confused with ``workbench.core.clients.get_profile`` (a client's rules)."""
    if isinstance(profile, Profile):
        return profile
    try:
        return PROFILES[profile]
    except KeyError:
        raise KeyError(f"unknown lint profile {profile!r}; known: {', '.join(PROFILE_IDS)}") from None
