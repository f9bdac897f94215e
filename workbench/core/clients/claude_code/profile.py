"""Claude Code discovery rules (closed source; docs + extracted prompts).

Sources (../shared/reference/clients.md section 1): code.claude.com/docs/en/skills [docs];
``Piebald-AI/claude-code-system-prompts`` @391175e5 (CC v2.1.240): ``skill-doctor-slash-command.md``
(invalid YAML handling), ``tool-description-invoke-skill.md`` (nested ``apps/web:deploy`` names);
issue #18192 (grouping folders not discovered); claudefa.st [3p] (realpath dedupe of symlinks).

Roots, highest precedence first (same name at two levels: the higher one wins silently):
managed (enterprise; path per OS, *unverified*) > personal ``~/.claude/skills`` (or
``$CLAUDE_CONFIG_DIR/skills``, *unverified* for skills) > project ``<cwd>/.claude/skills`` >
plugins ``<plugin>/skills`` (namespaced ``plugin:name``, never collide; where installed plugins
live is *unverified*: we look for ``.claude-plugin/plugin.json`` under ``~/.claude/plugins``) >
nested ``<cwd>/<sub>/.claude/skills`` (monorepo packages: only once a file under ``<sub>`` is
touched; on a name clash exposed as ``<sub>:<name>``) > extra roots.

Depth: one level (``skills/<dir>/SKILL.md``); grouping folders are not found (#18192).
Symlinks: followed (symlinked skill folders and a symlinked ``~/.claude/skills`` work).
No ``.agents/skills`` support (issue #22902).
"""

from __future__ import annotations

import logging
import os
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

from workbench.core.cache.fscache import RACY_NS
from workbench.core.cache.fscache import listing as fs_listing
from workbench.core.cache.fscache import stat as fs_stat
from workbench.core.clients.base import Found, ReadResult
from workbench.core.clients.common import (
    NEVER_WALKED,
    CommonProfile,
    WalkRules,
    folder_name,
    js_string,
    load_json_file,
    retry_quoted,
    unreadable,
)
from workbench.core.listingkit import collapse_ws
from workbench.core.model import Environment, Root, Skill, SkillStatus
from workbench.core.skillfile import SkillFile

if TYPE_CHECKING:
    import pathspec

log = logging.getLogger(__name__)

#: Managed (enterprise) settings folders per OS (docs: "managed settings"); that managed skills
#: live in ``<dir>/.claude/skills`` is *unverified*.
MANAGED_DIRS = {
    "linux": Path("/etc/claude-code"),
    "darwin": Path("/Library/Application Support/ClaudeCode"),
    "win32": Path("C:/Program Files/ClaudeCode"),
}

#: How deep below the project the nested ``.claude/skills`` search looks (*unverified*: the docs
#: only say "subdirectories").
NESTED_SEARCH_DEPTH = 6

DROPPED_UNVERIFIED = (
    "description fallback = first body line (/doctor prompt, v2.1.233); the docs say 'first paragraph'"
)


def _first_text_line(sf: SkillFile) -> str:
    """First non-empty body line, heading marks removed. Without a frontmatter block (none, or
    never closed) the whole file is the body, so an opening ``---`` is that line (lab:
    ``yaml-unclosed-fence``, ``fence-leading-blank``; Claude Code 2.1.328)."""
    src = sf.text.lstrip("\ufeff") if sf.state in ("unclosed", "no-frontmatter") else sf.body
    for line in src.splitlines():
        s = line.strip()
        if s:
            return s.lstrip("#").strip()
    return ""


