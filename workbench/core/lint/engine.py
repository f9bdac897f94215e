"""The lint engine: run every rule active under a profile over one file, many files, or text.

Public API (re-exported by ``workbench.core.lint``):

* ``lint_text(text, path=None, profile="agentskills", catalog=None) -> list[Diagnostic]``
* ``lint_file(path, profile="agentskills", catalog=None) -> list[Diagnostic]``
* ``lint_paths(paths, profile="agentskills", catalog=None) -> dict[Path, list[Diagnostic]]``
* ``lint_skillfile(sf, profile="agentskills", catalog=None)`` (for callers that already parsed)
* ``apply_fix(text, fix) -> str``
* ``find_skill_files(path) -> list[Path]``

Never raises on a skill file's content: a rule that crashes becomes a ``LINT000`` warning.
"""

from __future__ import annotations

import gc
import hashlib
import marshal
import os
from collections.abc import Iterable
from pathlib import Path
from stat import S_ISDIR, S_ISREG
from typing import Any

from workbench.core.fscache import SKILL_NONE, abskey, scan_listing, snapshot
from workbench.core.fscache import fast_path as _fast_path
from workbench.core.fscache import mtime as fs_mtime
from workbench.core.fscache import stat as fs_stat
from workbench.core.lint.context import CatalogEntry, CatalogIndex, LintContext
from workbench.core.lint.facts import F_DESC as _F_DESC
from workbench.core.lint.facts import F_FIELDS as _F_FIELDS
from workbench.core.lint.facts import F_HAS_FIELDS as _F_HAS_FIELDS
from workbench.core.lint.facts import F_LINES as _F_LINES
from workbench.core.lint.facts import F_NAME as _F_NAME
from workbench.core.lint.facts import F_NLINES as _F_NLINES
from workbench.core.lint.facts import F_STATE as _F_STATE
from workbench.core.lint.facts import cat_desc as _cat_desc
from workbench.core.lint.facts import cat_name as _cat_name
from workbench.core.lint.profiles import Profile, lint_profile
from workbench.core.lint.registry import RULES, Rule, load_rules
from workbench.core.lint.types import ERROR, OFF, SEVERITY_RANK, Diagnostic, Fix, TextEdit
from workbench.core.skillfile import SkillFile, Span, parse_skill_text, read_skill_file, skillfile_facts

#: Directories never walked by ``find_skill_files`` (DESIGN.md section 3).
SKIP_DIRS = frozenset({".git", "node_modules"})

_active_cache: dict[tuple[str, int], list[tuple[Rule, str]]] = {}


def _active(profile: Profile) -> list[tuple[Rule, str]]:
    """(rule, severity) pairs that run under ``profile``, in code order."""
    key = (profile.id, id(profile))
    got = _active_cache.get(key)
    if got is None:
        load_rules()
        got = [(r, r.severity_for(profile)) for r in RULES.values()]
        got = [(r, s) for r, s in got if s != OFF]
        _active_cache[key] = got
    return got


_per_file_cache: dict[tuple[str, int], list[tuple[Rule, str]]] = {}


def _active_per_file(profile: Profile) -> list[tuple[Rule, str]]:
    """``_active(profile)`` without ``CATALOG_RULES`` (computed once per profile)."""
    key = (profile.id, id(profile))
    got = _per_file_cache.get(key)
    if got is None:
        got = _per_file_cache[key] = [(r, s) for r, s in _active(profile) if r.code not in CATALOG_RULES]
    return got


def _clamp(d: Diagnostic, ctx: LintContext) -> Diagnostic:
    """Keep a diagnostic's range inside the text (1 <= column <= len(line) + 1)."""
    lines = ctx.lines
    n = max(1, len(lines))
    line = d.line
    if (
        line == d.end_line
        and 0 < line <= len(lines)
        and 0 < d.column <= d.end_column <= len(lines[line - 1]) + 1
    ):
        return d  # the usual case: a range on one existing line

    def fix_pos(line: int, col: int) -> tuple[int, int]:
        line = min(max(1, line), n)
        ln = len(lines[line - 1]) if lines else 0
        return line, min(max(1, col), ln + 1)

    l1, c1 = fix_pos(d.line, d.column)
    l2, c2 = fix_pos(d.end_line, d.end_column)
    if (l2, c2) < (l1, c1):
        l2, c2 = l1, c1
    if (l1, c1, l2, c2) == (d.line, d.column, d.end_line, d.end_column):
        return d
    return Diagnostic(l1, c1, l2, c2, d.severity, d.code, d.message, d.fix, d.rule, d.unverified)


def lint_skillfile(
    sf: SkillFile, profile: str | Profile = "agentskills", catalog: Iterable[Any] | None = None
) -> list[Diagnostic]:
    """Lint an already parsed ``SkillFile``. Returns diagnostics sorted by position.

    Raises KeyError for an unknown profile id.
    """
    prof = lint_profile(profile)
    ctx = LintContext(sf, prof, catalog)
    out = _run_rules(_active(prof), ctx)
    out.sort(key=lambda d: d.sort_key)
    return out


