"""``workbench lint PATH...``: lint SKILL.md files (DESIGN.md section 3).

PATH is a SKILL.md, a skill folder, or any folder (every SKILL.md below it, skipping ``.git`` and
``node_modules``); no PATH = the current folder. The files linted together form the catalog for
cross-skill rules (duplicate names/descriptions, listing budget).

Formats:

* text (default): ``path:line:col: severity CODE message`` per finding on stdout; a summary line
  ``N files: E errors, W warnings, I infos`` on stderr, each noun singular for a count of 1
  (``1 file: 1 error, 0 warnings, 1 info``).
* json: ``{"diagnostics": [{"path", "line", "column", "end_line", "end_column", "severity",
  "code", "message", "rule"[, "fix"]}], "summary": {"files", "errors", "warnings", "infos"},
  "profile"}``.
* sarif: SARIF 2.1.0, one run, ``columnKind: unicodeCodePoints`` (our columns count code points).
* github: workflow commands ``::error file=…,line=…,col=…,endLine=…,endColumn=…,title=CODE::message``
  (info -> ``::notice``).

Links: ``--check-links`` also requests each external link of the bodies (BODY012,
``workbench.core.lint.linkcheck``); a default run makes no network request.

Speed: ``--jobs N`` worker processes (default auto: all cores from 200 files on); results are
cached per file under the app cache folder (``--no-cache`` to bypass; see
``workbench.core.cache.resultcache``).

Profile: ``--profile ID``; ``--client ID`` selects the same-named profile when ``--profile`` is not
given (decision: ``--profile`` wins when both are given). With neither, each SKILL.md is linted
with the profile of the client whose skill root it sits in (``lint_groups``: ``.claude/skills`` ->
claude-code, ...), the others with ``agentskills``; the summary (JSON ``profile``,
``profile_source``, and a per-diagnostic ``profile`` when mixed) says which and why. Exit 0 when no
finding has error severity, 1 when any does, 2 on a usage error (missing path, unknown profile or
format).

PATH arguments (decisions; the spec was silent):

* a folder: as above;
* a file named ``SKILL.md``: linted; a case variant (``skill.md``) is linted too and ``STR001``
  says that most clients need the exact name; a ``SKILL.md`` that is a broken symlink or not a
  regular file (FIFO) is reported by ``STR003``, never opened;
* any other file (``notes.txt``, ``README.md``) is a usage error (exit 2) naming the path: linting
  it as if it were a SKILL.md gave a meaningless report (no frontmatter, and its folder's
  sub-folders taken for a skill's ``STR005``). When its folder holds a SKILL.md, the message
  suggests that folder;
* a path that does not exist (or a broken symlink not named SKILL.md): usage error.
"""

from __future__ import annotations

import argparse
import gc
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from workbench.core import phasetimer
from workbench.core.jsontext import dumps_indented, encode_basestring
from workbench.core.lint.profiles import PROFILE_IDS, PROFILES, profile_for_location
from workbench.core.model import gc_resume, skip_exit_collection
from workbench.core.text import escape_unsafe, plural  # plural: also re-exported
from workbench.options import UsageError

# The engine (``lint_paths``, the walker, the caches, PyYAML) is imported where it is used: a
# report answered by ``cache.reportcache`` needs none of it.
if TYPE_CHECKING:
    from workbench.core.cache.reportcache import Sources
    from workbench.core.lint.batch import LintFeed

HELP = "lint SKILL.md files against the Agent Skills spec or one client's rules"
FORMATS = ("text", "json", "sarif", "github")
#: The common options lint takes (``workbench.options.common_parser``): no simulated environment.
COMMON_OPTIONS = ("client", "format")
FORMATS_HELP = "text, json, sarif or github"


