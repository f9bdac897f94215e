"""Shared building blocks for the client profiles: the directory walk, root construction,
collision policies and small reading helpers.

Nothing here is client *policy*; every profile states its own rules (roots, depth, skipped
folders, symlinks, reading) and names the source of each. ``CommonProfile`` gives the
``ClientProfile`` contract a default ``find`` (driven by ``WalkRules``) and a default
``resolve_collisions`` (driven by ``ClientProfile.collision``).

The walk reports *every* ``SKILL.md`` under a root down to ``REPORT_DEPTH`` levels (or the
client's own limit when deeper), including the ones the client would not find: those carry a
``skip_reason`` (too deep, inside a skipped or dot folder, inside another skill's folder, a
symlink leading outside the root, ...) so authors can see why. ``.git`` and ``node_modules`` are
never entered by the reporting walk (cost; no client treats them as skill folders).

Broken entries are reported too, never silently dropped (``skip_reason`` = one line from
``skillfile.special_file_problem``): a ``SKILL.md`` that is a broken or looping symlink, a folder,
a symlink to a folder, or not a regular file (FIFO, socket, device). The walk never opens them
(``read_skill_file`` refuses non-regular files, so a FIFO cannot block a scan). Symlinked *folders*
(decisions, the brief was silent on depth): one that loops (ELOOP) is reported as
``<link>/SKILL.md`` at any level where the client looks for skill folders (``1..max_depth``); a
dangling one only directly in the root (``<root>/<name>``, where installed skills are linked;
deeper dangling links are ordinary repository clutter) and not for dot-names.
"""

from __future__ import annotations

import errno
import json
import os
import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from stat import S_ISDIR, S_ISREG
from typing import TYPE_CHECKING, Any

import yaml

from workbench.core.cache.fscache import (
    SKILL_DIR,
    SKILL_FILE,
    SKILL_LINK,
    SKILL_OTHER,
    fast_path,
    scan_listing,
)
from workbench.core.cache.fscache import mtime as fs_mtime
from workbench.core.cache.fscache import stat as fs_stat
from workbench.core.clients.base import ClientProfile, Found, ReadResult
from workbench.core.model import Root
from workbench.core.skillfile import load_yaml, special_file_problem

if TYPE_CHECKING:
    from workbench.core.cache.fscache import DirCache
    from workbench.core.model import Environment, Skill
    from workbench.core.skillfile import SkillFile

#: How deep the reporting walk looks below a root (levels of folders), whatever the client's
#: own limit (HACKING.md "Decisions": extra roots are walked to 8 levels).
REPORT_DEPTH = 8
#: The walk never goes deeper than this, even for clients with unlimited depth (OpenCode).
HARD_DEPTH = 32
#: Folders the reporting walk never enters.
NEVER_WALKED = frozenset({".git", "node_modules"})


@dataclass(frozen=True)
class WalkRules:
    """How a client walks one root.

    Attributes:
        max_depth: deepest folder level (below the root) whose SKILL.md the client finds;
            None = unlimited. 1 = ``<root>/<dir>/SKILL.md``.
        min_depth: shallowest level; 0 lets ``<root>/SKILL.md`` itself count.
        skip_dot: folders whose name starts with "." are not entered by the client.
        skip_names: folder names the client does not enter (besides ``NEVER_WALKED``).
        silent_names: folder names not reported at all (e.g. Codex ``.system``, which is its own root).
        stop_at_skill: the client does not look below a folder that holds a SKILL.md.
        symlinks: "follow" | "inside-root" (realpath must stay inside the root) | "none".
        client: display name used in reasons.
        walk_names: folders of ``NEVER_WALKED`` the client does enter (OpenCode: node_modules).
    """

    max_depth: int | None = 1
    min_depth: int = 1
    skip_dot: bool = False
    skip_names: frozenset[str] = frozenset({".git", "node_modules"})
    silent_names: frozenset[str] = frozenset()
    stop_at_skill: bool = False
    symlinks: str = "follow"
    client: str = "the client"
    walk_names: frozenset[str] = frozenset()