def lint_text(
    text: str,
    path: Path | str | None = None,
    profile: str | Profile = "agentskills",
    catalog: Iterable[Any] | None = None,
) -> list[Diagnostic]:
    """Lint SKILL.md text (e.g. an editor buffer).

    Args:
        text: the file content (a leading U+FEFF counts as a BOM).
        path: where the file is (or will be); gives the folder name for the name/folder rule and
            the folder for link and structure rules. None = those rules are skipped.
        profile: a profile id of ``PROFILES`` or a ``Profile``.
        catalog: other skills for cross-skill rules: ``(name, description, path)`` tuples or
            ``workbench.core.model.Skill`` objects. An entry whose path equals ``path`` is this
            file itself and is ignored.

    Returns: diagnostics sorted by (line, column, severity, code). Raises KeyError for an unknown
    profile; never raises for bad content.
    """
    return lint_skillfile(parse_skill_text(text, path), profile, catalog)


def lint_file(
    path: Path | str, profile: str | Profile = "agentskills", catalog: Iterable[Any] | None = None
) -> list[Diagnostic]:
    """Read and lint one SKILL.md. Unreadable files give a diagnostic, not an exception."""
    return lint_skillfile(read_skill_file(path), profile, catalog)


def find_skill_files(path: Path | str, *, dirs: Any = None) -> list[Path]:
    """The SKILL.md files a PATH names: the file itself; ``DIR/SKILL.md`` (or ``DIR/skill.md``)
    for a skill folder; otherwise every ``SKILL.md`` below DIR, skipping ``.git`` and
    ``node_modules`` (dot-folders are walked, like discovery does). Sorted. Symlinked folders are
    followed, as discovery does (``skills/my-skill -> ../src/my-skill``, issue 13 item 4): each
    real folder is walked once (no cycles) and a SKILL.md reached twice counts once (the first
    path in path order is kept). Returns [] when nothing is found.

    A ``SKILL.md`` entry that cannot be read as a file is returned too, so that it is reported
    (``STR003`` with ``skillfile.special_file_problem``'s reason) instead of vanishing: a broken or
    looping symlink, a folder named ``SKILL.md``, a FIFO/socket/device (``read_skill_file`` never
    opens those), a symlink to a folder. A PATH that is itself such an entry is returned when it
    is named SKILL.md (any case).

    ``dirs``: a ``workbench.core.fscache.DirCache`` answering folder listings from their mtime
    (one stat per folder instead of a scandir); None lists every folder."""
    p = Path(path)
    # os.path.isfile/isdir, not Path's: they answer False instead of raising PermissionError
    # (a folder without search permission, mode 0444, as a non-root user)
    if os.path.isfile(p):
        return [p]
    if not os.path.isdir(p):
        return [p] if p.name.lower() == "skill.md" and entry_exists(p) else []
    try:
        names = os.listdir(p)
    except OSError:  # an unlistable folder: its SKILL.md reports why (STR003, "Permission denied")
        return [p / "SKILL.md"]
    for name in ("SKILL.md", "skill.md"):
        if name in names and (os.path.isfile(p / name) or not entry_exists(p / name)):
            return [p / name]
    return [_fast_path(f) for f in _find_below(str(p), dirs)]


def entry_exists(p: Path) -> bool:
    """``os.path.lexists``, but True when the answer is hidden by a permission error (the entry is
    then reported as unreadable instead of vanishing)."""
    try:
        os.lstat(p)
    except PermissionError:
        return True
    except (OSError, ValueError):
        return False
    return True


def _find_below(top: str, dirs: Any = None) -> list[str]:
    """Every SKILL.md entry below ``top`` (str paths, path order): the files below it, through
    symlinked folders too (each real folder once, a link back to an ancestor is a cycle and is
    not entered; a file reached twice is kept once, by real path), plus SKILL.md entries that
    are not files (a folder, a symlink to a folder: ``STR003`` reports them). With a
    ``DirCache`` the whole result is remembered while no folder it listed changed (and it met
    no symlink)."""
    wkey = f"find3\0{top}"  # 3: symlinked folders are followed (older walks are not reused)
    if dirs is not None:
        got = dirs.walk_result(wkey)
        if got is not None:
            return list(got)
    listing = dirs.listing if dirs is not None else scan_listing
    found: list[str] = []
    visited: list[str] = []
    vmtimes: list[int] = []
    linked = False
    join = os.path.join
    stack = [top]
    seen: set[str] | None = None  # real folders entered through symlinks (and ``top``)
    while stack:
        d = stack.pop()
        lst = listing(d)
        if lst is None:
            linked = True
            continue
        if dirs is not None:
            visited.append(d)
            vmtimes.append(fs_mtime(d))
            if lst[2]:
                linked = True
        sk = lst[0]
        if sk != SKILL_NONE:
            # Any SKILL.md entry: a file, or (reported by STR003, never opened) a folder, a FIFO,
            # a broken/looping symlink or a symlink to a folder.
            found.append(join(d, "SKILL.md"))
        prefix = d if d.endswith(os.sep) else d + os.sep
        for name in lst[1]:
            if name not in SKIP_DIRS:
                stack.append(prefix + name)
        if lst[2]:
            if seen is None:
                seen = {os.path.realpath(top)}
            _follow_links(d, lst[2], seen, stack)
    # Path order (component-wise), not plain string order: "a/b" sorts before "a-b".
    found.sort(key=lambda s: s.split(os.sep))
    if seen is not None:  # met a symlinked folder: one entry per real file
        once: dict[str, str] = {}
        for f in found:
            once.setdefault(os.path.realpath(f) if os.path.isfile(f) else f, f)
        found = list(once.values())
    if dirs is not None and not linked:
        dirs.put_walk(wkey, visited, vmtimes, tuple(found))
    return found


