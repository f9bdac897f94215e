"""Run one scenario through one real client and through the workbench, and compare.

Public API (used by ``python -m tests.conformance``, ``test_lab.py`` and lab B):

* ``build(scenario, client, base) -> (workspace, home)``: a fresh git workspace and HOME.
* ``simulate(scenario, client, ws, home, client_texts=None) -> (Catalog, ListingReport)``: the
  workbench side (``discovery.scan`` + ``listing.render_listing`` with ``options["client_texts"]``).
* ``run_real(scenario, client, ws, home) -> Capture``: one real run (``capture.run_client``).
* ``compare(scenario, client, captures, catalog, report) -> Comparison``: the four checks.
* ``run_case(scenario, client) -> Comparison``: all of it (real runs repeated ``scenario.runs``
  times, each on a freshly built tree at the same paths; the workbench side is scanned before the
  first real run, on the pristine tree, and rendered with the texts captured from that run).

The four checks of each comparison: ``listing`` (the client's listing block byte for byte),
``order`` (user skill names in listing order), ``winner`` (which copy of a clashing name is listed:
the candidate whose description the real listing shows), ``unlisted`` (which found files are not
listed). A client whose runs disagree with each other is *racy*: the comparison agrees when the
workbench marks the clash racy and its listing is one of the outcomes seen.

Nothing here stores a client's own text: ``Comparison.to_json()`` holds hashes, lengths, names and
line numbers only.
"""

from __future__ import annotations

import difflib
import hashlib
import os
import shutil
import subprocess
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tests.conformance.scenarios import Scenario
from workbench.core.capture import get_runner
from workbench.core.capture.runner import Capture, run_client
from workbench.core.discovery import scan
from workbench.core.listing import ListingReport, render_listing
from workbench.core.model import Catalog, Environment

#: The context window each runner configures for its model (tokens); the workbench uses the same.
CONTEXT_TOKENS: dict[str, int] = {
    "claude-code": 200_000,
    "opencode": 200_000,
    "openclaw": 200_000,
    "codex": 272_000,
    "gemini-cli": 1_048_576,
    "copilot-cli": 200_000,
}
#: Seconds before a real run is stopped.
TIMEOUT: dict[str, float] = {"openclaw": 180.0}
DEFAULT_TIMEOUT = 120.0


def sha(text: str | None) -> str | None:
    return None if text is None else hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


@dataclass
class Comparison:
    """The verdict for one scenario x client. JSON: ``to_json()`` (no client texts)."""

    scenario: str
    client: str
    agree: bool
    checks: dict[str, bool] = field(default_factory=dict)
    diffs: list[str] = field(default_factory=list)
    detail: list[str] = field(default_factory=list)  # printed only (may quote texts): never stored
    racy: bool = False
    outcomes: list[str] = field(default_factory=list)
    real_skills: list[str] = field(default_factory=list)
    sim_skills: list[str] = field(default_factory=list)
    builtins: list[str] = field(default_factory=list)
    listing_sha: str | None = None
    listing_chars: int | None = None
    version: str | None = None
    seconds: float = 0.0
    error: str | None = None

    @property
    def status(self) -> str:
        if self.error:
            return "ERROR"
        if self.agree:
            return "racy" if self.racy else "agree"
        return "DIFF"

    def to_json(self) -> dict[str, Any]:
        return {
            "scenario": self.scenario,
            "client": self.client,
            "status": self.status,
            "agree": self.agree,
            "checks": self.checks,
            "diffs": self.diffs,
            "racy": self.racy,
            "outcomes": self.outcomes,
            "real_skills": self.real_skills,
            "sim_skills": self.sim_skills,
            "builtins": self.builtins,
            "listing_sha256_16": self.listing_sha,
            "listing_chars": self.listing_chars,
            "version": self.version,
            "seconds": round(self.seconds, 1),
            "error": self.error,
        }


# -- building ----------------------------------------------------------------------------------