#: Extra roots (``--root``, the workspace-as-root): the same walk for every client, see
#: HACKING.md "Decisions": any SKILL.md up to 8 levels, .git/node_modules skipped, dot-folders walked.
EXTRA_RULES = WalkRules(
    max_depth=8, min_depth=0, skip_dot=False, stop_at_skill=False, symlinks="follow", client="extra roots"
)


#: ``Root.note`` of the roots built by ``CommonProfile.extra_roots`` (``--root``, the workspace as a
#: collection); a client's own roots of scope ``extra`` (OpenClaw ``extraDirs``) have their own note.
EXTRA_NOTE = "HACKING.md Decisions: an extra root's skills as if installed where the client looks"


def is_installed_extra(root: Root) -> bool:
    """True for a workbench extra root (``--root``, the workspace as a collection), as opposed to a
    client's own configured roots of scope ``extra``."""
    return root.scope == "extra" and root.note == EXTRA_NOTE


def installed_view(
    found: list[Found], root: Path, rules: WalkRules, covered: Iterable[str] = (), real_dir=None
) -> list[Found]:
    """An extra root's files as the client would see them once installed where it looks.

    ``found`` is the ``EXTRA_RULES`` walk of the extra root ``root`` (every SKILL.md up to 8
    levels, dot-folders included: the collection's own layout, e.g. ``skills/.curated/``, does
    not matter). Each *outermost* skill folder (a folder holding a SKILL.md that is not inside
    another one) counts as installed directly in the client's root (depth 1; ``root`` itself
    when it holds a SKILL.md). Files below an installed skill folder are judged by the client's
    own ``rules`` from there, as in ``walk``: ``stop_at_skill`` (not looked for), ``max_depth``
    (``<skill>/<sub>/SKILL.md`` is depth 2), dot-folders and skipped names on the way.

    Files inside a folder of ``covered`` (real paths of the client's own existing roots) are
    dropped: that root reports them already, with the client's verdict (issue 13 item 3: one
    file was "skipped" by the client root and "listed" by the extra root).

    ``real_dir``: a ``real_dir_memo()`` to share between calls (discovery shares one per
    ``scan_all``), None = a fresh one.

    Returns new ``Found``s (input order); ``depth`` = the installed depth; skip reasons the
    walk gave (broken entries) are kept. Never raises.
    """
    cov = [c for c in covered if c]
    out: list[Found] = []
    root_s = str(root)
    kept = found
    if cov:
        real_dir = real_dir or real_dir_memo()
        kept = []
        for f in found:
            d, base = os.path.split(str(f.path))
            real = os.path.join(real_dir(d), base)
            if not any(_within(real, c) for c in cov):
                kept.append(f)
    # The outermost skill folder holding each skill folder: ancestors sort before descendants
    # in component order, so one sweep finds them.
    unit_of: dict[str, str] = {}
    cur = None
    for d in sorted(
        {os.path.dirname(str(f.path)) for f in kept if f.skip_reason is None}, key=lambda q: q.split(os.sep)
    ):
        if cur is None or not d.startswith(cur + os.sep):
            cur = d
        unit_of[d] = cur
    for f in kept:
        folder = os.path.dirname(str(f.path))
        unit = unit_of.get(folder)
        if unit is None:  # a broken entry: inside the nearest skill folder above, if any
            unit, a = folder, folder
            while a != root_s and _within(a, root_s):
                a = os.path.dirname(a)
                if a in unit_of:
                    unit = unit_of[a]
                    break
        if unit == folder:
            out.append(Found(f.path, 1, f.skip_reason))
            continue
        unit += os.sep
        rel = os.path.relpath(folder, unit)
        parts = rel.split(os.sep)
        depth = 1 + len(parts)
        name = os.path.basename(unit.rstrip(os.sep)) or root_s
        why = f.skip_reason
        if why is None and rules.stop_at_skill:
            why = (
                f"inside the skill folder {name}/; {rules.client} does not look below a folder "
                "that holds a SKILL.md"
            )
        if why is None:
            bad = next(
                (q for q in parts if q in rules.skip_names or (rules.skip_dot and q.startswith("."))), None
            )
            if bad is not None:
                kind = "dot-folder" if bad.startswith(".") and rules.skip_dot else "folder"
                why = f"inside the {kind} {bad}/, which {rules.client} skips"
        if why is None and rules.max_depth is not None and depth > rules.max_depth:
            why = (
                f"nested in the skill folder {name}/ ({depth} folder levels below where it would "
                f"be installed); {rules.client} looks {rules.max_depth} "
                f"level{'s' if rules.max_depth != 1 else ''} deep"
            )
        out.append(Found(f.path, depth, why))
    return out


