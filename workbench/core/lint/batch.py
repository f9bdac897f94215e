"""Linting many files: walk, per-file records (from the result cache, serially or in a process
pool), then the catalog rules over every file's facts.

Public: ``lint_paths`` (re-exported by ``workbench.core.lint``), ``lint_records``,
``PARALLEL_MIN_FILES``, ``parallel_ok``. Never raises on a skill file's content.
"""

from __future__ import annotations

import gc
import hashlib
import logging
import marshal
import os
from collections.abc import Iterable, Sequence
from pathlib import Path
from stat import S_ISDIR, S_ISREG
from typing import TYPE_CHECKING, Any, NamedTuple

from workbench.core.cache.fscache import abskey, snapshot
from workbench.core.cache.fscache import stat as fs_stat
from workbench.core.cache.resultcache import CatalogResult
from workbench.core.cache.skillfacts import skillfile_facts
from workbench.core.lint.context import CatalogEntry, CatalogIndex
from workbench.core.lint.facts import FactsContext, LintFacts, cat_desc, cat_name
from workbench.core.lint.profiles import Profile, lint_profile
from workbench.core.lint.records import Counts, DiagnosticList, DiagSource, encode_diag, severity_counts
from workbench.core.lint.ruleset import load_rules
from workbench.core.lint.runner import FileRecord, catalog_rules, lint_record_batch, run_rules
from workbench.core.lint.types import ERROR, Diagnostic
from workbench.core.skillwalk import entry_exists, find_skill_files

if TYPE_CHECKING:
    from workbench.core.cache.resultcache import CacheEntry, ResultCache

log = logging.getLogger(__name__)

#: Below this many files ``lint_paths(jobs=None)`` stays serial (a pool costs ~50 ms to start).
PARALLEL_MIN_FILES = 200
#: Files per chunk sent to a pool worker: at least / at most (see ``_run_parallel``).
CHUNK_MIN, CHUNK_MAX = 25, 200


