"""The window's background scan pass: every client scanned and every listing rendered, off the
GUI thread (``AppContext.rescan`` runs ``scan_everything`` through ``workers.run_in_background``).

No Qt here: the functions run on a worker thread and return plain data (``ScanResult``);
``AppContext`` turns them into state and signals. Discovery and listing themselves live in
``workbench.core`` (``discovery.scan``, ``discovery.apply_workspace_mode``,
``listing.render_listing``); this module only sequences them for the window: the current client
first (a partial result is shown while the others are scanned), the bundled demo when nothing is
listed, and one client's failure recorded (and logged) without hiding the others.
"""

from __future__ import annotations

import contextlib
import dataclasses
import gc
import logging
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from workbench.app import tallies
from workbench.app.memory import ValueSharer, release_free_memory
from workbench.core import demo
from workbench.core.cache.fscache import snapshot
from workbench.core.discovery import ParseCache, WorkspaceTreatment, apply_workspace_mode, scan
from workbench.core.giveway import away, give_way
from workbench.core.listing import ListingReport, locale_key, render_listing
from workbench.core.model import CLIENT_IDS, Catalog, Environment, gc_paused
from workbench.core.skillfile import SkillFile, parse_skill_text

log = logging.getLogger(__name__)

#: ``progress(done, total)``: clients scanned so far (+1 for the listings) of ``total``.
Progress = Callable[[int, int], None]


@dataclass
class ScanResult:
    """What one background scan produced (all clients).

    Attributes:
        env: the environment actually scanned (may differ from the requested one: the demo
            workspace, or the workspace added as an extra root).
        catalogs: client id -> Catalog.
        listings: client id -> ListingReport (missing when that client's listing failed).
        errors: client id -> one-line error (scan or listing failed for that client).
        notes: banner lines for the user (collection banner, demo shown).
        seconds: wall time of the whole scan.
        demo: True when the bundled demo replaced an empty workspace.
        extra_root: the workspace when it was added as an extra root, else None.
        treatment: how the workspace is shown (``discovery.WorkspaceTreatment``), None for the demo.
        walks: discovery's walk memo for this pass (identical walks shared across clients),
            emptied once the pass is done.
    """

    env: Environment
    catalogs: dict[str, Catalog] = field(default_factory=dict)
    listings: dict[str, ListingReport] = field(default_factory=dict)
    errors: dict[str, str] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    seconds: float = 0.0
    demo: bool = False
    extra_root: Path | None = None
    treatment: WorkspaceTreatment | None = None
    walks: dict[Any, Any] = field(default_factory=dict, repr=False)


class OverlayParseCache(ParseCache):
    """A ``discovery.ParseCache`` that serves unsaved editor buffers instead of the file on disk.

    Args:
        overlays: absolute path str -> buffer text; the caller's dict, read on every ``get`` (the
            context adds and removes buffers in it).
        persist: as ``ParseCache`` (True: parse facts kept under ``appdirs.cache_dir()``, so
            reopening an unchanged tree reads no file).
    """

    def __init__(self, overlays: dict[str, str], persist: bool = False) -> None:
        super().__init__(persist=persist)
        self.overlays = overlays
        self._overlay_memo: dict[tuple[str, int], SkillFile] = {}
        self._holding = False
        self._save_due = False

    def save(self) -> None:
        """``ParseCache.save``, or only noted while ``holding_saves`` (``discovery.scan`` saves
        after each client: writing the facts and folder listings of 10,000 files after the
        first one delayed the tree, issue 14)."""
        if self._holding:
            self._save_due = True
        else:
            super().save()

    @contextlib.contextmanager
    def holding_saves(self) -> Iterator[None]:
        """Saves asked for inside the block are done by ``save_due`` or when it ends."""
        self._holding = True
        try:
            yield
        finally:
            self._holding = False
            self.save_due()

    def save_due(self) -> None:
        """Do the save ``holding_saves`` held back, if any."""
        if self._save_due:
            self._save_due = False
            super().save()

    def get(self, path: Path | str) -> SkillFile:
        """The parsed buffer when one is applied for ``path``, else ``ParseCache.get``."""
        text = self.overlays.get(str(path))
        if text is None:
            return super().get(path)
        key = (str(path), hash(text))
        sf = self._overlay_memo.get(key)
        if sf is None:
            if len(self._overlay_memo) > 64:
                self._overlay_memo.clear()
            sf = self._overlay_memo[key] = parse_skill_text(text, Path(path))
        return sf


