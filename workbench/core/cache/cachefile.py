"""Cache files: one ``marshal`` table per file, written atomically and checked when read back.

What every persistent cache shares (``fscache.DirCache``, ``resultcache.ResultCache``,
``parsestore.ParseStore``, ``reportcache``): ``write_cache_file`` (temp file + rename, ending in
a trailer with the data's length), ``load_cache_file``/``load_entries`` (an incomplete, unreadable
or other-version file is ignored and rebuilt), ``read_blob`` (a read-only ``mmap``),
``EntryFile`` (a ``{key: entry}`` table in one file) and ``trim_oldest``. ``RACY_NS``: what is
modified less than that before it is read is not stored ("racily clean", as git's index).
Split out of ``fscache`` (issue 15: modules under 600 lines).
"""

from __future__ import annotations

import gc
import marshal
import os
import tempfile
import threading
from collections.abc import Callable, Iterable, Iterator
from itertools import islice
from pathlib import Path
from typing import Any

#: Folders/files modified less than this many nanoseconds before they were read are not cached.
RACY_NS = 2_000_000_000


def read_blob(path: str | os.PathLike[str]) -> bytes | Any:
    """The bytes of a cache file for ``marshal.loads``: a read-only ``mmap`` of it (no copy into
    a bytes object: on a 15 MB result cache that saves ~4,000 page faults) or, where mapping
    fails (empty file, special file system), its bytes. Raises OSError when it cannot be read."""
    import mmap

    with open(path, "rb") as fh:
        try:
            return mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ)
        except (ValueError, OSError):
            return fh.read()


def load_cache_file(
    path: str | os.PathLike[str], accept: Callable[[dict[str, Any]], bool], notes: list[Any]
) -> tuple[dict[str, Any] | None, bool]:
    """Load a marshal cache file: ``(obj, rebuild)``.

    ``obj`` is the loaded dict when ``accept(obj)`` says it is this format/version, else None;
    ``rebuild`` is True when a file existed but was unreadable or of another version (a note is
    appended to ``notes``; the caller starts empty and writes a fresh file). A missing or
    unreadable-by-OS file gives ``(None, False)``. The GC is paused while marshal builds the
    (many) containers. Never raises.
    """
    try:
        blob = read_blob(path)
    except OSError:
        return None, False
    if not cache_file_intact(blob):  # cut short, or not written by write_cache_file
        notes.append(f"{path}: incomplete cache file ignored; rebuilt")
        return None, True
    was = gc.isenabled()
    gc.disable()
    try:
        obj = marshal.loads(blob)  # (it ignores the trailer after the data)
        if isinstance(obj, dict) and accept(obj):
            return obj, False
        notes.append(f"{path}: written by another version; rebuilt")
    except (ValueError, EOFError, TypeError):
        notes.append(f"{path}: unreadable cache file ignored; rebuilt")
    finally:
        if was:
            gc.enable()
    return None, True


def load_entries(
    path: str | os.PathLike[str], header: dict[str, Any], notes: list[Any]
) -> tuple[dict[str, Any], bool]:
    """``(entries, rebuild)`` of a cache file ``{**header, "entries": {...}}``: its entries when
    every ``header`` key has that value (format, version, ...), else ``{}`` (see
    ``load_cache_file`` for ``rebuild`` and ``notes``). Never raises."""
    obj, rebuild = load_cache_file(
        path,
        lambda o: all(o.get(k) == v for k, v in header.items()) and isinstance(o.get("entries"), dict),
        notes,
    )
    return (obj["entries"] if obj is not None else {}), rebuild


class EntryFile:
    """What ``ResultCache`` and ``ParseStore`` share: a table ``{key: entry}`` kept in one marshal
    file ``path`` (loaded by the subclass's ``_load``; ``_dirty`` when it must be written)."""

    path: Path
    _entries: dict[str, Any] | None
    _dirty: bool
    _lock: threading.Lock
    _t0: int  #: ns since the epoch when the table was opened
    stored: int

    def _load(self) -> dict[str, Any]:
        raise NotImplementedError

    @property
    def racy_ns(self) -> int:
        """Files and folders modified at or after this time (ns since the epoch) are not stored:
        ``RACY_NS`` before the table was opened (what a worker process building entries needs)."""
        return self._t0 - RACY_NS

    def put_entry(self, key: str, entry: tuple[Any, ...]) -> None:
        """Store an entry already built (e.g. in a lint worker process) under ``key``."""
        with self._lock:
            self._load()[key] = entry
            self._dirty = True
            self.stored += 1

    def __len__(self) -> int:
        return len(self._load())

    def clear(self) -> None:
        """Forget every entry and delete the file (an OSError deleting it is ignored)."""
        with self._lock:
            self._entries = {}
            self._dirty = False
        try:
            self.path.unlink()
        except OSError:
            pass


def trim_oldest(table: dict[str, Any], limit: int) -> None:
    """Drop the oldest entries (dicts keep insertion order) so ``table`` has at most ``limit``."""
    if len(table) > limit:
        for k in list(table)[: len(table) - limit]:
            del table[k]


