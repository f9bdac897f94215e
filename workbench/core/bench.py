"""Benchmarks of the product's performance targets (``workbench bench`` prints them).

Targets (the product brief): scan + lint of 10,000 skills <= 1 s on a 2-core machine and >= 20x
faster than skills-ref per skill; keystroke -> diagnostics p95 <= 20 ms.

``run_bench(n=10_000)`` builds a synthetic tree of ``n`` skills in a temporary folder
(``make_tree``: corpus skills copied into uniquely named folders, see there), then times each
operation **cold** (every cache empty: every folder listed, every file read, parsed and linted)
and **warm** (an unchanged tree, in a *fresh process* that only has the persistent caches on disk:
the incremental case as ruff and mypy define it). Warm figures come from a subprocess
(``python -m workbench.core.bench --warm``): ``wall`` is the time of the operation inside that
process (imports excluded), ``process_wall`` the whole subprocess as the user waits for it
(interpreter start + imports + the operation + printing; it exits with ``os._exit`` like mypy's
``--fast-exit``, see ``_main``). When the interpreter does not write
bytecode (``PYTHONDONTWRITEBYTECODE``), the subprocess gets a temporary ``PYTHONPYCACHEPREFIX``
and one untimed run first, so imports cost what they cost after ``pip install``.

* ``scan_one_cold`` / ``scan_one_warm``: ``discovery.scan`` for one client (agentskills) with a
  persistent ``ParseCache`` (parse facts + folder listings; cold parses in both cores);
  ``scan_one_rescan``: the same scan again in the same process (the GUI's in-memory case);
* ``scan_all_cold`` / ``scan_all_warm``: ``discovery.scan_all`` (8 clients, each file parsed once);
* ``lint_cold_1`` / ``lint_cold_auto``: ``lint_paths`` without a cache, serial and with the
  automatic process pool (both cores); ``lint_cold_filling_cache``: cold, writing the caches;
  ``lint_warm``: ``lint_paths`` in a fresh process with the persistent result cache (severity
  totals from the compact records); ``lint_warm_materialised``: the same, then every
  ``Diagnostic`` object built (what printing them all costs on top);
* ``scan_lint_cold`` / ``scan_lint_warm``: ``scan_and_lint`` (below): one client's catalog and
  the lint results of the tree, severity totals summed;
* ``keystroke``: ``lint_text`` on a 500-line SKILL.md after simulated keystrokes, p50/p95 in ms;
* ``listing_corpus``: ``render_listing`` for every client over the corpus catalog (ms);
* ``skills_ref``: when the optional ``skills_ref`` package is importable (``pip install
  skill-workbench[bench]``), its ``validate(skill_dir)`` over the tree's folders (all, or a
  sample), per skill, and the ratio to ours per skill: cold serial (read + parse + every rule,
  one process), cold on both cores, warm scan + lint (whole fresh process), and the CLI's cold
  ``workbench lint``.

The figures of issue 14's table (``res["issue"]``, ``format_table`` prints them first, each with
its target for 10,000 skills and whether it is met; other sizes are scaled linearly to 10,000):

* ``lint_cli_cold`` / ``lint_cli_warm``: ``workbench lint TREE --format json`` as a user runs it
  (a fresh interpreter; stdout to /dev/null), with an empty ``WORKBENCH_HOME`` (cold: no cache
  of any kind) and again with the cache it left (warm); median of ``repeat`` runs;
* ``skills_ref_all``: skills-ref's ``validate()`` over the same folders (all of them unless
  ``skills_ref_sample``) in this process, and the ratio of its time to ``lint_cli_cold``;
* ``scan_cli_cold``: ``workbench scan TREE --root TREE --client all --format json`` (empty cache);
* ``window``: ``python -m workbench.app.benchwindow`` (the window on TREE, offscreen, empty
  cache): seconds to the tree populated, the longest GUI-thread block, peak RSS;
* ``lint_one_cli``: ``workbench lint ONE/SKILL.md`` (the pre-commit case, empty cache);
* ``floor``: walking TREE, reading every SKILL.md and parsing its frontmatter with PyYAML's C
  loader in this process, the least any linter must do; ``lint_cold_1`` is compared to it;
* ``rules``: each per-file rule's cost in µs per file over a sample (``rule_costs``), run as the
  runner runs them (rule-major, ``BATCH_FILES``-file batches; a shared lazy part of the context
  is charged to the first rule asking, and timed apart in ``shared_us``); rules above
  ``RULE_BUDGET_US`` are listed.

Every timing is wall-clock seconds (``perf_counter``) with the process CPU seconds beside it
(``process_time``; children of a pool not included): on a shared machine the CPU figure is the
stable one. Results: a dict (``run_bench``) that ``format_table`` prints.
"""

