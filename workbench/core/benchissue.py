"""The figures of issue 14's table for ``workbench.core.bench``: the targets, the walk+read+C-YAML
floor, each rule's cost per file, the subprocess runs (CLI lint/scan, the window, one-file lint),
skills-ref over the same folders, and their text lines. ``bench.run_bench`` calls
``bench_issue``; ``bench.format_table`` prints ``issue_lines``."""

from __future__ import annotations

import gc
import logging
import os
import shutil
import statistics
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, nullcontext
from pathlib import Path
from typing import Any

from workbench.core.skillwalk import walk_tree

log = logging.getLogger(__name__)

#: Cost budget of one per-file rule, µs per file on the bench machine (``rule_costs``): the
#: whole per-file pass has ~75 rules and should stay near the cost of the YAML parse.
RULE_BUDGET_US = 20.0

#: Issue 14's targets for 10,000 skills: key -> (what, target, unit, lower is better).
ISSUE_TARGETS: dict[str, tuple[str, float, str, bool]] = {
    "lint_cli_cold": ("workbench lint DIR --format json, empty cache", 1.0, "s", True),
    "lint_cli_warm": ("same, warm cache", 0.3, "s", True),
    "skills_ref_ratio": ("skills-ref validate() time / lint cold (same folders, same run)", 15.0, "x", False),
    "lint_vs_floor": ("lint cold (1 process) / walk+read+C-YAML floor, CPU seconds", 1.5, "x", True),
    "scan_cli_cold": (
        "workbench scan DIR --root DIR --client all --format json, empty cache",
        1.5,
        "s",
        True,
    ),
    "window_populated": ("window until the tree is populated, empty cache", 2.0, "s", True),
    "window_rss": ("window peak RSS", 200.0, "MB", True),
    "window_max_block": ("longest GUI-thread block", 50.0, "ms", True),
    "lint_one_cli": ("lint of one SKILL.md (pre-commit)", 0.2, "s", True),
    "keystroke_p95": ("editor keystroke -> diagnostics, p95", 20.0, "ms", True),
}
#: The floor the issue measured for 10,000 skills (s): its targets in floor units, for runs on a
#: machine of another speed (``issue_figures``' ``x_floor``).
ISSUE_FLOOR_S = 0.7
#: ``python -c NO_RULES lint ...``: the lint CLI with the rule registry emptied (no per-file and no
#: catalog rule runs; everything else as usual: walk, read, parse, context, pool, caches, catalog
#: pass, report). ``workbench bench`` times it cold as "this design's floor": what a cold lint
#: costs before any rule runs (issue 14's 1.0 s target against what the rules add).
NO_RULES = (
    "import sys\n"
    "from workbench.core.lint.ruleset import load_rules\n"
    "load_rules().clear()\n"
    "from workbench.cli import main\n"
    "sys.exit(main(sys.argv[1:]))\n"
)
#: Figures that grow with the number of skills (scaled to 10,000 when judging a smaller run).
_SCALED = {"lint_cli_cold", "lint_cli_warm", "scan_cli_cold", "window_populated"}


@contextmanager
def gc_frozen(*, off: bool) -> Iterator[None]:
    """Inside the block the bench's own heap (every object alive on entry) is out of the cyclic
    GC's reach (``gc.freeze``), as in a fresh process; ``off``: the GC does not run at all, as
    inside ``lint_paths``. Without this a figure taken late in the bench is inflated by
    collections that rescan the bench's big heap (rule costs x2-6: 215 µs read+parse and 445
    rules in the bench vs 65-150 / 74 standalone)."""
    from workbench.core.model import gc_paused

    gc.freeze()
    try:
        with gc_paused() if off else nullcontext():
            yield
    finally:
        gc.unfreeze()


def floor(tree: Path) -> dict[str, Any]:
    """The least any linter must do, in this process: walk ``tree`` (skipping .git and
    node_modules), read every SKILL.md and parse its frontmatter with PyYAML's C loader.
    Measured with the bench's heap frozen (``gc_frozen``: the GC still runs, over what this
    creates only, as in a fresh process). Returns ``{"wall": s, "cpu": s, "files": n}``."""
    with gc_frozen(off=False):
        return _floor(tree)


