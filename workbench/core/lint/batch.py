"""Linting many files: walk, per-file records (from the result cache, serially or in a process
pool), then the catalog rules over every file's facts.

Public: ``lint_paths`` (re-exported by ``workbench.core.lint``), ``lint_records``,
``PARALLEL_MIN_FILES``, ``parallel_ok``, ``LintFeed``; the catalog pass is
``catalogpass.with_catalog``. Never raises on a skill file's content.
"""

from __future__ import annotations

import gc
import logging
import marshal
import os
from collections.abc import Iterable, Sequence
from functools import partial
from pathlib import Path
from stat import S_ISDIR, S_ISREG
from typing import TYPE_CHECKING, Any

from workbench.core import phasetimer
from workbench.core.cache.fscache import abskey, snapshot
from workbench.core.cache.fscache import stat as fs_stat
from workbench.core.cache.parsestore import stored_facts
from workbench.core.cache.resultcache import make_entry
from workbench.core.cache.skillfacts import skillfile_facts
from workbench.core.forkrun import WorkQueue, fork_ok
from workbench.core.lint.catalogpass import Collected, with_catalog
from workbench.core.lint.facts import LintFacts, cat_desc, cat_name
from workbench.core.lint.profiles import Profile, lint_profile
from workbench.core.lint.records import Counts, DiagnosticList, escaped_json, severity_counts
from workbench.core.lint.ruleset import load_rules
from workbench.core.lint.runner import FileRecord, lint_record_batch
from workbench.core.lint.types import ERROR, Diagnostic
from workbench.core.model import gc_resume
from workbench.core.skillwalk import entry_exists, find_skill_files

if TYPE_CHECKING:
    from workbench.core.cache.resultcache import CacheEntry, ResultCache

log = logging.getLogger(__name__)

#: Below this many files ``lint_paths(jobs=None)`` stays serial (a pool costs ~50 ms to start).
PARALLEL_MIN_FILES = 200
#: Files per chunk sent to a pool worker: at least / at most (see ``_run_parallel``).
CHUNK_MIN, CHUNK_MAX = 25, 50


def lint_paths(
    paths: Iterable[Path | str],
    profile: str | Profile = "agentskills",
    catalog: Iterable[Any] | None = None,
    *,
    jobs: int | None = None,
    cache: ResultCache | bool | None = None,
    walked: dict[str, list[Path]] | None = None,
    feed: LintFeed | None = None,
    save: bool = True,
    render_json: bool = False,
    hand_off: bool = False,
) -> dict[Path, Sequence[Diagnostic]]:
    """Lint every SKILL.md that ``paths`` name (see ``find_skill_files``).

    The files linted together form the catalog for cross-skill rules (duplicate names and
    descriptions, listing budget) unless ``catalog`` is given.

    Args:
        jobs: worker processes for reading + parsing + per-file rules. None = auto (both cores
            when there are at least ``PARALLEL_MIN_FILES`` files, the machine has more than one
            core and the caller runs no other thread; else serial); 1 = serial. Falls back to
            serial when processes cannot start. The result is the same either way.
        cache: a ``workbench.core.cache.resultcache.ResultCache`` (or True for the default one under
            ``appdirs.cache_dir()``, which also fills the persistent parse store that
            ``discovery.ParseCache(persist=True)`` reads) holding per-file results keyed by file
            identity, profile and rules version; catalog-rule results are reused only while the
            catalog fingerprint is unchanged. Folders are listed through the cache's
            ``fscache.DirCache``. None/False = no cache.
        walked: ``{os.fspath(folder): find_skill_files(folder)}`` for folders of ``paths`` the
            caller has already walked (``workbench lint``'s grouping walk): not walked again.
        feed: a ``LintFeed`` the caller's walk fed with these files (same ``profile`` object and
            ``cache``) and ``finish``ed: its rows and look-ups are used instead of computing.
        save: False = the caller saves ``cache`` (``cache.save()``) when it suits it.
        render_json: each file's ``DiagnosticList`` also holds its ``--format json`` text
            (``records.escaped_json``, kept in ``cache`` with the catalog results: a warm
            ``workbench lint --format json`` joins stored text; ``catalogpass.with_catalog``).
        hand_off: the catalog pass's forked helper (when the pass forks one) writes ``cache``,
            its listings and parse store once complete, while this process goes on;
            ``cache.save()`` waits for it. Only when nothing else changes them before that
            save (``workbench lint`` with one profile group and ``save=False``).

    Returns {SKILL.md path: diagnostics}, in path order. Each value is a
    ``records.DiagnosticList`` (a read-only sequence whose ``Diagnostic`` objects are built on
    first use; ``counts()`` and ``severity_totals`` read the compact records). A directory holding no SKILL.md at all
    maps to one ``STR002`` error keyed by the directory (skills-ref: "Missing required file:
    SKILL.md"). A path that is neither a folder nor a regular file (a FIFO, a broken symlink named
    SKILL.md) is linted as a file: ``STR003`` says what it is (it is never opened).
    Raises FileNotFoundError for a path that does not exist (callers report a usage
    error) and KeyError for an unknown profile.
    """
    prof = lint_profile(profile)
    if cache is True:
        from workbench.core.cache.parsestore import ParseStore
        from workbench.core.cache.resultcache import ResultCache

        try:
            cache = ResultCache(prof, parse_store=ParseStore())
        except OSError:  # no writable cache folder: lint without one
            cache = None
    rc = None if isinstance(cache, bool) else cache
    gc_was = gc.isenabled()
    gc.disable()  # allocation-heavy; the cyclic GC would rescan the cache's tables many times
    try:
        with snapshot():  # every path stat'ed once per run (walk, cache validity, dependencies)
            return _lint_paths(
                paths, prof, catalog, jobs, rc, walked or {}, feed, save, render_json, hand_off
            )
    finally:
        if gc_was:
            gc_resume()  # no young collection over the run's objects (``model.gc_resume``)