def make_parse_cache(overlays: dict[str, str]) -> OverlayParseCache:
    """The window's shared cache: persistent parse facts when the cache folder is usable, else in
    memory only (the reason is logged)."""
    try:
        return OverlayParseCache(overlays, persist=True)
    except Exception:  # noqa: BLE001 - an unusable cache folder only costs speed
        log.warning("persistent parse cache unavailable; parsing in memory only", exc_info=True)
        return OverlayParseCache(overlays)


class TextlessReport(ListingReport):
    """A ``ListingReport`` without its ``text`` ("", everything else kept: entries, budget,
    counts, warnings). The window keeps only the shown client's listing text (issue 14: the 8
    other texts of a 10,000-skill tree were ~16 MB); ``AppContext`` renders a client's text
    again when it is shown."""


def without_text(rep: ListingReport) -> TextlessReport:
    """``rep`` as a ``TextlessReport`` (``token_estimate`` stays that of the text)."""
    kept = {f.name: getattr(rep, f.name) for f in dataclasses.fields(rep) if f.name != "text"}
    return TextlessReport(text="", **kept)


def render_listings(
    catalogs: dict[str, Catalog],
    context_tokens: int | None,
    errors: dict[str, str] | None = None,
    keep_text: Iterable[str] | None = None,
) -> dict[str, ListingReport]:
    """client id -> ``listing.render_listing(catalog, context_tokens)``; the clients not in
    ``keep_text`` (None = every client) get a ``TextlessReport``, each text dropped as soon as
    it is rendered. A client whose listing fails is left out, its error recorded in ``errors``
    (one line) and logged with the traceback."""
    keep = None if keep_text is None else set(keep_text)
    out: dict[str, ListingReport] = {}
    for cid, cat in catalogs.items():
        try:
            rep = render_listing(cat, context_tokens, None)
        except Exception as exc:  # noqa: BLE001 - one client's bug must not hide the others
            log.warning("listing of %s failed", cid, exc_info=True)
            if errors is not None:
                errors[cid] = f"listing failed: {type(exc).__name__}: {exc}"
            continue
        out[cid] = rep if keep is None or cid in keep else without_text(rep)
    return out


@dataclass
class _Pass:
    """One scan pass: scans clients of ``env`` into ``res`` (sharing ``cache``), counting progress.

    Each client's listing is rendered right after its scan (``render_after``: its text kept only
    for ``keep_text``) and its skills share the equal values of the clients before it
    (``memory.ValueSharer``): the pass's peak memory is then one client's transient on top of
    what the window keeps, not eight listings rendered at the end (issue 14)."""

    env: Environment
    cache: ParseCache
    res: ScanResult
    progress: Progress | None
    total: int
    context_tokens: int | None = None
    keep_text: str | None = None
    sharer: ValueSharer = field(default_factory=ValueSharer)

    def scan(self, clients: list[str], offset: int = 0, render: bool = True) -> None:
        """``discovery.scan`` each client into ``res`` (a failure goes to ``res.errors``), then
        (``render``) shares its values and renders its listing into ``res.listings`` (without
        ``render`` the caller does both: ``render_after``)."""
        res = self.res
        for i, cid in enumerate(clients, offset):
            give_way()  # turns with the GUI thread (``core.giveway``; the window's scan job)
            try:
                res.catalogs[cid] = cat = scan(self.env, cid, cache=self.cache, _walks=res.walks)
            except Exception as exc:  # noqa: BLE001 - one client's bug must not hide the others
                log.warning("scan of %s failed", cid, exc_info=True)
                res.errors[cid] = f"scan failed: {type(exc).__name__}: {exc}"
            else:
                if render:
                    self.sharer.share(cat)
                    self.render_after(cid, cat)
            if self.progress:
                self.progress(i + 1, self.total)

    def render_after(self, cid: str, cat: Catalog, share: bool = False) -> None:
        """``cid``'s listing into ``res.listings`` (without its text unless ``keep_text``);
        ``share``: its values shared first (``ValueSharer.share``)."""
        if share:
            self.sharer.share(cat)
        keep = [cid] if cid == self.keep_text else []
        with away():  # a render has no give-way point inside: the GUI thread does not wait for it
            self.res.listings.update(render_listings({cid: cat}, self.context_tokens, self.res.errors, keep))
            locale_key.cache_clear()  # 10,000 names' sort keys (~3 MB): not kept meanwhile
            release_free_memory()  # the render's transient (its text), before the next client grows