def build(scenario: Scenario, client: str, base: Path) -> tuple[Path, Path]:
    """(workspace, home) under ``base``, removed first if present; the workspace is a git repo."""
    ws, home = base / "ws", base / "home"
    for p in (ws, home):
        if p.exists():
            shutil.rmtree(p)
        p.mkdir(parents=True)
    subprocess.run(
        ["git", "init", "-q", str(ws)],
        check=True,
        env={"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(home)},
    )
    scenario.make(ws, home, client)
    return ws, home


def environment(scenario: Scenario, client: str, ws: Path, home: Path) -> Environment:
    """The workbench ``Environment`` of a real run: same HOME, cwd, PATH, context window, trust."""
    runner = get_runner(client)
    exe = runner.lab_executable() or runner.find_installed() or Path("/usr/bin/false")
    env = {"HOME": str(home), "PATH": os.pathsep.join(runner.path_dirs(exe))}
    env.update(scenario.options.get("env") or {})
    return Environment(
        workspace=ws,
        home=home,
        cwd=ws,
        env=env,
        bins=None,
        trusted=bool(scenario.options.get("trusted", True)),
        context_tokens=scenario.options.get("context_tokens", CONTEXT_TOKENS.get(client)),
    )


def simulate(
    scenario: Scenario,
    client: str,
    ws: Path,
    home: Path,
    client_texts: dict[str, Any] | None = None,
    catalog: Catalog | None = None,
) -> tuple[Catalog, ListingReport]:
    """The workbench side: scan + render (with the captured client texts when given)."""
    env = environment(scenario, client, ws, home)
    cat = catalog if catalog is not None else scan(env, client)
    options = dict((scenario.options.get("render") or {}).get(client) or {})
    if client_texts:
        options["client_texts"] = client_texts
    return cat, render_listing(cat, env.context_tokens, options)


def run_real(scenario: Scenario, client: str, ws: Path, home: Path) -> Capture:
    """One real run of ``client`` on the built tree."""
    runner = get_runner(client)
    options = dict((scenario.options.get("run") or {}).get(client) or {})
    options.setdefault("trusted", bool(scenario.options.get("trusted", True)))
    options.setdefault("env", dict(scenario.options.get("env") or {}))
    return run_client(
        runner,
        ws,
        home=home,
        options=options,
        ask_version=False,
        timeout=TIMEOUT.get(client, DEFAULT_TIMEOUT),
    )


# -- comparing ---------------------------------------------------------------------------------


def _listing_diff(real: str, sim: str) -> tuple[str, list[str]]:
    """(a text-free summary, a printable unified diff) of two listings."""
    rl, sl = real.split("\n"), sim.split("\n")
    first = next((i for i, (a, b) in enumerate(zip(rl, sl)) if a != b), min(len(rl), len(sl)))
    summary = (
        f"listing differs from line {first + 1} (real {len(real)} chars / {len(rl)} lines, "
        f"workbench {len(sim)} chars / {len(sl)} lines)"
    )
    diff = list(difflib.unified_diff(rl, sl, "real", "workbench", n=1, lineterm=""))
    return summary, [d[:220] for d in diff[:40]]


def _real_winner(real_listing: str, cands: list[Any]) -> list[str]:
    """Paths of the candidates whose description (or path) the real listing shows."""
    hits = [str(s.path) for s in cands if str(s.path) in real_listing]
    if hits:
        return hits
    return [str(s.path) for s in cands if s.description and s.description in real_listing]


def racy_order(
    client: str, report: ListingReport, real_text: str, real_names: list[str], sim_names: list[str]
) -> str | None:
    """Evidence (one line, names only) when the real listing holds the same lines as the
    workbench's in another order, and the client's model declares that order racy
    (``clients/<id>/listing.py`` ``RACY_ORDER``, shown to the user as a report warning); else
    None. Gemini CLI loads a tier's files concurrently (lab: budget-80/300 on 0.61.0)."""
    from workbench.core.clients import listing_module

    why = getattr(listing_module(client), "RACY_ORDER", None)
    if not why or real_text == report.text or not any(why in w for w in report.warnings):
        return None
    if sorted(real_text.split("\n")) != sorted(report.text.split("\n")):
        return None
    if sorted(real_names) != sorted(sim_names):
        return None
    moved = [a for a, b in zip(real_names, sim_names) if a != b]
    return f"{len(moved)} of {len(sim_names)} skills in another place ({', '.join(moved[:6])})"


def compare(
    scenario: Scenario, client: str, captures: list[Capture], catalog: Catalog, report: ListingReport
) -> Comparison:
    """The four checks for one scenario x client (see the module docstring)."""
    first = captures[0]
    ex = first.extracted
    cmp = Comparison(
        scenario.id, client, False, version=first.version, seconds=sum(c.seconds for c in captures)
    )
    bad = next((c for c in captures if c.error or c.extracted is None or c.listing is None), None)
    if bad is not None:
        cmp.error = bad.error or "no listing in the client's request"
        cmp.detail.append(bad.stderr[-1500:])
        return cmp
    assert ex is not None
    builtins = set(ex.builtins)
    cmp.builtins = list(ex.builtins)
    listings = [c.listing or "" for c in captures]
    distinct = list(dict.fromkeys(listings))
    cmp.outcomes = [sha(t) or "" for t in listings]
    sim_text = report.text
    real_text = sim_text if sim_text in distinct else distinct[0]
    cmp.listing_sha, cmp.listing_chars = sha(real_text), len(real_text)
    cmp.real_skills = [n for n in (captures[listings.index(real_text)].skills) if n not in builtins]
    sim_names = [e.name for e in report.skills if e.state != "omitted"]
    cmp.sim_skills = sim_names
    racy_marked = any("racy" in (s.reason or "").lower() for s in catalog.skills)
    if len(distinct) > 1:
        cmp.racy = True
        cmp.checks["racy"] = racy_marked
        if not racy_marked:
            cmp.diffs.append(
                f"real runs differ ({len(distinct)} outcomes in {len(listings)} runs) "
                "but the workbench does not mark the clash racy"
            )
    cmp.checks["listing"] = sim_text in distinct
    order_racy = racy_order(client, report, real_text, cmp.real_skills, sim_names)
    if order_racy:  # same entries, order nondeterministic in the client and marked so by the model
        cmp.racy = True
        cmp.checks["listing"] = True
        cmp.detail.append(f"racy order: {order_racy}")
    if not cmp.checks["listing"]:
        summary, diff = _listing_diff(real_text, sim_text)
        cmp.diffs.append(summary)
        cmp.detail += diff
    cmp.checks["order"] = cmp.real_skills == sim_names or bool(order_racy)
    if not cmp.checks["order"]:
        cmp.diffs.append(f"order: real {cmp.real_skills[:12]} vs workbench {sim_names[:12]}")
    # clash winners
    groups: dict[str, list[Any]] = {}
    for s in catalog.skills:
        if s.status in ("listed", "shadowed"):
            groups.setdefault(s.name, []).append(s)
    ok = True
    for name, cands in groups.items():
        if len(cands) < 2 or len({s.description for s in cands}) < len(cands):
            continue
        sim_w = sorted(str(s.path) for s in cands if s.listed)
        seen = [sorted(_real_winner(t, cands)) for t in distinct]
        if sim_w not in seen or (not cmp.racy and seen[0] != sim_w):
            ok = False
            cmp.diffs.append(f"clash {name!r}: real lists {seen} , workbench {sim_w}")
    cmp.checks["winner"] = ok
    # files not listed
    real_set = set(cmp.real_skills)
    sim_unlisted = sorted({s.name for s in catalog.skills} - set(sim_names))  # budget-omitted too
    real_unlisted = sorted({s.name for s in catalog.skills} - real_set)
    cmp.checks["unlisted"] = sim_unlisted == real_unlisted
    if not cmp.checks["unlisted"]:
        cmp.diffs.append(f"not listed: real {real_unlisted[:12]} vs workbench {sim_unlisted[:12]}")
    cmp.agree = all(cmp.checks.values())
    return cmp


def run_case(scenario: Scenario, client: str, keep: Path | None = None) -> Comparison:
    """Build, simulate, run the real client ``scenario.runs`` times, compare. Never raises."""
    base = Path(tempfile.mkdtemp(prefix=f"wb-lab-{client}-"))
    try:
        ws, home = build(scenario, client, base)
        catalog, _ = simulate(scenario, client, ws, home)
        captures = []
        for i in range(scenario.runs_for(client)):
            if i:
                ws, home = build(scenario, client, base)
            captures.append(run_real(scenario, client, ws, home))
            if captures[-1].error:
                break
        texts = captures[0].extracted.client_texts if captures[0].extracted else None
        _, report = simulate(scenario, client, ws, home, texts, catalog=catalog)
        dump = os.environ.get("WB_LAB_DUMP")  # debugging: real and simulated listings (not kept)
        if dump:
            out = Path(dump) / f"{scenario.id}--{client}"
            out.mkdir(parents=True, exist_ok=True)
            for i, cap in enumerate(captures):
                (out / f"real{i}.txt").write_text(cap.listing or "", "utf-8")
            (out / "sim.txt").write_text(report.text, "utf-8")
        return compare(scenario, client, captures, catalog, report)
    except Exception as exc:  # noqa: BLE001 - one broken case must not stop the lab
        import traceback

        cmp = Comparison(scenario.id, client, False, error=f"lab error: {exc!r}")
        cmp.detail.append(traceback.format_exc())
        return cmp
    finally:
        if keep is not None:
            shutil.copytree(base, keep / f"{scenario.id}-{client}", symlinks=True, dirs_exist_ok=True)
        shutil.rmtree(base, ignore_errors=True)