from __future__ import annotations

import os
import re
import shutil
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from workbench.core.benchissue import ISSUE_FLOOR_S as ISSUE_FLOOR_S
from workbench.core.benchissue import ISSUE_TARGETS as ISSUE_TARGETS
from workbench.core.benchissue import RULE_BUDGET_US as RULE_BUDGET_US
from workbench.core.benchissue import (
    bench_issue,
    bench_listing,
    issue_figures,
    issue_lines,
    skills_ref_ratios,
)
from workbench.core.benchissue import floor as floor
from workbench.core.benchissue import rule_costs as rule_costs
from workbench.core.skillwalk import walk_tree

if TYPE_CHECKING:
    from workbench.core.model import Catalog


#: Skills used when the corpus is absent (our own small examples).
BUILTIN_SKILLS: dict[str, str] = {
    "pdf-tools": (
        "---\nname: pdf-tools\ndescription: Extracts text and tables from PDF files and fills forms. Use when "
        "the user asks to read, split, merge or fill a PDF.\nallowed-tools: Read Grep\n---\n# PDF tools\n\n"
        "Run `scripts/extract.py input.pdf`; see [forms](references/forms.md).\n\n```bash\npdftotext a.pdf -\n```\n"
    ),
    "release-notes": (
        "---\nname: release-notes\ndescription: Drafts release notes from merged pull requests. Use when the "
        "user asks for a changelog or release summary.\nlicense: Apache-2.0\nmetadata:\n  author: example\n"
        "  version: \"1.0\"\n---\n# Release notes\n\n1. List merged PRs.\n2. Group them by label.\n"
    ),
    "sql-review": (
        "---\nname: sql-review\ndescription: Reviews SQL migrations for locking and data-loss risks. Use when "
        "a migration file changes.\n---\n# SQL review\n\nCheck every `ALTER TABLE` for a lock.\n"
    ),
}

_NAME_LINE = re.compile(rb"^name:[^\n]*", re.M)


def corpus_dir() -> Path | None:
    """``../shared/corpus`` next to the checkout (``WB_SHARED`` overrides the shared folder), or
    None when absent."""
    shared = os.environ.get("WB_SHARED")
    base = Path(shared) if shared else Path(__file__).resolve().parents[3] / "shared"
    c = base / "corpus"
    return c if c.is_dir() else None


def corpus_skill_dirs(corpus: Path) -> list[str]:
    """Every folder holding a SKILL.md under ``corpus`` (sorted; .git/node_modules skipped)."""
    out = []
    for dp, _dn, fn in walk_tree(corpus, sort=True):
        if "SKILL.md" in fn:
            out.append(dp)
    return sorted(out)


