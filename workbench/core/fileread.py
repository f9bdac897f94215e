"""Reading regular files only, never blocking (a FIFO, device or socket is refused, not opened
for a read that could wait forever), and saying what a special entry is. Re-exported by
``workbench.core.skillfile``."""

from __future__ import annotations

import errno
import os
import stat as _stat
from pathlib import Path

O_NONBLOCK = getattr(os, "O_NONBLOCK", 0)


def read_regular_file(path: Path | str, limit: int, *, cut: bool = False) -> bytes:
    """The bytes of ``path`` if it is a regular file (symlinks followed) of at most ``limit`` bytes.

    Never blocks and never reads more than ``limit + 1`` bytes: opened with ``O_NONBLOCK`` and
    checked with ``fstat`` (a FIFO, device or socket is refused, not read: a FIFO would wait for a
    writer forever, ``/dev/zero`` never ends). ``cut=True``: a larger file gives its first
    ``limit`` bytes instead of an error.

    Raises:
        OSError: the OS error; ``EINVAL`` with ``special_file_problem``'s line for a special file;
            ``EFBIG`` "file is N bytes (limit M)" for a larger file when ``cut`` is False.
    """
    fd = os.open(path, os.O_RDONLY | O_NONBLOCK | getattr(os, "O_BINARY", 0) | getattr(os, "O_CLOEXEC", 0))
    try:
        st = os.fstat(fd)
        if not _stat.S_ISREG(st.st_mode):
            raise OSError(errno.EINVAL, special_file_problem(path, st=st) or "not a regular file", str(path))
        data = read_fd(fd, st.st_size, limit + 1)
    finally:
        os.close(fd)
    if len(data) > limit:
        if not cut:
            raise OSError(
                errno.EFBIG, f"file is {max(st.st_size, len(data)):,} bytes (limit {limit:,})", str(path)
            )
        data = data[:limit]
    return data


def read_fd(fd: int, size: int, want: int) -> bytes:
    """Up to ``want`` bytes of a regular file until EOF. The first ``os.read`` asks
    for the stat size + 1 (a buffer sized to the file: ~4x cheaper than ``fh.read(1_000_001)``,
    which allocates the whole cap for every small file); a read shorter than asked is the end (one
    system call for the usual file); a file that grew keeps being read."""
    n = min(size + 1, want)
    first = os.read(fd, n)
    if len(first) < n:  # a regular file's short read is its end: no second system call
        return first
    parts: list[bytes] = [first]
    total = len(first)
    n = min(65536, want - total)
    while total < want:
        chunk = os.read(fd, n)
        if not chunk:
            break
        parts.append(chunk)
        total += len(chunk)
        n = min(65536, want - total)
    return parts[0] if len(parts) == 1 else b"".join(parts)


#: ``stat`` file types that are not regular files, as ``special_file_problem`` names them.
_KINDS = (
    (_stat.S_ISFIFO, "FIFO"),
    (_stat.S_ISSOCK, "socket"),
    (_stat.S_ISCHR, "character device"),
    (_stat.S_ISBLK, "block device"),
)


def special_file_problem(
    path: Path | str, *, st: os.stat_result | None = None, exc: OSError | None = None
) -> str | None:
    """One line saying why ``path`` is not a readable regular file, or None when it is one (or
    the reason is an ordinary OS error the caller words itself).

    Never opens ``path`` and never raises. Messages (the file's own name, e.g. ``SKILL.md``):

    * ``SKILL.md is a broken symlink to <target>`` (the target does not exist)
    * ``SKILL.md is a symlink that loops (<target>)`` (ELOOP)
    * ``SKILL.md is a folder, not a file`` / ``SKILL.md is a symlink to a folder (<target>)``
    * ``SKILL.md is not a regular file (FIFO)`` (also socket, character/block device; "a symlink
      to a FIFO" when reached through a symlink)

    Args:
        st: the result of ``os.stat(path)`` when the caller has it; ``exc``: the ``OSError`` that
            ``os.stat(path)`` raised. Neither = stat it here.
    """
    p = Path(path)
    name = p.name or str(p)
    if st is None and exc is None:
        try:
            st = os.stat(p)
        except OSError as e:
            exc = e
    try:
        is_link = os.path.islink(p)
        target = os.readlink(p) if is_link else ""
    except (OSError, ValueError):
        is_link, target = False, ""
    if st is None:
        code = getattr(exc, "errno", None)
        if code == errno.ELOOP:
            return f"{name} is a symlink that loops ({target or 'too many levels of symbolic links'})"
        if is_link and code in (errno.ENOENT, errno.ENOTDIR):
            return f"{name} is a broken symlink to {target}"
        return None
    mode = st.st_mode
    via = "a symlink to a " if is_link else ""
    if _stat.S_ISDIR(mode):
        return f"{name} is a symlink to a folder ({target})" if is_link else f"{name} is a folder, not a file"
    if _stat.S_ISREG(mode):
        return None
    kind = next((k for test, k in _KINDS if test(mode)), "special file")
    return f"{name} is not a regular file ({via}{kind})"


def file_identity(path: Path) -> tuple[int, int] | None:
    """(size, mtime_ns) of a file, or None if it cannot be stat'ed. Used for caches."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_size, st.st_mtime_ns)