#: pathspec turns a glob into a backtracking regex: ``*a*a*a*a*a*a*a*a*a*a*a*a*b`` against 40
#: ``a``s runs for minutes, ``**/*a*/**/*a*/**/*a*/**/x`` on a deep path ~1 min. Globs over these
#: limits are refused (``glob_problem``); repeated ``**/`` are collapsed first (same meaning).
#: Measured worst case within them: ~0.2 s per 4,096-character path. Real globs use 1-3.
MAX_GLOB_STARS = 2  # "*" runs in one path segment
MAX_GLOB_RUNS = 4  # "*" runs in the whole pattern ("**" counts as one)
MAX_GLOB_CHARS = 1000
_REPEATED_DEEP = re.compile(r"(?:\*\*/)+\*\*(?=/|$)|(?:\*\*/){2,}")


def simplify_glob(pattern: str) -> str:
    """``pattern`` with repeated ``**/`` segments collapsed (``**/**/x`` -> ``**/x``) and runs of
    three or more ``*`` in a segment made ``**`` (both keep the gitignore meaning)."""
    p = re.sub(r"\*{3,}", "**", pattern)
    return _REPEATED_DEEP.sub(lambda m: "**" if not m.group(0).endswith("/") else "**/", p)


def glob_problem(pattern: str) -> str | None:
    """Why a ``paths`` glob is refused (too slow to match safely: the limits above), or None.
    Checked on ``simplify_glob(pattern)``."""
    p = simplify_glob(pattern)
    if len(p) > MAX_GLOB_CHARS:
        return f"glob of {len(p):,} characters (limit {MAX_GLOB_CHARS:,})"
    runs = [len(re.findall(r"\*+", s)) for s in p.split("/")]
    if max(runs) > MAX_GLOB_STARS:
        return f"{max(runs)} '*' wildcards in one path segment (limit {MAX_GLOB_STARS}): too slow to match"
    if sum(runs) > MAX_GLOB_RUNS:
        return f"{sum(runs)} '*'/'**' wildcards (limit {MAX_GLOB_RUNS}): too slow to match"
    return None


def _glob_spec(patterns: list[str]) -> pathspec.PathSpec[Any]:
    """gitignore-style globs (pathspec >= 1 calls the factory "gitignore", older "gitwildmatch")."""
    import pathspec  # on first use: most scans meet no ``paths`` frontmatter (~15 ms import)

    try:
        return pathspec.PathSpec.from_lines("gitignore", patterns)
    except (KeyError, LookupError):  # pragma: no cover - pathspec < 1
        return pathspec.PathSpec.from_lines("gitwildmatch", patterns)