def _follow_links(d: str, links: Iterable[str], seen: set[str], stack: list[str]) -> None:
    """Push the symlinked folders of ``d`` (entry names ``links``) onto ``stack``, each real
    folder once; a link to ``d`` itself or one of its ancestors (a cycle) is not entered."""
    real_d = os.path.realpath(d)
    for name in links:
        if name in SKIP_DIRS or name == "SKILL.md":
            continue
        path = os.path.join(d, name)
        st = fs_stat(path)
        if st is None or not S_ISDIR(st.st_mode):
            continue
        real = os.path.realpath(path)
        if real in seen or real_d == real or real_d.startswith(real.rstrip(os.sep) + os.sep):
            continue
        seen.add(real)
        stack.append(path)


def lint_paths(
    paths: Iterable[Path | str],
    profile: str | Profile = "agentskills",
    catalog: Iterable[Any] | None = None,
    *,
    jobs: int | None = None,
    cache: Any = None,
) -> dict[Path, list[Diagnostic]]:
    """Lint every SKILL.md that ``paths`` name (see ``find_skill_files``).

    The files linted together form the catalog for cross-skill rules (duplicate names and
    descriptions, listing budget) unless ``catalog`` is given.

    Args:
        jobs: worker processes for reading + parsing + per-file rules. None = auto (both cores
            when there are at least ``PARALLEL_MIN_FILES`` files, the machine has more than one
            core and the caller runs no other thread; else serial); 1 = serial. Falls back to
            serial when processes cannot start. The result is the same either way.
        cache: a ``workbench.core.resultcache.ResultCache`` (or True for the default one under
            ``appdirs.cache_dir()``, which also fills the persistent parse store that
            ``discovery.ParseCache(persist=True)`` reads) holding per-file results keyed by file
            identity, profile and rules version; catalog-rule results are reused only while the
            catalog fingerprint is unchanged. Folders are listed through the cache's
            ``fscache.DirCache``. None/False = no cache.

    Returns {SKILL.md path: diagnostics}, in path order. Each value is a ``DiagnosticList`` (a
    ``list`` subclass whose ``Diagnostic`` objects are built on first use; ``counts()`` and
    ``severity_totals`` read the compact records). A directory holding no SKILL.md at all
    maps to one ``STR002`` error keyed by the directory (skills-ref: "Missing required file:
    SKILL.md"). A path that is neither a folder nor a regular file (a FIFO, a broken symlink named
    SKILL.md) is linted as a file: ``STR003`` says what it is (it is never opened).
    Raises FileNotFoundError for a path that does not exist (callers report a usage
    error) and KeyError for an unknown profile.
    """
    prof = lint_profile(profile)
    if cache is True:
        from workbench.core.parsestore import ParseStore
        from workbench.core.resultcache import ResultCache

        try:
            cache = ResultCache(prof, parse_store=ParseStore())
        except OSError:  # no writable cache folder: lint without one
            cache = None
    if cache is False:
        cache = None
    gc_was = gc.isenabled()
    gc.disable()  # allocation-heavy; the cyclic GC would rescan the cache's tables many times
    try:
        with snapshot():  # every path stat'ed once per run (walk, cache validity, dependencies)
            return _lint_paths(paths, prof, catalog, jobs, cache)
    finally:
        if gc_was:
            gc.enable()


