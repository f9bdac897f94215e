"""OpenClaw discovery rules (formerly Clawdbot / Moltbot).

Sources (../shared/reference/clients.md section 3): ``openclaw/openclaw`` ``docs/tools/skills.md``
@00d92d90 [docs]; ``src/skills/loading/local-loader.ts`` @0e57d86c (walk), ``workspace-skill-roots.ts``
@6d3b9641 (roots), ``skill-contract.ts`` (frontmatter, fallback parser), ``validation.ts`` @cb03fe64.

Roots, highest first (same name → the highest wins, collision reported): ``<workspace>/skills`` >
``<workspace>/.agents/skills`` > ``~/.agents/skills`` (only with the default state dir) >
``<state-dir>/skills`` (managed, default ``~/.openclaw``; ``$OPENCLAW_STATE_DIR`` overrides,
env name *unverified*) > ``<state-dir>/agents/main/agent/workshop-skills`` (agent id "main"
*unverified*) > bundled (not simulated) > ``skills.load.extraDirs`` from ``<state-dir>/openclaw.json``
(plain JSON only) > extra roots. Never walks up to parent repos.

Walk: SKILL.md anywhere up to 6 levels deep; a folder with a SKILL.md is not descended; dot
folders and ``node_modules`` skipped; symlinks must resolve inside the root, except in the
managed root and ``~/.agents/skills`` which may hold symlinked skill folders.
"""

from __future__ import annotations

import json
import os
import re
from operator import is_
from pathlib import Path
from typing import Any

from workbench.core.cache.fscache import is_symlink
from workbench.core.clients.base import Found, ReadResult
from workbench.core.clients.common import (
    CommonProfile,
    WalkRules,
    folder_name,
    is_installed_extra,
    js_string,
    line_value_first_line,
    load_json_file,
    memo_file,
    parse_loose_mapping,
    truthy_path,
    unreadable,
)
from workbench.core.model import Environment, Root, Skill, SkillStatus
from workbench.core.skillfile import SkillFile

MAX_SKILL_FILE_BYTES = 256_000  # maxSkillFileBytes
MAX_DEPTH = 6
#: ``metadata.<key>`` spellings, newest first: openclaw, then the legacy clawdbot / moltbot keys
#: (the corpus snapshot is from the Moltbot period).
METADATA_KEYS = ("openclaw", "clawdbot", "moltbot")


#: Skills OpenClaw loads from one folder (lab: budget-300-*, OpenClaw 2026.9.6).
MAX_SKILLS_PER_SOURCE = 200