def real_dir_memo():
    """``real(folder)`` = ``os.path.realpath(folder)``, memoised per folder and built from the
    parent's (one ``lstat`` per folder instead of one per path component per file)."""
    memo: dict[str, str] = {}

    def real(d: str) -> str:
        got = memo.get(d)
        if got is None:
            parent, name = os.path.split(d)
            if not name or parent == d or os.path.islink(d):
                try:
                    got = os.path.realpath(d)
                except OSError:  # pragma: no cover
                    got = d
            else:
                got = os.path.join(real(parent), name)
            memo[d] = got
        return got

    return real


def _within(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip(os.sep) + os.sep)


#: Bumped when the walk reports different files or reasons for the same tree, so that whole walks
#: remembered by an older version (``DirCache.put_walk``) are not reused.
_WALK_VERSION = "3"


def entry_problem(path: str) -> str:
    """Why the ``SKILL.md`` entry at ``path`` (not a regular file, or a symlink whose target is
    not one) cannot be read: ``special_file_problem``'s line, else the OS error. Never opens it."""
    try:
        st = os.stat(path)
    except OSError as exc:
        return (
            special_file_problem(path, exc=exc)
            or f"{os.path.basename(path)} cannot be read: {exc.strerror or exc}"
        )
    return special_file_problem(path, st=st) or f"{os.path.basename(path)} is not a regular file"


def _broken_folder_link(path: str, name: str, child_depth: int, rules: WalkRules) -> str | None:
    """The skip reason for a symlinked folder entry whose target cannot be stat'ed, when it is
    reported (module docstring: loops at skill-folder levels, dangling links in the root only).
    A symlink named SKILL.md is the skill file's own entry (``entry_problem`` reports it)."""
    if name == "SKILL.md":
        return None
    try:
        os.stat(path)
        return None  # appeared meanwhile: not broken
    except OSError as exc:
        code = exc.errno
    try:
        target = os.readlink(path)
    except OSError:
        target = "?"
    if code == errno.ELOOP:
        if child_depth <= (rules.max_depth if rules.max_depth is not None else HARD_DEPTH):
            return f"the skill folder {name}/ is a symlink that loops ({name} -> {target})"
        return None
    if child_depth == 1 and not name.startswith("."):
        return f"the skill folder {name}/ is a broken symlink to {target}"
    return None


#: Below a symlinked folder that leads outside the root, the walk goes at most this many levels
#: (a linked skill folder or collection is found; a link to a big tree is not walked whole).
OUTSIDE_DEPTH = 3
#: File systems a walk never enters (kernel/virtual: endless, slow or live data, e.g. /proc).
SPECIAL_FS_TYPES = frozenset(
    {
        "proc",
        "sysfs",
        "devtmpfs",
        "devpts",
        "cgroup",
        "cgroup2",
        "debugfs",
        "tracefs",
        "securityfs",
        "pstore",
        "bpf",
        "configfs",
        "fusectl",
        "mqueue",
        "hugetlbfs",
        "binfmt_misc",
        "autofs",
        "efivarfs",
        "selinuxfs",
    }
)
_SPECIAL_PREFIXES = ("/proc", "/sys", "/dev")
_special_mounts: list[str] | None = None