def add_parser(subparsers, common: argparse.ArgumentParser) -> argparse.ArgumentParser:
    p = subparsers.add_parser(
        "lint",
        parents=[common],
        help=HELP,
        description=HELP + ". PATH is a SKILL.md, a skill folder or any folder (every SKILL.md below "
        "it). Exit 0 clean, 1 when any error-severity finding, 2 usage error.",
    )
    p.add_argument("paths", nargs="*", metavar="PATH", help="SKILL.md files or folders (default: .)")
    p.add_argument(
        "--profile",
        choices=PROFILE_IDS,
        default=None,
        help="rule profile (default: the client whose skill root holds the PATHs, e.g. "
        ".claude/skills -> claude-code, else agentskills; --client also selects one)",
    )
    names = p.add_mutually_exclusive_group()
    names.add_argument(
        "--ascii-names",
        dest="unicode_names",
        action="store_false",
        default=None,
        help="names may only use a-z, 0-9 and '-' (quick_validate, agnix, the API)",
    )
    names.add_argument(
        "--unicode-names",
        dest="unicode_names",
        action="store_true",
        help="names may use Unicode lowercase letters and digits (skills-ref)",
    )
    p.add_argument(
        "--jobs",
        type=int,
        default=None,
        metavar="N",
        help="worker processes for many files (default: auto, all cores above 200 files)",
    )
    p.add_argument(
        "--no-cache",
        dest="cache",
        action="store_false",
        default=True,
        help="do not use or update the result cache (appdirs cache folder)",
    )
    p.add_argument(
        "--check-links",
        action="store_true",
        help="also request every external link of the bodies (HEAD, 10 s timeout) and report dead "
        "ones as BODY012; needs the network, never cached",
    )
    p.set_defaults(client=None)  # lint: --client only selects a profile when given
    return p


def _with_names(args: argparse.Namespace, pid: str):
    if pid not in PROFILES:
        raise UsageError(f"--client {pid!r}: expected one of {', '.join(PROFILE_IDS)}")
    prof = PROFILES[pid]
    if args.unicode_names is not None:
        prof = prof.with_options(unicode_names=args.unicode_names)
    return prof


def lint_groups(
    args: argparse.Namespace,
    paths: list[Path],
    walked: dict[str, list[Path]] | None = None,
    feed: LintFeed | None = None,
    caches: Callable[[Any], Any] | None = None,
) -> list[tuple]:
    """[(profile, source, paths)]: what to lint with which profile. ``--profile`` (or
    ``--client``) = one group, source None. Otherwise each SKILL.md gets the profile of the client
    whose skill root it sits in (``profiles.profile_for_location``: ``.claude/skills`` ->
    claude-code, ...; source = that root) and the rest ``agentskills`` (source "default"); the
    files of one group form the catalog of the cross-skill rules (one client's catalog).
    ``walked``: filled with ``{os.fspath(folder): its SKILL.md files}`` for each folder PATH this
    walked, for ``lint_paths(walked=)`` (one walk for both). ``feed``: a ``batch.LintFeed`` that
    gets every SKILL.md as the walk finds it, with its group's profile object and ``caches(profile)``
    (its ``ResultCache`` or None), so that linting starts during the walk."""
    pid = args.profile or args.client
    fixed = _with_names(args, pid) if pid is not None else None
    if fixed is not None and feed is None:
        return [(fixed, None, paths)]
    profs: dict[str, Any] = {}

    def prof_of(gid: str) -> Any:
        got = profs.get(gid)
        if got is None:
            got = profs[gid] = _with_names(args, gid)
        return got

    fed = 0
    located = 0  # files fed whose location gave a client's profile
    on_file: Callable[[str], None] | None = None
    if feed is not None:
        sep, sep_dot = os.sep, os.sep + "."
        add = feed.add
        cache_of: dict[int, Any] = {}

        def on_file(f: str) -> None:
            nonlocal fed, located
            fed += 1
            if fixed is not None:
                pr = fixed
            elif f[:1] == sep and sep_dot not in f:  # = _location(f) is None, inline
                pr = prof_of("agentskills")
            else:
                loc = _location(f)
                if loc:
                    located += 1
                pr = prof_of(loc[0] if loc else "agentskills")
            c = cache_of.get(id(pr), False)
            if c is False:
                c = cache_of[id(pr)] = caches(pr) if caches is not None else None
            add(f, pr, c)

    from workbench.core.cache.fscache import default_dir_cache, skill_folders
    from workbench.core.skillwalk import find_skill_files

    dirs = default_dir_cache() if args.cache else None
    groups: dict[tuple[str, str], list[Path]] = {}
    folders = feed.folders if feed is not None and feed.active else None  # sent to its workers
    for p in paths:
        before, located_before = fed, located
        with skill_folders(folders):
            found = find_skill_files(p, dirs=dirs, on_file=on_file)
        if on_file is not None and fed == before:  # a file or a skill folder: not walked
            for f in found:
                on_file(os.fspath(f))
        if walked is not None and os.path.isdir(p) and p.name.lower() != "skill.md":
            walked[os.fspath(p)] = found
        if fixed is not None:
            continue
        if found and on_file is not None and located == located_before:
            # on_file saw each of them (as the walk's str) and none sits in a client's root
            groups.setdefault(("agentskills", "default"), []).extend(found)
            continue
        files = found or [p]  # no SKILL.md: STR002 under the default
        for f in files:
            loc = _location(os.fspath(f)) if f is not p or p.name.lower() == "skill.md" else None
            groups.setdefault(loc or ("agentskills", "default"), []).append(f)
    if fixed is not None:
        return [(fixed, None, paths)]
    if len(groups) == 1:  # the PATHs as given (lint_paths walks them with its caches)
        ((gid, src),) = groups
        return [(prof_of(gid), src, paths)]
    return [(prof_of(gid), src, fs) for (gid, src), fs in groups.items()]


