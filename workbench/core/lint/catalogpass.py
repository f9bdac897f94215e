"""The catalog pass of ``lint_paths``: every file's per-file results plus the catalog rules'
(duplicate names/descriptions, listing budget: ``runner.CATALOG_RULES``), reused from the result
cache while the catalog is the same, and each file's rendered ``--format json`` text
(``records.escaped_json``) kept with them when asked for.

Public: ``Collected`` (one file's per-file results), ``with_catalog``, ``fingerprint``,
``CATALOG_SPLIT_MIN``. Never raises on a skill file's content.
"""

from __future__ import annotations

import hashlib
import marshal
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from workbench.core.cache.resultcache import catalog_result
from workbench.core.forkrun import split_map, split_map_then
from workbench.core.lint.catalogindex import CatalogEntry, CatalogIndex
from workbench.core.lint.facts import FactsContext, LintFacts
from workbench.core.lint.profiles import Profile
from workbench.core.lint.records import (
    Counts,
    DiagnosticList,
    DiagSource,
    merged_json,
    severity_counts,
)
from workbench.core.lint.runner import BATCH_FILES, catalog_rules, run_encoded_batch

if TYPE_CHECKING:
    from workbench.core.cache.resultcache import CacheEntry, ResultCache

__all__ = ["CATALOG_SPLIT_MIN", "Collected", "fingerprint", "with_catalog"]

#: ``with_catalog`` splits the catalog rules' work with a forked child from this many files to
#: run them on (~25-40 µs per file; a fork + pipe costs ~10-20 ms).
CATALOG_SPLIT_MIN = 2000


class Collected(NamedTuple):
    """One file's per-file results as ``with_catalog`` needs them."""

    diags: DiagSource  #: the per-file rules' encoded diagnostics (or their marshal blob)
    counts: Counts  #: their severity counts
    facts: bytes | LintFacts  #: the file's facts (or their marshal blob)
    name: str  #: the catalog name
    desc: str  #: the catalog description
    entry: CacheEntry | None  #: the valid cache entry it came from, or None
    cacheable: bool  #: the cache holds this file now (its catalog results may be stored)
    #: the per-file diagnostics' ``records.escaped_json`` when the worker that linted the file
    #: rendered it (``batch.records_chunk(render=True)``), else None
    json: bytes | None = None


def fingerprint(keys: list[str], names: Iterable[tuple[str, str]]) -> str:
    """A hash of the catalog the catalog rules see: every (path, name, description)."""
    parts: list[str] = []
    for k, (n, d) in zip(keys, names):
        parts += (k, n, d)
    return hashlib.sha256("\0".join(parts).encode("utf-8", "surrogatepass")).hexdigest()


