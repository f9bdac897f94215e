"""The kept report of ``workbench lint DIR --format json`` (``core.cache.reportcache``): the
command's side of it. ``stored_report_key`` (whether and under which key a run's report is kept),
``write_stored_report`` (print it when still valid), ``report_sources`` (what a run's report was
made from) and ``keep_report`` (store it on a thread). Split from ``commands/lint.py``."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from workbench.core import phasetimer
from workbench.core.text import utf8_buffer

if TYPE_CHECKING:
    from workbench.core.cache.reportcache import Sources


def stored_report_key(args: argparse.Namespace, paths: list[Path]) -> str | None:
    """The ``cache.reportcache`` key of this run's report, or None when the report is not
    kept: only ``--format json`` with the cache on and no ``--check-links``, written to a
    stdout that takes its escaped UTF-8 bytes (``text.utf8_buffer``), every PATH a folder."""
    if args.format != "json" or not args.cache or getattr(args, "check_links", False):
        return None
    if utf8_buffer(sys.stdout) is None or not all(p.name.lower() != "skill.md" and p.is_dir() for p in paths):
        return None
    from workbench.core.cache.reportcache import report_key

    try:
        where = [os.path.abspath(p) for p in paths]
    except OSError:  # the current folder is gone
        return None
    return report_key(("lint", args.profile, args.client, args.unicode_names, [str(p) for p in paths], where))


def report_sources(paths: list[Path], results: dict, cache: Any) -> Sources | None:
    """What the report of ``results`` (linted with ``cache``, a ``ResultCache``) was made from
    (``reportcache.Sources``), or None when part of it is not vouched for: a PATH whose walk
    the folder cache did not store (a skill folder itself, a symlinked folder met, a folder
    modified within ``RACY_NS``), stored walks that found other files than ``results`` holds, a
    file whose result-cache entry is not current (not stored: racily clean). Call inside the
    run's ``snapshot`` (the stats are memoised)."""
    from workbench.core.cache.fscache import abskey, default_dir_cache
    from workbench.core.cache.reportcache import Sources
    from workbench.core.skillwalk import stored_walk

    if cache is None:
        return None
    dirs = default_dir_cache()
    walks = []
    found: list[str] = []  # what the stored walks found
    for p in paths:
        got = stored_walk(p, dirs)
        if got is None:
            return None
        walks.append((got[0], got[1]))
        found += got[2]
    keys = list(map(os.fspath, results))
    # each PATH absolute and normalised: so is every path its walk found (the usual case)
    if len(paths) > 1 or abskey(os.fspath(paths[0])) != os.fspath(paths[0]) or keys != found:
        keys = [abskey(k) for k in keys]
        if keys != list(dict.fromkeys(map(abskey, found))):
            return None
    entries = cache.current_entries(keys)
    return None if entries is None else Sources(walks, keys, entries)


def write_stored_report(key: str, memo: dict[str, Any]) -> int | None:
    """Write the report stored under ``key`` (``cache.reportcache``) when everything it was made
    from is unchanged: its exit code; else None (nothing written). ``memo``: the open
    ``fscache.snapshot``'s, given every stat made."""
    from workbench.core.cache.reportcache import ReportCache, send

    buf = utf8_buffer(sys.stdout)  # a SafeTextStream over UTF-8 (``stored_report_key``)
    if buf is None:
        return None
    try:
        got = ReportCache().get(key, memo)
    except OSError:  # no cache folder
        return None
    phasetimer.mark("walk")  # the report's checks: a stat per folder and file, as a walk
    if got is None:
        return None
    fh, code = got
    with fh:
        sys.stdout.flush()  # the text written so far, then the bytes to the buffer under it
        send(fh, buf)
    return code


def keep_report(key: str, sources: Sources, data: bytes, code: int) -> Callable[[], None]:
    """Store a report made from ``sources`` (``cache.reportcache``) on a thread (its checks
    are made there; the write releases the GIL); returns the function that waits for it."""
    import threading

    from workbench.core.cache.reportcache import ReportCache, make_checks

    def put() -> None:
        checks = make_checks(*sources)
        if checks is None:
            return
        try:
            ReportCache().put(key, checks, data, code)
        except OSError:  # no cache folder
            pass

    t = threading.Thread(target=put, name="workbench-lint-report")
    t.start()
    return t.join