def _location(f: str) -> tuple[str, str] | None:
    """``profile_for_location(f)``, at once for the usual absolute path without a dot-folder."""
    if f[:1] == os.sep and os.sep + "." not in f:
        return None
    return profile_for_location(f)


class Caches:
    """The result caches of one ``workbench lint`` run: one ``ResultCache`` per profile object
    (``__call__``), sharing one ``ParseStore``; None when caching is off or no cache folder can
    be written. ``save()`` writes them all (atomically, each file complete)."""

    def __init__(self, enabled: bool) -> None:
        self.enabled = enabled
        self.by_profile: dict[int, Any] = {}
        self._store: Any = None

    def __call__(self, prof: Any) -> Any:
        if not self.enabled:
            return None
        got = self.by_profile.get(id(prof), False)
        if got is False:
            from workbench.core.cache.parsestore import ParseStore
            from workbench.core.cache.resultcache import ResultCache

            try:
                if self._store is None:
                    self._store = ParseStore()
                got = ResultCache(prof, parse_store=self._store)
            except OSError:  # no writable cache folder: lint without one
                got = None
            self.by_profile[id(prof)] = got
        return got

    def save(self) -> None:
        """Write every cache that changed (``ResultCache.save``: listings and parse store too)."""
        for c in self.by_profile.values():
            if c is not None:
                c.save()

    def save_async(self) -> Callable[[], None]:
        """``save()`` on a thread while this one goes on (``workbench lint`` writes its report
        meanwhile); returns the function that waits for it (call it before exiting: the files
        are then complete, each written atomically: ``cachefile.write_cache_file``). Of a save at
        10k files the write releases the GIL; ``marshal.dumps`` does not. A forked child instead
        cost more than the save (fork of a 110 MB process 20-30 ms, then copy-on-write faults:
        the report took +0.05 s CPU)."""
        import threading

        if not any(c is not None and c.needs_save for c in self.by_profile.values()):
            return lambda: None  # a warm run: nothing changed
        t = threading.Thread(target=self.save, name="workbench-lint-save")
        t.start()
        return t.join


def profile_note(groups: list[tuple], results_by_group: list[dict]) -> str:
    """``profile claude-code, inferred from .claude/skills; --profile ID to choose`` (text
    summary), one clause per group when the files were linted with several profiles."""

    def one(prof, source) -> str:
        if source is None:
            return f"profile {prof.id}"
        if source == "default":
            return f"profile {prof.id}"
        return f"profile {prof.id}, inferred from {source}"

    if len(groups) == 1:
        prof, source, _ = groups[0]
        tail = {None: "", "default": ", the default; --profile ID for a client's rules"}.get(
            source, "; --profile ID to choose"
        )
        return one(prof, source) + tail
    parts = [
        f"{plural(len(res), 'file')}: {one(prof, source)}"
        for (prof, source, _), res in zip(groups, results_by_group)
    ]
    return "; ".join(parts) + "; --profile ID to choose one"