def _lint_paths(
    paths: Iterable[Path | str], prof: Profile, catalog: Any, jobs: int | None, cache: Any
) -> dict[Path, list[Diagnostic]]:
    files: list[Path] = []
    stats: dict[str, os.stat_result] = {}
    empty_dirs: list[Path] = []
    dirs = cache.dirs if cache is not None and hasattr(cache, "dirs") else None
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
    out: dict[Path, list[Diagnostic]] = {}
    if uniq:
        recs = _collect(keys, prof, jobs, cache, stats)
        cat_rules = [(r, s) for r, s in _active(prof) if r.code in CATALOG_RULES]
        if cat_rules:
            if catalog is None:
                fp = _fingerprint(keys, recs)
                index: CatalogIndex | None = None
            else:
                index = catalog if isinstance(catalog, CatalogIndex) else CatalogIndex(catalog)
                fp = _fingerprint(
                    [index.key(e) or "" for e in index.entries],
                    [(None, None, None, e.name, e.description) for e in index.entries],
                )
                fp = "x" + fp  # never equal to a files-only fingerprint
            hits = 0
            for f, k, rec in zip(uniq, keys, recs):
                ent = rec[_C_ENTRY]
                if ent is not None and ent[_E_CAT_FP] == fp:
                    cat = ent[_E_CAT]  # (errors, warnings, infos, marshal blob): decoded lazily
                    c = rec[_C_COUNTS]
                    out[f] = DiagnosticList(
                        rec[_C_DIAGS], cat[3], (c[0] + cat[0], c[1] + cat[1], c[2] + cat[2])
                    )
                    hits += 1
                    continue
                if index is None:
                    index = CatalogIndex(
                        [CatalogEntry(r[_C_NAME], r[_C_DESC], p) for p, r in zip(uniq, recs)]
                    )
                facts = rec[_C_FACTS]
                if isinstance(facts, bytes):
                    facts = marshal.loads(facts)
                extra = _run_rules(cat_rules, FactsContext(facts, f, prof, index))
                cat_src = tuple(_encode_diag(d) for d in extra)
                if cache is not None and rec[_C_CACHEABLE]:
                    cache.put_catalog(k, fp, cat_src)
                c, cc = rec[_C_COUNTS], _counts(cat_src)
                out[f] = DiagnosticList(rec[_C_DIAGS], cat_src, (c[0] + cc[0], c[1] + cc[1], c[2] + cc[2]))
            if cache is not None:
                cache.catalog_hits += hits
        else:
            for f, rec in zip(uniq, recs):
                out[f] = DiagnosticList(rec[_C_DIAGS], (), rec[_C_COUNTS])
        if cache is not None:
            cache.save()
    for d in empty_dirs:
        out[d] = [
            Diagnostic(
                1,
                1,
                1,
                1,
                ERROR,
                "STR002",
                "no SKILL.md in this folder (the file name must be exactly SKILL.md)",
                rule="skill-file-missing",
            )
        ]
    return out


def _fingerprint(keys: list[str], recs: list) -> str:
    """A hash of the catalog the catalog rules see: every (path, name, description)."""
    parts: list[str] = []
    for k, r in zip(keys, recs):
        parts += (k, r[_C_NAME], r[_C_DESC])
    return hashlib.sha256("\0".join(parts).encode("utf-8", "surrogatepass")).hexdigest()


# collected per-file results (``_collect``): (per-file diagnostics: blob or tuples, severity counts,
# facts: blob or tuple, catalog name, catalog description, the valid cache entry or None,
# whether the cache holds this file now)
_C_DIAGS, _C_COUNTS, _C_FACTS, _C_NAME, _C_DESC, _C_ENTRY, _C_CACHEABLE = range(7)
_E_CAT_NAME, _E_CAT_DESC, _E_COUNTS, _E_DIAGS, _E_FACTS, _E_CAT_FP, _E_CAT = range(4, 11)


def _counts(diags: Iterable[tuple]) -> tuple[int, int, int]:
    c = [0, 0, 0]
    for t in diags:
        c[_SEV_INDEX.get(t[4], 2)] += 1
    return (c[0], c[1], c[2])


_SEV_INDEX = {ERROR: 0, "warning": 1, "info": 2}


def _collect(
    keys: list[str], prof: Profile, jobs: int | None, cache: Any, stats: dict[str, os.stat_result]
) -> list[tuple]:
    """Per-file results for ``keys`` (absolute paths): from ``cache`` where valid, else computed
    (in ``jobs`` processes). New records are stored in the cache."""
    out: list[tuple | None] = [None] * len(keys)
    todo: list[int] = []
    if cache is not None:
        lookup = cache.lookup
        for i, k in enumerate(keys):
            ent = lookup(k, stats.get(k))
            if ent is None:
                todo.append(i)
            else:
                out[i] = (
                    ent[_E_DIAGS],
                    ent[_E_COUNTS],
                    ent[_E_FACTS],
                    ent[_E_CAT_NAME],
                    ent[_E_CAT_DESC],
                    ent,
                    True,
                )
    else:
        todo = list(range(len(keys)))
    if todo:
        # The cyclic GC stays off while linting from scratch too (~10% of a cold run): reading,
        # parsing and linting a file leave no cyclic garbage (measured: 0 objects over 2,500
        # corpus files; the YAML loader is disposed), so only a pathological file's cycles wait
        # for the collector, until ``lint_paths`` returns.
        store = getattr(cache, "parse_store", None) if cache is not None else None
        results = _compute([keys[i] for i in todo], prof, jobs, store is not None)
        for i, (rec, size, mtime_ns, sha, deps, pfacts) in zip(todo, results):
            diags, facts = rec
            name, desc = _cat_name(facts), _cat_desc(facts)
            ok = False
            if cache is not None:
                ok = cache.put(keys[i], rec, size, mtime_ns, sha, deps, cat=(name, desc))
                if store is not None and pfacts is not None:
                    st = fs_stat(keys[i])
                    if st is not None and st.st_size == size and st.st_mtime_ns == mtime_ns:
                        store.put_facts(keys[i], pfacts, st)
            out[i] = (diags, _counts(diags), facts, name, desc, None, ok)
    return out  # type: ignore[return-value]


