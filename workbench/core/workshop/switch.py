"""Folder switching for apply: build the new skill folder beside the live one, then swap.

``WorkshopStore.apply`` stages the complete new version of a skill folder in a sibling folder
(``stage_path``: same parent, so the same filesystem) and switches it with the live folder in one
step (``exchange``: Linux ``renameat2(RENAME_EXCHANGE)``; elsewhere two renames, whose gap the
store's journal recovery closes). A process killed at any moment therefore leaves the old folder
or the new one at the skill's path, never a mix, and no temp file inside the live folder.

Staging folders are named ``.<skill>.wb-stage-<apply id>`` (``.wb-prev`` when the two-rename
fallback parks the old folder). They start with a dot (clients whose walk has ``skip_dot`` never
enter them) and live only for the length of an apply: the store removes them right after the
switch and, if it was killed first, at the next open (its journal names every staging folder).
"""

from __future__ import annotations

import ctypes
import errno
import os
import re
import shutil
from pathlib import Path

from workbench.core.safefile import fsync_dir

_STAGING = re.compile(r"^\..+\.wb-(?:stage|prev)-[0-9a-f]+-[0-9a-f]+$")
#: ``atomic_write`` temp files (``tempfile.mkstemp(prefix=".<name>.", suffix=".tmp")``): left in a
#: folder only by a killed process; never copied into a new version.
_ATOMIC_TMP = re.compile(r"^\.(?P<name>.+)\.[a-z0-9_]{8}\.tmp$")


def stage_path(target_dir: Path, apply_id: str, kind: str = "stage") -> Path:
    """The sibling folder that holds the new version (``kind`` "stage") or, in the two-rename
    fallback, the parked old version (``kind`` "prev") of ``target_dir`` during an apply."""
    return target_dir.parent / f".{target_dir.name}.wb-{kind}-{apply_id}"


def is_staging_name(name: str) -> bool:
    """True for a folder name ``stage_path`` makes."""
    return bool(_STAGING.match(name))


def is_stale_temp(folder: Path, name: str) -> bool:
    """True for an ``atomic_write`` temp file left in ``folder`` by a killed process (its real
    file name exists beside it, or the temp is all that is left of it)."""
    return bool(_ATOMIC_TMP.match(name)) and (folder / name).is_file()


def copy_folder(src: Path, dest: Path) -> None:
    """Copy the live skill folder ``src`` to a new ``dest`` (symlinks copied as links, modes and
    times kept), leaving out stale ``atomic_write`` temp files. Raises OSError."""

    def ignore(folder: str, names: list[str]) -> list[str]:
        return [n for n in names if is_stale_temp(Path(folder), n)]

    shutil.copytree(src, dest, symlinks=True, ignore=ignore)


def _renameat2_exchange(a: Path, b: Path) -> bool:
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        fn = libc.renameat2
    except (OSError, AttributeError):
        return False
    at_fdcwd, rename_exchange = -100, 2
    fn.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_uint]
    if fn(at_fdcwd, os.fsencode(a), at_fdcwd, os.fsencode(b), rename_exchange) == 0:
        return True
    err = ctypes.get_errno()
    if err in (errno.ENOSYS, errno.EINVAL, errno.ENOTSUP, errno.EOPNOTSUPP):
        return False
    raise OSError(err, os.strerror(err), str(a))


def exchange(live: Path, stage: Path, prev: Path) -> None:
    """Swap the folders ``live`` and ``stage``: afterwards ``live`` holds the staged version and
    ``stage`` the old one. Atomic where the OS can (Linux ``renameat2``); otherwise ``live`` is
    renamed to ``prev`` and ``stage`` to ``live``, then ``prev`` to ``stage`` (a crash in between
    is repaired by ``repair``). Raises OSError (nothing changed when the first rename fails)."""
    if not _renameat2_exchange(live, stage):
        os.rename(live, prev)
        try:
            os.rename(stage, live)
        except OSError:
            os.rename(prev, live)
            raise
        os.rename(prev, stage)
    fsync_dir(live.parent)


def repair(live: Path, stage: Path, prev: Path) -> None:
    """After a crash inside the two-rename ``exchange``: put a parked folder back so that ``live``
    and ``stage`` each exist again (in whichever order the renames got to)."""
    if prev.exists():
        if not os.path.lexists(live):
            os.rename(prev, live)  # crashed after the first rename: the old folder goes back
        elif not os.path.lexists(stage):
            os.rename(prev, stage)  # crashed before the last rename
    fsync_dir(live.parent)


def remove_tree(path: Path) -> None:
    """Delete a staging folder (missing is fine); never follows symlinks out of it."""
    if os.path.lexists(path):
        shutil.rmtree(path)
        fsync_dir(path.parent)


def stale_staging(parent: Path) -> list[Path]:
    """Staging folders left in ``parent`` (a skills root) by a killed apply."""
    try:
        return [parent / n for n in os.listdir(parent) if is_staging_name(n) and (parent / n).is_dir()]
    except OSError:
        return []