def _scan_first(
    sp: _Pass,
    clients: list[str],
    context_tokens: int | None,
    emit: Callable[[ScanResult], None] | None,
    allow_demo: bool,
    scanned: bool = False,
) -> int:
    """Scan ``clients[0]`` (unless ``scanned``: the caller did, ``_Pass.scan(render=False)``)
    and ``emit`` a partial result twice: its catalog alone (the tree is shown while its listing
    is rendered), then with its listing. Returns how many clients were done."""
    if emit is None or not clients:
        return 0
    res = sp.res
    if not scanned:
        sp.scan(clients[:1], render=False)
    cat = res.catalogs.get(clients[0])
    if cat is None or (allow_demo and not cat.listed()):
        return 1  # nothing worth showing yet (or the demo may replace it)
    part = dataclasses.replace(
        res, catalogs=dict(res.catalogs), errors=dict(res.errors), notes=list(res.notes), listings={}
    )
    tallies.prepare(part.catalogs, {})  # the status bar's counts: not on the GUI thread
    emit(part)
    errors = dict(part.errors)  # the GUI holds ``part.errors`` now: not changed from here
    sp.sharer.share(cat)  # the reference for the other clients' values (after the tree is shown)
    with away():  # no give-way point inside a render
        listings = render_listings(part.catalogs, context_tokens, errors)
        tallies.prepare({}, listings)
    res.listings.update(listings)
    emit(dataclasses.replace(part, listings=listings, errors=errors))
    return 1


def _use_demo(sp: _Pass, clients: list[str]) -> None:
    """Replace ``sp.res`` by a scan of the bundled demo (nothing was listed); a demo that cannot
    be loaded leaves it as it is, with a note saying why."""
    res = sp.res
    ws = res.env.workspace
    try:
        denv = demo.demo_environment()
    except Exception as exc:  # noqa: BLE001 - a broken install: say so in the banner
        log.warning("the bundled demo could not be loaded", exc_info=True)
        res.notes.append(f"No client would list a skill in {ws}: the bundled demo could not be loaded: {exc}")
        return
    res.notes.append(
        f"No client would list a skill in {ws}: showing the bundled demo workspace "
        f"({denv.workspace}). Use File > Open folder to open your own."
    )
    res.env, res.demo, res.catalogs, res.errors, res.listings = denv, True, {}, {}, {}
    res.treatment = res.extra_root = None
    demo.ensure_demo_proposal(denv)  # the Workshop tab has something to review
    res.walks = {}
    dataclasses.replace(sp, env=denv, sharer=ValueSharer()).scan(clients)


