"""Whole ``workbench lint`` reports kept for an unchanged tree (issue 14: a warm run).

A warm ``workbench lint DIR --format json`` over a tree that did not change gives the same bytes
as the previous run. The per-file caches (``resultcache``, ``fscache.DirCache``) make such a run
cheap, but it still loads a ~30 MB result cache, looks up every file, checks the catalog results
and joins a ~16 MB report (~0.3 s of Python at 10k skills). This cache keeps the report itself,
with what it was made from: the mtime of every folder the walk listed, the identity ``(size,
mtime_ns, inode)`` of every SKILL.md and the mtime (or absence) of every dependency its result
recorded. While every one of them is unchanged (one ``stat`` each), the lint engine would find the
same files (``DirCache.walk_result``), take every result from the result cache
(``ResultCache.lookup``, the same comparisons) and the same catalog results (same names and
descriptions), and print the same bytes: they are printed from here instead, and neither the
engine nor PyYAML is imported.

Decisions:

* a report is stored only when nothing in it is racily clean or unchecked: the walk was stored
  (no symlinked folder, no folder modified within ``RACY_NS``) and every file's result-cache
  entry is current (looked up valid or stored by this run: ``ResultCache.current``);
* the key (``report_key``) holds everything else the bytes depend on: the command's options and
  PATHs (as given and absolute), this module's ``FORMAT``, the package version and a hash of the
  code (``resultcache.rules_version`` plus the CLI's report code and the walker);
* one file per key under ``appdirs.cache_dir()/reports/``, written like every cache
  (``cachefile.write_cache_file``); the ``MAX_REPORTS`` most recent are kept.

Public: ``report_key``, ``ReportCache``, ``Checks``, ``Sources``, ``make_checks``, ``unchanged``,
``send``, ``FORMAT``, ``MAX_REPORTS``.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Sequence
from itertools import chain
from operator import attrgetter, itemgetter
from pathlib import Path
from typing import Any, BinaryIO, NamedTuple

__all__ = [
    "FORMAT",
    "MAX_REPORTS",
    "Checks",
    "ReportCache",
    "Sources",
    "make_checks",
    "report_key",
    "send",
    "unchanged",
]

#: Layout version of a stored report.
FORMAT = 1
#: Reports kept (the least recently written beyond this are deleted).
MAX_REPORTS = 4

_PKG = Path(__file__).resolve().parent.parent  # workbench/core
#: Code a report depends on besides ``rules_version``'s (relative to ``workbench/``).
_CODE = (
    "commands/lint.py",
    "commands/lint_formats.py",
    "commands/lint_stored.py",
    "core/skillwalk.py",
    "core/clients/common.py",
    "core/cache/fscache.py",
    "core/cache/reportcache.py",
)


class Checks(NamedTuple):
    """What a report was made from (plain tuples on disk)."""

    mtime_paths: tuple[str, ...]  #: folders the walk listed + dependencies (absent ones last)
    mtimes: tuple[int, ...]  #: their ``st_mtime_ns`` (-1: absent)
    files: tuple[str, ...]  #: the SKILL.md files linted
    idents: tuple[tuple[int, int, int], ...]  #: their ``(st_size, st_mtime_ns, st_ino)``


def report_key(parts: Sequence[Any]) -> str:
    """A hex key for a report made with the options ``parts`` (plain values: the format, profile
    options, PATHs as given and absolute), this module's ``FORMAT``, the package version and the
    code the report depends on. Reads ~100 small source files (~3 ms)."""
    from workbench import __version__
    from workbench.core.cache.resultcache import rules_version

    h = hashlib.sha256(
        repr((FORMAT, __version__, rules_version(), tuple(parts))).encode("utf-8", "surrogatepass")
    )
    root = _PKG.parent
    for rel in _CODE:
        try:
            data = (root / rel).read_bytes()
        except OSError:
            data = b""
        h.update(rel.encode() + b"\0" + data + b"\0")
    return h.hexdigest()


class Sources(NamedTuple):
    """What ``make_checks`` makes a report's ``Checks`` from (gathered while the run's stats
    are memoised, made into checks on the thread that stores the report)."""

    walks: Sequence[tuple[Sequence[str], Sequence[int]]]  #: per PATH (visited folders, mtimes)
    keys: Sequence[str]  #: the SKILL.md files linted (absolute paths)
    entries: Sequence[Sequence[Any]]  #: their current result-cache entries (``CacheEntry`` tuples)


def make_checks(
    walks: Sequence[tuple[Sequence[str], Sequence[int]]],
    keys: Sequence[str],
    entries: Sequence[Sequence[Any]],
) -> Checks | None:
    """``Checks`` from the stored walks ``(visited folders, their mtimes)``, the files ``keys``
    and their result-cache entries (``CacheEntry`` tuples: identity, then dependencies ``(path,
    mtime, ...)``); None when they contradict each other (a folder with two mtimes)."""
    paths: list[str] = []
    mtimes: list[int] = []
    for visited, mts in walks:
        paths += visited
        mtimes += mts
    deps = list(chain.from_iterable(map(itemgetter(3), entries)))  # (path, mtime, path, ...)
    paths += deps[::2]
    mtimes += deps[1::2]
    mt = dict(zip(paths, mtimes))
    if len(mt) != len(paths) and list(map(mt.__getitem__, paths)) != mtimes:
        return None  # a path with two mtimes
    order: Sequence[str] = tuple(mt)
    if -1 in mt.values():  # the absent ones last
        order = [p for p, m in mt.items() if m != -1] + [p for p, m in mt.items() if m == -1]
    idents = tuple(map(itemgetter(0, 1, 2), entries))
    return Checks(tuple(order), tuple(map(mt.__getitem__, order)), tuple(keys), idents)


_MTIME = attrgetter("st_mtime_ns")
_IDENT = attrgetter("st_size", "st_mtime_ns", "st_ino")


def unchanged(checks: Checks, memo: dict[str, Any] | None = None) -> bool:
    """Whether every path of ``checks`` still has its recorded mtime / identity (a ``stat``
    each, symlinks followed, as ``fscache.stat``; a path that cannot be stat'ed has mtime -1).
    The stats and comparisons run in C (``map``), ~24,000 of them at 10k skills. ``memo``: an
    ``fscache.snapshot`` memo that receives every stat (path -> ``os.stat_result`` or None), so
    that a run linting after all (something changed) stats nothing again."""
    paths, mtimes, files = checks.mtime_paths, checks.mtimes, checks.files
    n = mtimes.index(-1) if -1 in mtimes else len(mtimes)  # the absent ones are last
    sts = _stat_all(paths)
    fsts = _stat_all(files)
    if memo is not None:
        memo.update(zip(paths, sts))
        memo.update(zip(files, fsts))
    try:
        return (
            tuple(map(_MTIME, sts[:n])) == mtimes[:n]
            and tuple(map(_IDENT, fsts)) == checks.idents
            and sts[n:].count(None) == len(sts) - n
        )
    except AttributeError:  # None: a path gone
        return False


def _stat_all(paths: Sequence[str]) -> list[os.stat_result | None]:
    """``os.stat`` of each path (symlinks followed), None where it fails (``fscache.stat``):
    in C (``map``) up to each failure, which ``list.extend`` leaves the stats before."""
    out: list[os.stat_result | None] = []
    while len(out) < len(paths):
        try:
            out.extend(map(os.stat, paths[len(out) :]))
        except (OSError, ValueError):
            out.append(None)
    return out


class ReportCache:
    """Stored reports under ``folder`` (default ``appdirs.cache_dir()/reports``): per
    ``report_key`` the report's bytes as they are (``lint-KEY.report``, copied to stdout by the
    kernel: ``send``) and a marshal file (``lint-KEY.marshal``: its ``Checks``, exit code and
    the report file's identity, so that a report file replaced by another run is not taken for
    this one). ``notes``: what went wrong reading or writing (never raised)."""

    def __init__(self, folder: Path | str | None = None) -> None:
        if folder is None:
            from workbench.core.appdirs import cache_dir

            folder = cache_dir() / "reports"
        self.folder = Path(folder)
        self.notes: list[str] = []

    def path(self, key: str, suffix: str = ".marshal") -> Path:
        """The file of the report stored under ``key`` (``suffix`` ".report": its bytes)."""
        return self.folder / f"lint-{key[:24]}{suffix}"

    def get(self, key: str, memo: dict[str, Any] | None = None) -> tuple[BinaryIO, int] | None:
        """``(the report file opened for reading, exit code)`` stored under ``key`` when every
        path it was made from is unchanged (``unchanged``, which fills ``memo``), else None. The
        caller closes the file. Never raises."""
        from workbench.core.cache.cachefile import load_cache_file

        obj, _rebuild = load_cache_file(
            self.path(key), lambda o: o.get("format") == FORMAT and o.get("key") == key, self.notes
        )
        if obj is None:
            return None
        try:
            checks = Checks._make(obj["checks"])
            code, ident = obj["code"], obj["report"]
            if not (
                isinstance(code, int) and len(checks.files) == len(checks.idents) and unchanged(checks, memo)
            ):
                return None
            fh = open(self.path(key, ".report"), "rb")  # noqa: SIM115 - handed to the caller
        except (KeyError, TypeError, ValueError, OSError):
            return None
        st = os.fstat(fh.fileno())
        if (st.st_size, st.st_mtime_ns, st.st_ino) != tuple(ident):
            fh.close()
            return None
        return fh, code

    def put(self, key: str, checks: Checks, report: bytes, code: int) -> bool:
        """Store ``report`` (and the exit code) made from ``checks`` under ``key``; keep the
        ``MAX_REPORTS`` most recent. False (with a note) when it could not be written."""
        from workbench.core.cache.cachefile import replace_file, write_cache_file

        dest = self.path(key, ".report")
        try:
            replace_file(dest, report)
            st = os.stat(dest)
        except (OSError, ValueError) as exc:
            self.notes.append(f"{dest}: report not saved ({exc})")
            return False
        ident = (st.st_size, st.st_mtime_ns, st.st_ino)
        obj = {"format": FORMAT, "key": key, "checks": tuple(checks), "code": code, "report": ident}
        if not write_cache_file(self.path(key), obj, self.notes):
            return False
        self._trim()
        return True

    def _trim(self) -> None:
        try:
            found = [
                e
                for e in os.scandir(self.folder)
                if e.name.startswith("lint-") and e.name.endswith(".marshal")
            ]
            found.sort(key=lambda e: e.stat().st_mtime_ns, reverse=True)
            for e in found[MAX_REPORTS:]:
                os.unlink(e.path)
                try:
                    os.unlink(e.path[: -len(".marshal")] + ".report")
                except FileNotFoundError:
                    pass
        except OSError as exc:
            self.notes.append(f"{self.folder}: old reports not removed ({exc})")


def send(fh: BinaryIO, out: BinaryIO) -> None:
    """Copy the rest of file ``fh`` to the binary stream ``out``: flushed first, then
    ``os.sendfile`` to its file descriptor (the kernel copies the ~16 MB; no page of it is
    mapped here), or a read and a write where that is not possible (no descriptor, an old
    kernel). Raises what writing to ``out`` raises."""
    out.flush()
    start = fh.tell()
    done = 0
    try:
        fd, src = out.fileno(), fh.fileno()
        while True:
            n = os.sendfile(fd, src, start + done, 1 << 24)
            if n == 0:
                return
            done += n
    except (OSError, ValueError, AttributeError):  # io.UnsupportedOperation: no descriptor
        fh.seek(start + done)
        out.write(fh.read())
        out.flush()