def lint_paths(
    paths: Iterable[Path | str],
    profile: str | Profile = "agentskills",
    catalog: Iterable[Any] | None = None,
    *,
    jobs: int | None = None,
    cache: ResultCache | bool | None = None,
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
            return _lint_paths(paths, prof, catalog, jobs, rc)
    finally:
        if gc_was:
            gc.enable()


def _lint_paths(
    paths: Iterable[Path | str], prof: Profile, catalog: Any, jobs: int | None, cache: ResultCache | None
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
        got = find_skill_files(p, dirs=dirs)
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
        recs = _collect(keys, prof, jobs, cache, stats)
        out.update(_with_catalog(uniq, keys, recs, prof, catalog, cache))
        if cache is not None:
            cache.save()
    for d in empty_dirs:
        msg = "no SKILL.md in this folder (the file name must be exactly SKILL.md)"
        out[d] = DiagnosticList.of([Diagnostic(1, 1, 1, 1, ERROR, "STR002", msg, rule="skill-file-missing")])
    return out


def _fingerprint(keys: list[str], names: Iterable[tuple[str, str]]) -> str:
    """A hash of the catalog the catalog rules see: every (path, name, description)."""
    parts: list[str] = []
    for k, (n, d) in zip(keys, names):
        parts += (k, n, d)
    return hashlib.sha256("\0".join(parts).encode("utf-8", "surrogatepass")).hexdigest()


class Computed(NamedTuple):
    """One file linted from scratch (``records_chunk``): its record and what the caches key on."""

    record: FileRecord
    size: int  #: bytes, as read
    mtime_ns: int  #: as read
    sha256: str  #: of the bytes read ("" when no cache asked for it)
    deps: tuple[str, ...]  #: other paths the result depends on (sorted)
    parse_facts: tuple[Any, ...] | None  #: ``skillfile_facts`` (None: not asked / not marshal-able)


class Collected(NamedTuple):
    """One file's per-file results as ``_with_catalog`` needs them."""

    diags: DiagSource  #: the per-file rules' encoded diagnostics (or their marshal blob)
    counts: Counts  #: their severity counts
    facts: bytes | LintFacts  #: the file's facts (or their marshal blob)
    name: str  #: the catalog name
    desc: str  #: the catalog description
    entry: CacheEntry | None  #: the valid cache entry it came from, or None
    cacheable: bool  #: the cache holds this file now (its catalog results may be stored)


def _with_catalog(
    files: list[Path],
    keys: list[str],
    recs: list[Collected],
    prof: Profile,
    catalog: Any,
    cache: ResultCache | None,
) -> dict[Path, DiagnosticList]:
    """Each file's ``DiagnosticList``: its per-file diagnostics plus the catalog rules' (reused
    from the cache while the catalog fingerprint is the same, else run on its facts)."""
    index: CatalogIndex | None = None
    if catalog is None:
        fp = _fingerprint(keys, ((r.name, r.desc) for r in recs))
    else:
        index = catalog if isinstance(catalog, CatalogIndex) else CatalogIndex(catalog)
        entries = index.entries
        # "x": never equal to a files-only fingerprint
        fp = "x" + _fingerprint(
            [index.key(e) or "" for e in entries], ((e.name, e.description) for e in entries)
        )
    # Every file's catalog results cached for this catalog (a warm run): the rules are not even
    # loaded (an entry holds them only when the catalog rules were active under the same profile
    # and rules version, which the cache is keyed on).
    hit_all = all(r.entry is not None and r.entry.cat_fp == fp for r in recs)
    cat_rules = [] if hit_all else catalog_rules(prof)
    if not cat_rules and not hit_all:
        return {f: DiagnosticList(rec.diags, (), rec.counts) for f, rec in zip(files, recs)}
    out: dict[Path, DiagnosticList] = {}
    hits = 0
    for f, k, rec in zip(files, keys, recs):
        ent = rec.entry
        if ent is not None and ent.cat_fp == fp and ent.cat is not None:
            cat = CatalogResult._make(ent.cat)  # its blob is decoded lazily
            out[f] = DiagnosticList(rec.diags, cat.diags, rec.counts.plus(cat.counts))
            hits += 1
            continue
        if index is None:
            index = CatalogIndex([CatalogEntry(r.name, r.desc, p) for p, r in zip(files, recs)])
        facts = rec.facts
        if isinstance(facts, bytes):
            facts = LintFacts._make(marshal.loads(facts))
        extra = run_rules(cat_rules, FactsContext(facts, f, prof, index))
        cat_src = tuple(map(encode_diag, extra))
        if cache is not None and rec.cacheable:
            cache.put_catalog(k, fp, cat_src)
        out[f] = DiagnosticList(rec.diags, cat_src, rec.counts.plus(severity_counts(cat_src)))
    if cache is not None:
        cache.catalog_hits += hits
    return out


def _collect(
    keys: list[str],
    prof: Profile,
    jobs: int | None,
    cache: ResultCache | None,
    stats: dict[str, os.stat_result],
) -> list[Collected]:
    """Per-file results for ``keys`` (absolute paths): from ``cache`` where valid, else computed
    (in ``jobs`` processes). New records are stored in the cache."""
    out: list[Collected | None] = [None] * len(keys)
    todo: list[int] = []
    if cache is not None:
        lookup = cache.lookup
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
    if todo:
        # The cyclic GC stays off while linting from scratch too (~10% of a cold run): reading,
        # parsing and linting a file leave no cyclic garbage (measured: 0 objects over 2,500
        # corpus files; the YAML loader is disposed), so only a pathological file's cycles wait
        # for the collector, until ``lint_paths`` returns.
        store = cache.parse_store if cache is not None else None
        results = _compute([keys[i] for i in todo], prof, jobs, store is not None, cache is not None)
        for i, c in zip(todo, results):
            diags, facts = c.record
            name, desc = cat_name(facts), cat_desc(facts)
            ok = False
            if cache is not None:
                ok = cache.put(keys[i], c.record, c.size, c.mtime_ns, c.sha256, c.deps, cat=(name, desc))
                if store is not None and c.parse_facts is not None:
                    st = fs_stat(keys[i])
                    if st is not None and st.st_size == c.size and st.st_mtime_ns == c.mtime_ns:
                        store.put_facts(keys[i], c.parse_facts, st)
            out[i] = Collected(diags, severity_counts(diags), facts, name, desc, None, ok)
    return [c for c in out if c is not None]


def _compute(
    paths: list[str], prof: Profile, jobs: int | None, parse_facts: bool = True, sha: bool = True
) -> list[Computed]:
    """``records_chunk`` over ``paths``, serially or in ``jobs`` processes (None = auto);
    ``parse_facts``: also return each file's parse facts (for a parse store); ``sha``: each
    file's SHA-256 (for a result cache)."""
    load_rules()
    n = len(paths)
    if jobs is None:
        cpus = os.cpu_count() or 1
        jobs = min(cpus, 8) if n >= PARALLEL_MIN_FILES and cpus > 1 and parallel_ok() else 1
    results: list[Computed] | None = None
    if jobs > 1 and n > 1:
        results = _run_parallel(paths, prof, jobs, parse_facts, sha)
    if results is None:
        results = records_chunk(paths, prof, parse_facts, sha)
    return results


def records_chunk(
    paths: list[str], prof: Profile, parse_facts: bool = True, sha: bool = True
) -> list[Computed]:
    """Worker entry point: ``Computed`` for a chunk of paths (parse facts: see ``Computed``)."""
    out = []
    for rec, sf, deps in lint_record_batch(paths, prof):
        pf = None
        if parse_facts:
            try:
                pf = skillfile_facts(sf)
                marshal.dumps(pf)
            except (ValueError, AttributeError):
                pf = None
        out.append(Computed(rec, sf.size, sf.mtime_ns, sf.sha256 if sha else "", tuple(sorted(deps)), pf))
    return out


def parallel_ok() -> bool:
    """Whether a forked process pool may be used here (no other thread runs; fork exists)."""
    import multiprocessing
    import threading

    return threading.active_count() == 1 and "fork" in multiprocessing.get_all_start_methods()


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
        out.append(FileRecord(diags, LintFacts._make(marshal.loads(f)) if isinstance(f, bytes) else f))
    if cache is not None:
        cache.save()
    return out


def chunk_size(n: int, jobs: int) -> int:
    """Files per pool task for ``n`` files over ``jobs`` workers: ~16 chunks per worker, between
    ``CHUNK_MIN`` and ``CHUNK_MAX``. The pool's wall ends when its last chunk does, so a worker
    idles for up to one chunk at the end (with 4 chunks per worker that was 1,250 files, ~0.9 s
    of one core, at 10,000 files); one chunk costs one message each way, not one per file."""
    return max(CHUNK_MIN, min(CHUNK_MAX, -(-n // (max(1, jobs) * 16))))


def _run_parallel(
    paths: list[str], prof: Profile, jobs: int, parse_facts: bool, sha: bool
) -> list[Computed] | None:
    """``records_chunk`` over ``jobs`` forked processes; None when processes cannot be used."""
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    if not parallel_ok():
        return None
    size = chunk_size(len(paths), jobs)
    chunks = [paths[i : i + size] for i in range(0, len(paths), size)]
    n = len(chunks)
    try:
        with ProcessPoolExecutor(max_workers=jobs, mp_context=multiprocessing.get_context("fork")) as ex:
            got = list(ex.map(records_chunk, chunks, [prof] * n, [parse_facts] * n, [sha] * n))
    except Exception:  # noqa: BLE001 - BrokenProcessPool, OSError, pickling: do it serially
        log.debug("lint pool failed; linting serially", exc_info=True)
        return None
    return [r for chunk in got for r in chunk]