class ClaudeCodeProfile(CommonProfile):
    """Claude Code: managed > personal > project; nested packages on touch; plugins namespaced."""

    id = "claude-code"
    display_name = "Claude Code"
    version_note = "docs 2026-06; extracted prompts CC v2.1.240 (Piebald-AI @391175e5)"
    client_version = "2.1.328"  # lab: tests/conformance (pinned version)
    lab_checked = True
    collision = "higher-wins"
    rules = WalkRules(max_depth=1, min_depth=1, skip_dot=False, symlinks="follow", client="Claude Code")

    # -- roots -------------------------------------------------------------------------
    def config_dir(self, env: Environment) -> Path:
        """``$CLAUDE_CONFIG_DIR`` or ``~/.claude``."""
        v = env.getenv("CLAUDE_CONFIG_DIR")
        return Path(v).expanduser() if v else env.home / ".claude"

    def roots(self, env: Environment) -> list[Root]:
        cfg = self.config_dir(env)
        out: list[Root] = []
        mdir = MANAGED_DIRS.get(env.os_name, MANAGED_DIRS["linux"])
        out.append(
            self.make_root(
                mdir / ".claude" / "skills",
                "managed",
                f"managed ({mdir}/.claude/skills)",
                "code.claude.com/docs/en/skills: Enterprise > Personal > Project; managed path unverified",
                verified=False,
            )
        )
        out.append(
            self.make_root(
                cfg / "skills",
                "user",
                "personal (~/.claude/skills)",
                "code.claude.com/docs/en/skills: Personal ~/.claude/skills/<name>/SKILL.md",
                verified=not env.getenv("CLAUDE_CONFIG_DIR"),
            )
        )
        cwd = env.cwd or env.workspace
        out.append(
            self.make_root(
                cwd / ".claude" / "skills",
                "project",
                "project (.claude/skills)",
                "code.claude.com/docs/en/skills: Project .claude/skills/<name>/SKILL.md",
            )
        )
        out.extend(self._plugin_roots(cfg))
        out.extend(self._nested_roots(cwd, env))
        self.number(out)
        out.extend(self.extra_roots(env, len(out)))
        return out

    def _plugin_roots(self, cfg: Path) -> list[Root]:
        """``<plugin>/skills`` for each ``.claude-plugin/plugin.json`` under ``~/.claude/plugins``
        (up to 5 levels; *unverified* install layout). Namespace = plugin.json ``name``."""
        base = cfg / "plugins"
        out: list[Root] = []
        if not base.is_dir():
            return out
        stack = [(base, 0)]
        while stack:
            d, depth = stack.pop()
            manifest = d / ".claude-plugin" / "plugin.json"
            if manifest.is_file():
                data = load_json_file(manifest) or {}
                ns = data.get("name") if isinstance(data.get("name"), str) else d.name
                out.append(
                    self.make_root(
                        d / "skills",
                        "plugin",
                        f"plugin {ns} ({d}/skills)",
                        "code.claude.com/docs/en/skills: plugin skills are namespaced "
                        "plugin-name:skill-name; install location unverified",
                        verified=False,
                        namespace=ns,
                    )
                )
                continue
            if depth >= 5:
                continue
            try:
                with os.scandir(d) as it:
                    subs = [Path(e.path) for e in it if e.is_dir() and e.name not in NEVER_WALKED]
            except OSError:
                continue
            stack.extend((s, depth + 1) for s in subs)
        out.sort(key=lambda r: str(r.path))
        return out

    def _nested_roots(self, cwd: Path, env: Environment) -> list[Root]:
        """``.claude/skills`` folders in sub-folders of ``cwd`` (monorepo packages).

        Active only once a touched file lies under the package folder (docs: "discovered when
        Claude works with files under that subdirectory (not at session start)").
        """
        out = [self._nested_root(Path(d), cwd, env) for d in nested_skill_parents(str(cwd))]
        out.sort(key=lambda r: str(r.path))
        return out

    def _nested_root(self, pkg: Path, cwd: Path, env: Environment) -> Root:
        """The nested root ``<pkg>/.claude/skills``; active once a touched file lies under ``pkg``."""
        rel = pkg.relative_to(cwd).as_posix()
        active = any(t == pkg or pkg in t.parents for t in env.touched)
        return self.make_root(
            pkg / ".claude" / "skills",
            "nested",
            f"nested ({rel}/.claude/skills)",
            "code.claude.com/docs/en/skills: nested .claude/skills discovered when "
            "working with files under that subdirectory",
            condition=(
                None if active else f"nested root of {rel}/: discovered once a file under {rel}/ is touched"
            ),
            active=active,
            namespace=None,
        )

    # -- reading -----------------------------------------------------------------------
    def read(self, sf: SkillFile, found: Found, root: Root, env: Environment) -> ReadResult:
        """Claude Code keeps every readable SKILL.md.

        * The skill's name is its **folder** name (checked on Claude Code 2.1.328 by the lab:
          ``name-differs``, ``clash-same-root``, ``name-number``); a declared ``name`` that differs
          is only shown in the listing as ``folder (name)`` (see ``listing.py``).
        * YAML ok: ``description`` whitespace-collapsed (block scalars, wrapped lines, tabs); a
          boolean or number is listed as JavaScript prints it (``true``, ``3.14``); a list, a map
          or none: the body's first paragraph (lab: ``block-*``, ``wrapped-plain``,
          ``description-*``). ``when_to_use`` kept for the listing.
        * no frontmatter, unclosed, YAML error, not a mapping: the skill *still loads* with every
          field dropped: description = first body line (/doctor prompt, v2.1.233).
        * unreadable / binary / too large: skipped.
        """
        folder = folder_name(found)
        unv: list[str] = []
        if unreadable(sf):
            return ReadResult(False, name=folder, mode="failed", reason=sf.message or sf.state)
        retried = retry_quoted(sf.frontmatter) if sf.state == "yaml-error" else None
        if sf.ok or sf.state == "empty" or retried is not None:
            data = (sf.data if retried is None else retried) or {}
            notes = (
                []
                if retried is None
                else ["strict YAML fails; Claude Code's retry with quoted values reads it"]
            )
            declared = js_string(data.get("name"))
            if declared and declared != folder:
                notes.append(f"name {declared!r} is shown beside the folder name {folder!r}")
            desc = data.get("description")
            description = collapse_ws(js_string(desc) or "")
            if not description:
                if desc is not None and js_string(desc) is None:
                    notes.append("description is not a string: the body's first paragraph is used")
                else:
                    notes.append("no description: the body's first paragraph is used")
                description = collapse_ws(sf.first_body_paragraph())
            when = data.get("when_to_use")
            return ReadResult(
                True,
                name=folder,
                description=description,
                when_to_use=when if isinstance(when, str) else None,
                fields=dict(data),
                mode="strict" if retried is None else "fallback",
                note="; ".join(notes),
                unverified=unv,
            )
        # no-frontmatter, unclosed, yaml-error, not-mapping: every field dropped
        what = {"no-frontmatter": "no frontmatter"}.get(sf.state, sf.message or sf.state)
        unv.append(DROPPED_UNVERIFIED)
        return ReadResult(
            True,
            name=folder,
            description=_first_text_line(sf),
            fields={},
            mode="dropped",
            note=f"{what}: every field dropped; name from the folder, description "
            f"from the first body line (nothing warns)",
            unverified=unv,
        )

    # -- gating ------------------------------------------------------------------------
    def gate(self, skill: Skill, env: Environment) -> tuple[SkillStatus, str] | None:
        """``disable-model-invocation: true`` → hidden (user-only ``/name``); ``paths`` globs →
        conditional until a touched file (relative to the workspace) matches (docs; matched
        with gitignore-style globs via pathspec, the exact glob dialect is *unverified*)."""
        f = skill.fields
        if f.get("user-invocable") is False:
            skill.flags["user_invocable"] = False
        if f.get("disable-model-invocation") is True:
            return (
                SkillStatus.HIDDEN,
                f"disable-model-invocation: true: not listed for the model (user-only /{skill.name})",
            )
        paths = f.get("paths")
        if isinstance(paths, str):
            paths = [p.strip() for p in paths.split(",") if p.strip()]
        if isinstance(paths, list) and paths:
            pats = [str(p) for p in paths if isinstance(p, (str, int, float))]
            skill.flags["paths"] = pats
            if "paths glob dialect (gitignore-style via pathspec)" not in skill.unverified:
                skill.unverified.append("paths glob dialect (gitignore-style via pathspec)")
            bad = next(((p, why) for p in pats if (why := glob_problem(p))), None)
            if bad:
                return (
                    SkillStatus.CONDITIONAL,
                    f"paths: glob {bad[0][:80]!r} refused ({bad[1]}); never activates",
                )
            try:
                spec = _glob_spec([simplify_glob(p) for p in pats])
            except Exception as exc:  # noqa: BLE001 - a bad glob must not crash a scan
                log.debug("paths globs of %s refused by pathspec", skill.path, exc_info=True)
                return (SkillStatus.CONDITIONAL, f"paths: invalid glob ({exc}); never activates")
            for t in env.touched:
                try:
                    rel = t.relative_to(env.workspace).as_posix()
                except ValueError:
                    continue
                if spec.match_file(rel):
                    return None
            return (
                SkillStatus.CONDITIONAL,
                "paths: activates once a file matching "
                + ", ".join(pats[:4])
                + (" …" if len(pats) > 4 else "")
                + " is touched",
            )
        return None

    # -- collisions --------------------------------------------------------------------
    def resolve_collisions(self, skills: list[Skill], env: Environment) -> None:
        """Higher level wins silently among managed/personal/project/extra (plugins are
        namespaced so never collide); a discovered nested skill whose name clashes with any
        other skill is renamed ``<subdir>:<name>`` and kept (docs 2026-06)."""
        nested = [s for s in skills if s.root.scope == "nested" and self.competes(s)]
        others = [s for s in skills if s.root.scope != "nested"]
        super().resolve_collisions(others, env)
        taken: dict[str, int] = {}
        for s in skills:
            if self.competes(s) and s.status != SkillStatus.SHADOWED:
                taken[s.name] = taken.get(s.name, 0) + 1
        cwd = env.cwd or env.workspace
        for s in nested:
            if taken.get(s.name, 0) > 1:
                pkg = s.root.path.parent.parent
                try:
                    rel = pkg.relative_to(cwd).as_posix()
                except ValueError:
                    rel = pkg.name
                s.flags["unscoped_name"] = s.name
                s.name = f"{rel}:{s.name}"
                s.reason = (
                    s.reason + "; " if s.reason else ""
                ) + f"name clashes, so it is exposed as {s.name}"