def _floor(tree: Path) -> dict[str, Any]:
    import yaml

    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    t, c = time.perf_counter(), time.process_time()
    n = 0
    for dp, _dn, fn in walk_tree(tree):
        if "SKILL.md" not in fn:
            continue
        n += 1
        with open(os.path.join(dp, "SKILL.md"), "rb") as fh:
            text = fh.read().decode("utf-8", "replace")
        end = text.find("\n---", 3) if text.startswith("---") else -1
        if end > 0:
            try:
                yaml.load(text[3:end], Loader=loader)
            except yaml.YAMLError:
                pass
    return {"wall": round(time.perf_counter() - t, 4), "cpu": round(time.process_time() - c, 4), "files": n}


def rule_costs(tree: Path, sample: int = 2000, profile: str = "agentskills") -> dict[str, Any]:
    """Each per-file rule's cost over ``sample`` SKILL.md files of ``tree`` (every n-th), in µs
    per file (CPU time, ``process_time``), with the cyclic GC off and the bench's heap frozen as
    ``lint_paths`` runs them (``gc_frozen``), measured the way the runner runs them
    (``runner.lint_record_batch``): rule-major over batches of ``runner.BATCH_FILES`` fresh
    contexts, each finding encoded and clamped.

    The context's shared lazy parts (body, UTF-8 bytes, fences, links, the folder listing, the
    line table) are charged to the first rule that asks for them, as in a real run; ``shared_us``
    times them apart on other contexts of the same files (for reading only: not in the total).
    Returns ``{"files": n, "parse_us": µs (read + parse), "rules_us": {code: µs}, "context_us":
    µs (context set-up, sorting and the catalog facts), "shared_us": {part: µs}, "total_us": µs
    (context + rules = the per-file work after the parse), "over_budget": [codes above
    RULE_BUDGET_US]}``.
    """
    from workbench.core.lint.profiles import lint_profile
    from workbench.core.skillwalk import find_skill_files

    files = find_skill_files(tree)
    files = files[:: max(1, len(files) // max(1, sample))][:sample]
    prof = lint_profile(profile)
    with gc_frozen(off=True):
        return _rule_costs(files, prof)


def _rule_costs(files: list[Path], prof: Any) -> dict[str, Any]:
    from workbench.core.lint.context import LintContext
    from workbench.core.lint.records import tuple_sort_key
    from workbench.core.lint.runner import BATCH_FILES, EMPTY_CATALOG, lint_facts, per_file_rules
    from workbench.core.lint.runner import _crashed_encoded as crashed
    from workbench.core.lint.runner import _encoded as encoded
    from workbench.core.skillfile import read_skill_file

    rules = per_file_rules(prof)
    per = dict.fromkeys((r.code for r, _sev in rules), 0.0)
    parse = context = 0.0
    clock = time.process_time
    for i in range(0, len(files), BATCH_FILES):
        c = clock()
        sfs = [read_skill_file(f) for f in files[i : i + BATCH_FILES]]
        c2 = clock()
        ctxs = [LintContext(sf, prof, EMPTY_CATALOG) for sf in sfs]
        context += clock() - c2
        parse += c2 - c
        outs: list[list[Any]] = [[] for _ in ctxs]
        for r, sev in rules:  # = runner._run_batch, timed per rule
            check = r.check
            c = clock()
            for ctx, out in zip(ctxs, outs):
                try:
                    for f in check(ctx):
                        out.append(encoded(r, sev, f, ctx))
                except Exception as exc:  # noqa: BLE001 - as the runner
                    out.append(crashed(r, ctx, exc))
            per[r.code] += clock() - c
        c = clock()
        for ctx, out in zip(ctxs, outs):
            out.sort(key=tuple_sort_key)
            lint_facts(ctx)
        context += clock() - c
    n = max(1, len(files))
    us = {k: round(1e6 * v / n, 1) for k, v in sorted(per.items(), key=lambda kv: -kv[1])}
    ctx_us = round(1e6 * context / n, 1)
    return {
        "files": len(files),
        "parse_us": round(1e6 * parse / n, 1),
        "context_us": ctx_us,
        "shared_us": _shared_costs(files, prof),
        "rules_us": us,
        "total_us": round(sum(us.values()) + ctx_us, 1),
        "over_budget": [k for k, v in us.items() if v > RULE_BUDGET_US],
    }


def _shared_costs(files: list[Path], prof: Any) -> dict[str, float]:
    """The context's shared lazy parts, each timed over fresh contexts of ``files`` (µs/file)."""
    from workbench.core.lint.context import LintContext
    from workbench.core.lint.runner import EMPTY_CATALOG
    from workbench.core.skillfile import read_skill_file

    parts: dict[str, Callable[[LintContext], object]] = {
        "body": lambda x: x.body,
        "utf8": lambda x: x.utf8,
        "fences": lambda x: x.in_code(0),  # the scan (the Fence list is built on demand)
        "links": lambda x: x.links,
        "folder": lambda x: x.folder(),
        "line_starts": lambda x: x.line_starts,
    }
    ctxs = [LintContext(read_skill_file(f), prof, EMPTY_CATALOG) for f in files]
    out: dict[str, float] = {}
    for name, fn in parts.items():
        c = time.process_time()
        for x in ctxs:
            fn(x)
        out[name] = round(1e6 * (time.process_time() - c) / max(1, len(ctxs)), 1)
    return out


def _child_env(home: Path, pyc: Path | None) -> dict[str, str]:
    env = dict(os.environ, WORKBENCH_HOME=str(home), QT_QPA_PLATFORM="offscreen")
    if pyc is not None:
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        env["PYTHONPYCACHEPREFIX"] = str(pyc)
    return env


def run_child(args: list[str], home: Path, pyc: Path | None = None, phases: bool = False) -> dict[str, Any]:
    """``python ARGS`` in a fresh process with ``WORKBENCH_HOME=home`` (its caches and settings),
    stdout to a temporary file. Returns ``{"wall": s, "exit": code, "stdout_tail": last line}``,
    plus ``"phases"`` (``core.phasetimer``'s ``{name: [wall s, cpu s]}``, or {} when the child
    wrote none) with ``phases``.
    Raises RuntimeError when it exits with 2 or more (lint exits 1 on findings). (No RSS here:
    a child's ``ru_maxrss`` includes what it had as a fork of this big process before ``exec``;
    the window reports its own.)"""
    import subprocess
    import sys

    env = _child_env(home, pyc)
    pfile = home / "phases.json"
    if phases:
        env["WORKBENCH_PHASES"] = str(pfile)
        pfile.unlink(missing_ok=True)
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        t = time.perf_counter()
        code = subprocess.call([sys.executable, *args], stdout=out, stderr=err, env=env)
        wall = time.perf_counter() - t
        out.seek(0)
        err.seek(0)
        tail = out.read()[-2000:].decode("utf-8", "replace").strip().splitlines()
        if code >= 2 or code < 0:
            msg = err.read()[-500:].decode("utf-8", "replace")
            raise RuntimeError(f"{' '.join(args)} exited {code}: {msg}")
    got: dict[str, Any] = {"wall": round(wall, 4), "exit": code, "stdout_tail": tail[-1] if tail else ""}
    if phases:
        import json

        try:
            got["phases"] = json.loads(pfile.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            got["phases"] = {}
    return got


def _median_phases(runs: list[dict[str, list[float]]]) -> dict[str, list[float]]:
    """Per phase, the median wall and CPU over ``runs`` (phases missing from a run count 0)."""
    names = list(dict.fromkeys(k for r in runs for k in r))
    return {
        k: [round(statistics.median(r.get(k, [0.0, 0.0])[i] for r in runs), 3) for i in (0, 1)] for k in names
    }


def _median_child(
    args: list[str],
    tmp: Path,
    key: str,
    repeat: int,
    pyc: Path | None,
    warm: bool = False,
    phased: bool = False,
) -> dict[str, Any]:
    """Median of ``repeat`` runs of ``run_child``, each with a new empty cache folder; with
    ``warm`` each cold run is followed by a warm one on the cache it left (``warm_wall``). When
    the child prints a JSON object last, the median of each of its numbers is added. ``phased``:
    the medians of the child's phase timings too (``"phases"``, ``"warm_phases"``; see
    ``core.phasetimer``)."""
    import json

    cold: list[float] = []
    hot: list[float] = []
    printed: list[dict[str, Any]] = []
    phases: list[list[dict[str, list[float]]]] = [[], []]  # cold, warm
    for i in range(max(1, repeat)):
        home = tmp / f"home-{key}-{i}"
        home.mkdir()
        got = run_child(args, home, pyc, phases=bool(phased))
        cold.append(got["wall"])
        if got["stdout_tail"].startswith("{") and got["stdout_tail"].endswith("}"):
            printed.append(json.loads(got["stdout_tail"]))
        if got.get("phases"):
            phases[0].append(got["phases"])
        if warm:
            again = run_child(args, home, pyc, phases=bool(phased))
            hot.append(again["wall"])
            if again.get("phases"):
                phases[1].append(again["phases"])
        shutil.rmtree(home, ignore_errors=True)
    out: dict[str, Any] = {"wall": round(statistics.median(cold), 4), "runs": cold}
    for k in sorted({k for d in printed for k, v in d.items() if isinstance(v, (int, float))}):
        vals = [d[k] for d in printed if isinstance(d.get(k), (int, float))]
        out[k] = round(statistics.median(vals), 3)
        out[k + "_runs"] = vals
    if warm:
        out["warm_wall"] = round(statistics.median(hot), 4)
        out["warm_runs"] = hot
    if phases[0]:
        out["phases"] = _median_phases(phases[0])
    if phases[1]:
        out["warm_phases"] = _median_phases(phases[1])
    return out


def bench_issue(
    tree: Path,
    tmp: Path,
    n: int,
    *,
    repeat: int = 3,
    pyc: Path | None = None,
    window: bool = True,
    skills_ref_sample: int = 0,
    rule_sample: int = 2000,
    say: Callable[[str], None] = lambda s: None,
) -> dict[str, Any]:
    """The figures of issue 14's table (module docstring) for the tree of ``n`` skills.

    Returns ``{"lint_cli": {...}, "scan_cli": {...}, "lint_no_rules": {...} (the lint CLI with
    every rule off: ``NO_RULES``), "lint_one_cli": {...}, "window": {...} |
    None, "floor": {...}, "skills_ref_all": {...} | None, "rules": {...}}``; subprocess figures
    are medians of ``repeat`` runs (each run's walls under ``"runs"``). The window is skipped
    (None, with ``"window_skipped"`` saying why) when PySide6 cannot be imported."""
    import importlib.util

    out: dict[str, Any] = {}
    home = tmp / "bench-home"
    home.mkdir(exist_ok=True)
    one = next(iter(sorted(tree.glob("g*/*/SKILL.md"))))
    if pyc is not None:  # untimed: compile the bytecode of the CLI once
        run_child(["-m", "workbench.cli", "lint", str(one)], home, pyc)
    say("CLI lint, cold and warm ...")
    out["lint_cli"] = _median_child(
        ["-m", "workbench.cli", "lint", str(tree), "--format", "json"],
        tmp,
        "lint",
        repeat,
        pyc,
        warm=True,
        phased=True,
    )
    say("CLI scan of all clients, cold ...")
    out["scan_cli"] = _median_child(
        [
            "-m",
            "workbench.cli",
            "scan",
            str(tree),
            "--root",
            str(tree),
            "--home",
            str(home),
            "--client",
            "all",
            "--format",
            "json",
        ],
        tmp,
        "scan",
        repeat,
        pyc,
    )
    say("CLI lint with every rule off, cold ...")
    out["lint_no_rules"] = _median_child(
        ["-c", NO_RULES, "lint", str(tree), "--format", "json"], tmp, "norules", repeat, pyc, phased=True
    )
    out["lint_one_cli"] = _median_child(
        ["-m", "workbench.cli", "lint", str(one)], tmp, "one", max(3, repeat), pyc
    )
    out["window"] = None
    if window and importlib.util.find_spec("PySide6") is not None:
        say("window ...")
        try:
            out["window"] = _median_child(
                ["-m", "workbench.app.benchwindow", str(tree), str(home), str(n)], tmp, "window", repeat, pyc
            )
        except RuntimeError as exc:
            out["window_skipped"] = str(exc)
    else:
        out["window_skipped"] = "not asked" if not window else "PySide6 not installed"
    say("floor, rule costs ...")
    out["floor"] = floor(tree)
    out["rules"] = rule_costs(tree, rule_sample)
    say("skills-ref over the same folders ...")
    out["skills_ref_all"] = _skills_ref_all(tree, skills_ref_sample)
    return out


def _skills_ref_all(tree: Path, sample: int = 0) -> dict[str, Any] | None:
    """skills-ref's ``validate()`` over every skill folder of ``tree`` (or every n-th of ``sample``)
    in this process: ``{"folders": n, "wall": s, "per_skill_us": µs, "invalid": n}``."""
    try:
        from skills_ref import validate  # optional: pip install skill-workbench[bench]
    except ImportError:
        return None
    dirs = sorted(p.parent for p in tree.glob("g*/*/SKILL.md"))
    if sample:
        dirs = dirs[:: max(1, len(dirs) // sample)][:sample]
    t = time.perf_counter()
    bad = 0
    for d in dirs:
        try:
            bad += bool(validate(d))
        except Exception:  # noqa: BLE001 - a crash in skills-ref counts as a verdict, not ours
            log.debug("skills-ref crashed on %s", d, exc_info=True)
            bad += 1
    wall = time.perf_counter() - t
    return {
        "folders": len(dirs),
        "wall": round(wall, 4),
        "per_skill_us": round(1e6 * wall / max(1, len(dirs)), 1),
        "invalid": bad,
    }


def issue_figures(res: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """Issue 14's table from ``run_bench``'s result: key -> ``{"what", "value", "unit", "target",
    "est_10k" (the value scaled to 10,000 skills where it grows with them), "met"}`` (missing
    figures are left out)."""
    iss = res.get("issue") or {}
    n = res["skills"]
    tm = res["timings"]
    vals: dict[str, float | None] = {}
    lc = iss.get("lint_cli") or {}
    vals["lint_cli_cold"] = lc.get("wall")
    vals["lint_cli_warm"] = lc.get("warm_wall")
    sr = iss.get("skills_ref_all")
    if sr and lc.get("wall"):
        vals["skills_ref_ratio"] = round(sr["wall"] * (n / max(1, sr["folders"])) / lc["wall"], 2)
    fl = iss.get("floor")
    if fl and fl["cpu"] > 0 and "lint_cold_1" in tm:  # CPU seconds: steadier than wall on a busy machine
        vals["lint_vs_floor"] = round(tm["lint_cold_1"]["cpu"] / fl["cpu"], 2)
    vals["scan_cli_cold"] = (iss.get("scan_cli") or {}).get("wall")
    w = iss.get("window") or {}
    vals["window_populated"] = w.get("populated")
    vals["window_rss"] = w.get("rss_mb")
    vals["window_max_block"] = w.get("max_block_ms")
    vals["lint_one_cli"] = (iss.get("lint_one_cli") or {}).get("wall")
    vals["keystroke_p95"] = (res.get("keystroke") or {}).get("p95_ms")
    # A fresh process's fixed cost (interpreter, imports: the one-file lint) does not grow with
    # the tree; only the rest is scaled to 10,000 skills.
    known = [v for k in ("lint_one_cli", *_SCALED) if (v := vals.get(k))]
    fixed = min(known) if known else 0.0
    out: dict[str, dict[str, Any]] = {}
    for key, (what, target, unit, lower) in ISSUE_TARGETS.items():
        v = vals.get(key)
        if v is None:
            continue
        est = fixed + (v - fixed) * 10_000 / max(1, n) if key in _SCALED else v
        out[key] = {
            "what": what,
            "value": v,
            "unit": unit,
            "target": target,
            "est_10k": round(est, 3),
            "met": est <= target if lower else est >= target,
        }
        if unit == "s" and fl and fl["wall"] > 0:
            # the same figure in units of this run's floor: comparable across machine speeds (the
            # issue's targets are 1.4x, 0.43x, 2.1x, 2.9x and 0.29x its 0.7 s floor)
            out[key]["x_floor"] = round(v / fl["wall"], 2)
            out[key]["target_x_floor"] = round(target / ISSUE_FLOOR_S, 2)
    return out


def issue_lines(res: dict[str, Any]) -> list[str]:
    """Issue 14's table: each figure, its 10k estimate, the target and met / NOT met."""
    tab = res.get("issue_table") or {}
    if not tab:
        return []
    iss = res.get("issue") or {}
    n = res["skills"]
    out = [
        f"issue 14 targets ({n:,} skills; 'at 10k' scales the figures that grow with the tree; "
        f"subprocess figures: median of {len((iss.get('lint_cli') or {}).get('runs', [])) or '?'} runs)",
        f"{'what':70} {'value':>10} {'at 10k':>10} {'target':>10}  verdict  {'÷floor (target)':>16}",
    ]
    for key, r in tab.items():
        u = r["unit"]
        cmp_ = ">=" if key == "skills_ref_ratio" else "<="
        out.append(
            f"{r['what'][:70]:70} {r['value']:>7.2f} {u:<2} {r['est_10k']:>7.2f} {u:<2} "
            f"{cmp_}{r['target']:>5g} {u:<2}  {'met' if r['met'] else 'NOT met':7}"
            + (f"  {r['x_floor']:>6.2f} ({r['target_x_floor']:g})" if "x_floor" in r else "")
        )
    fl, sr = iss.get("floor"), iss.get("skills_ref_all")
    lc = iss.get("lint_cli") or {}
    if fl:
        out.append(
            f"floor (walk + read + C YAML, in process): {fl['wall']} s wall, {fl['cpu']} s CPU, "
            f"{fl['files']} files"
        )
    if sr:
        out.append(
            f"skills-ref validate() over {sr['folders']} folders in one process: {sr['wall']} s "
            f"({sr['per_skill_us']} µs/skill), {sr['invalid']} invalid; lint CLI cold "
            f"{lc.get('wall')} s "
            f"(runs {lc.get('runs')}), warm {lc.get('warm_wall')} s (runs {lc.get('warm_runs')})"
        )
    nr = iss.get("lint_no_rules")
    if nr:
        out.append(
            f"lint CLI cold with every rule off (this design's floor before any rule): {nr['wall']} s "
            f"(runs {nr['runs']}); the rules add {round(lc['wall'] - nr['wall'], 3) if lc.get('wall') else '?'} s"
        )
    for what, ph in (("cold", lc.get("phases")), ("warm", lc.get("warm_phases"))):
        if ph:
            out.append(
                f"lint CLI {what}, phases of the main process (wall/CPU s; 'start' CPU = interpreter "
                "+ imports; pool workers not in CPU): "
                + ", ".join(f"{k} {w:g}/{c:g}" for k, (w, c) in ph.items())
            )
    w = iss.get("window")
    if w:
        out.append(
            f"window: populated {w.get('populated')} s (runs {w.get('populated_runs')}), complete "
            f"{w.get('complete')} s, longest GUI-thread block {w.get('max_block_ms')} ms (most GUI "
            f"CPU in one {w.get('max_block_cpu_ms')} ms, most asleep {w.get('max_block_asleep_ms')} ms), "
            f"{w.get('blocks_over_50ms')} blocks over 50 ms, peak RSS {w.get('rss_mb')} MB"
        )
    elif iss.get("window_skipped"):
        out.append(f"window: not measured ({iss['window_skipped']})")
    ru = iss.get("rules")
    if ru:
        top = ", ".join(f"{c} {v}" for c, v in list(ru["rules_us"].items())[:12])
        out += [
            f"per-file cost (µs/file, CPU, {ru['files']} files, as the runner runs them): read+parse "
            f"{ru['parse_us']}, context + rules {ru['total_us']} of which context set-up, sort and "
            f"facts {ru['context_us']}; costliest (shared parts charged to the first rule asking): {top}",
            "shared parts apart: " + ", ".join(f"{k} {v}" for k, v in ru.get("shared_us", {}).items()),
            f"rules over the {RULE_BUDGET_US:g} µs budget: {', '.join(ru['over_budget']) or 'none'}",
        ]
    return out + [""]


def bench_listing(corpus: Path, tmp: Path) -> dict[str, Any]:
    from workbench.core.discovery import scan_all
    from workbench.core.listing import render_listing
    from workbench.core.model import Environment

    env = Environment(
        workspace=tmp / "ws", home=tmp / "home", env={}, bins=set(), extra_roots=[corpus.resolve()]
    )
    cats = scan_all(env)
    per: dict[str, float] = {}
    for cid, cat in cats.items():
        render_listing(cat, 200_000)
        t = time.perf_counter()
        render_listing(cat, 200_000)
        per[cid] = round((time.perf_counter() - t) * 1000, 2)
    return {
        "skills": len(next(iter(cats.values())).skills),
        "context_tokens": 200_000,
        "ms_per_client": per,
        "total_ms": round(sum(per.values()), 2),
    }


def skills_ref_ratios(sr: dict[str, Any] | None, ours_us: dict[str, float]) -> dict[str, Any] | None:
    """The per-skill comparison with skills-ref (``_skills_ref_all``'s figures) for ``ours_us``
    (µs per skill of our figures)."""
    if sr is None:
        return None
    per = sr["per_skill_us"]
    return {
        "sample": sr["folders"],
        "per_skill_us": per,
        "invalid": sr["invalid"],
        "ours_per_skill_us": ours_us,
        "ratio": {k: (round(per / v, 1) if v else None) for k, v in ours_us.items()},
    }