def _compute(paths: list[str], prof: Profile, jobs: int | None, parse_facts: bool = True) -> list[tuple]:
    """``_records_chunk`` over ``paths``, serially or in ``jobs`` processes (None = auto);
    ``parse_facts``: also return each file's parse facts (for a parse store)."""
    load_rules()
    n = len(paths)
    if jobs is None:
        cpus = os.cpu_count() or 1
        jobs = min(cpus, 8) if n >= PARALLEL_MIN_FILES and cpus > 1 and _parallel_ok() else 1
    results: list[tuple] | None = None
    if jobs > 1 and n > 1:
        results = _run_parallel(paths, prof, jobs, parse_facts)
    if results is None:
        results = _records_chunk(paths, prof, parse_facts)
    return results


class DiagnosticList(list):
    """``list[Diagnostic]`` that builds its ``Diagnostic`` objects on first use.

    ``lint_paths`` returns one per file: a warm run over 10,000 cached files would otherwise spend
    most of its time constructing ~35,000 frozen dataclasses nobody may look at. Built from the
    compact per-file tuples (or a ``marshal`` blob of them) plus the catalog rules' tuples; every
    list operation (iteration, ``len``, indexing, comparison, ``+``, mutation, pickling) first
    materialises the list, which then behaves exactly like a plain ``list`` (sorted by position,
    per-file and catalog diagnostics merged). ``counts()`` answers severity totals without
    materialising.
    """

    __slots__ = ("_src", "_cat", "_counts")

    def __init__(
        self, src: bytes | tuple = (), cat: bytes | tuple = (), counts: tuple[int, int, int] | None = None
    ):
        # ``counts``: severity totals of ``src`` and ``cat`` together (None = count on demand)
        list.__init__(self)
        self._src: Any = src
        self._cat: Any = cat
        self._counts = counts

    def _fill(self) -> None:
        src = self._src
        if src is None:
            return
        cat = self._cat
        self._src = self._cat = None
        if isinstance(src, bytes):
            src = marshal.loads(src)
        if isinstance(cat, bytes):
            cat = marshal.loads(cat)
        if cat:
            src = sorted(tuple(src) + tuple(cat), key=_tuple_sort_key)
        list.extend(self, map(_decode_diag, src))

    def records(self) -> list[tuple]:
        """The diagnostics as compact tuples in list order, without building ``Diagnostic``
        objects: ``(line, column, end_line, end_column, severity, code, message, fix, rule,
        unverified)`` where ``fix`` is None or ``(title, ((line, column, end_line, end_column,
        new_text), ...))`` (what printing 35,000 of them needs, ~5x cheaper than the objects)."""
        src = self._src
        if src is None:
            return [_encode_diag(d) for d in list.__iter__(self)]
        cat = self._cat
        if isinstance(src, bytes):
            src = marshal.loads(src)
        if isinstance(cat, bytes):
            cat = marshal.loads(cat)
        return sorted(tuple(src) + tuple(cat), key=_tuple_sort_key) if cat else list(src)

    def counts(self) -> dict[str, int]:
        """{"error": n, "warning": n, "info": n} (without building the diagnostics)."""
        if self._src is None:
            out = {ERROR: 0, "warning": 0, "info": 0}
            for d in list.__iter__(self):
                out[d.severity] = out.get(d.severity, 0) + 1
            return out
        c = self._counts
        if c is None:
            src = marshal.loads(self._src) if isinstance(self._src, bytes) else self._src
            c = _counts(src)
            cat = self._cat
            if cat:
                cc = _counts(marshal.loads(cat) if isinstance(cat, bytes) else cat)
                c = (c[0] + cc[0], c[1] + cc[1], c[2] + cc[2])
        return {ERROR: c[0], "warning": c[1], "info": c[2]}

    def totals(self) -> tuple[int, int, int]:
        """(errors, warnings, infos) without building anything (``counts()`` as a tuple)."""
        c = self._counts
        if c is not None and self._src is not None:
            return c
        d = self.counts()
        return (d[ERROR], d["warning"], d["info"])

    def __reduce_ex__(self, protocol: Any) -> Any:
        self._fill()
        return (list, (list(list.__iter__(self)),))

    def __reduce__(self) -> Any:
        return self.__reduce_ex__(2)


def _materialising(name: str):
    base = getattr(list, name)

    def method(self, *args, **kwargs):
        if self._src is not None:
            self._fill()
        for a in args:
            if type(a) is DiagnosticList and a._src is not None:
                a._fill()
        return base(self, *args, **kwargs)

    method.__name__ = name
    method.__doc__ = base.__doc__
    return method