def _special_mount_points() -> list[str]:
    """Mount points of ``SPECIAL_FS_TYPES`` (``/proc/self/mounts``; read once per process)."""
    global _special_mounts
    if _special_mounts is None:
        found: list[str] = []
        try:
            with open("/proc/self/mounts", encoding="utf-8", errors="replace") as fh:
                for line in fh:
                    parts = line.split()
                    if len(parts) > 2 and parts[2] in SPECIAL_FS_TYPES:
                        found.append(parts[1].replace("\\040", " "))
        except OSError:
            pass
        _special_mounts = found
    return _special_mounts


def system_folder_problem(real: str) -> str | None:
    """Why a walk must not enter the real path ``real``, or None: a special file system
    (``/proc``, ``/sys``, ``/dev`` and any mount of ``SPECIAL_FS_TYPES``), or the file-system root
    or a folder directly in it (``/``, ``/usr``, ``C:\\``: a symlink to it would walk the machine)."""
    if os.sep == "/" and any(_within(real, p) for p in _SPECIAL_PREFIXES):
        return "a special file system"
    if any(_within(real, m) for m in _special_mount_points() if m != "/"):
        return "a special file system"
    parent = os.path.dirname(real.rstrip(os.sep)) or real
    if real.rstrip(os.sep) == "" or os.path.dirname(parent) == parent:
        return "a system folder"
    return None


