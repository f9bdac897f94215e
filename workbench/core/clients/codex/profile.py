"""Codex CLI discovery rules.

Sources (../shared/reference/clients.md section 2): ``openai/codex``
``codex-rs/core-skills/src/loader.rs`` @033d1d07 (roots, BFS walk, limits, frontmatter checks),
``manager.rs`` @033d1d07, ``config_rules.rs`` @9a5113ad (``[[skills.config]]``), ``model.rs``
@0899b7c4; developers.openai.com/codex/skills [docs].

Roots (``skill_roots_with_home_dir``), highest first: project layer ``<dir>/.codex/skills``
(Repo; only for trusted projects) > ``$CODEX_HOME/skills`` (User, default ``~/.codex``) >
``~/.agents/skills`` (User) > ``$CODEX_HOME/skills/.system`` (System, bundled) >
``/etc/codex/skills`` (Admin) > extra roots > repo ``.agents/skills`` in every folder from the
project root (nearest ``.git`` above the cwd) down to the cwd. Plugin roots are not simulated
(their location is not in the reference).

Walk: BFS, ``MAX_SCAN_DEPTH = 6`` levels; entries whose name starts with "." are skipped (so
``.system`` is only read as its own root); symlinked folders followed except under System; every
SKILL.md at any depth is a skill (nested skills inside a skill folder load too). The
``MAX_SKILLS_DIRS_PER_ROOT = 2000`` cap is not simulated.

Collisions: none: two skills with the same name are both kept and listed; only the same
canonical SKILL.md path is deduplicated.
"""

from __future__ import annotations

import os
import re
import tomllib
from pathlib import Path
from typing import Any

import yaml

from workbench.core.cache.fscache import is_file, is_symlink
from workbench.core.clients.base import Found, ReadResult
from workbench.core.clients.common import CommonProfile, WalkRules, folder_name, memo_file, unreadable
from workbench.core.model import Environment, Root, Skill, SkillStatus
from workbench.core.skillfile import MAX_FILE_BYTES, SkillFile, collapse_ws, load_yaml, read_regular_file

CLIENT_VERSION = "0.169.0"
MAX_NAME_LEN = 64  # loader.rs, counted after namespacing
MAX_DESCRIPTION_LEN = 1024  # loader.rs
MAX_SCAN_DEPTH = 6  # loader.rs
#: Codex enters node_modules (lab: node-modules); only .git (a dot-folder anyway) is left out.
NOT_WALKED = frozenset({".git"})
WALKED_TOO = frozenset({"node_modules"})

#: Listing order by scope (render.rs / manager.rs): System, Admin, Repo, User.
SCOPE_ORDER = {"system": 0, "admin": 1, "project": 2, "user": 3, "extra": 3, "plugin": 3}