for _name in (
    "__iter__",
    "__len__",
    "__getitem__",
    "__setitem__",
    "__delitem__",
    "__contains__",
    "__eq__",
    "__ne__",
    "__lt__",
    "__le__",
    "__gt__",
    "__ge__",
    "__add__",
    "__iadd__",
    "__mul__",
    "__imul__",
    "__rmul__",
    "__reversed__",
    "__repr__",
    "__sizeof__",
    "append",
    "extend",
    "insert",
    "remove",
    "pop",
    "clear",
    "index",
    "count",
    "sort",
    "reverse",
    "copy",
):
    setattr(DiagnosticList, _name, _materialising(_name))


def _radd(self, other):
    if self._src is not None:
        self._fill()
    if isinstance(other, list):
        return list(other) + list(list.__iter__(self))
    return NotImplemented


DiagnosticList.__radd__ = _radd  # type: ignore[attr-defined]
DiagnosticList.__hash__ = None  # type: ignore[assignment]


def severity_totals(results: dict[Any, list[Diagnostic]]) -> dict[str, int]:
    """{"error": n, "warning": n, "info": n} over ``lint_paths`` results, from the compact records
    where the lists are not built yet."""
    e = w = i = 0
    for v in results.values():
        if type(v) is DiagnosticList:
            a, b, c = v.totals()
            e += a
            w += b
            i += c
        else:
            for d in v:
                if d.severity == ERROR:
                    e += 1
                elif d.severity == "warning":
                    w += 1
                else:
                    i += 1
    return {ERROR: e, "warning": w, "info": i}


def diagnostic_records(diags: list[Diagnostic]) -> list[tuple]:
    """``DiagnosticList.records()`` for any list of diagnostics (a plain list is encoded)."""
    if type(diags) is DiagnosticList:
        return diags.records()
    return [_encode_diag(d) for d in diags]


def _tuple_sort_key(t: tuple) -> tuple:
    """``Diagnostic.sort_key`` of an encoded diagnostic."""
    return (t[0], t[1], SEVERITY_RANK.get(t[4], 9), t[5], t[2], t[3], t[6])


# ----------------------------------------------------------------------------------------
# per-file records: what the parallel workers and the result cache hand back
#
# A record is a tuple of plain Python values (marshal-able, cheap to pickle):
#   (diagnostics of the per-file rules as tuples, facts for the catalog rules)
# The per-file rules are every rule except ``CATALOG_RULES``; they never read ``ctx.catalog``
# (tests/core/test_resultcache.py checks the rule sources), so running them with an empty catalog
# gives the same diagnostics. The catalog rules run afterwards, in the calling process, on a
# ``FactsContext`` built from the facts (no re-parse).

#: Rules that read ``ctx.catalog``: recomputed on every run, never cached.
CATALOG_RULES = frozenset({"CAT001", "CAT002", "DESC009"})
#: Below this many files ``lint_paths(jobs=None)`` stays serial (a pool costs ~50 ms to start).
PARALLEL_MIN_FILES = 200
_FACT_FIELDS = ("name", "description", "when_to_use", "disable-model-invocation")
_R_DIAGS, _R_FACTS = 0, 1


def _SORT_KEY(d: Diagnostic) -> tuple:
    return d.sort_key


def _run_rules(active: list[tuple[Rule, str]], ctx: Any) -> list[Diagnostic]:
    out: list[Diagnostic] = []
    for r, sev in active:
        try:
            for f in r.check(ctx):
                s = f.severity or sev
                out.append(
                    _clamp(
                        Diagnostic(
                            f.span.line,
                            f.span.column,
                            f.span.end_line,
                            f.span.end_column,
                            s,
                            r.code,
                            f.message,
                            f.fix,
                            r.name,
                            r.unverified,
                        ),
                        ctx,
                    )
                )
        except Exception as exc:  # a rule bug must never take the linter down
            out.append(
                Diagnostic(
                    1,
                    1,
                    1,
                    1,
                    "warning",
                    "LINT000",
                    f"internal error in rule {r.code} ({r.name}): {type(exc).__name__}: {exc}",
                    rule="internal-error",
                )
            )
    return out


def _encode_diag(d: Diagnostic) -> tuple:
    fx = None
    if d.fix is not None:
        fx = (
            d.fix.title,
            tuple((e.line, e.column, e.end_line, e.end_column, e.new_text) for e in d.fix.edits),
        )
    return (
        d.line,
        d.column,
        d.end_line,
        d.end_column,
        d.severity,
        d.code,
        d.message,
        fx,
        d.rule,
        d.unverified,
    )


def _decode_diag(t: tuple) -> Diagnostic:
    fx = t[7]
    if fx is not None:
        fx = Fix(fx[0], [TextEdit(*e) for e in fx[1]])
    return Diagnostic(t[0], t[1], t[2], t[3], t[4], t[5], t[6], fx, t[8], t[9])


def _plain(v: Any) -> Any:
    """A field value reduced to what the catalog rules look at (str and bool survive; anything
    else becomes 0, which is neither a str nor ``True``)."""
    return v if isinstance(v, (str, bool)) else 0