def walk(root: Path, rules: WalkRules, dirs: DirCache | None = None) -> list[Found]:
    """Every SKILL.md under ``root`` as ``Found`` (sorted by path), with ``skip_reason`` set for
    the ones the client would not find. Never raises (unreadable folders are passed over).

    Depth: ``<root>/SKILL.md`` is 0, ``<root>/<dir>/SKILL.md`` is 1.

    ``dirs``: a ``workbench.core.cache.fscache.DirCache`` answering folder listings from their mtime
    (one ``stat`` per folder instead of a ``scandir``); None = list every folder. Symlinked
    entries are stat'ed either way (their targets may change without touching the folder).
    """
    out: list[Found] = []
    root_s = str(root)
    try:
        root_real = os.path.realpath(root_s)
    except OSError:  # pragma: no cover
        root_real = root_s
    # A whole walk is remembered (``DirCache.put_walk``) when it met no symlink: while every
    # folder it listed keeps its mtime, the same files are found with the same reasons.
    wkey = f"{_WALK_VERSION}\0{root_s}\0{root_real}\0{rules!r}" if dirs is not None else ""
    if dirs is not None:
        got = dirs.walk_result(wkey)
        if got is not None:
            return [Found(fast_path(p), dp, why) for p, dp, why in got]
    visited: list[str] = []
    vmtimes: list[int] = []
    linked = False
    limit = HARD_DEPTH if rules.max_depth is None else max(REPORT_DEPTH, rules.max_depth)
    seen_links: set[str] = {root_real}
    listing = dirs.listing if dirs is not None else scan_listing
    skip_names, silent, skip_dot = rules.skip_names, rules.silent_names, rules.skip_dot
    join = os.path.join
    sep = os.sep
    # (folder, depth, inherited skip reason, deepest level allowed)
    stack: list[tuple[str, int, str | None, int]] = [(root_s, 0, None, limit)]
    if system_folder_problem(root_real) == "a special file system":
        stack = []
    while stack:
        d, depth, why, dlimit = stack.pop()
        lst = listing(d)
        if lst is None:
            linked = True  # an unreadable folder: do not remember this walk
            continue
        if dirs is not None:
            visited.append(d)
            vmtimes.append(fs_mtime(d))
            if lst[2]:
                linked = True
        sk = lst[0]
        broken = None
        if sk == SKILL_FILE:
            skill_here = True
        elif sk == SKILL_LINK:
            st = fs_stat(join(d, "SKILL.md"))
            skill_here = st is not None and S_ISREG(st.st_mode)
            if not skill_here:
                broken = entry_problem(join(d, "SKILL.md"))
        else:
            skill_here = False
            if sk == SKILL_DIR or sk == SKILL_OTHER:
                broken = entry_problem(join(d, "SKILL.md"))
        if broken is not None:
            # Reported, never read: the file (or what it points to) is not a regular file.
            out.append(Found(fast_path(join(d, "SKILL.md")), depth, broken))
        child_why = why
        if skill_here:
            reason = why
            if reason is None:
                if rules.max_depth is not None and depth > rules.max_depth:
                    reason = (
                        f"too deep: {depth} folder levels below the root; {rules.client} "
                        f"looks {rules.max_depth} level{'s' if rules.max_depth != 1 else ''} deep"
                    )
                elif depth < rules.min_depth:
                    reason = (
                        f"SKILL.md directly in the root; {rules.client} looks for <root>/<skill>/SKILL.md"
                    )
            out.append(
                Found(
                    fast_path(d + "/SKILL.md" if sep == "/" and d[-1:] != "/" else join(d, "SKILL.md")),
                    depth,
                    reason,
                )
            )
            if rules.stop_at_skill and child_why is None and reason is None:
                child_why = (
                    f"inside the skill folder {os.path.basename(d)}/; {rules.client} does not "
                    f"look below a folder that holds a SKILL.md"
                )
        if depth >= dlimit:
            continue
        prefix = d if d.endswith(sep) else d + sep
        for name in lst[1]:
            if (name in NEVER_WALKED and name not in rules.walk_names) or name in silent:
                continue
            cw = child_why
            if cw is None:
                if name in skip_names:
                    cw = f"inside the folder {name}/, which {rules.client} skips"
                elif skip_dot and name.startswith("."):
                    cw = f"inside the dot-folder {name}/, which {rules.client} skips"
            stack.append((prefix + name, depth + 1, cw, dlimit))
        for name in lst[2]:
            if name in NEVER_WALKED or name in silent:
                continue
            path = join(d, name)
            st = fs_stat(path)
            if st is None:
                why_broken = _broken_folder_link(path, name, depth + 1, rules)
                if why_broken is not None:
                    out.append(Found(fast_path(join(path, "SKILL.md")), depth + 1, why_broken))
                continue
            if not S_ISDIR(st.st_mode):
                continue
            cw = child_why
            if cw is None:
                if name in skip_names:
                    cw = f"inside the folder {name}/, which {rules.client} skips"
                elif skip_dot and name.startswith("."):
                    cw = f"inside the dot-folder {name}/, which {rules.client} skips"
            try:
                real = os.path.realpath(path)
            except OSError:
                continue
            if real in seen_links or _within(root_real, real):
                continue  # a cycle
            seen_links.add(real)
            sub_limit = dlimit
            if not _within(real, root_real):  # never walk the machine through a link
                if system_folder_problem(real):
                    continue
                sub_limit = min(dlimit, depth + 1 + OUTSIDE_DEPTH)
            if cw is None:
                if rules.symlinks == "none":
                    cw = f"inside the symlinked folder {name}/, which {rules.client} does not follow"
                elif rules.symlinks == "inside-root" and not _within(real, root_real):
                    cw = (
                        f"the symlink {name}/ leads outside the root (to {real}); "
                        f"{rules.client} only follows symlinks that stay inside it"
                    )
            stack.append((path, depth + 1, cw, sub_limit))
    out.sort(key=lambda f: str(f.path))
    if dirs is not None and not linked:
        dirs.put_walk(wkey, visited, vmtimes, [(str(f.path), f.depth, f.skip_reason) for f in out])
    return out


# ----------------------------------------------------------------------------------------
# reading helpers


def folder_name(found_or_path: Found | Path) -> str:
    """The skill folder's name (the usual name fallback)."""
    p = found_or_path.path if isinstance(found_or_path, Found) else found_or_path
    return os.path.basename(os.path.dirname(str(p)))


def best_name(sf: SkillFile | None, path: Path) -> str:
    """A best-guess name for a file the client skips: frontmatter name, else the folder name."""
    if sf is not None:
        v = sf.get("name") if sf.ok else None
        if not isinstance(v, str) and sf.has_frontmatter_block:
            lf = sf.line_fields().get("name")
            v = lf.value if lf else None
        if isinstance(v, str) and v.strip():
            return v.strip()
    return path.parent.name


_TAG = re.compile(r"<[^>]+>")


