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

import os
import re
from operator import itemgetter

from workbench.core.clients.base import Found, ReadResult
from workbench.core.clients.common import CommonProfile, WalkRules, folder_name, unreadable
from workbench.core.model import Environment, Root, Skill, SkillStatus
from workbench.core.skillfile import SkillFile

CLIENT_VERSION = "0.61.0"
_SANITISE = re.compile(r'[:\\/<>*?"|]')
_FRONTMATTER = re.compile(r"^---\r?\n([\s\S]*?)\r?\n---")
_NAME_LINE = re.compile(r"^\s*name:\s*(.*)$")
_DESC_LINE = re.compile(r"^\s*description:\s*(.*)$")
_CONTINUATION = re.compile(r"^[ \t]+\S")


#: ``bytes.translate`` table mapping each byte b to 255 - b: ascending order of
#: ``reversed_order_key(s)`` is reverse code-point order of ``s`` (a prefix still first).
_REVERSED_BYTES = bytes(range(255, -1, -1))


def reversed_order_key(s: str) -> bytes:
    """A sort key whose ascending order is the reverse code-point order of ``s``, a string that
    is a prefix of another still sorting first: the same order as mapping each code point c
    to 0x10FFFF - c. UTF-8 keeps code-point order byte by byte and no character's bytes are a
    prefix of another's (lone surrogates, undecodable path bytes, too: ``surrogatepass``), so
    each byte b becomes 255 - b (C ``encode`` + ``translate``: ~20x cheaper than a
    ``str.translate`` over a code-point mapping)."""
    return s.encode("utf-8", "surrogatepass").translate(_REVERSED_BYTES)


def simple_frontmatter(block: str) -> tuple[str, str] | None:
    """``parseSimpleFrontmatter`` (skillLoader.ts): per line, ``name:`` and ``description:`` (any
    leading whitespace) take the trimmed rest of the line; indented lines after ``description:``
    are appended, trimmed, joined with single spaces (empty parts dropped). None unless both
    were seen. Checked on Gemini CLI 0.61.0 by the lab (tabs, list and number values)."""
    lines = re.split(r"\r?\n", block)
    name = desc = None
    i = 0
    while i < len(lines):
        m = _NAME_LINE.match(lines[i])
        if m:
            name = m.group(1).strip()
        else:
            m = _DESC_LINE.match(lines[i])
            if m:
                parts = [m.group(1).strip()]
                while i + 1 < len(lines) and _CONTINUATION.match(lines[i + 1]):
                    parts.append(lines[i + 1].strip())
                    i += 1
                desc = " ".join(p for p in parts if p)
        i += 1
    return (name, desc) if name is not None and desc is not None else None


def regex_matches_from_split(sf: SkillFile) -> bool:
    """True when ``_FRONTMATTER`` surely matches ``sf.text``, decided from the split facts alone
    (no text: a ``SkillFile`` rebuilt from parse facts would otherwise read and parse the file
    again). Strict YAML parsed (state "ok": an opening line of exactly ``---``, a closing ``---``
    line with at least one non-blank line between), no BOM, no spaces after the opening ``---``:
    the regex's lazy group then ends at that closing line or an earlier ``\n---``. False =
    undecided (the caller runs the regex)."""
    return (
        sf.state == "ok"
        and not sf.has_bom
        and not sf.open_trailing_ws
        and sf.open_line == 1
        and sf.close_line is not None
        and sf.close_line >= 3
    )


def sanitise_name(name: str) -> str:
    """``name.replace(/[:\\\\/<>*?"|]/g, '-')`` (skillLoader.ts)."""
    return _SANITISE.sub("-", name)