def _lint_paths(
    paths: Iterable[Path | str],
    prof: Profile,
    catalog: Any,
    jobs: int | None,
    cache: ResultCache | None,
    walked: dict[str, list[Path]],
    feed: LintFeed | None = None,
    save: bool = True,
    render_json: bool = False,
    hand_off: bool = False,
) -> dict[Path, Sequence[Diagnostic]]:
    files: list[Path] = []
    stats: dict[str, os.stat_result] = {}
    empty_dirs: list[Path] = []
    dirs = cache.dirs if cache is not None else None
    for raw in paths:
        s = os.fspath(raw)
        st = fs_stat(s)
        if st is not None and S_ISREG(st.st_mode):  # a file: itself (find_skill_files' first case)
            files.append(raw if isinstance(raw, Path) else Path(s))
            stats[abskey(s)] = st
            continue
        p = Path(raw)
        if st is None and not (p.name.lower() == "skill.md" and entry_exists(p)):
            raise FileNotFoundError(2, "no such file or directory", str(p))
        # Not a folder (a broken SKILL.md symlink, a FIFO, ...), or a folder named SKILL.md: the
        # path itself is linted and STR003 says what it is.
        if st is None or not S_ISDIR(st.st_mode) or p.name.lower() == "skill.md":
            files.append(p)
            continue
        got = walked[s] if s in walked else find_skill_files(p, dirs=dirs)
        if not got and p.is_dir():
            empty_dirs.append(p)
        files.extend(got)
    seen: set[str] = set()
    uniq: list[Path] = []
    keys: list[str] = []
    fspath = os.fspath
    for f in files:
        k = abskey(fspath(f))
        if k not in seen:
            seen.add(k)
            uniq.append(f)
            keys.append(k)
    out: dict[Path, Sequence[Diagnostic]] = {}
    if uniq:
        phasetimer.mark("walk")
        recs = _collect(keys, prof, jobs, cache, stats, feed, render_json)
        out.update(with_catalog(uniq, keys, recs, prof, catalog, cache, render_json, hand_off))
        phasetimer.mark("catalog")
        if cache is not None and save:
            cache.save()
            phasetimer.mark("save")
    for d in empty_dirs:
        msg = "no SKILL.md in this folder (the file name must be exactly SKILL.md)"
        out[d] = DiagnosticList.of([Diagnostic(1, 1, 1, 1, ERROR, "STR002", msg, rule="skill-file-missing")])
    return out