def with_catalog(
    files: list[Path],
    keys: list[str],
    recs: list[Collected],
    prof: Profile,
    catalog: Any,
    cache: ResultCache | None,
    render_json: bool = False,
    hand_off: bool = False,
) -> dict[Path, DiagnosticList]:
    """Each file's ``DiagnosticList``: its per-file diagnostics plus the catalog rules' (reused
    from the cache while the catalog fingerprint is the same, else run on its facts).
    ``render_json``: each list also gets its ``records.escaped_json`` text, from the cache when
    it was stored with the catalog results (a warm run decodes no diagnostic), else from the
    per-file text the pool workers rendered (``Collected.json``) with the catalog rules' findings
    put in place (``records.merged_json``), else rendered here (in the forked half for the files
    whose catalog rules run); stored with the catalog results. ``hand_off``: when the catalog
    rules' work is split with a forked child, the child also writes ``cache`` (with its
    listings and parse store: ``ResultCache.saved_by``; ``cache.save()`` waits for it), so
    nothing may change them in this process until that save (one ``lint_paths`` group)."""
    index: CatalogIndex | None = None
    if catalog is None:
        fp = fingerprint(keys, ((r.name, r.desc) for r in recs))
    else:
        index = catalog if isinstance(catalog, CatalogIndex) else CatalogIndex(catalog)
        entries = index.entries
        # "x": never equal to a files-only fingerprint
        fp = "x" + fingerprint(
            [index.key(e) or "" for e in entries], ((e.name, e.description) for e in entries)
        )
    # Every file's catalog results cached for this catalog (a warm run): the rules are not even
    # loaded (an entry holds them only when the catalog rules were active under the same profile
    # and rules version, which the cache is keyed on).
    hit_all = all(r.entry is not None and r.entry.cat_fp == fp for r in recs)
    cat_rules = [] if hit_all else catalog_rules(prof)
    if not cat_rules and not hit_all:
        js_of = (lambda rec: rec.json) if render_json else (lambda rec: None)
        return {f: DiagnosticList(rec.diags, (), rec.counts, js_of(rec)) for f, rec in zip(files, recs)}
    done: list[DiagnosticList | None] = [None] * len(files)
    todo: list[int] = []
    hits = 0
    for i, rec in enumerate(recs):
        ent = rec.entry
        cat = ent.cat if ent is not None and ent.cat_fp == fp else None
        if cat is not None:
            # a CatalogResult: (errors, warnings, infos, blob decoded lazily, escaped JSON text)
            c = rec.counts
            js: bytes | None = cat[4]
            dl = done[i] = DiagnosticList(
                rec.diags, cat[3], (c[0] + cat[0], c[1] + cat[1], c[2] + cat[2]), js
            )
            if render_json and js is None and cache is not None and rec.cacheable:
                cache.put_catalog_result(keys[i], fp, (*cat[:4], dl.escaped_json()))
            hits += 1
        else:
            todo.append(i)
    if todo:
        if index is None:
            index = CatalogIndex([CatalogEntry(r.name, r.desc, p) for p, r in zip(files, recs)], keys)
        idx = index

        def run(some: Sequence[int]) -> list[tuple[Any, ...]]:
            # per file its CatalogResult (counts, the diagnostics' marshal blob, JSON text), as
            # the cache stores it; (counts, the diagnostics, text) when marshal cannot hold them
            got: list[tuple[Any, ...]] = []
            loads = marshal.loads
            for b in range(0, len(some), BATCH_FILES):  # rule-major, as the per-file rules
                part = some[b : b + BATCH_FILES]
                ctxs = []
                for i in part:
                    facts = recs[i].facts
                    ctxs.append(
                        FactsContext(
                            loads(facts) if isinstance(facts, bytes) else facts, files[i], prof, idx, keys[i]
                        )
                    )
                for i, diags in zip(part, run_encoded_batch(cat_rules, ctxs)):
                    rec = recs[i]
                    found = tuple(diags)
                    js = None
                    if render_json:
                        # the worker's text of the per-file diagnostics, the catalog rules' put
                        # in place; rendered here only when no worker did
                        js = None if rec.json is None else merged_json(rec.diags, rec.json, found)
                        if js is None:
                            js = DiagnosticList(rec.diags, found).escaped_json()
                    got.append(catalog_result(found, js) or (*severity_counts(found), found, js))
            return got

        # ``hand_off``: a forked helper stores the results (below); else they are stored here
        helper_saves = hand_off and cache is not None
        kept: list[tuple[int, tuple[Any, ...]]] = []  # (file, result) the helper is to store

        def storable(i: int, cr: tuple[Any, ...]) -> bool:
            return recs[i].cacheable and isinstance(cr[3], bytes)

        def take(start: int, part: list[tuple[Any, ...]]) -> None:
            for i, cr in zip(todo[start : start + len(part)], part):
                if storable(i, cr):
                    if helper_saves:
                        kept.append((i, cr))
                    elif cache is not None:
                        cache.put_catalog_result(keys[i], fp, cr)
                c = recs[i].counts
                done[i] = DiagnosticList(
                    recs[i].diags, cr[3], (c[0] + cr[0], c[1] + cr[1], c[2] + cr[2]), cr[4]
                )

        # The catalog rules over many files: half of them in a forked child (it inherits the
        # index; only the results come back, as the cache stores them); this process takes
        # them. ``hand_off``: the child then also gets this half's results and writes the
        # cache (with its listings and parse store) while this process goes on.
        if helper_saves and cache is not None:
            store = cache

            def put_all(pairs: Iterable[tuple[int, tuple[Any, ...]]]) -> None:
                for i, cr in pairs:
                    store.put_catalog_result(keys[i], fp, cr)

            def save(results: list[tuple[Any, ...]]) -> None:  # in the child
                put_all((i, cr) for i, cr in zip(todo, results) if storable(i, cr))
                store.save()

            def put_kept() -> None:  # here, when the helper did not store them
                put_all(kept)
                kept.clear()

            _, wait = split_map_then(run, todo, CATALOG_SPLIT_MIN, save, take)
            if wait is not None:
                cache.saved_by(wait, put_kept)
            else:
                put_kept()
        else:
            split_map(run, todo, CATALOG_SPLIT_MIN, take)
    out = {f: d for f, d in zip(files, done) if d is not None}
    if cache is not None:
        cache.catalog_hits += hits
    return out