#: ``nested_skill_parents`` per workspace: (the folders found, every folder listed, their mtimes).
_NESTED_MEMO: dict[str, tuple[list[str], list[str], list[int]]] = {}


def nested_skill_parents(cwd: str) -> list[str]:
    """The sub-folders of ``cwd`` (not ``cwd``) holding a ``.claude/skills`` folder, searched
    ``NESTED_SEARCH_DEPTH`` levels deep through real (not symlinked) folders, skipping
    dot-folders and ``node_modules``. Memoised per ``cwd`` while every folder listed keeps its
    mtime (a folder added or removed changes its parent's; listings less than ``RACY_NS`` old
    are not trusted); each ``.claude/skills`` is checked again on every call. Never raises."""
    memo = _NESTED_MEMO.get(cwd)
    if memo is not None:
        found, visited, mtimes = memo
        now = []
        for d in visited:
            st = fs_stat(d)  # one stat per folder per ``fscache.snapshot``
            now.append(-1 if st is None else st.st_mtime_ns)
        if now == mtimes:
            return [d for d in found if os.path.isdir(os.path.join(d, ".claude", "skills"))]
    found, visited, mtimes = [], [], []
    stack = [(cwd, 0)]
    sep = os.sep
    while stack:
        d, depth = stack.pop()
        # real sub-folders only: symlinked folders are not entered (decision: a link to /
        # walked the machine)
        lst = fs_listing(d)  # the scan's walks' listings inside ``snapshot(dirs=)``
        visited.append(d)
        if lst is None:
            mtimes.append(-1)
            continue
        if len(lst) > 3:  # a ``DirCache`` listing: [3] is the folder's mtime (its stat's)
            mtimes.append(lst[3])
        else:
            st = fs_stat(d)
            mtimes.append(-1 if st is None else st.st_mtime_ns)
        if depth + 1 > NESTED_SEARCH_DEPTH:  # only a .claude here counts
            if ".claude" in lst[1] and d != cwd:
                found.append(d)
            continue
        prefix = d if d.endswith(sep) else d + sep  # = os.path.join(d, name) for a folder name
        for name in lst[1]:
            if name == ".claude":
                if d != cwd:
                    found.append(d)
                continue
            if name.startswith(".") or name == "node_modules":
                continue
            stack.append((prefix + name, depth + 1))
    import time

    limit = time.time_ns() - RACY_NS
    if all(0 <= m < limit for m in mtimes):
        _NESTED_MEMO[cwd] = (found, visited, mtimes)
    return [d for d in found if os.path.isdir(os.path.join(d, ".claude", "skills"))]


PROFILE = ClaudeCodeProfile()