def make_tree(dst: Path, n: int, corpus: Path | None = None, *, age_s: float = 60.0) -> list[Path]:
    """Build ``n`` skill folders under ``dst`` (100 group folders ``gNN/``) and return them.

    Skill ``i`` copies corpus skill ``i mod len(corpus)`` (or a ``BUILTIN_SKILLS`` entry without a
    corpus) into ``gNN/<name>-<i:05d>/``. Only the top-level SKILL.md of a source folder is taken
    with its files; a nested skill folder inside it is skipped (so the tree holds exactly ``n``
    SKILL.md files). Its ``name:`` line is rewritten to the new folder name (so names stay unique
    and match their folder); descriptions are kept, so copies share them (the duplicate-description
    rule fires: the catalog pass is exercised at its worst). Other files are hard links (copies when
    linking fails). Every file and folder is then back-dated by ``age_s`` seconds so that the result
    cache can store them (it never stores results for files modified in the last 2 s).
    """
    dst.mkdir(parents=True, exist_ok=True)
    sources = corpus_skill_dirs(corpus) if corpus is not None else []
    made: list[Path] = []
    for i in range(n):
        if sources:
            src = sources[i % len(sources)]
            base = re.sub(r"[^a-z0-9-]+", "-", os.path.basename(src).lower()).strip("-")[:40] or "skill"
        else:
            base = sorted(BUILTIN_SKILLS)[i % len(BUILTIN_SKILLS)]
            src = None
        d = dst / f"g{i % 100:02d}" / f"{base}-{i:05d}"
        d.mkdir(parents=True, exist_ok=True)
        new_name = d.name.encode()
        if src is None:
            data = BUILTIN_SKILLS[base].encode()
            (d / "SKILL.md").write_bytes(_NAME_LINE.sub(b"name: " + new_name, data, count=1))
        else:
            _copy_skill(src, d, new_name)
        made.append(d)
    past = time.time() - age_s
    for dp, _dn, fn in os.walk(dst):
        for f in fn:
            try:
                os.utime(os.path.join(dp, f), (past, past))
            except OSError:
                pass
        os.utime(dp, (past, past))
    return made


def _copy_skill(src: str, d: Path, new_name: bytes) -> None:
    for dp, dn, fn in os.walk(src):
        rel = os.path.relpath(dp, src)
        if rel != "." and "SKILL.md" in fn:  # a nested skill: not part of this one
            dn[:] = []
            continue
        td = os.path.normpath(os.path.join(d, rel))
        os.makedirs(td, exist_ok=True)
        for f in fn:
            sp, tp = os.path.join(dp, f), os.path.join(td, f)
            if rel == "." and f == "SKILL.md":
                with open(sp, "rb") as fh:
                    data = fh.read()
                with open(tp, "wb") as fh:
                    fh.write(_NAME_LINE.sub(b"name: " + new_name, data, count=1))
                continue
            try:
                os.link(sp, tp)
            except OSError:
                shutil.copyfile(sp, tp)


def keystroke_skill(lines: int = 500) -> str:
    """A realistic SKILL.md of ``lines`` lines (frontmatter, headings, links, code fences)."""
    head = (
        "---\nname: pdf-tools\ndescription: Extracts text and tables from PDF files, fills forms and merges "
        "documents. Use when the user asks to read, split, merge or fill a PDF.\nallowed-tools: Read Grep "
        "Bash(pdftotext:*)\nmetadata:\n  author: example\n  version: \"1.2\"\n---\n"
    )
    body: list[str] = []
    i = 0
    while len(body) < lines - 8:
        i += 1
        body += [
            f"## Step {i}",
            "",
            f"Read [the guide](references/guide-{i}.md) before running the tool.",
            "Use `python scripts/extract.py input.pdf` and check the output carefully.",
            "",
            "```bash",
            f"pdftotext -layout file{i}.pdf - | head -n {i}",
            "```",
            "",
            "- Keep answers short; quote page numbers.",
            "- Never guess the content of scanned pages.",
        ]
    return head + "\n".join(body[: lines - 8]) + "\n"


def _timed(fn: Callable[[], Any]) -> tuple[Any, float, float]:
    t, c = time.perf_counter(), time.process_time()
    r = fn()
    return r, time.perf_counter() - t, time.process_time() - c


