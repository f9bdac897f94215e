"""The directory walk of the client profiles (``walk``, driven by ``WalkRules``) and extra roots
"as if installed" (``installed_view``). ``clients.common.CommonProfile.find`` uses it.

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
import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass, fields
from pathlib import Path
from stat import S_ISDIR, S_ISREG
from typing import TYPE_CHECKING, Any

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
from workbench.core.clients.base import Found
from workbench.core.model import Root
from workbench.core.skillfile import special_file_problem

if TYPE_CHECKING:
    from workbench.core.cache.fscache import DirCache

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
    found: list[Found],
    root: Path,
    rules: WalkRules,
    covered: Iterable[str] = (),
    real_dir: Callable[[str], str] | None = None,
    memo: dict[Any, Any] | None = None,
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
    ``scan_all``), None = a fresh one. ``memo``: a dict shared between the clients of one pass
    (discovery's walk memo): what does not depend on ``rules`` (the outermost skill folders and
    their depth-1 ``Found``s, shared by every client) is computed once per (``found``, ``root``,
    ``covered``); None = no sharing.

    Returns new ``Found``s (input order; a depth-1 one may be shared with other calls of the same
    ``memo``: treat them as read-only); ``depth`` = the installed depth; skip reasons the walk
    gave (broken entries) are kept. Never raises.
    """
    cov = tuple(c for c in covered if c)
    key = (id(found), str(root), cov)
    got = memo.get(key) if memo is not None else None
    if got is None or got[0] is not found:
        got = (found, _installed_units(found, str(root), cov, real_dir))
        if memo is not None:
            memo[key] = got  # keeps ``found`` alive, so its id stays unique
    out: list[Found] = []
    for f, top, unit, folder in got[1]:
        out.append(top if top is not None else _nested_installed(f, unit, folder, str(root), rules))
    return out


def _installed_units(
    found: list[Found], root_s: str, cov: tuple[str, ...], real_dir: Callable[[str], str] | None
) -> list[tuple[Found, Found | None, str, str]]:
    """``installed_view``'s rule-independent part: per kept file ``(f, top, unit, folder)`` where
    ``unit`` is its outermost skill folder and ``top`` the installed ``Found`` (depth 1) when the
    file is that folder's own SKILL.md, else None (``_nested_installed`` judges it)."""
    kept = found
    if cov:
        real_dir = real_dir or real_dir_memo()
        kept = []
        for f in found:
            d, base = os.path.split(str(f.path))
            real = os.path.join(real_dir(d), base)
            if not any(_within(real, c) for c in cov):
                kept.append(f)
    dirname = os.path.dirname
    folders = [dirname(str(f.path)) for f in kept]
    # The outermost skill folder holding each skill folder: ancestors sort before descendants
    # in component order, so one sweep finds them.
    unit_of: dict[str, str] = {}
    cur = None
    # component order = the order of the paths with the separator as the lowest character
    # (NUL never occurs in a path): one C replace per folder rather than a list per folder
    for d in sorted(
        {d for d, f in zip(folders, kept) if f.skip_reason is None}, key=lambda q: q.replace(os.sep, "\0")
    ):
        if cur is None or not d.startswith(cur + os.sep):
            cur = d
        unit_of[d] = cur
    out: list[tuple[Found, Found | None, str, str]] = []
    for f, folder in zip(kept, folders):
        unit = unit_of.get(folder)
        if unit is None:  # a broken entry: inside the nearest skill folder above, if any
            unit, a = folder, folder
            while a != root_s and _within(a, root_s):
                a = dirname(a)
                if a in unit_of:
                    unit = unit_of[a]
                    break
        out.append((f, Found(f.path, 1, f.skip_reason) if unit == folder else None, unit, folder))
    return out


def _nested_installed(f: Found, unit: str, folder: str, root_s: str, rules: WalkRules) -> Found:
    """The installed ``Found`` of a file below its outermost skill folder ``unit``, judged by the
    client's ``rules`` (``installed_view``)."""
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
    return Found(f.path, depth, why)


def real_dir_memo() -> Callable[[str], str]:
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


def rules_key(rules: WalkRules) -> str:
    """``rules`` as text that is the same in every process (the persisted walk key): each field
    in order, sets as sorted tuples (a frozenset's ``repr`` order depends on the hash seed, so
    ``repr(rules)`` differed between processes and a new process never reused a stored walk)."""
    return repr(
        tuple(
            tuple(sorted(v)) if isinstance(v, frozenset) else v
            for v in (getattr(rules, f.name) for f in fields(rules))
        )
    )


def walk(
    root: Path,
    rules: WalkRules,
    dirs: DirCache | None = None,
    on_file: Callable[[str, Path], Any] | None = None,
) -> list[Found]:
    """Every SKILL.md under ``root`` as ``Found`` (sorted by path), with ``skip_reason`` set for
    the ones the client would not find. Never raises (unreadable folders are passed over).

    ``on_file``: called with each regular SKILL.md's path (the str and its ``Found``'s ``Path``)
    as it is met, before the walk ends (a parse can start early, ``discovery.start_parse``); not
    called when the whole walk comes from ``dirs``.

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
    wkey = f"{_WALK_VERSION}\0{root_s}\0{root_real}\0{rules_key(rules)}" if dirs is not None else ""
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
            fpath = d + "/SKILL.md" if sep == "/" and d[-1:] != "/" else join(d, "SKILL.md")
            fp = fast_path(fpath)
            out.append(Found(fp, depth, reason))
            if on_file is not None:
                on_file(fpath, fp)
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