#: What a worker returns per file (``records_chunk``), a plain tuple so that a chunk is one
#: ``marshal`` blob: without a cache ``(diags, facts, json)``; with one ``(name, desc, entry,
#: diags, facts, parse_entry, json)`` where ``entry`` is the ``resultcache.make_entry`` tuple
#: (its blobs then stand for ``diags``/``facts``, which are None) or None (not storable: the
#: record itself), ``parse_entry`` the ``parsestore.stored_facts`` tuple or None, and ``json``
#: the per-file diagnostics' ``records.escaped_json`` when asked for (``render``), else None.
Row = tuple[Any, ...]
#: ``records_chunk``'s options after the paths and profile: ``(cache_racy, store_racy, render)``.
Options = tuple[int | None, int | None, bool]


def _collect(
    keys: list[str],
    prof: Profile,
    jobs: int | None,
    cache: ResultCache | None,
    stats: dict[str, os.stat_result],
    feed: LintFeed | None = None,
    render: bool = False,
) -> list[Collected]:
    """Per-file results for ``keys`` (absolute paths): from ``cache`` where valid, else computed
    (in ``jobs`` processes). New records are stored in the cache (the entries are built where the
    file was linted: ``records_chunk``). ``render``: the computed ones also get their per-file
    diagnostics' JSON text (``Collected.json``), rendered where they were linted."""
    out: list[Collected | None] = [None] * len(keys)
    todo: list[int] = []
    if cache is not None:
        lookup = cache.lookup if feed is None else partial(feed.lookup, prof, cache)
        for i, k in enumerate(keys):
            ent = lookup(k, stats.get(k))
            if ent is None:
                todo.append(i)
            else:
                out[i] = Collected(
                    ent.diags, Counts(*ent.counts), ent.facts, ent.cat_name, ent.cat_desc, ent, True
                )
    else:
        todo = list(range(len(keys)))
    phasetimer.mark("lookup")
    if todo:
        # The cyclic GC stays off while linting from scratch too (~10% of a cold run): reading,
        # parsing and linting a file leave no cyclic garbage (measured: 0 objects over 2,500
        # corpus files; the YAML loader is disposed), so only a pathological file's cycles wait
        # for the collector, until ``lint_paths`` returns.
        store = cache.parse_store if cache is not None else None
        rows = _compute([keys[i] for i in todo], prof, jobs, (*_limits(cache), render), feed)
        phasetimer.mark("compute")
        if cache is None:
            for i, (diags, facts, js) in zip(todo, rows):
                out[i] = Collected(
                    diags, severity_counts(diags), facts, cat_name(facts), cat_desc(facts), None, False, js
                )
        else:
            put, put_facts = cache.put_entry, store.put_entry if store is not None else None
            for i, (name, desc, ent, diags, facts, pent, js) in zip(todo, rows):
                k = keys[i]
                if ent is None:
                    out[i] = Collected(diags, severity_counts(diags), facts, name, desc, None, False, js)
                else:
                    put(k, ent)
                    out[i] = Collected(ent[7], Counts(*ent[6]), ent[8], name, desc, None, True, js)
                if pent is not None and put_facts is not None:
                    put_facts(k, pent)
        phasetimer.mark("collect")
    return [c for c in out if c is not None]


def _compute(
    paths: list[str],
    prof: Profile,
    jobs: int | None,
    limits: Options,
    feed: LintFeed | None = None,
) -> list[Row]:
    """``records_chunk`` rows for ``paths``, serially or in ``jobs`` processes (None = auto);
    ``limits``: ``records_chunk``'s options. Rows ``feed`` computed are taken from it (it was
    given the same options)."""
    known = feed.take(prof) if feed is not None else None
    if known:
        rest = [p for p in paths if p not in known]
        more = iter(_compute(rest, prof, jobs, limits) if rest else ())
        return [known[p] if p in known else next(more) for p in paths]
    load_rules()
    n = len(paths)
    if jobs is None:
        cpus = os.cpu_count() or 1
        jobs = min(cpus, 8) if n >= PARALLEL_MIN_FILES and cpus > 1 and parallel_ok() else 1
    results: list[Row] | None = None
    if jobs > 1 and n > 1:
        results = _run_parallel(paths, prof, jobs, limits)
    if results is None:
        results = records_chunk(paths, prof, *limits)
    return results