def scan_and_lint(
    env: Any,
    client_id: str,
    profile: Any,
    lint_roots: list[Path],
    cache_folder: Path | None,
    jobs: int | None = None,
) -> tuple[Any, dict[Any, Any], dict[str, int]]:
    """One client's scan plus the lint results of ``lint_roots``, sharing one file-system
    snapshot and the persistent caches under ``cache_folder`` (None = the app's cache folder).

    Order (decision): lint first, then scan. Cold, lint reads + parses + lints each file once in
    both cores and hands the parse facts to the scan's store, so the scan parses nothing; the
    tree is listed once (the scan's walk answers from the listing cache and the stat memo).
    Warm, both answer from their caches. Returns ``(Catalog, {path: diagnostics}, {"error": n,
    "warning": n, "info": n})``; the diagnostics are ``DiagnosticList``s (built on first use).
    """
    from workbench.core.cache.fscache import snapshot
    from workbench.core.cache.resultcache import ResultCache
    from workbench.core.discovery import ParseCache, scan
    from workbench.core.lint import lint_paths

    with snapshot():
        pc = ParseCache(persist=True if cache_folder is None else cache_folder)
        rc = ResultCache(
            profile, None if cache_folder is None else Path(cache_folder) / "results", parse_store=pc.store
        )
        res = lint_paths(lint_roots, profile, jobs=jobs, cache=rc)
        cat = scan(env, client_id, pc)
    from workbench.core.lint.records import severity_totals

    return cat, res, severity_totals(res)


def _env_for(tmp: Path, tree: Path) -> Any:
    from workbench.core.model import Environment

    return Environment(workspace=tmp / "ws", home=tmp / "home", extra_roots=[tree], env={}, bins=set())


_KEEP: list[Any] = []


def _warm_op(op: str, tmp: Path, tree: Path, cache: Path) -> dict[str, Any]:
    """One operation as a fresh process does it (``python -m workbench.core.bench --warm``).
    ``import_s``: importing what the operation needs (timed apart); ``wall``/``cpu``: the
    operation itself. The results stay referenced (``_KEEP``) so that ``_main`` can exit without
    freeing them, as a CLI that prints and exits does (see ``_main``)."""
    t0 = time.perf_counter()
    from workbench.core.cache.resultcache import ResultCache
    from workbench.core.discovery import ParseCache, scan, scan_all
    from workbench.core.lint import PROFILES, lint_paths
    from workbench.core.lint.records import severity_totals

    out: dict[str, Any] = {"import_s": round(time.perf_counter() - t0, 4)}
    env = _env_for(tmp, tree)
    prof = PROFILES["agentskills"]
    t, c = time.perf_counter(), time.process_time()
    if op == "scan_one":
        cat = scan(env, "agentskills", ParseCache(persist=cache))
        out["found"] = len(cat.skills)
        _KEEP.append(cat)
    elif op == "scan_all":
        cats = scan_all(env, ParseCache(persist=cache))
        out["found"] = sum(len(x.skills) for x in cats.values())
        _KEEP.append(cats)
    elif op in ("lint", "lint_materialised"):
        rc = ResultCache(prof, cache / "results")
        res = lint_paths([tree], prof, cache=rc)
        out["errors"] = severity_totals(res)["error"]
        if op == "lint_materialised":
            out["diagnostics"] = sum(len(v) for v in res.values())
        out["cache_hits"], out["catalog_hits"] = rc.hits, rc.catalog_hits
        _KEEP.append(res)
    elif op == "scan_lint":
        got = scan_and_lint(env, "agentskills", prof, [tree], cache)
        out["found"], out["errors"] = len(got[0].skills), got[2]["error"]
        _KEEP.append(got)
    else:
        raise ValueError(op)
    out["wall"], out["cpu"] = time.perf_counter() - t, time.process_time() - c
    return out


def _run_warm(op: str, tmp: Path, tree: Path, cache: Path, pyc: Path | None) -> dict[str, Any]:
    """``_warm_op`` in a subprocess; adds ``process_wall`` (the whole subprocess)."""
    import json
    import subprocess
    import sys

    env = dict(os.environ)
    if pyc is not None:
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        env["PYTHONPYCACHEPREFIX"] = str(pyc)
    cmd = [sys.executable, "-m", "workbench.core.bench", "--warm", op, str(tmp), str(tree), str(cache)]
    t = time.perf_counter()
    cp = subprocess.run(cmd, capture_output=True, text=True, env=env, check=False)
    wall = time.perf_counter() - t
    if cp.returncode != 0:
        raise RuntimeError(f"warm {op} failed: {cp.stderr.strip()[-500:]}")
    got: dict[str, Any] = json.loads(cp.stdout.strip().splitlines()[-1])
    got["process_wall"] = round(wall, 4)
    return got