#: What ends every file ``write_cache_file`` writes, followed by the length of the marshal data
#: before it (8 bytes, little-endian): a file without it is incomplete (``cache_file_intact``).
CACHE_TRAILER = b"\0wbcache"


def write_cache_file(path: str | os.PathLike[str], obj: dict[str, Any], notes: list[Any]) -> bool:
    """marshal ``obj`` and write it in place of ``path`` (creating the folder), followed by
    ``CACHE_TRAILER`` and the data's length. Returns False, with a note, on an OSError
    (read-only cache folder, disk full) or a value marshal cannot hold; never raises.

    Decision (issue 14): a cache is rebuildable, so the file is written to a temp file in the
    same folder and renamed over ``path`` (``os.replace``: a reader sees the old file or the
    new one, never a mix) without ``safefile.atomic_write``'s fsyncs and sha256 (~25 ms of a
    10k-skill save). A file cut short anyway (a crash before the data reached the disk, a full
    disk, a copy) lacks the trailer or its length: ``load_cache_file`` ignores it and the cache
    is rebuilt (``tests/core/test_cache_file.py``). The data is ``marshal_pieces``' (what
    ``marshal.loads`` reads back as ``obj``), written as it is made."""
    size = 0

    def pieces() -> Iterator[bytes | memoryview]:
        nonlocal size
        for b in marshal_pieces(obj):
            size += len(b)
            yield b
        yield CACHE_TRAILER + size.to_bytes(8, "little")

    try:
        _replace(path, pieces())
    except (OSError, ValueError) as exc:
        notes.append(f"{path}: cache not saved ({exc})")
        return False
    return True


#: Pairs of a streamed table per piece ``marshal_pieces`` yields (~100-300 KB each).
PIECE_ITEMS = 256


def marshal_pieces(obj: dict[str, Any]) -> Iterator[bytes | memoryview]:
    """The bytes of ``obj`` in ``marshal`` format, in pieces: the dict's framing, each value
    that is a dict (a cache's table) ``PIECE_ITEMS`` pairs a piece, every other value whole; each object in marshal version 2 (no references between objects, no
    flags: a table of ``PIECE_ITEMS`` pairs dumped as a dict is those pairs between the
    dict's "{" and "0"), so the pieces joined are one valid marshal stream that
    ``marshal.loads`` reads as ``obj``.

    Why (issue 14, filling the caches): one ``marshal.dumps`` of a 10k-skill result cache
    (28.8 MB) builds the whole file in memory and, at version 3+, puts every object shared
    elsewhere in a reference table (hashing and a reference count written on each, i.e. a
    copy-on-write fault per page in the forked helper that saves it): measured in such a
    fork, 150-190 ms CPU and 19.4k page faults, against 38-41 ms and 1.5k this way. Raises
    ValueError for a value marshal cannot hold."""
    dumps = marshal.dumps
    head = [b"{"]  # marshal's TYPE_DICT: key, value, ..., then TYPE_NULL ("0")
    for key, value in obj.items():
        head.append(dumps(key, 2))
        if type(value) is not dict:
            head.append(dumps(value, 2))
            continue
        head.append(b"{")
        yield b"".join(head)
        head = [b"0"]  # the table's end
        items = iter(value.items())
        while True:  # PIECE_ITEMS pairs at a time: a dict's marshal less its "{" and "0"
            part = dict(islice(items, PIECE_ITEMS))
            if not part:
                break
            yield memoryview(dumps(part, 2))[1:-1]
    head.append(b"0")
    yield b"".join(head)


def replace_file(path: str | os.PathLike[str], *chunks: bytes) -> None:
    """Write ``chunks`` to a temp file in ``path``'s folder (created if missing) and rename it over
    ``path`` (``os.replace``: a reader sees the old file or the new one), without fsync: for
    caches, which are rebuildable (``write_cache_file``; ``reportcache``'s report bytes). The
    temp file is removed on failure. Raises OSError (or ValueError for a bad path)."""
    _replace(path, chunks)


def _replace(path: str | os.PathLike[str], chunks: Iterable[bytes | memoryview]) -> None:
    """``replace_file`` of the pieces ``chunks`` yields (written as they come; what it raises
    leaves no temp file and the old file in place)."""
    p = Path(path)
    tmp: str | None = None
    try:
        p.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{p.name}.", suffix=".tmp", dir=p.parent)
        with os.fdopen(fd, "wb") as fh:
            for chunk in chunks:
                fh.write(chunk)
        os.replace(tmp, p)
        tmp = None
    finally:
        if tmp is not None:
            try:
                os.unlink(tmp)
            except OSError:
                pass


def cache_file_intact(blob: bytes | Any) -> bool:
    """Whether ``blob`` (a cache file's bytes or ``mmap``) ends with ``CACHE_TRAILER`` and the
    length of the data before it, as ``write_cache_file`` leaves it."""
    n = len(blob) - len(CACHE_TRAILER) - 8
    return (
        n >= 0
        and blob[n : n + len(CACHE_TRAILER)] == CACHE_TRAILER
        and int.from_bytes(blob[n + len(CACHE_TRAILER) :], "little") == n
    )