def strip_tags(s: str) -> str:
    """Remove ``<...>`` tags (VS Code ``/<[^>]+>/g``)."""
    return _TAG.sub("", s)


def state_reason(sf: SkillFile) -> str:
    """A one-line reason for a file that did not parse (the skillfile message)."""
    return sf.message or sf.state


def unreadable(sf: SkillFile) -> bool:
    """States where no client gets any text: unreadable, too large, binary."""
    return sf.state in ("unreadable", "too-large", "binary")


def line_value_first_line(sf: SkillFile, key: str) -> str | None:
    """The value of ``key`` as a *single-line* parser sees it (continuation lines ignored).

    OpenClaw's fallback (``skill-contract.ts``) reads ``key: value`` lines only.
    """
    lf = sf.line_fields().get(key)
    if lf is None:
        return None
    lines = sf.text.split("\n")
    ln = lines[lf.value_span.line - 1].rstrip("\r")
    v = ln[lf.value_span.column - 1 :].strip()
    if len(v) >= 2 and v[0] == v[-1] and v[0] in "'\"":
        v = v[1:-1]
    return v


_TOP_KV = re.compile(r"^([A-Za-z0-9_][A-Za-z0-9_.\-]*)([ \t]*:[ \t]+)(.*)$")


def quote_retry(frontmatter: str) -> dict | None:
    """Retry YAML after quoting unquoted top-level values that contain ``": "`` (agentskills.io
    client guide, ``adding-skills-support.mdx``: "retry with quoting for unquoted
    ``key: value: with colon``"). Our own equivalent: each such value is wrapped in double
    quotes (backslashes and quotes escaped). Returns the mapping, or None if it still fails.
    """
    out = []
    changed = False
    for line in frontmatter.split("\n"):
        m = _TOP_KV.match(line)
        if m:
            v = m.group(3).rstrip()
            if v and v[0] not in "'\"[{|>&*!" and ": " in v:
                v = v.replace("\\", "\\\\").replace('"', '\\"')
                line = f'{m.group(1)}{m.group(2)}"{v}"'
                changed = True
        out.append(line)
    if not changed:
        return None
    try:
        data = load_yaml("\n".join(out) + "\n")
    except (yaml.YAMLError, ValueError, TypeError, RecursionError):
        return None
    return data if isinstance(data, dict) else None


_FILE_MEMO: dict[tuple[str, str], tuple[tuple[int, int] | None, Any]] = {}


def memo_file(path: str | Path, kind: str, loader) -> Any:
    """``loader(path)`` memoised on the file's (size, mtime_ns); a missing file is memoised too.

    Used for small per-client config files (Codex ``config.toml``, ``openclaw.json``) that gates
    consult once per skill. Only a regular file is handed to ``loader``: anything else (a FIFO,
    whose open would block forever; a folder; a device) counts as missing (value None).
    """
    key = (str(path), kind)
    try:
        st = os.stat(path)
        ident: tuple[int, int] | None = (st.st_size, st.st_mtime_ns)
        regular = S_ISREG(st.st_mode)
    except (OSError, ValueError):
        ident, regular = None, False
    ent = _FILE_MEMO.get(key)
    if ent is not None and ent[0] == ident:
        return ent[1]
    val = loader(path) if regular else None
    _FILE_MEMO[key] = (ident, val)
    return val


def load_json_file(path: Path) -> dict | None:
    """A JSON object from ``path``, or None when missing, not a regular file (never opened: a FIFO
    would block) or not plain JSON (JSON5 not parsed)."""
    try:
        if not S_ISREG(os.stat(path).st_mode):
            return None
        with open(path, encoding="utf-8") as fh:
            data = json.load(fh)
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def walk_up(start: Path, stop: Path | None) -> list[Path]:
    """Folders from ``start`` up to ``stop`` (inclusive), nearest first; just ``[start]`` when
    ``stop`` is None or not an ancestor."""
    if stop is None:
        return [start]
    out = [start]
    if start == stop:
        return out
    for p in start.parents:
        out.append(p)
        if p == stop:
            return out
    return [start]