def run_bench(
    n: int = 10_000,
    *,
    corpus: Path | None = None,
    skills_ref_sample: int = 0,
    keystrokes: int = 200,
    workdir: Path | None = None,
    progress: Callable[[str], None] | None = None,
    repeat: int = 3,
    window: bool = True,
    rule_sample: int = 2000,
) -> dict[str, Any]:
    """Run every benchmark (see the module docstring) and return the figures.

    ``skills_ref_sample``: folders validated by skills-ref (0 = all, the issue's comparison);
    ``repeat``: runs of each subprocess figure (median); ``window``: time the window too;
    ``rule_sample``: files for the per-rule costs.

    Returns ``{"skills": n, "cpus": int, "corpus": str | None, "timings": {key: {"wall": s,
    "cpu": s, "per_skill_us": µs, "mode": "cold"|"warm"|"rescan", "process_wall": s (warm),
    ...}}, "keystroke": {"p50_ms", "p95_ms", "max_ms", "lines"}, "listing_corpus": {...} | None,
    "skills_ref": {...} | None, "issue": {...} (``bench_issue``), "issue_table": {...}
    (``issue_figures``), "targets": {...}, "notes": [...]}``.
    Raises OSError when the temporary tree cannot be written, RuntimeError when a warm subprocess
    fails.
    """
    import sys

    from workbench.core.cache.resultcache import ResultCache
    from workbench.core.discovery import ParseCache, scan, scan_all
    from workbench.core.lint import PROFILES, lint_paths, lint_text

    say = progress or (lambda s: None)
    corpus = corpus if corpus is not None else corpus_dir()
    res: dict[str, Any] = {
        "skills": n,
        "cpus": os.cpu_count() or 1,
        "corpus": str(corpus) if corpus else None,
        "timings": {},
        "notes": [],
    }
    tm = res["timings"]

    def record(key: str, wall: float, cpu: float, mode: str, count: int = n, **extra: Any) -> None:
        tm[key] = {
            "wall": round(wall, 4),
            "cpu": round(cpu, 4),
            "mode": mode,
            "per_skill_us": round(1e6 * wall / max(1, count), 1),
            **extra,
        }

    tmp = Path(tempfile.mkdtemp(prefix="wb-bench-", dir=workdir))
    try:
        tree = tmp / "tree"
        say(f"building {n} skills in {tree} ...")
        _, w, _c = _timed(lambda: make_tree(tree, n, corpus))
        res["tree_build_s"] = round(w, 2)
        (tmp / "ws").mkdir()
        (tmp / "home").mkdir()
        env = _env_for(tmp, tree)
        prof = PROFILES["agentskills"]
        pyc = None
        if sys.flags.dont_write_bytecode or os.environ.get("PYTHONDONTWRITEBYTECODE"):
            pyc = tmp / "pyc"
            res["notes"].append(
                "warm subprocesses use a temporary PYTHONPYCACHEPREFIX (this interpreter "
                "does not write bytecode; an installed package has it)"
            )

        def warm(key: str, op: str, cache: Path, **extra: Any) -> None:
            got = _run_warm(op, tmp, tree, cache, pyc)
            w, c = got.pop("wall"), got.pop("cpu")
            record(key, w, c, "warm", **got, **extra)

        say("scan ...")
        c_scan = tmp / "c-scan"
        cache: ParseCache | None = ParseCache(persist=c_scan)
        cat: Catalog | None
        cat, w, c = _timed(lambda: scan(env, "agentskills", cache))
        record("scan_one_cold", w, c, "cold", found=len(cat.skills))
        _, w, c = _timed(lambda: scan(env, "agentskills", cache))
        record("scan_one_rescan", w, c, "rescan")
        cat = cache = None  # drop the in-memory caches before the warm runs
        if pyc is not None:  # untimed: compiles the bytecode once
            _run_warm("scan_one", tmp, tree, c_scan, pyc)
        warm("scan_one_warm", "scan_one", c_scan)
        c_all = tmp / "c-all"
        _, w, c = _timed(lambda: scan_all(env, ParseCache(persist=c_all)))
        record("scan_all_cold", w, c, "cold")
        warm("scan_all_warm", "scan_all", c_all)

        say("lint ...")
        r1, w, c = _timed(lambda: lint_paths([tree], prof, jobs=1))
        record("lint_cold_1", w, c, "cold", diagnostics=sum(len(v) for v in r1.values()))
        del r1
        _, w, c = _timed(lambda: lint_paths([tree], prof, jobs=None))
        record("lint_cold_auto", w, c, "cold")
        c_lint = tmp / "c-lint"
        _, w, c = _timed(lambda: lint_paths([tree], prof, cache=ResultCache(prof, c_lint / "results")))
        record("lint_cold_filling_cache", w, c, "cold")
        warm("lint_warm", "lint", c_lint)
        warm("lint_warm_materialised", "lint_materialised", c_lint)

        say("scan + lint ...")
        c_sl = tmp / "c-scan-lint"
        (cat, _r, tot), w, c = _timed(lambda: scan_and_lint(env, "agentskills", prof, [tree], c_sl))
        record("scan_lint_cold", w, c, "cold", found=len(cat.skills), errors=tot["error"])
        del cat, _r
        warm("scan_lint_warm", "scan_lint", c_sl)

        say("keystrokes ...")
        text = keystroke_skill(500)
        kpath = tmp / "pdf-tools" / "SKILL.md"
        times = []
        for k in range(keystrokes):
            pos = len(text) // 2 + (k % 50)
            t2 = text[:pos] + "x" * (k % 7) + text[pos:]
            t0 = time.perf_counter()
            lint_text(t2, kpath, "claude-code")
            times.append((time.perf_counter() - t0) * 1000)
        times.sort()
        res["keystroke"] = {
            "lines": 500,
            "runs": keystrokes,
            "p50_ms": round(statistics.median(times), 2),
            "p95_ms": round(times[int(len(times) * 0.95)], 2),
            "max_ms": round(times[-1], 2),
        }

        res["listing_corpus"] = bench_listing(corpus, tmp) if corpus is not None else None
        res["issue"] = bench_issue(
            tree,
            tmp,
            n,
            repeat=repeat,
            pyc=pyc,
            window=window,
            skills_ref_sample=skills_ref_sample,
            rule_sample=rule_sample,
            say=say,
        )
        ours = {
            "cold_1_process": tm["lint_cold_1"]["per_skill_us"],
            "cold_auto": tm["lint_cold_auto"]["per_skill_us"],
            "warm_scan_lint_process": round(1e6 * tm["scan_lint_warm"]["process_wall"] / max(1, n), 1),
        }
        if res["issue"]["lint_cli"].get("wall"):
            ours["cli_lint_cold"] = round(1e6 * res["issue"]["lint_cli"]["wall"] / max(1, n), 1)
        res["skills_ref"] = skills_ref_ratios(res["issue"]["skills_ref_all"], ours)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    scale = 10_000 / max(1, n)
    sr = res["skills_ref"] or {}
    res["issue_table"] = issue_figures(res)
    res["targets"] = {
        "scan_lint_10k_le_1s_warm": tm["scan_lint_warm"]["wall"] * scale <= 1.0,
        "scan_lint_10k_le_1s_warm_whole_process": tm["scan_lint_warm"]["process_wall"] * scale <= 1.0,
        "scan_lint_10k_le_1s_cold": tm["scan_lint_cold"]["wall"] * scale <= 1.0,
        "keystroke_p95_le_20ms": res["keystroke"]["p95_ms"] <= 20.0,
        "skills_ref_ratio_ge_20_cold": (sr.get("ratio") or {}).get("cold_1_process", 0) >= 20,
        "skills_ref_ratio_ge_20_warm": (sr.get("ratio") or {}).get("warm_scan_lint_process", 0) >= 20,
        **{f"issue14_{k}": v["met"] for k, v in res["issue_table"].items()},
    }
    return res