def scan_everything(
    env: Environment,
    cache: ParseCache,
    context_tokens: int | None,
    allow_demo: bool,
    clients: Iterable[str] = CLIENT_IDS,
    progress: Progress | None = None,
    emit: Callable[[ScanResult], None] | None = None,
    workspace_mode: str = "auto",
) -> ScanResult:
    """Scan every client (sharing ``cache``) and render every listing (only the first client's
    with its text: the others are ``TextlessReport``s). Runs on a worker thread.

    * ``workspace_mode`` (auto|project|collection, ``discovery.apply_workspace_mode`` on a copy
      of ``env``): a collection of skills is shown as if installed where each client looks,
      with its banner as a note (``ScanResult.treatment``).
    * With ``allow_demo`` (no WORKSPACE argument) and no skill listed by any client, the bundled
      demo is scanned instead, with a note.

    ``progress(done, total)`` counts clients scanned (+1 for the listings). ``emit(result)``, if
    given, receives a partial ``ScanResult`` with only the first client's catalog as soon as it
    is ready (no listing yet), then the same with its listing, so the window shows something
    while the others are scanned (put the current client first in ``clients``); before them,
    when the workspace's treatment has a banner, one without catalogs that carries only the
    ``notes`` (the window shows the banner while the first client is scanned). Never raises for a client's failure (recorded in
    ``ScanResult.errors``); raises ValueError for an unknown ``workspace_mode`` and
    ``workers.Cancelled`` from ``progress`` when the job was cancelled.
    """
    # The cyclic GC stays off for the whole pass and what it built is frozen after it (gc.freeze):
    # otherwise a full collection over the ~450k objects of 9 catalogs of 10,000 skills runs on
    # whichever thread allocates next and holds the GIL ~0.7 s, a freeze of the GUI thread (issue
    # 14). Catalogs form no cycles, so they are still freed by reference counting when replaced.
    held = cache.holding_saves() if isinstance(cache, OverlayParseCache) else contextlib.nullcontext()
    with gc_paused(), held:
        res = _scan_everything(
            env, cache, context_tokens, allow_demo, clients, progress, emit, workspace_mode
        )
        gc.freeze()
    release_free_memory()  # the listings' transients, freed in this thread's arena
    return res


def _scan_everything(
    env: Environment,
    cache: ParseCache,
    context_tokens: int | None,
    allow_demo: bool,
    clients: Iterable[str],
    progress: Progress | None,
    emit: Callable[[ScanResult], None] | None,
    workspace_mode: str,
) -> ScanResult:
    t0 = time.perf_counter()
    env = dataclasses.replace(env, extra_roots=list(env.extra_roots))
    res = ScanResult(env=env)
    clients = list(clients)
    total = len(clients) + 1
    sp = _Pass(env, cache, res, progress, total, context_tokens, clients[0] if clients else None)
    # One stat per path and one listing per folder until the first client is shown: the
    # treatment's search (Claude Code's nested roots) lists every folder of the workspace, and
    # that client's walk then finds them in the cache's ``DirCache`` (issue 14: the window's
    # first scan listed the 10,000-skill tree twice); closed before the tree is shown (the
    # memo's stats would stay alive through the pass).
    with snapshot(dirs=cache.dirs):
        res.treatment = t = apply_workspace_mode(env, workspace_mode)
        if t.mode == "collection":
            res.extra_root = env.workspace
        if t.banner and (t.mode == "collection" or t.requested == "project"):
            res.notes.append(t.banner)
        early = emit is not None and bool(clients)
        if (
            emit is not None and early and res.notes
        ):  # the banner now, not in the first client's turn (issue 14)
            emit(dataclasses.replace(res, catalogs={}, listings={}, errors={}, notes=list(res.notes)))
        if early:
            sp.scan(clients[:1], render=False)
    first = _scan_first(sp, clients, context_tokens, emit, allow_demo, scanned=early)
    if isinstance(cache, OverlayParseCache):
        cache.save_due()  # the tree is shown: write what the first client parsed (fewer objects
        # alive now than at the end of the pass, so the written blob adds less to the peak RSS)
    if first and clients[0] in res.catalogs and clients[0] not in res.listings:
        sp.render_after(clients[0], res.catalogs[clients[0]], share=True)  # not shown early
    sp.scan(clients[first:], offset=first)
    # "No skills" = no client would list any (skills only waiting for a touch, hidden or skipped
    # don't count): e.g. `workbench` run in this repository, whose demo folders hold nested roots.
    if allow_demo and not any(c.listed() for c in res.catalogs.values()):
        _use_demo(sp, clients)
    res.walks.clear()  # the pass's walk memo (~6 MB of ``Found``s at 10,000 skills): done
    if progress:
        progress(total, total)
    res.seconds = time.perf_counter() - t0
    return res