# ----------------------------------------------------------------------------------------
# the common profile


class CommonProfile(ClientProfile):
    """``ClientProfile`` with a walk-based ``find`` and policy-driven ``resolve_collisions``.

    Subclasses set ``rules`` (default walk), override ``rules_for(root)`` where roots differ,
    and implement ``roots`` and ``read``.

    Class attributes (besides ``ClientProfile``'s):
        rules: the client's default ``WalkRules``.
        within_root: on a name collision inside one root, "first" or "last" path (sorted) wins.
        dedupe_roots: roots pointing at the same real folder are scanned once (first kept).
        dedupe_files: a SKILL.md reached twice (same real path) counts once.
    """

    rules: WalkRules = WalkRules()
    within_root: str = "first"
    dedupe_roots: bool = True
    dedupe_files: bool = True

    # -- roots -------------------------------------------------------------------------
    def make_root(
        self,
        path: Path,
        scope: str,
        label: str,
        note: str = "",
        *,
        max_depth: int | None = None,
        verified: bool = True,
        condition: str | None = None,
        active: bool = True,
        namespace: str | None = None,
    ) -> Root:
        """A ``Root`` with ``exists`` filled; precedence is set by ``number``."""
        md = self.rules.max_depth if max_depth is None else max_depth
        return Root(
            path=Path(path),
            scope=scope,
            precedence=0,
            exists=os.path.isdir(path),
            label=label,
            max_depth=md if md is not None else HARD_DEPTH,
            condition=condition,
            active=active,
            namespace=namespace,
            verified=verified,
            note=note,
        )

    @staticmethod
    def number(roots: list[Root]) -> list[Root]:
        """Set precedence 0..n-1 in list order (highest first) and return the list."""
        for i, r in enumerate(roots):
            r.precedence = i
        return roots

    def extra_roots(self, env: Environment, start: int) -> list[Root]:
        """Roots of scope ``extra`` for ``env.extra_roots`` (lowest precedence), HACKING.md."""
        out = []
        for i, p in enumerate(env.extra_roots):
            r = Root(
                path=p,
                scope="extra",
                precedence=start + i,
                exists=p.is_dir(),
                label=f"extra ({p})",
                max_depth=EXTRA_RULES.max_depth or REPORT_DEPTH,
                note=EXTRA_NOTE,
            )
            out.append(r)
        return out

    def installed_rules(self) -> WalkRules:
        """The rules a skill folder installed in this client's root is read by (an extra root's
        skills, ``installed_view``): the client's default walk."""
        return self.rules

    def rules_for(self, root: Root) -> WalkRules:
        """The walk rules for one root (``EXTRA_RULES`` for extra roots: the collection is walked
        whole, then ``installed_view`` applies ``installed_rules``)."""
        if root.scope == "extra":
            return EXTRA_RULES
        return self.rules

    def find(self, root: Root, env: Environment) -> Iterable[Found]:
        if not root.exists:
            return []
        return walk(root.path, self.rules_for(root))

    def inactive_status(self, root: Root, env: Environment) -> str:
        """Status of skills under an inactive root: "gated" for trust, else "conditional"."""
        if root.condition and root.condition.startswith("untrusted"):
            return "gated"
        return "conditional"

    # -- collisions --------------------------------------------------------------------
    def competes(self, skill: Skill) -> bool:
        """Whether a skill takes part in name collisions (found and read; its root active)."""
        return skill.status not in ("skipped", "shadowed") and skill.root.active

    def resolve_collisions(self, skills: list[Skill], env: Environment) -> None:
        """Mark losers ``shadowed`` per ``self.collision``:

        * "higher-wins": the root with the lowest precedence number wins; inside one root the
          first (``within_root == "first"``) or last path in sorted order wins.
        * "keep-both": nothing is shadowed (Codex).

        ``skills`` must be in root precedence order, then path order (as discovery builds it).
        """
        if self.collision == "keep-both":
            return
        groups: dict[str, list[Skill]] = {}
        for s in skills:
            if self.competes(s):
                groups.setdefault(s.name, []).append(s)
        for _name, group in groups.items():
            if len(group) < 2:
                continue
            best = group[0]
            for s in group[1:]:
                if s.root.precedence < best.root.precedence:
                    best = s
                elif s.root.precedence == best.root.precedence and self.within_root == "last":
                    best = s
            for s in group:
                if s is best:
                    continue
                s.status = "shadowed"
                s.shadowed_by = best.path
                s.reason = self.shadow_reason(s, best)

    def shadow_reason(self, loser: Skill, winner: Skill) -> str:
        """One line explaining why ``loser`` is shadowed by ``winner``."""
        if loser.root is winner.root or loser.root.path == winner.root.path:
            rule = "last found wins" if self.within_root == "last" else "first found wins"
            return f"same name '{loser.name}' twice in one root; {rule} ({winner.path})"
        return (
            f"name '{loser.name}' is also defined in {winner.root.label or winner.root.path}, "
            f"which takes precedence"
        )