_ROWS = [
    ("scan_one_cold", "scan, 1 client, cold (2 cores)"),
    ("scan_one_warm", "scan, 1 client, warm (fresh process)"),
    ("scan_one_rescan", "scan, 1 client, rescan in the same process"),
    ("scan_all_cold", "scan, all 8 clients, cold"),
    ("scan_all_warm", "scan, all 8 clients, warm (fresh process)"),
    ("lint_cold_1", "lint, cold, 1 process"),
    ("lint_cold_auto", "lint, cold, auto processes"),
    ("lint_cold_filling_cache", "lint, cold, filling the caches"),
    ("lint_warm", "lint, warm (fresh process)"),
    ("lint_warm_materialised", "lint, warm, every Diagnostic built"),
    ("scan_lint_cold", "scan + lint, cold"),
    ("scan_lint_warm", "scan + lint, warm (fresh process)"),
]


def format_table(res: dict[str, Any]) -> str:
    """The figures of ``run_bench`` as a text table (issue 14's targets first)."""
    n = res["skills"]
    out = [
        f"workbench bench: {n:,} skills, {res['cpus']} CPU(s), corpus: {res['corpus'] or 'built-in set'}",
        "",
        *issue_lines(res),
        "cold = every cache empty; warm = unchanged tree, a new process with the on-disk caches "
        "('process s' = that whole process: start + imports + work)",
        "",
        f"{'what':44} {'wall s':>8} {'cpu s':>8} {'µs/skill':>9} {'10k est s':>10} {'process s':>10}",
    ]
    for key, label in _ROWS:
        r = res["timings"].get(key)
        if r:
            pw = r.get("process_wall")
            out.append(
                f"{label:44} {r['wall']:8.3f} {r['cpu']:8.3f} {r['per_skill_us']:9.1f} "
                f"{r['wall'] * 10_000 / max(1, n):10.2f} "
                + (f"{pw:10.3f}" if pw is not None else f"{'':>10}")
            )
    k = res["keystroke"]
    out += [
        "",
        f"keystroke -> diagnostics ({k['lines']}-line SKILL.md, {k['runs']} runs): p50 {k['p50_ms']} ms, "
        f"p95 {k['p95_ms']} ms, max {k['max_ms']} ms",
    ]
    lc = res.get("listing_corpus")
    if lc:
        out.append(
            f"listing render, corpus ({lc['skills']} skills, 200k context): {lc['total_ms']} ms for all 8 "
            "clients (" + ", ".join(f"{c} {v}" for c, v in lc["ms_per_client"].items()) + ")"
        )
    sr = res.get("skills_ref")
    if sr:
        ours, ratio = sr["ours_per_skill_us"], sr["ratio"]
        out.append(
            f"skills-ref validate(): {sr['per_skill_us']} µs/skill on {sr['sample']} skills; ours: "
            + "; ".join(f"{k.replace('_', ' ')} {ours[k]} µs -> {ratio[k]}x" for k in ours)
        )
    else:
        out.append("skills-ref: not installed (pip install 'skill-workbench[bench]' to compare)")
    for note in res.get("notes", []):
        out.append(f"note: {note}")
    t = res["targets"]
    out += ["", "targets: " + ", ".join(f"{k} {'met' if v else 'NOT met'}" for k, v in t.items())]
    return "\n".join(out)


def _main(argv: list[str]) -> int:
    """``python -m workbench.core.bench --warm OP TMP TREE CACHE``: one warm operation, JSON out.

    Exits with ``os._exit`` once the output is flushed (like mypy's default ``--fast-exit``):
    tearing down 10,000 catalog entries and results costs ~0.2 s that no user waits for in a
    process that is about to end anyway."""
    import json
    import sys

    if len(argv) == 5 and argv[0] == "--warm":
        got = _warm_op(argv[1], Path(argv[2]), Path(argv[3]), Path(argv[4]))
        sys.stdout.write(json.dumps(got) + "\n")
        sys.stdout.flush()
        os._exit(0)
    print("usage: python -m workbench.core.bench --warm OP TMP TREE CACHE (see workbench bench)")
    return 2


if __name__ == "__main__":
    import sys as _sys

    _sys.exit(_main(_sys.argv[1:]))