def run(args: argparse.Namespace) -> int:
    phasetimer.mark("start")  # the interpreter, the imports, the arguments
    skip_exit_collection()
    saved: list[Callable[[], None]] = []
    try:
        return _run(args, saved)
    finally:
        for wait in saved:  # the caches are on disk before the process exits
            wait()
        phasetimer.mark("output")
        phasetimer.dump()


def _lint(
    args: argparse.Namespace, paths: list[Path], caches: Caches, feed: LintFeed | None, report_key: str | None
) -> tuple[list[dict], list[tuple], Sources | None]:
    """Walk ``paths`` (feeding ``feed``), lint each group: (results per group, groups, what the
    report was made from when it may be stored under ``report_key``: ``report_sources``)."""
    from workbench.core.cache.fscache import snapshot
    from workbench.core.lint.batch import lint_paths

    walked: dict[str, list[Path]] = {}
    checks = None
    with snapshot():  # each path stat'ed once; one walk for the grouping and lint_paths
        # the walk feeds the lint workers as it finds files (batch.LintFeed)
        groups = lint_groups(args, paths, walked, feed, caches)
        phasetimer.mark("walk")
        if feed is not None:
            feed.finish()
        phasetimer.mark("compute")
        # one group's --format json report is joined from each file's JSON text (json_text),
        # kept in the result cache with its catalog results
        render = args.format == "json" and len(groups) == 1
        per_group = [
            lint_paths(
                ps,
                profile=pr,
                jobs=args.jobs,
                cache=caches(pr),
                walked=walked,
                feed=feed,
                save=False,
                render_json=render,
                hand_off=len(groups) == 1,  # the catalog pass's helper writes the caches
            )
            for pr, _s, ps in groups
        ]
        if report_key is not None and len(groups) == 1:
            from workbench.commands.lint_stored import report_sources

            checks = report_sources(paths, per_group[0], caches(groups[0][0]))
    return per_group, groups, checks


def _run(args: argparse.Namespace, saved: list[Callable[[], None]]) -> int:
    fmt = args.format
    if fmt not in FORMATS:
        raise UsageError(f"--format {fmt!r}: expected one of {', '.join(FORMATS)}")
    paths = [Path(p) for p in (args.paths or ["."])]
    for p in paths:
        check_path(p)
    if args.jobs is not None and args.jobs < 1:
        raise UsageError("--jobs must be at least 1")
    rkey = None
    if fmt == "json" and args.cache:  # only such a report is kept (commands/lint_stored.py)
        from workbench.commands.lint_stored import stored_report_key

        rkey = stored_report_key(args, paths)
    from workbench.core.cache.fscache import snapshot

    gc_was = gc.isenabled()
    # as lint_paths does: the walk, the pool's share and the report leave no cycles either (the
    # report's ~100k strings would otherwise make the collector traverse the cache's tables)
    gc.disable()
    try:
        with snapshot() as memo:  # the stored report's stats serve the walk and the look-ups too
            if rkey is not None:
                from workbench.commands.lint_stored import write_stored_report

                code = write_stored_report(rkey, memo)
                if code is not None:
                    return code
            # Decision: the CLI uses the persistent result cache by default (results are
            # identical: an entry is only used while the file, its folder listings and
            # profile/rules are unchanged).
            caches = Caches(bool(args.cache))
            from workbench.core.lint.batch import LintFeed

            # the workers render each file's --format json text as they lint it (catalogpass merges)
            feed: LintFeed | None = LintFeed(args.jobs, render_json=fmt == "json")
            if feed is not None and not feed.active:  # --jobs 1, one core: nothing to feed
                feed = None
            per_group, groups, checks = _lint(args, paths, caches, feed, rkey)
        return _report(args, per_group, groups, caches, saved, (rkey, checks) if rkey and checks else None)
    finally:
        if gc_was:
            gc_resume()  # no young collection over the caches' and results' objects


