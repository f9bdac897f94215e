"""The one SKILL.md walker (``find_skill_files``) and the one folder walk (``walk_tree``), both
skipping ``clients.common.NEVER_WALKED``. Used by lint, the benchmark, the chat's load kit and the
watcher; kept apart from the lint package so that importing it loads no rules.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Iterator, Sequence
from operator import methodcaller
from pathlib import Path
from stat import S_ISDIR

from workbench.core.cache.fscache import SKILL_NONE, DirCache, fast_paths, scan_listing
from workbench.core.cache.fscache import stat as fs_stat
from workbench.core.clients.common import NEVER_WALKED
from workbench.core.clients.walk import system_folder_problem

#: Folder names never walked (DESIGN.md section 3): ``clients.common.NEVER_WALKED``.
SKIP_DIRS = NEVER_WALKED


def walk_tree(
    top: str | os.PathLike[str], *, sort: bool = False
) -> Iterator[tuple[str, list[str], list[str]]]:
    """``os.walk(top)`` without the ``NEVER_WALKED`` folders (``sort``: folders and file names in
    sorted order, for a deterministic walk). Symlinked folders are not followed; errors are
    ignored (an unreadable folder is skipped)."""
    for dirpath, dirnames, filenames in os.walk(top):
        dirnames[:] = [d for d in dirnames if d not in NEVER_WALKED]
        if sort:
            dirnames.sort()
            filenames.sort()
        yield dirpath, dirnames, filenames


def find_skill_files(
    path: Path | str, *, dirs: DirCache | None = None, on_file: Callable[[str], object] | None = None
) -> list[Path]:
    """The SKILL.md files a PATH names: the file itself; ``DIR/SKILL.md`` (or ``DIR/skill.md``)
    for a skill folder; otherwise every ``SKILL.md`` below DIR, skipping ``.git`` and
    ``node_modules`` (dot-folders are walked, like discovery does). Sorted. Symlinked folders are
    followed, as discovery does (``skills/my-skill -> ../src/my-skill``, issue 13 item 4): each
    real folder is walked once (no cycles) and a SKILL.md reached twice counts once (the first
    path in path order is kept). Returns [] when nothing is found.

    A ``SKILL.md`` entry that cannot be read as a file is returned too, so that it is reported
    (``STR003`` with ``skillfile.special_file_problem``'s reason) instead of vanishing: a broken or
    looping symlink, a folder named ``SKILL.md``, a FIFO/socket/device (``read_skill_file`` never
    opens those), a symlink to a folder. A PATH that is itself such an entry is returned when it
    is named SKILL.md (any case).

    ``dirs``: a ``workbench.core.cache.fscache.DirCache`` answering folder listings from their mtime
    (one stat per folder instead of a scandir); None lists every folder.

    ``on_file``: called with each SKILL.md path (a str) of a walk below DIR as the walk finds it,
    in walk order (``workbench lint`` starts linting while the walk goes on); a path it is given
    may still be dropped from the result (a file reached again through a symlinked folder)."""
    p = Path(path)
    # os.path.isfile/isdir, not Path's: they answer False instead of raising PermissionError
    # (a folder without search permission, mode 0444, as a non-root user)
    if os.path.isfile(p):
        return [p]
    if not os.path.isdir(p):
        return [p] if p.name.lower() == "skill.md" and entry_exists(p) else []
    try:
        names = os.listdir(p)
    except OSError:  # an unlistable folder: its SKILL.md reports why (STR003, "Permission denied")
        return [p / "SKILL.md"]
    for name in ("SKILL.md", "skill.md"):
        if name in names and (os.path.isfile(p / name) or not entry_exists(p / name)):
            return [p / name]
    return fast_paths(_find_below(str(p), dirs, on_file))


#: Sort key of str paths in path order (component-wise, as ``Path`` and ``str.split(os.sep)``
#: lists compare): the separator replaced by NUL, which no file name holds and every other
#: character sorts after (a component that is a prefix of its sibling's then sorts first, as in
#: the lists). 7x cheaper than the split lists over 10k paths (one C call, one string each).
path_order_key = methodcaller("replace", os.sep, "\0")


def entry_exists(p: Path) -> bool:
    """``os.path.lexists``, but True when the answer is hidden by a permission error (the entry is
    then reported as unreadable instead of vanishing)."""
    try:
        os.lstat(p)
    except PermissionError:
        return True
    except (OSError, ValueError):
        return False
    return True


def _find_below(
    top: str, dirs: DirCache | None = None, on_file: Callable[[str], object] | None = None
) -> list[str]:
    """Every SKILL.md entry below ``top`` (str paths, path order): the files below it, through
    symlinked folders too (each real folder once, a link back to an ancestor is a cycle and is
    not entered; a file reached twice is kept once, by real path), plus SKILL.md entries that
    are not files (a folder, a symlink to a folder: ``STR003`` reports them). With a
    ``DirCache`` the whole result is remembered while no folder it listed changed (and it met
    no symlink). ``on_file``: see ``find_skill_files``."""
    wkey = _walk_key(top)
    if dirs is not None:
        got = dirs.walk_result(wkey)
        if got is not None:
            if on_file is not None:
                for f in got:
                    on_file(f)
            return list(got)
    listing = dirs.listing if dirs is not None else scan_listing
    found: list[str] = []
    visited: list[str] = []
    vmtimes: list[int] = []
    linked = False
    stack = [top]
    seen: set[str] | None = None  # real folders entered through symlinks (and ``top``)
    while stack:
        d = stack.pop()
        lst = listing(d)
        if lst is None:
            linked = True
            continue
        if dirs is not None:
            visited.append(d)
            vmtimes.append(lst[3])  # the folder's mtime_ns, stat'ed before it was listed
            if lst[2]:
                linked = True
        sk = lst[0]
        prefix = d if d.endswith(os.sep) else d + os.sep
        if sk != SKILL_NONE:
            # Any SKILL.md entry: a file, or (reported by STR003, never opened) a folder, a FIFO,
            # a broken/looping symlink or a symlink to a folder.
            f = prefix + "SKILL.md"  # = os.path.join(d, "SKILL.md")
            found.append(f)
            if on_file is not None:
                on_file(f)
        for name in lst[1]:
            if name not in SKIP_DIRS:
                stack.append(prefix + name)
        if lst[2]:
            if seen is None:
                seen = {os.path.realpath(top)}
            _follow_links(d, lst[2], seen, stack)
    # Path order (component-wise), not plain string order: "a/b" sorts before "a-b".
    found.sort(key=path_order_key)
    if seen is not None:  # met a symlinked folder: one entry per real file
        once: dict[str, str] = {}
        for f in found:
            once.setdefault(os.path.realpath(f) if os.path.isfile(f) else f, f)
        found = list(once.values())
    if dirs is not None and not linked:
        dirs.put_walk(wkey, visited, vmtimes, tuple(found))
    return found


def _walk_key(top: str) -> str:
    """The ``DirCache`` key of ``_find_below(top)``'s stored walk."""
    return f"find3\0{top}"  # 3: symlinked folders are followed (older walks are not reused)


def stored_walk(
    path: Path | str, dirs: DirCache
) -> tuple[Sequence[str], Sequence[int], Sequence[str]] | None:
    """``(every folder listed, their mtimes, the SKILL.md files found)`` of the walk below the
    folder ``path`` that ``find_skill_files(path, dirs=dirs)`` stored, when it is still valid (no
    listed folder changed its mtime: ``DirCache.stored_walk``), else None (never walked, met a
    symlinked folder, or racily new)."""
    return dirs.stored_walk(_walk_key(str(Path(path))))


def _follow_links(d: str, links: Iterable[str], seen: set[str], stack: list[str]) -> None:
    """Push the symlinked folders of ``d`` (entry names ``links``) onto ``stack``, each real
    folder once; a link to ``d`` itself or one of its ancestors (a cycle) is not entered, nor one
    to a special file system (``/proc``, ``/sys``, ``/dev``) or a system folder (``/usr``): the
    clients' walks skip them too (``clients.walk.system_folder_problem``)."""
    real_d = os.path.realpath(d)
    for name in links:
        if name in SKIP_DIRS or name == "SKILL.md":
            continue
        path = os.path.join(d, name)
        st = fs_stat(path)
        if st is None or not S_ISDIR(st.st_mode):
            continue
        real = os.path.realpath(path)
        if real in seen or real_d == real or real_d.startswith(real.rstrip(os.sep) + os.sep):
            continue
        if system_folder_problem(real):
            continue
        seen.add(real)
        stack.append(path)