class CodexProfile(CommonProfile):
    """Codex CLI: every SKILL.md up to 6 levels; same names are all kept."""

    id = "codex"
    display_name = "Codex CLI"
    version_note = "openai/codex core-skills loader.rs @033d1d07, render.rs @0899b7c4"
    client_version = CLIENT_VERSION  # lab: tests/conformance (pinned version)
    lab_checked = True
    collision = "keep-both"
    rules = WalkRules(
        max_depth=MAX_SCAN_DEPTH,
        min_depth=0,
        skip_dot=True,
        symlinks="follow",
        skip_names=NOT_WALKED,
        walk_names=WALKED_TOO,
        client="Codex",
    )

    def codex_home(self, env: Environment) -> Path:
        """``$CODEX_HOME`` or ``~/.codex``."""
        v = env.getenv("CODEX_HOME")
        return Path(v).expanduser() if v else env.home / ".codex"

    def roots(self, env: Environment) -> list[Root]:
        ch = self.codex_home(env)
        cwd = env.cwd or env.workspace
        git = env.git_root
        chain = [cwd]  # cwd up to the project root, nearest first
        if git is not None and (git == cwd or git in cwd.parents):
            chain = [cwd, *[p for p in cwd.parents if p == git or git in p.parents]]
        out: list[Root] = []
        for d in chain:
            rel = "." if d == cwd else os.path.relpath(d, cwd)
            out.append(
                self.make_root(
                    d / ".codex" / "skills",
                    "project",
                    f"project layer ({rel}/.codex/skills)",
                    "loader.rs skill_roots_with_home_dir: project config layers (trusted projects only); "
                    "which folders form project layers is approximated as cwd..project root",
                    verified=False,
                    condition=None
                    if env.trusted
                    else "untrusted project: the project config layer is not loaded",
                    active=env.trusted,
                )
            )
        out.append(
            self.make_root(
                ch / "skills",
                "user",
                "user ($CODEX_HOME/skills, deprecated)",
                "loader.rs: $CODEX_HOME/skills (User, kept for compatibility)",
            )
        )
        out.append(
            self.make_root(
                env.home / ".agents" / "skills",
                "user",
                "user (~/.agents/skills)",
                "loader.rs: $HOME/.agents/skills (User)",
            )
        )
        out.append(
            self.make_root(
                ch / "skills" / ".system",
                "system",
                "system ($CODEX_HOME/skills/.system)",
                "loader.rs: bundled skills written by Codex (System); symlinks not followed",
            )
        )
        out.append(
            self.make_root(
                Path("/etc/codex/skills"),
                "admin",
                "admin (/etc/codex/skills)",
                "loader.rs: System config layer /etc/codex/skills (Admin)",
            )
        )
        self.number(out)
        out.extend(self.extra_roots(env, len(out)))
        start = len(out)
        repo = list(reversed(chain))  # project root down to cwd
        for i, d in enumerate(repo):
            rel = "." if d == cwd else os.path.relpath(d, cwd)
            r = self.make_root(
                d / ".agents" / "skills",
                "project",
                f"repo ({rel}/.agents/skills)",
                "loader.rs: repo .agents/skills in every folder from the project root "
                "(project_root_markers, default .git) down to the cwd",
            )
            r.precedence = start + i
            out.append(r)
        return out

    def rules_for(self, root: Root) -> WalkRules:
        if root.scope == "extra":
            return super().rules_for(root)
        if root.scope == "system":
            return WalkRules(
                max_depth=MAX_SCAN_DEPTH,
                min_depth=0,
                skip_dot=True,
                skip_names=NOT_WALKED,
                walk_names=WALKED_TOO,
                symlinks="none",
                client="Codex (System scope)",
            )
        if root.path.name == "skills" and root.scope == "user" and root.path.parent.name != ".agents":
            # $CODEX_HOME/skills: .system is its own root; do not report it twice
            return WalkRules(
                max_depth=MAX_SCAN_DEPTH,
                min_depth=0,
                skip_dot=True,
                skip_names=NOT_WALKED,
                walk_names=WALKED_TOO,
                silent_names=frozenset({".system"}),
                symlinks="follow",
                client="Codex",
            )
        return self.rules

    # -- reading -----------------------------------------------------------------------
    def read(self, sf: SkillFile, found: Found, root: Root, env: Environment) -> ReadResult:
        """Codex's loader (checked on Codex CLI 0.169.0 by the lab: yaml-*, name-*, description-*,
        bom, symlink-skill-md scenarios): a SKILL.md that is itself a symlink is not read; the
        frontmatter must open on line 1 (a BOM breaks it) and close; YAML without repeated keys,
        and when the YAML fails, once more with plain values quoted (``retry_quoted``: an
        unquoted ``: ``, an unclosed ``[`` are read as text). ``name`` and
        ``description`` may be any scalar (a number or boolean becomes its text); a list or map
        skips the skill. Name: whitespace collapsed, default the folder name, ≤ 64 chars after
        namespacing. Description: whitespace collapsed, required non-empty, cut to 1,021 chars + "..."
        past 1,024."""
        folder = folder_name(found) or "skill"
        if is_symlink(str(found.path)):  # from the walk's listing when it has it
            return ReadResult(
                False,
                name=folder,
                mode="failed",
                reason="SKILL.md is a symlink: Codex does not read a symlinked skill file "
                "(a symlinked skill folder is followed)",
            )
        if unreadable(sf):
            return ReadResult(False, name=folder, mode="failed", reason=f"failed to read: {sf.message}")
        if sf.has_bom:
            return ReadResult(
                False,
                name=folder,
                mode="failed",
                reason="missing YAML frontmatter delimited by ---: the file starts with a UTF-8 BOM",
            )
        if sf.state in ("no-frontmatter", "unclosed"):
            return ReadResult(
                False, name=folder, mode="failed", reason="missing YAML frontmatter delimited by ---"
            )
        mode = "strict"
        if sf.state in ("yaml-error", "not-mapping"):
            retried = retry_quoted(sf.frontmatter) if sf.state == "yaml-error" else None
            if retried is None:
                return ReadResult(False, name=folder, mode="failed", reason=f"invalid YAML: {sf.message}")
            data: dict[str, Any] = retried
            mode = "fallback"
        elif sf.duplicate_keys:
            return ReadResult(
                False,
                name=folder,
                mode="failed",
                reason=f"invalid YAML: duplicate key `{sf.duplicate_keys[0][0]}`",
            )
        else:
            data = sf.data or {}
        raw_name = data.get("name")
        if raw_name is not None and not isinstance(raw_name, SCALARS):
            return ReadResult(
                False,
                name=folder,
                mode="failed",
                reason=f"invalid type for `name`: expected a string, got {type(raw_name).__name__}",
            )
        name = collapse_ws(scalar_text(raw_name)) if raw_name is not None else ""
        if not name:
            name = folder
        raw_desc = data.get("description")
        if raw_desc is not None and not isinstance(raw_desc, SCALARS):
            return ReadResult(
                False,
                name=name,
                mode="failed",
                reason=f"invalid type for `description`: expected a string, got {type(raw_desc).__name__}",
            )
        desc = collapse_ws(scalar_text(raw_desc)) if raw_desc is not None else ""
        if not desc:
            return ReadResult(False, name=name, mode="failed", reason="missing field `description`")
        notes = []
        if len(desc) > MAX_DESCRIPTION_LEN:  # 0.169.0 cuts it (lab: long-description)
            notes.append(
                f"description cut from {len(desc)} to {MAX_DESCRIPTION_LEN} characters (ending in '...')"
            )
            desc = desc[: MAX_DESCRIPTION_LEN - 3] + "..."
        full = f"{root.namespace}:{name}" if root.namespace else name
        if len(full) > MAX_NAME_LEN:
            return ReadResult(
                False,
                name=name,
                mode="failed",
                reason=f"invalid name: exceeds maximum length of {MAX_NAME_LEN} characters ({len(full)})",
            )
        fields = {"name": name, "description": desc}
        md = data.get("metadata")
        if isinstance(md, dict) and isinstance(md.get("short-description"), str):
            sd = collapse_ws(md["short-description"])
            if len(sd) > MAX_DESCRIPTION_LEN:
                return ReadResult(
                    False,
                    name=name,
                    mode="failed",
                    reason="invalid metadata.short-description: exceeds maximum length of 1024 characters",
                )
            fields["short-description"] = sd
        if mode != "strict":
            notes.insert(0, f"YAML failed ({sf.message}); read again with values quoted")
        note = "; ".join(notes)
        return ReadResult(True, name=name, description=desc, fields=fields, mode=mode, note=note)

    # -- gating ------------------------------------------------------------------------
    def gate(self, skill: Skill, env: Environment) -> tuple[SkillStatus, str] | None:
        """``[[skills.config]]`` in ``$CODEX_HOME/config.toml`` with ``enabled = false`` (by
        ``path`` or ``name``; later rule wins; config_rules.rs) → hidden; ``agents/openai.yaml``
        ``policy.allow_implicit_invocation: false`` → hidden from the listing (``$name`` still
        works; loader.rs, fail-open on a bad file)."""
        enabled = None
        for rule in self._config_rules(env):
            p, n = rule.get("path"), rule.get("name")
            hit = False
            if isinstance(p, str):
                try:
                    hit = Path(p).expanduser().resolve() == skill.path.resolve()
                except OSError:
                    hit = False
            elif isinstance(n, str):
                hit = n == skill.name
            if hit and isinstance(rule.get("enabled"), bool):
                enabled = rule["enabled"]
        if enabled is False:
            return (SkillStatus.HIDDEN, "disabled by [[skills.config]] enabled = false in config.toml")
        p = str(skill.path)
        if os.sep == "/" and p.startswith("/"):  # = the join below for an absolute POSIX path
            oy = p[: p.rfind("/")] + "/agents/openai.yaml"
        else:
            oy = os.path.join(os.path.dirname(p), "agents", "openai.yaml")
        if is_file(oy):  # no system call when the walk's listing shows no agents/ folder
            meta = memo_file(oy, "openai.yaml", _load_openai_yaml)
            if isinstance(meta, dict):
                pol = meta.get("policy")
                if isinstance(pol, dict) and pol.get("allow_implicit_invocation") is False:
                    skill.flags["allow_implicit_invocation"] = False
                    return (
                        SkillStatus.HIDDEN,
                        "agents/openai.yaml policy.allow_implicit_invocation: false: "
                        f"not listed; ${skill.name} still works",
                    )
        return None

    def _config_rules(self, env: Environment) -> list[dict[str, Any]]:
        """The ``[[skills.config]]`` tables of ``$CODEX_HOME/config.toml`` (read-only: shared
        between the skills of a scan while the file's memo holds the same table)."""
        v = env.getenv("CODEX_HOME")
        where = (v, env.home)
        path = _CONFIG_PATHS.get(where)
        if path is None:
            home = os.path.expanduser(v) if v else os.path.join(str(env.home), ".codex")
            path = _CONFIG_PATHS[where] = os.path.join(home, "config.toml")
        cfg = memo_file(path, "toml", _load_toml)
        if not isinstance(cfg, dict):
            return []
        got = _RULES_OF.get(id(cfg))
        if got is not None and got[0] is cfg:
            return got[1]
        skills = cfg.get("skills")
        rules = skills.get("config") if isinstance(skills, dict) else None
        out = [r for r in rules if isinstance(r, dict)] if isinstance(rules, list) else []
        _RULES_OF.clear()  # one config at a time: nothing piles up
        _RULES_OF[id(cfg)] = (cfg, out)
        return out

    def listing_order(self, skills: list[Skill]) -> list[Skill]:
        """System, Admin, Repo, User; then name; then path (render.rs)."""
        return sorted(skills, key=lambda s: (SCOPE_ORDER.get(s.root.scope, 3), s.name, str(s.path)))