def _facts(ctx: LintContext) -> tuple:
    """What the catalog rules need of one file, as plain values (see ``FactsContext``). Compact:
    the cache stores one per file. Field values are kept only where a catalog rule reads them
    (``when_to_use``, ``disable-model-invocation``); of the head lines only their lengths (the
    rules and ``_clamp`` only measure them); the catalog name/description only when they differ
    from the name/description (None = the same)."""
    sf = ctx.sf
    fields: dict[str, tuple] = {}
    last = 1
    for k in _FACT_FIELDS:
        f = ctx.fields.get(k)
        if f is not None:
            sp = f.value_span
            v = _plain(f.value) if k in ("when_to_use", "disable-model-invocation") else 0
            fields[k] = (v, (sp.line, sp.column, sp.end_line, sp.end_column))
            last = max(last, sp.end_line)
    lines = ctx.lines
    name = ctx.name_str() if ctx.has_fields else None
    desc = ctx.description_str() if ctx.has_fields else None
    cn, cd = _catalog_name(sf), _catalog_desc(sf)
    return (
        sf.state,
        ctx.has_fields,
        name,
        desc,
        fields,
        [len(x) for x in lines[:last]],
        len(lines),
        None if cn == name else cn,
        None if cd == desc else cd,
    )


def lint_record(path: str, prof: Profile) -> tuple:
    """Read, parse and run the per-file rules on one SKILL.md: ``(diagnostics as tuples, facts)``.
    Never raises for file content."""
    sf = read_skill_file(path)
    ctx = LintContext(sf, prof, _EMPTY_CATALOG)
    diags = _run_rules(_active_per_file(prof), ctx)
    diags.sort(key=_SORT_KEY)
    return (tuple(_encode_diag(d) for d in diags), _facts(ctx)), sf, ctx.deps


def _records_chunk(paths: list[str], prof: Profile, parse_facts: bool = True) -> list[tuple]:
    """Worker entry point: records for a chunk of paths, plus what the caches key on and the
    file's parse facts (``skillfile.skillfile_facts``, or None when marshal cannot store them
    or ``parse_facts`` is false)."""
    out = []
    for p in paths:
        rec, sf, deps = lint_record(p, prof)
        pf = None
        if parse_facts:
            try:
                pf = skillfile_facts(sf)
                marshal.dumps(pf)
            except (ValueError, AttributeError):
                pf = None
        out.append((rec, sf.size, sf.mtime_ns, sf.sha256, tuple(sorted(deps)), pf))
    return out


def _parallel_ok() -> bool:
    import multiprocessing
    import threading

    return threading.active_count() == 1 and "fork" in multiprocessing.get_all_start_methods()


def lint_records(
    paths: list[str], prof: Profile, *, jobs: int | None = None, cache: Any = None
) -> list[tuple]:
    """Records ``(per-file diagnostics as tuples, facts)`` for ``paths`` in order, from ``cache``
    where still valid, else computed (in ``jobs`` processes; see ``lint_paths``). New records
    are stored in ``cache`` and the cache is saved."""
    with snapshot():
        keys = [os.path.abspath(p) for p in paths]
        got = _collect(keys, prof, jobs, cache, {})
    out = []
    for r in got:
        d, f = r[_C_DIAGS], r[_C_FACTS]
        out.append(
            (marshal.loads(d) if isinstance(d, bytes) else d, marshal.loads(f) if isinstance(f, bytes) else f)
        )
    if cache is not None:
        cache.save()
    return out