def records_chunk(
    paths: list[str],
    prof: Profile,
    cache_racy: int | None = None,
    store_racy: int | None = None,
    render: bool = False,
    listed: list[tuple[Any, ...] | None] | None = None,
) -> list[Row]:
    """Worker entry point: a ``Row`` per path (absolute). ``cache_racy``: build result-cache
    entries (``resultcache.make_entry`` with that ``racy_ns``); ``store_racy``: parse-store
    entries too (``parsestore.stored_facts``). None = not wanted. ``render``: each row also
    holds the ``--format json`` text of the file's per-file diagnostics (``escaped_json``;
    ``catalogpass.with_catalog`` adds the catalog rules' to it), so that the workers render
    what they lint. ``listed``: per path None or the walk's listing of its skill folder
    (``fscache.skill_folders``; ``runner.lint_record_batch``): a file linted from it records
    the folder's mtime it was listed at (``make_entry(known=)``: a change since misses). Never
    raises for file content."""
    out: list[Row] = []
    hints = listed if listed is not None else [None] * len(paths)
    for p, h, (rec, sf, deps) in zip(paths, hints, lint_record_batch(paths, prof, listed)):
        diags, facts = rec[0], tuple(rec[1])
        js = escaped_json(diags) if render else None
        if cache_racy is None:
            out.append((diags, facts, js))
            continue
        name, desc = cat_name(facts), cat_desc(facts)
        try:
            st: os.stat_result | None = os.stat(p)
        except OSError:
            st = None
        ent = pent = None
        if st is not None:
            # the skill folder as listed (its mtime from before the listing), not stat'ed again
            known = (os.path.dirname(p), h[2]) if h is not None and h[2] >= 0 else None
            ent = make_entry(
                st, (diags, facts), sf.size, sf.mtime_ns, sorted(deps), (name, desc), cache_racy, known
            )
            if store_racy is not None and st.st_size == sf.size and st.st_mtime_ns == sf.mtime_ns:
                try:
                    pent = stored_facts(skillfile_facts(sf), st, store_racy)
                except (ValueError, AttributeError):
                    pent = None
        if ent is None:
            out.append((name, desc, None, diags, facts, pent, js))
        else:
            out.append((name, desc, ent, None, None, pent, js))
    return out


def parallel_ok() -> bool:
    """Whether forked worker processes may be used here (``forkrun.fork_ok``: ``fork`` exists,
    no other thread, two cores, no ``forkrun.forbid``)."""
    return fork_ok()


def lint_records(
    paths: list[str], prof: Profile, *, jobs: int | None = None, cache: ResultCache | None = None
) -> list[FileRecord]:
    """``FileRecord``s for ``paths`` in order, from ``cache`` where still valid, else computed
    (in ``jobs`` processes; see ``lint_paths``). New records are stored in ``cache`` and the
    cache is saved."""
    with snapshot():
        keys = [os.path.abspath(p) for p in paths]
        got = _collect(keys, prof, jobs, cache, {})
    out = []
    for r in got:
        d, f = r.diags, r.facts
        diags = marshal.loads(d) if isinstance(d, bytes) else tuple(d)
        out.append(FileRecord(diags, LintFacts._make(marshal.loads(f) if isinstance(f, bytes) else f)))
    if cache is not None:
        cache.save()
    return out