#: ``config.toml`` path per ($CODEX_HOME, home) and the rules of the last table read (by its id,
#: the table kept alive with them): a gate per skill rebuilds neither.
_CONFIG_PATHS: dict[tuple[str | None, Path], str] = {}
_RULES_OF: dict[int, tuple[dict[str, Any], list[dict[str, Any]]]] = {}

#: Frontmatter values Codex accepts as text (its loader turns a number or boolean into a string).
SCALARS = (str, int, float, bool)
_PLAIN_PAIR = re.compile(r"^([A-Za-z0-9_-]+):[ \t]+(.*\S)[ \t]*$")


def scalar_text(value: object) -> str:
    """A scalar as Codex writes it: booleans lower-case, numbers as written by YAML."""
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def retry_quoted(frontmatter: str) -> dict[str, Any] | None:
    """Codex's second try at frontmatter that YAML rejects: every top-level ``key: value`` line
    whose value does not open with a quote or a block/flow indicator it keeps (``"'|>``) gets the
    value double-quoted, then the text is parsed again. The mapping, or None when it still fails
    or a key is repeated. Checked on Codex CLI 0.169.0 by the lab: an unquoted ``: `` and an
    unclosed ``[`` are read as text; ``yaml-tab``, ``yaml-bad-indent``, ``yaml-unclosed-quote``,
    ``yaml-duplicate-key`` stay broken."""
    out = []
    keys: set[str] = set()
    for line in frontmatter.split("\n"):
        m = _PLAIN_PAIR.match(line)
        if m:
            if m.group(1) in keys:
                return None
            keys.add(m.group(1))
            if m.group(2)[0] not in "\"'|>":
                value = m.group(2).replace("\\", "\\\\").replace('"', '\\"')
                line = f'{m.group(1)}: "{value}"'
        out.append(line)
    try:
        data = load_yaml("\n".join(out))  # bounded: aliases, depth, integer digits
    except (yaml.YAMLError, ValueError, TypeError):
        return None
    return data if isinstance(data, dict) else None


def _load_toml(path: Path) -> dict[str, Any] | None:
    try:
        with open(path, "rb") as fh:
            return tomllib.load(fh)
    except (OSError, tomllib.TOMLDecodeError):
        return None


PROFILE = CodexProfile()


def _load_openai_yaml(path: Path) -> object:
    """``agents/openai.yaml`` as data, or None when unreadable or invalid (Codex fails open:
    ``codex-rs/core-skills/src/loader.rs`` ignores a bad sidecar)."""
    try:  # a regular file only (a FIFO would block), bounded YAML (alias bombs)
        return load_yaml(read_regular_file(path, MAX_FILE_BYTES).decode("utf-8"))
    except (OSError, yaml.YAMLError, UnicodeDecodeError, ValueError, TypeError, RecursionError):
        return None