def _run_parallel(paths: list[str], prof: Profile, jobs: int, parse_facts: bool = True) -> list[tuple] | None:
    """``_records_chunk`` over ``jobs`` forked processes; None when processes cannot be used."""
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    if not _parallel_ok():
        return None
    # ~4 chunks per worker: balances uneven files without paying per-file IPC.
    size = max(25, -(-len(paths) // (jobs * 4)))
    chunks = [paths[i : i + size] for i in range(0, len(paths), size)]
    try:
        with ProcessPoolExecutor(max_workers=jobs, mp_context=multiprocessing.get_context("fork")) as ex:
            got = list(ex.map(_records_chunk, chunks, [prof] * len(chunks), [parse_facts] * len(chunks)))
    except Exception:  # noqa: BLE001 - BrokenProcessPool, OSError, pickling: do it serially
        return None
    return [r for chunk in got for r in chunk]


_EMPTY_CATALOG = CatalogIndex(())


class _LiteField:
    """A frontmatter field as the catalog rules see it in a ``FactsContext``."""

    __slots__ = ("value", "value_span")

    def __init__(self, value: Any, span: tuple):
        self.value = value
        self.value_span = Span(*span)


class _HeadLines:
    """``ctx.lines`` for a ``FactsContext``: the lengths of the first lines of the file (those the
    catalog rules' spans can touch) and the true line count. Items are placeholder strings of the
    right length: the catalog rules and ``_clamp`` only take ``len()`` of a line."""

    __slots__ = ("head", "n")

    def __init__(self, head: list[int], n: int):
        self.head, self.n = head, n

    def __len__(self) -> int:
        return self.n

    def __getitem__(self, i: int) -> str:
        if i < 0:
            i += self.n
        if 0 <= i < len(self.head):
            return " " * self.head[i]
        if 0 <= i < self.n:
            return ""
        raise IndexError(i)


class _State:
    __slots__ = ("state",)

    def __init__(self, state: str):
        self.state = state


class FactsContext:
    """The part of ``LintContext`` that the catalog rules (``CATALOG_RULES``) use, rebuilt from a
    record's facts: lets them run on cached or worker-computed results without re-parsing."""

    def __init__(self, facts: tuple, path: Path, profile: Profile, catalog: CatalogIndex):
        self.sf = _State(facts[_F_STATE])
        self.has_fields = facts[_F_HAS_FIELDS]
        self._name, self._desc = facts[_F_NAME], facts[_F_DESC]
        self.fields = {k: _LiteField(v, sp) for k, (v, sp) in facts[_F_FIELDS].items()}
        self.lines = _HeadLines(list(facts[_F_LINES]), facts[_F_NLINES])
        self.path = path
        self.profile = profile
        self.catalog = catalog
        self.self_key = os.path.abspath(path)
        self.dir_name = path.parent.name or None

    def others(self, entries: Iterable[CatalogEntry] | None = None) -> list[CatalogEntry]:
        src = self.catalog.entries if entries is None else entries
        me = self.self_key
        return [e for e in src if self.catalog.key(e) != me]

    def field(self, key: str) -> _LiteField | None:
        return self.fields.get(key)

    def name_str(self) -> str | None:
        return self._name

    def description_str(self) -> str | None:
        return self._desc

    def get_line(self, line: int) -> str:
        return self.lines[line - 1] if 0 < line <= len(self.lines) else ""

    def line_span(self, line: int) -> Span:
        ln = self.get_line(line)
        return Span(line, 1, line, max(2, len(ln) + 1) if ln else 1)

    def top_span(self) -> Span:
        return self.line_span(1)


def _catalog_name(sf: SkillFile) -> str:
    v = sf.get("name") if sf.ok else None
    if isinstance(v, str) and v.strip():
        return v.strip()
    if sf.state == "yaml-error" and sf.has_frontmatter_block:
        lf = sf.line_fields().get("name")
        if lf and lf.value:
            return lf.value
    return sf.path.parent.name if sf.path is not None else ""


def _catalog_desc(sf: SkillFile) -> str:
    v = sf.get("description") if sf.ok else None
    if isinstance(v, str):
        return v
    if sf.state == "yaml-error" and sf.has_frontmatter_block:
        lf = sf.line_fields().get("description")
        if lf:
            return lf.value
    return ""


# ----------------------------------------------------------------------------------------
# fixes


def apply_fix(text: str, fix: Fix | TextEdit | Iterable[TextEdit]) -> str:
    """Apply a fix's edits to ``text`` and return the new text.

    Positions are those of the diagnostics (1-based, end exclusive, code points, after a BOM);
    line 1 column 0 addresses a leading BOM. "\\n" in ``new_text`` becomes "\\r\\n" when the text's
    dominant line ending is CRLF.

    Raises ValueError when an edit is out of range or edits overlap.
    """
    if isinstance(fix, Fix):
        edits = list(fix.edits)
    elif isinstance(fix, TextEdit):
        edits = [fix]
    else:
        edits = list(fix)
    bom = 1 if text.startswith("\ufeff") else 0
    starts = [bom]
    i = text.find("\n")
    while i != -1:
        starts.append(i + 1)
        i = text.find("\n", i + 1)
    crlf = text.count("\r\n")
    nl = "\r\n" if crlf and crlf >= text.count("\n") - crlf else "\n"

    def off(line: int, col: int) -> int:
        if line < 1 or line > len(starts):
            raise ValueError(f"edit line {line} out of range (1..{len(starts)})")
        if line == 1 and col == 0:
            if not bom:
                raise ValueError("column 0 addresses a BOM and the text has none")
            return 0
        end = (starts[line] - 1) if line < len(starts) else len(text)
        o = starts[line - 1] + col - 1
        if col < 1 or o > end:
            raise ValueError(f"edit column {col} out of range on line {line}")
        return o

    spans = sorted(
        ((off(e.line, e.column), off(e.end_line, e.end_column), e.new_text) for e in edits),
        key=lambda t: (t[0], t[1]),
    )
    for (_s1, e1, _), (s2, _e2, _) in zip(spans, spans[1:]):
        if s2 < e1:
            raise ValueError("fix edits overlap")
    for s, e, new in reversed(spans):
        if e < s:
            raise ValueError("edit ends before it starts")
        if nl == "\r\n":
            new = new.replace("\r\n", "\n").replace("\n", "\r\n")
        text = text[:s] + new + text[e:]
    return text