def chunk_size(n: int, jobs: int) -> int:
    """Files per pool task for ``n`` files over ``jobs`` workers: ~16 chunks per worker, between
    ``CHUNK_MIN`` and ``CHUNK_MAX``. The pool's wall ends when its last chunk does, so a process
    idles for up to one chunk at the end (10,000 files: chunks of 200 left the parent idle
    80-150 ms, of 50 20-30 ms; with 4 chunks per worker a core was idle ~0.9 s); one chunk costs
    one queue record and one result blob, not one per file."""
    return max(CHUNK_MIN, min(CHUNK_MAX, -(-n // (max(1, jobs) * 16))))


def _run_parallel(paths: list[str], prof: Profile, jobs: int, limits: Options) -> list[Row] | None:
    """``records_chunk`` over ``jobs`` processes (``LintFeed``: ``jobs - 1`` forked workers and
    this process take chunks from one queue). None when processes cannot be used."""
    if not parallel_ok():
        return None
    feed = LintFeed(jobs)
    if not feed.start():
        return None
    feed.queue_all(paths, prof, limits)
    if not feed.finish():
        return None
    got = feed.take(prof)
    return [got[p] for p in paths]


class LintFeed:
    """Per-file lint work started while the files are still being found (``workbench lint``:
    the walk's ``find_skill_files(on_file=)``), as ``discovery.Prefetcher`` does for a scan.

    ``add(path, prof, cache)`` queues a SKILL.md (str path) to lint with ``prof``; ``cache``
    (its ``ResultCache`` or None) is looked up first: a file whose entry is still valid is not
    computed (the entry is kept for ``lookup``). Once ``PARALLEL_MIN_FILES`` files wait (``jobs``
    None = auto, as in ``lint_paths``; 1 = never) ``jobs - 1`` forked workers start and take
    ``CHUNK_MAX``-file chunks from a ``forkrun.WorkQueue`` while the caller walks on (each
    chunk's rows come back as one ``marshal`` blob, through shared memory: a worker never waits
    for this process). ``finish()`` queues the rest and this process takes chunks from the same
    queue until it is empty, then reads the workers' rows (``_run_parallel``'s balance: the
    last chunk ends at most one chunk's time apart). Afterwards ``lint_paths(feed=)`` takes the rows (``take``) instead of computing
    them: same rows, same cache entries (``records_chunk`` with the cache's racy limits, and
    each file's JSON text when ``render_json``: ``workbench lint --format json``). When
    the pool never starts (few files, one core, another thread, no fork), nothing is computed
    here and ``lint_paths`` does it; a chunk a worker fails is linted here. Use from one
    thread."""

    def __init__(self, jobs: int | None = None, render_json: bool = False) -> None:
        self.jobs = jobs
        #: the rows hold each file's JSON text (``records_chunk(render=True)``): give
        #: ``lint_paths(render_json=True)`` the same value, else the text is not used
        self.render_json = render_json
        #: look-ups ``add`` made, per profile (by id): key -> the valid entry or None (a miss)
        self._looked: dict[int, dict[str, CacheEntry | None]] = {}
        #: per profile (by id): (profile, options, keys waiting for a chunk, keys seen)
        self._waiting: dict[int, tuple[Profile, Options, list[str], set[str]]] = {}
        self._tasks: list[tuple[Profile, list[str]]] = []
        self._rows: dict[int, dict[str, Row]] = {}
        self._queue: WorkQueue | None = None
        self._gc_was = False
        self._off = (jobs is not None and jobs <= 1) or (jobs is None and (os.cpu_count() or 1) < 2)
        self._count = 0
        #: give it to ``fscache.skill_folders`` around the walk: the skill folders it lists are
        #: sent with their files, so that the workers do not list them again
        self.folders: dict[str, tuple[Any, ...]] = {}
        self._listed: dict[str, tuple[Any, ...]] = {}

    @property
    def active(self) -> bool:
        """False when this feed will never start workers (``jobs`` 1, one core, a failed pool):
        the caller need not feed it."""
        return not self._off

    def add(self, path: str, prof: Profile, cache: ResultCache | None = None) -> None:
        """Queue ``path`` (a SKILL.md as the walk found it) for ``prof`` unless already queued
        or still valid in ``cache`` (the same cache must then be given to ``lint_paths``)."""
        key = abskey(path)
        w = self._waiting.get(id(prof))
        if w is None:
            w = self._waiting[id(prof)] = (prof, (*_limits(cache), self.render_json), [], set())
        if key in w[3]:
            return
        w[3].add(key)
        if cache is not None:
            looked = self._looked.get(id(prof))
            if looked is None:
                looked = self._looked[id(prof)] = {}
            ent = looked[key] = cache.lookup(key)
            if ent is not None:
                return
        keys = w[2]
        keys.append(key)
        self._count += 1
        if self.folders:
            got = self.folders.pop(os.path.dirname(path), None)
            if got is not None:
                self._listed[key] = got
        if self._off:
            return
        if self._queue is None and (self._count < PARALLEL_MIN_FILES or not self.start()):
            return
        if len(keys) >= CHUNK_MAX:
            self._submit(CHUNK_MAX, final=False)

    def queue_all(self, keys: Iterable[str], prof: Profile, limits: Options) -> None:
        """Queue absolute paths for ``finish`` (no cache look-up, none sent yet; ``limits``:
        ``records_chunk``'s options)."""
        w = self._waiting.get(id(prof))
        if w is None:
            w = self._waiting[id(prof)] = (prof, limits, [], set())
        w[2].extend(keys)

    def lookup(
        self, prof: Profile, cache: ResultCache, key: str, st: os.stat_result | None
    ) -> CacheEntry | None:
        """``cache.lookup(key, st)``, answered from ``add``'s look-up when it made one."""
        looked = self._looked.get(id(prof))
        if looked is not None:
            if key in looked:
                return looked.pop(key)
        return cache.lookup(key, st)

    def start(self) -> bool:
        """Start the worker (the rules are loaded first, so that it inherits them); False when
        processes cannot be used here (the feed then computes nothing)."""
        if self._queue is not None:
            return True
        if self._off:
            return False
        jobs = self.jobs
        if jobs is None:
            cpus = os.cpu_count() or 1
            jobs = min(cpus, 8) if cpus > 1 else 1
        if jobs <= 1 or not fork_ok():
            self._off = True
            return False
        load_rules()
        self.jobs = jobs
        # as in lint_paths: the cyclic GC off in the worker (it inherits it) and here until
        # ``finish`` (measured: on, it cost the fed run ~0.3 s more CPU at 10k files)
        self._gc_was = gc.isenabled()
        gc.disable()
        try:
            self._queue = WorkQueue(records_chunk, jobs - 1)
        except OSError:  # no processes: lint_paths works serially
            log.debug("lint pool failed; linting serially", exc_info=True)
            self._off = True
            if self._gc_was:
                gc.enable()
            return False
        return True

    def _submit(self, size: int, final: bool) -> None:
        """Queue the waiting files in chunks of ``size``: full chunks only unless ``final``."""
        queue = self._queue
        if queue is None:
            return
        for prof, limits, keys, _seen in self._waiting.values():
            while len(keys) >= size or (keys and final):
                chunk = keys[:size]
                del keys[:size]
                listed = self._listed
                hints = [listed.pop(k, None) for k in chunk] if listed else None
                queue.put(chunk, prof, *limits, hints)
                self._tasks.append((prof, chunk))

    def finish(self) -> bool:
        """Lint what is queued (the worker and this process, see the class) and stop the worker.
        False when it did not start."""
        if self._queue is None:
            return False
        try:
            left = sum(len(w[2]) for w in self._waiting.values())
            self._submit(chunk_size(left, self.jobs or 2), final=True)
            for (prof, chunk), rows in zip(self._tasks, self._queue.drain()):
                self._rows.setdefault(id(prof), {}).update(zip(chunk, rows))
        finally:
            self._tasks = []
            self._queue = None
            self._off = True
            if self._gc_was:
                gc_resume()
        return True

    def take(self, prof: Profile) -> dict[str, Row]:
        """The rows computed for ``prof`` (absolute path -> ``records_chunk`` row), handed over
        once."""
        return self._rows.pop(id(prof), {})


def _limits(cache: ResultCache | None) -> tuple[int | None, int | None]:
    """``records_chunk``'s ``cache_racy``/``store_racy`` for ``cache`` (None: no entries)."""
    if cache is None:
        return (None, None)
    store = cache.parse_store
    return (cache.racy_ns, None if store is None else store.racy_ns)
