"""Safe file writes: never a partial file, never a silent overwrite of someone else's change.

``atomic_write`` writes a temporary file in the same folder, fsyncs it, renames it over the target
(atomic on POSIX and on Windows via ``os.replace``) and fsyncs the folder. With ``expected_sha256``
it first checks that the file on disk is still the one the caller read, and raises
``ConflictError`` otherwise. Symlinks are written through (the link stays), hard-linked files are
written in place after a backup, read-only files raise ``ReadOnlyError`` unless allowed.
"""

from __future__ import annotations

import errno
import hashlib
import os
import stat
import tempfile
from pathlib import Path


class ConflictError(Exception):
    """The file on disk changed since it was read. Attributes: path, expected, actual (sha256 hex,
    or None when the file is gone)."""

    def __init__(self, path: Path, expected: str, actual: str | None):
        self.path, self.expected, self.actual = path, expected, actual
        what = "was deleted" if actual is None else "changed on disk"
        super().__init__(f"{path}: {what} since it was read; not overwritten")


def sha256_of(path: Path) -> str | None:
    """Hex sha256 of a file's bytes, or None if it does not exist. Never blocks: opened with
    ``O_NONBLOCK`` and read only when it is a regular file (``OSError`` ``EINVAL`` otherwise: a
    FIFO would wait for a writer forever)."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0))
    except FileNotFoundError:
        return None
    with os.fdopen(fd, "rb") as fh:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise OSError(errno.EINVAL, "not a regular file", str(path))
        h = hashlib.sha256()
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            h.update(chunk)
        return h.hexdigest()


class ReadOnlyError(PermissionError):
    """The target file is read-only (no write permission bit for anyone, or not writable by this
    user); nothing was written. Ask the user, then call ``atomic_write(..., allow_read_only=True)``
    (the file keeps its read-only mode). Attribute: path (the real target)."""

    def __init__(self, path: Path):
        self.path = path
        super().__init__(errno.EACCES, "the file is read-only; not overwritten", str(path))


def write_target(path: Path | str) -> Path:
    """The file a write to ``path`` must change: ``path`` with every symlink resolved (a link to
    a dotfiles repo stays a link, its target gets the edit). A dangling link gives its target."""
    return Path(os.path.realpath(path))


def atomic_write(
    path: Path | str,
    data: bytes,
    expected_sha256: str | None = None,
    *,
    mode: int | None = None,
    allow_read_only: bool = False,
) -> str:
    """Write ``data`` to ``path`` without ever leaving a partial file; return the new sha256 (hex).

    * A symlink (or a chain of them) is kept: the write goes to its real target
      (``write_target``), whose mode is kept.
    * A regular file: temp file in the same folder + fsync + rename over it (atomic on POSIX and
      Windows via ``os.replace``) + fsync of the folder.
    * A file with several hard links (``st_nlink > 1``): a rename would split the links (the
      other names would keep the old text). Decision: it is written **in place** after a backup:
      the old bytes are first copied to ``.<name>.<random>.bak`` beside it (fsynced), then the
      file is truncated, written and fsynced, then the backup is removed. A crash in between
      leaves the backup (never a lost file); a failed write restores it.
    * A read-only file (no write bit, or ``os.access`` says no): ``ReadOnlyError`` unless
      ``allow_read_only`` (then written as above, keeping its read-only mode).

    Args:
        path: target file; its folder must exist.
        data: the complete new content (bytes: line endings and BOM are the caller's choice).
        expected_sha256: if given, the current file must have this hash (``""`` = must not exist).
        mode: permission bits for a new file (default: keep the existing file's, else 0o644).
        allow_read_only: the user agreed to overwrite a read-only file.

    Raises:
        ConflictError: the file on disk is not the expected one.
        ReadOnlyError: the file is read-only and ``allow_read_only`` is False.
        OSError: the write failed; the original file is untouched and no temp file is left.
    """
    p = write_target(path)
    if expected_sha256 is not None:
        actual = sha256_of(p)
        if expected_sha256 == "" and actual is not None:
            raise ConflictError(p, expected_sha256, actual)
        if expected_sha256 != "" and actual != expected_sha256:
            raise ConflictError(p, expected_sha256, actual)
    try:
        st: os.stat_result | None = p.stat()
    except FileNotFoundError:
        st = None
    if st is not None:
        writable = bool(st.st_mode & 0o222) and os.access(p, os.W_OK)
        if not writable and not allow_read_only:
            raise ReadOnlyError(p)
        if mode is None:
            mode = st.st_mode & 0o7777
        if st.st_nlink > 1 and stat.S_ISREG(st.st_mode):
            _write_in_place(p, data, mode)
            return hashlib.sha256(data).hexdigest()
    if mode is None:
        mode = 0o644
    fd, tmp = tempfile.mkstemp(prefix=f".{p.name}.", suffix=".tmp", dir=p.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, mode)
        os.replace(tmp, p)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise
    fsync_dir(p.parent)
    return hashlib.sha256(data).hexdigest()


def _write_in_place(p: Path, data: bytes, mode: int) -> None:
    """Hard-linked file: backup copy, then truncate + write + fsync the same inode (see
    ``atomic_write``). The mode is restored after a temporary write permission."""
    old = p.read_bytes()
    fd, bak = tempfile.mkstemp(prefix=f".{p.name}.", suffix=".bak", dir=p.parent)
    with os.fdopen(fd, "wb") as fh:
        fh.write(old)
        fh.flush()
        os.fsync(fh.fileno())
    fsync_dir(p.parent)
    if not mode & 0o200:
        os.chmod(p, mode | 0o200)
    try:
        try:
            with open(p, "r+b") as fh:
                fh.truncate(0)
                fh.write(data)
                fh.flush()
                os.fsync(fh.fileno())
        except BaseException:
            with open(p, "r+b") as fh:  # put the old bytes back; the backup stays if this fails
                fh.truncate(0)
                fh.write(old)
                fh.flush()
                os.fsync(fh.fileno())
            raise
    finally:
        if not mode & 0o200:
            os.chmod(p, mode)
    os.unlink(bak)


def fsync_dir(folder: Path) -> None:
    """fsync a directory so a rename in it is durable (no-op where unsupported)."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)