def _report(
    args: argparse.Namespace,
    per_group: list[dict],
    groups: list[tuple],
    caches: Caches,
    saved: list[Callable[[], None]],
    keep: tuple[str, Sources] | None = None,
) -> int:
    """Start saving ``caches``, write the report of ``per_group`` in ``args.format``: the exit
    code. ``keep``: (key, sources) to store the report under in ``cache.reportcache`` (on a
    thread, waited for with the cache saves)."""
    from workbench.core.lint.records import diagnostic_records, severity_totals

    fmt = args.format
    saved.append(caches.save_async())  # written on a thread while the report is written here
    phasetimer.mark("save")
    prof = groups[0][0]
    results = per_group[0]
    if len(per_group) > 1:
        merged = {k: v for res in per_group for k, v in res.items()}
        results = {k: merged[k] for k in sorted(merged, key=lambda q: q.parts)}
    if getattr(args, "check_links", False):  # opt-in: the network (core/lint/linkcheck.py)
        from workbench.core.lint.linkcheck import with_link_diagnostics

        results = with_link_diagnostics(results)
    tot = severity_totals(results)
    summary = {
        "files": sum(1 for p in map(os.fspath, results) if _is_skill_md(p) or os.path.isfile(p)),
        "errors": tot["error"],
        "warnings": tot["warning"],
        "infos": tot["info"],
    }
    profile_id = prof.id if len(groups) == 1 else "mixed"
    out = sys.stdout
    # text and json print from the compact records (no Diagnostic objects: see write_json)
    if fmt == "text":
        out.write(
            "".join(
                f"{path}:{t[0]}:{t[1]}: {t[4]} {t[5]} {t[6]}\n"
                for path, ds in results.items()
                for t in diagnostic_records(ds)
            )
        )
        print(f"{summary_text(summary)} ({profile_note(groups, per_group)})", file=sys.stderr)
    elif fmt == "json":
        sources = {
            "option" if src is None else src if src == "default" else f"location {src}"
            for _pr, src, _ps in groups
        }
        source = sources.pop() if len(sources) == 1 else "location"
        if len(groups) == 1:  # the fast path: from the compact records
            data = write_json(out, results, summary, profile_id, {"profile_source": source})
            if keep is not None and data is not None:
                from workbench.commands.lint_stored import keep_report

                saved.append(keep_report(*keep, data, 1 if summary["errors"] else 0))
        else:  # mixed profiles: each diagnostic says its own
            profile_of = {k: g[0].id for g, res in zip(groups, per_group) for k in res}
            flat = [(path, d) for path, ds in results.items() for d in ds]
            out.write(
                dumps_indented(
                    {
                        "diagnostics": [
                            dict(path=str(p), **d.to_json(), profile=profile_of[p]) for p, d in flat
                        ],
                        "summary": summary,
                        "profile": profile_id,
                        "profile_source": source,
                    }
                )
                + "\n"
            )
    else:
        from workbench.commands.lint_formats import github_line, to_sarif  # only for these formats

        flat = [(path, d) for path, ds in results.items() for d in ds]
        if fmt == "sarif":
            out.write(dumps_indented(to_sarif(flat, profile_id)) + "\n")
        else:
            for path, d in flat:
                out.write(github_line(path, d) + "\n")
    return 1 if summary["errors"] else 0


def _is_skill_md(p: str) -> bool:
    """``os.path.basename(p).lower() == "skill.md"`` (one slice per path of a 10k report)."""
    return (
        p[-9:].lower() == os.sep + "skill.md"
        or p.lower() == "skill.md"
        or (os.altsep is not None and os.path.basename(p).lower() == "skill.md")
    )


def json_text(
    results: dict, summary: dict, profile_id: str, extra: dict | None = None, escaped: bool = False
) -> str:
    """The ``--format json`` document (ending in a newline), character for character what
    ``json.dumps({"diagnostics": [dict(path=str(p), **d.to_json()) ...], "summary": summary,
    "profile": profile_id}, indent=2, ensure_ascii=False)`` gives (``json_bytes`` decoded)."""
    return json_bytes(results, summary, profile_id, extra, escaped).decode("utf-8", "surrogatepass")