class OpenClawProfile(CommonProfile):
    """OpenClaw: workspace > ~/.agents > managed > workshop > extraDirs; 6 levels, stop at SKILL.md."""

    id = "openclaw"
    display_name = "OpenClaw"
    version_note = "openclaw docs/tools/skills.md @00d92d90; local-loader.ts @0e57d86c"
    client_version = "2026.9.6"  # lab: tests/conformance (pinned version)
    lab_checked = True
    collision = "higher-wins"
    #: Two folders of one root with the same name: the later path wins (lab: clash-same-root,
    #: OpenClaw 2026.9.6).
    within_root = "last"
    rules = WalkRules(
        max_depth=MAX_DEPTH,
        min_depth=0,
        skip_dot=True,
        skip_names=frozenset({"node_modules", ".git"}),
        stop_at_skill=True,
        symlinks="inside-root",
        client="OpenClaw",
    )

    def state_dir(self, env: Environment) -> Path:
        v = env.getenv("OPENCLAW_STATE_DIR")
        return Path(v).expanduser() if v else env.home / ".openclaw"

    def config(self, env: Environment) -> dict[str, Any]:
        """``<state-dir>/openclaw.json`` when it is plain JSON (JSON5 is not parsed), else {}."""
        where = (env.getenv("OPENCLAW_STATE_DIR"), env.home)
        path = _CONFIG_PATHS.get(where)
        if path is None:  # once per (state dir, home): the gate asks for every skill
            path = _CONFIG_PATHS[where] = self.state_dir(env) / "openclaw.json"
        return memo_file(path, "json", load_json_file) or {}

    def roots(self, env: Environment) -> list[Root]:
        ws = env.workspace
        sd = self.state_dir(env)
        default_sd = not env.getenv("OPENCLAW_STATE_DIR")
        out = [
            self.make_root(
                ws / "skills",
                "project",
                "workspace (skills/)",
                "workspace-skill-roots.ts: <workspace>/skills",
                max_depth=MAX_DEPTH,
            ),
            self.make_root(
                ws / ".agents" / "skills",
                "project",
                "workspace (.agents/skills)",
                "workspace-skill-roots.ts: <workspace>/.agents/skills",
                max_depth=MAX_DEPTH,
            ),
        ]
        if default_sd:
            out.append(
                self.make_root(
                    env.home / ".agents" / "skills",
                    "user",
                    "personal (~/.agents/skills)",
                    "workspace-skill-roots.ts: ~/.agents/skills (default state dir only)",
                    max_depth=MAX_DEPTH,
                )
            )
        out.append(
            self.make_root(
                sd / "skills",
                "managed",
                "managed (~/.openclaw/skills)",
                "docs/tools/skills.md: <state-dir>/skills (managed, --global installs)",
                max_depth=MAX_DEPTH,
                verified=default_sd,
            )
        )
        out.append(
            self.make_root(
                sd / "agents" / "main" / "agent" / "workshop-skills",
                "user",
                "workshop (agents/main/agent/workshop-skills)",
                "docs/tools/skills.md: <state-dir>/agents/<agentId>/agent/workshop-skills; "
                "agent id 'main' assumed",
                max_depth=MAX_DEPTH,
                verified=False,
            )
        )
        cfg = self.config(env)
        sk = _sub(cfg, "skills")
        load = _sub(sk, "load")
        for d in load.get("extraDirs") or []:
            if isinstance(d, str):
                p = Path(d).expanduser()
                if not p.is_absolute():
                    p = ws / p
                out.append(
                    self.make_root(
                        p,
                        "extra",
                        f"extraDirs ({d})",
                        "docs/tools/skills.md: skills.load.extraDirs",
                        max_depth=MAX_DEPTH,
                    )
                )
        self.number(out)
        out.extend(self.extra_roots(env, len(out)))
        return out

    def rules_for(self, root: Root) -> WalkRules:
        if is_installed_extra(root):
            return super().rules_for(root)
        if root.scope == "managed" or (root.scope == "user" and root.path.parent.name == ".agents"):
            return WalkRules(
                max_depth=MAX_DEPTH,
                min_depth=0,
                skip_dot=True,
                stop_at_skill=True,
                symlinks="follow",
                client="OpenClaw",
            )
        return self.rules

    # -- reading -----------------------------------------------------------------------
    def after_walk(self, root: Root, found: list[Found], env: Environment) -> list[Found]:
        """The common walk (``found``), plus: a SKILL.md that is a symlink to a file outside the root is not
        loaded (symlinked skill *folders* are; lab: symlink-skill-md, symlink-folder); only the
        first ``MAX_SKILLS_PER_SOURCE`` skills of a root (by path) load (lab: budget-300-short:
        "included 127 of 222" with 300 skills and 22 built-ins). OpenClaw 2026.9.6."""
        base = os.path.realpath(root.path)
        out = []
        loaded = 0
        for f in sorted(found, key=lambda f: str(f.path)):
            if f.skip_reason is None and root.scope != "extra":  # extra roots: HACKING "Decisions"
                loaded += 1
                if loaded > MAX_SKILLS_PER_SOURCE:
                    f = Found(
                        f.path,
                        f.depth,
                        f"past the first {MAX_SKILLS_PER_SOURCE} skills of this folder, which OpenClaw loads",
                    )
            if f.skip_reason is None and is_symlink(str(f.path)):
                real = os.path.realpath(f.path)
                if real != base and not real.startswith(base + os.sep):
                    f = Found(
                        f.path,
                        f.depth,
                        "SKILL.md is a symlink to a file outside the root, which OpenClaw does not load",
                    )
            out.append(f)
        # unchanged (the usual case: the walk's path order, nothing refused): the walk's own
        # list, so discovery's memo per walk list is shared with the other clients (an extra
        # root's ``installed_view`` units: not made a second time for OpenClaw, ~40 ms at 10k)
        return found if all(map(is_, out, found)) else out

    def read(self, sf: SkillFile, found: Found, root: Root, env: Environment) -> ReadResult:
        """YAML first, then the single-line ``key: value`` parser (skill-contract.ts); ``name``
        falls back to the folder; ``description`` required (missing → skipped with a
        diagnostic); files over ``maxSkillFileBytes`` (256,000) skipped. The validation.ts name
        rules apply to installs only, not to loading."""
        folder = folder_name(found)
        if unreadable(sf):
            return ReadResult(False, name=folder, mode="failed", reason=sf.message or sf.state)
        if sf.size > MAX_SKILL_FILE_BYTES:
            return ReadResult(
                False,
                name=folder,
                mode="failed",
                reason=f"SKILL.md is {sf.size:,} bytes, over maxSkillFileBytes ({MAX_SKILL_FILE_BYTES:,})",
            )
        mode, note = "strict", ""
        if sf.duplicate_keys:  # lab: yaml-duplicate-key (OpenClaw 2026.9.6 does not load it)
            return ReadResult(
                False,
                name=folder,
                mode="failed",
                reason=f"duplicated mapping key {sf.duplicate_keys[0][0]!r}: not loaded",
            )
        if sf.ok:
            fields = dict(sf.data or {})
        elif (
            sf.state in ("yaml-error", "not-mapping")
            and sf.has_frontmatter_block
            and not _indented_line(sf.frontmatter)
        ):
            fields = {k: line_value_first_line(sf, k) for k in sf.line_fields()}
            mode, note = "fallback", f"YAML failed ({sf.message}); read with the single-line parser"
        else:
            fields = {}
        # values are read as JavaScript prints them: name 12345, description true, a list as JSON
        # (lab: name-number, description-bool, description-list; OpenClaw 2026.9.6)
        name = _js_value(fields.get("name")) or folder
        desc = _js_value(fields.get("description"))
        if not desc:
            why = (
                "no frontmatter"
                if sf.state == "no-frontmatter"
                else (sf.message if sf.state in ("unclosed", "empty") else "description missing")
            )
            return ReadResult(
                False,
                name=name,
                mode="failed",
                fields=fields,
                reason=f"{why}: description is required; skipped with a diagnostic",
            )
        # trimmed at both ends, inner newlines kept (lab: block-folded, OpenClaw 2026.9.6)
        return ReadResult(True, name=name, description=desc.strip(), fields=fields, mode=mode, note=note)

    # -- gating ------------------------------------------------------------------------
    def gate(self, skill: Skill, env: Environment) -> tuple[SkillStatus, str] | None:
        """``disable-model-invocation`` → hidden; ``metadata.openclaw`` (or legacy ``clawdbot`` /
        ``moltbot``): ``os`` hard filter; unless ``always``: ``requires.bins`` (all on PATH),
        ``requires.anyBins``, ``requires.env`` (set and non-empty), ``requires.config`` (truthy
        paths of openclaw.json) → gated; ``skills.entries.<key>.enabled = false`` → hidden
        (docs/tools/skills.md)."""
        f = skill.fields
        dmi = f.get("disable-model-invocation")
        if dmi is True or (isinstance(dmi, str) and dmi.strip().lower() == "true"):
            return (
                SkillStatus.HIDDEN,
                "disable-model-invocation: not in the prompt (explicit $name still works)",
            )
        raw = f.get("metadata")  # (None: no mapping, without the calls; per skill)
        md = (parse_loose_mapping(raw) if raw is not None else None) or {}
        oc, key_used = None, None
        for k in METADATA_KEYS if md else ():  # (no metadata, the usual case: no look-ups)
            raw = md.get(k)
            v = parse_loose_mapping(raw) if raw is not None else None
            if v is not None:
                oc, key_used = v, k
                break
        cfg = self.config(env)
        entries = _sub(_sub(cfg, "skills"), "entries")
        entry: dict[Any, Any] = {}
        if entries:  # (none configured, the usual case: every entry is {})
            skey = (oc or {}).get("skillKey") if isinstance((oc or {}).get("skillKey"), str) else skill.name
            entry = _sub(entries, skey)
            if entry.get("enabled") is False:
                return (SkillStatus.HIDDEN, f"skills.entries.{skey}.enabled = false in openclaw.json")
        if oc is None:
            return None
        skill.flags["openclaw_metadata_key"] = key_used
        oss = oc.get("os")
        if isinstance(oss, str):
            oss = [oss]
        if isinstance(oss, list) and oss and env.os_name not in [str(o) for o in oss]:
            return (
                SkillStatus.GATED,
                f"metadata.{key_used}.os = {', '.join(map(str, oss))}; this machine is {env.os_name}",
            )
        if oc.get("always") is True:
            return None
        req = _sub(oc, "requires")
        bins = [b for b in _as_list(req.get("bins")) if isinstance(b, str)]
        missing = [b for b in bins if not env.has_bin(b)]
        if missing:
            return (SkillStatus.GATED, f"requires.bins: {', '.join(missing)} not on PATH")
        anyb = [b for b in _as_list(req.get("anyBins")) if isinstance(b, str)]
        if anyb and not any(env.has_bin(b) for b in anyb):
            return (SkillStatus.GATED, f"requires.anyBins: none of {', '.join(anyb)} on PATH")
        envs = [e for e in _as_list(req.get("env")) if isinstance(e, str)]
        entry_env = _sub(entry, "env")
        miss_env = [
            e
            for e in envs
            if not (env.getenv(e) or entry_env.get(e) or (e == oc.get("primaryEnv") and entry.get("apiKey")))
        ]
        if miss_env:
            return (SkillStatus.GATED, f"requires.env: {', '.join(miss_env)} not set")
        confs = [c for c in _as_list(req.get("config")) if isinstance(c, str)]
        miss_cfg = [c for c in confs if not truthy_path(cfg, c)]
        if miss_cfg:
            return (SkillStatus.GATED, f"requires.config: {', '.join(miss_cfg)} not set in openclaw.json")
        return None

    def listing_order(self, skills: list[Skill]) -> list[Skill]:
        """By name (``localeCompare`` "en"; approximated by case-insensitive order)."""
        return sorted(skills, key=lambda s: (s.name.casefold(), s.name))


