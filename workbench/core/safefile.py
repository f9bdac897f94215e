"""Safe file writes: never a partial file, never a silent overwrite of someone else's change.

``atomic_write`` writes a temporary file in the same folder, fsyncs it, renames it over the target
(atomic on POSIX and on Windows via ``os.replace``) and fsyncs the folder. With ``expected_sha256``
it first checks that the file on disk is still the one the caller read, and raises
``ConflictError`` otherwise.
"""

from __future__ import annotations

import hashlib
import os
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
    """Hex sha256 of a file's bytes, or None if it does not exist."""
    try:
        with open(path, "rb") as fh:
            return hashlib.sha256(fh.read()).hexdigest()
    except FileNotFoundError:
        return None


def atomic_write(path: Path | str, data: bytes, expected_sha256: str | None = None,
                 *, mode: int | None = None) -> str:
    """Write ``data`` to ``path`` atomically and return the new sha256 (hex).

    Args:
        path: target file; its folder must exist.
        data: the complete new content (bytes: line endings and BOM are the caller's choice).
        expected_sha256: if given, the current file must have this hash (``""`` = must not exist).
        mode: permission bits for a new file (default: keep the existing file's, else 0o644).

    Raises:
        ConflictError: the file on disk is not the expected one.
        OSError: the write failed; the original file is untouched and no temp file is left.
    """
    p = Path(path)
    if expected_sha256 is not None:
        actual = sha256_of(p)
        if expected_sha256 == "" and actual is not None:
            raise ConflictError(p, expected_sha256, actual)
        if expected_sha256 != "" and actual != expected_sha256:
            raise ConflictError(p, expected_sha256, actual)
    if mode is None:
        try:
            mode = p.stat().st_mode & 0o7777
        except FileNotFoundError:
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