def truthy_path(data: Any, dotted: str) -> bool:
    """True when ``data`` has a truthy value at ``a.b.c`` (OpenClaw ``requires.config``)."""
    cur = data
    for part in dotted.split("."):
        if not isinstance(cur, dict) or part not in cur:
            return False
        cur = cur[part]
    return bool(cur)


def parse_loose_mapping(value: Any) -> dict | None:
    """A metadata value as a mapping: already a dict, or a JSON/YAML string (OpenClaw writes
    ``metadata: {"openclaw": {...}}`` on one line; the fallback parser leaves it a string)."""
    if isinstance(value, dict):
        return value
    if isinstance(value, str) and value.strip().startswith("{"):
        try:
            v = json.loads(value)
        except ValueError:
            try:
                v = load_yaml(value)
            except (yaml.YAMLError, ValueError, TypeError, RecursionError):
                return None
        return v if isinstance(v, dict) else None
    return None


__all__ = [
    "CommonProfile",
    "WalkRules",
    "EXTRA_RULES",
    "EXTRA_NOTE",
    "REPORT_DEPTH",
    "walk",
    "installed_view",
    "is_installed_extra",
    "real_dir_memo",
    "entry_problem",
    "folder_name",
    "best_name",
    "strip_tags",
    "state_reason",
    "unreadable",
    "line_value_first_line",
    "quote_retry",
    "load_json_file",
    "walk_up",
    "truthy_path",
    "parse_loose_mapping",
    "ReadResult",
    "js_string",
    "retry_quoted",
]


def js_string(value: object) -> str | None:
    """A YAML scalar as JavaScript's ``String()`` prints it (None for lists, maps and null)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return repr(value).removesuffix(".0") if value.is_integer() else repr(value)
    if isinstance(value, str):
        return value.strip()
    return None


_PLAIN_PAIR = re.compile(r"^([A-Za-z0-9_-]+):[ \t]+(.*\S)[ \t]*$")


def retry_quoted(frontmatter: str) -> dict | None:
    """Claude Code's (and OpenCode's) second try at frontmatter that strict YAML rejects: every top-level
    ``key: value`` line whose plain value holds ``": "`` gets that value double-quoted, then the
    text is parsed again. The mapping, or None when it still fails (lab: ``yaml-unquoted-colon``
    passes; ``yaml-tab``, ``yaml-bad-indent``, ``yaml-unclosed-quote`` stay broken; Claude Code
    2.1.328, OpenCode 1.18.33)."""
    out = []
    changed = False
    for line in frontmatter.split("\n"):
        m = _PLAIN_PAIR.match(line)
        if m and ": " in m.group(2) and m.group(2)[0] not in "\"'[{>|&*!%@`":
            value = m.group(2).replace("\\", "\\\\").replace('"', '\\"')
            line = f'{m.group(1)}: "{value}"'
            changed = True
        out.append(line)
    if not changed:
        return None
    try:
        data = load_yaml("\n".join(out))  # bounded: aliases, depth, integer digits
    except (yaml.YAMLError, ValueError, TypeError):
        return None
    return data if isinstance(data, dict) else None