#: ``openclaw.json`` per ($OPENCLAW_STATE_DIR, home).
_CONFIG_PATHS: dict[tuple[str | None, Path], Path] = {}


def _js_value(value: object) -> str | None:
    """A frontmatter value as OpenClaw turns it into text: strings trimmed, numbers and booleans
    as JavaScript prints them, lists and maps as compact JSON; None for null."""
    if isinstance(value, (list, dict)):
        try:
            return json.dumps(value, separators=(",", ":"), ensure_ascii=False)
        except (TypeError, ValueError):
            return None
    return js_string(value)


_INDENTED_KEY = re.compile(r"^[ \t]+[A-Za-z0-9_-]+:(?:[ \t]|$)")


def _indented_line(frontmatter: str) -> bool:
    """Whether an indented frontmatter line looks like ``key: value``: OpenClaw's single-line
    parser then gives up too (lab: yaml-bad-indent, yaml-tab not loaded; OpenClaw 2026.9.6). An
    indented plain continuation line does not count (its first line is read, as in the source)."""
    return any(_INDENTED_KEY.match(line) for line in frontmatter.split("\n"))


def _as_list(v: object) -> list[Any]:
    if v is None:
        return []
    if isinstance(v, (list, tuple)):
        return list(v)
    return [v]


PROFILE = OpenClawProfile()


def _sub(d: dict[Any, Any], key: object) -> dict[Any, Any]:
    """``d[key]`` when it is a mapping, else ``{}``."""
    v = d.get(key)
    return v if isinstance(v, dict) else {}