class GeminiCliProfile(CommonProfile):
    """Gemini CLI: workspace (trusted only) > user tiers; root or one level deep."""

    id = "gemini-cli"
    display_name = "Gemini CLI"
    version_note = "google-gemini/gemini-cli @5411f113 skillLoader.ts, skillManager.ts"
    client_version = CLIENT_VERSION  # lab: tests/conformance (pinned version)
    lab_checked = True
    collision = "higher-wins"
    within_root = "first"  # folders load in reverse order and the later-loaded wins (lab: clash-same-root)
    rules = WalkRules(max_depth=1, min_depth=0, skip_dot=True, symlinks="follow", client="Gemini CLI")

    def roots(self, env: Environment) -> list[Root]:
        cwd = env.cwd or env.workspace
        cond = (
            None
            if env.trusted
            else "untrusted folder: Gemini CLI loads workspace skills only in trusted folders"
        )
        out = [
            self.make_root(
                cwd / ".agents" / "skills",
                "project",
                "workspace (.agents/skills)",
                "skillManager.ts: <cwd>/.agents/skills (highest tier, trusted only)",
                condition=cond,
                active=env.trusted,
            ),
            self.make_root(
                cwd / ".gemini" / "skills",
                "project",
                "workspace (.gemini/skills)",
                "skillManager.ts: <cwd>/.gemini/skills (trusted only)",
                condition=cond,
                active=env.trusted,
            ),
            self.make_root(
                env.home / ".agents" / "skills",
                "user",
                "user (~/.agents/skills)",
                "skillManager.ts: ~/.agents/skills",
            ),
            self.make_root(
                env.home / ".gemini" / "skills",
                "user",
                "user (~/.gemini/skills)",
                "skillManager.ts: ~/.gemini/skills",
            ),
        ]
        self.number(out)
        out.extend(self.extra_roots(env, len(out)))
        return out

    def read(self, sf: SkillFile, found: Found, root: Root, env: Environment) -> ReadResult:
        """``skillLoader.ts``: the regex ``^---\\r?\\n([\\s\\S]*?)\\r?\\n---`` must match at
        the very start (a BOM or spaces after the opening ``---`` mean no frontmatter: silently
        skipped); js-yaml's ``name`` and ``description`` are used when both are strings (an empty
        description is kept); otherwise (YAML error, a number, a list, a missing key) the simple
        line parser (``simple_frontmatter``) reads them; no name or no description there →
        silently skipped. Name sanitised ``[:\\\\/<>*?"|]`` → ``-``. Other fields ignored.
        Checked on Gemini CLI 0.61.0 by the lab (gemini-parse-*, yaml-* scenarios)."""
        folder = folder_name(found)
        if unreadable(sf):
            return ReadResult(False, name=folder, mode="failed", reason=sf.message or sf.state)
        data = sf.data if sf.ok and isinstance(sf.data, dict) else {}
        name, desc = data.get("name"), data.get("description")
        strings = isinstance(name, str) and isinstance(desc, str)
        # matched without the text: the block is only needed by the line parser
        matched = strings and regex_matches_from_split(sf)
        block = None if matched or sf.has_bom else _FRONTMATTER.match(sf.text)
        if block is None and not matched:
            why = (
                "UTF-8 BOM before '---'"
                if sf.has_bom
                else "no '---' line (exactly, no trailing spaces) opening the file, or no closing '---'"
            )
            return ReadResult(
                False,
                name=folder,
                mode="failed",
                reason=f"{why}: the frontmatter regex does not match; silently skipped",
            )
        mode, note = "strict", ""
        if not strings:
            assert block is not None
            simple = simple_frontmatter(block.group(1))
            mode = "fallback"
            note = (
                "YAML failed"
                if not sf.ok and sf.state != "empty"
                else "name/description not both strings in YAML"
            ) + "; read with the line parser"
            if simple is None:
                return ReadResult(
                    False,
                    name=folder,
                    mode="failed",
                    fields=data,
                    reason="name or description missing (line parser): silently skipped",
                )
            name, desc = simple
        assert isinstance(name, str) and isinstance(desc, str)  # both strings, either way
        clean = sanitise_name(name)
        if clean != name:
            note = (note + "; " if note else "") + f"name sanitised to {clean}"
        if not clean:  # listed with an empty <name> (lab: name-empty); the folder names it here
            note = (note + "; " if note else "") + "empty name: listed as <name></name>"
        return ReadResult(
            True,
            name=clean or folder,
            description=desc,
            fields={"name": clean, "description": desc},
            mode=mode,
            note=note,
        )

    def resolve_collisions(self, skills: list[Skill], env: Environment) -> None:
        """Higher tier wins (``CommonProfile``); the winner keeps the listing position of the
        name's first copy in load order (``SkillManager`` keeps a map: a later tier replaces the
        value, not the key's place). Checked on Gemini CLI 0.61.0 by the lab (gemini-clash-*)."""
        first: dict[str, tuple[int, int, bytes]] = {}
        keyed = [(self._load_key(s), s) for s in skills]  # each key computed once
        keyed.sort(key=itemgetter(0))
        for key, s in keyed:
            if self.competes(s):
                first.setdefault(s.name, key)
        super().resolve_collisions(skills, env)
        # Kept only where it differs from the skill's own key (``listing_order`` computes that
        # one again): 10,000 unique names held ~4.4 MB of keys in the window (issue 14: RSS).
        # "_": bookkeeping, not a fact for the user (the details pane does not show it).
        for key, s in keyed:
            got = first.get(s.name)
            if got is not None and got != key and s.status != SkillStatus.SHADOWED:
                s.flags["_gemini_load_key"] = got

    @staticmethod
    def _load_key(s: Skill) -> tuple[int, int, bytes]:
        # tiers lowest first; in a tier the root's own SKILL.md (glob 'SKILL.md') before the
        # folders ('*/SKILL.md'), which come in reverse code-point order
        path = str(s.path)
        if _POSIX:  # str(parent) == str(root) without a Path per skill (POSIX paths: the same test)
            i = path.rfind("/")
            own = (path[:i] if i > 0 else "/" if i == 0 else ".") == str(s.root.path)
        else:
            own = s.path.parent == s.root.path
        return (-s.root.precedence, 0 if own else 1, reversed_order_key(path))

    def listing_order(self, skills: list[Skill]) -> list[Skill]:
        """Load order: tiers lowest → highest (``~/.gemini/skills``, ``~/.agents/skills``,
        ``<cwd>/.gemini/skills``, ``<cwd>/.agents/skills``), inside a tier the root's own SKILL.md
        first, then the folders by path in *reverse* code-point order; a name overridden by a
        later tier keeps its first place. Checked on Gemini CLI 0.61.0 by the lab
        (gemini-tier-order, root-skill-md, clash-gemini-cli-*)."""
        return sorted(skills, key=lambda s: s.flags.get("_gemini_load_key") or self._load_key(s))


_POSIX = os.sep == "/"

PROFILE = GeminiCliProfile()