def json_bytes(
    results: dict, summary: dict, profile_id: str, extra: dict | None = None, escaped: bool = False
) -> bytes:
    """``json_text`` UTF-8 encoded (``surrogatepass``), joined from each file's
    ``records.json_fragment`` (written from the compact records with one template per
    diagnostic: ~5x less time than 35,000 ``Diagnostic`` objects through the standard encoder's
    pure-Python indenting path). ``escaped``: the text through ``text.escape_unsafe`` (what
    ``SafeTextStream`` writes), then each file's ``DiagnosticList.escaped_json``, kept in the
    result cache: a warm run decodes and formats no diagnostic."""
    from workbench.core.lint.records import (
        DiagnosticList,
        diagnostic_records,
        json_diagnostics,
        json_fragment,
    )

    enc = encode_basestring
    esc = escape_unsafe if escaped else str

    def frag(ds: Any) -> bytes:
        if escaped and isinstance(ds, DiagnosticList):
            return ds.escaped_json()
        return esc(json_fragment(diagnostic_records(ds))).encode("utf-8", "surrogatepass")

    # the paths escaped and encoded in one go (a newline is in no JSON-encoded path, no UTF-8
    # sequence and is kept by escape_unsafe, which works per character)
    paths = esc("\n".join([enc(str(path)) for path in results])).encode("utf-8", "surrogatepass")
    body = json_diagnostics(zip(paths.split(b"\n"), map(frag, results.values())))
    tail = "".join(f',\n  {enc(k)}: ' + dumps_indented(v, level=1) for k, v in (extra or {}).items())
    rest = ',\n  "summary": ' + dumps_indented(summary, level=1) + ',\n  "profile": ' + enc(profile_id) + tail
    end = (esc(rest) + "\n}\n").encode("utf-8", "surrogatepass")
    return b"".join([b'{\n  "diagnostics": ', *body, end])  # one copy of the ~16 MB


def write_json(
    out: Any, results: dict, summary: dict, profile_id: str, extra: dict | None = None
) -> bytes | None:
    """Write ``json_text`` to ``out`` in one call: to a ``text.SafeTextStream`` (what
    ``workbench.cli.main`` installs) its escaped UTF-8 bytes (``write_escaped_utf8``: no second
    scan of the ~16 MB report, no str of it; returned), to any other stream the plain text
    (None returned)."""
    write_utf8 = getattr(out, "write_escaped_utf8", None)
    if write_utf8 is not None:
        data = json_bytes(results, summary, profile_id, extra, escaped=True)
        write_utf8(data)
        return data
    out.write(json_text(results, summary, profile_id, extra))
    return None


def check_path(p: Path) -> None:
    """Raise ``UsageError`` for a PATH argument ``workbench lint`` does not take (module docstring):
    a missing path, or a file (or broken symlink, FIFO, ...) not named SKILL.md in any case."""
    if p.name.lower() == "skill.md":
        from workbench.core.skillwalk import entry_exists

        if entry_exists(p):
            return  # linted; STR001 notes a case variant, STR003 a broken link or special file
    if not os.path.lexists(p):
        raise UsageError(f"{p}: no such file or directory")
    if p.is_dir():
        return
    from workbench.core.skillfile import special_file_problem

    what = "" if p.is_file() else f" ({special_file_problem(p) or 'not a regular file'})"
    hint = "give a SKILL.md, a skill folder or a folder of skills"
    parent = p.parent
    if any(os.path.lexists(parent / n) for n in ("SKILL.md", "skill.md")):
        hint = f"to lint the skill it belongs to, give its folder: {parent}"
    raise UsageError(f"{p}: not a SKILL.md file{what}; {hint}")


def summary_text(summary: dict) -> str:
    """The text summary line without the profile: ``1 file: 4 errors, 0 warnings, 1 info``."""
    return (
        f"{plural(summary['files'], 'file')}: {plural(summary['errors'], 'error')}, "
        f"{plural(summary['warnings'], 'warning')}, {plural(summary['infos'], 'info')}"
    )
