"""``AppContext``: the one object every widget is given (style.md section 7 habit 14).

It holds the simulated ``Environment``, the current client and context size, the shared
``ParseCache``, the catalogs and listing reports of *all* clients, the selected skill, unsaved
editor buffers (overlays) and the names the chat loaded. Widgets read it and listen to its
signals; they never talk to each other directly.

The work lives elsewhere; the context keeps Qt state, signals and stale tokens:

* the full scan pass (``app/scanpass.scan_everything``) runs off the GUI thread
  (``workers.run_in_background``) with progress; each scan has a token and a stale result (a
  newer scan was started) is dropped;
* small changes (an editor buffer, a file changed on disk) go through
  ``rediscover.refresh_all``: only the changed files are re-read (the ParseCache keeps every
  other file) and the catalogs re-derived without a walk; the current client's listing is
  re-rendered at once, the others' on a worker once the edits pause.

Failures are logged (``logging.getLogger(__name__)``) and shown: per-client errors in
``errors``, everything else as a banner line (``notes``) or ``scan_failed``.
"""

from __future__ import annotations

import contextlib
import dataclasses
import logging
import threading
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, QTimer, Signal, Slot

from workbench.app.credentials import Credentials
from workbench.app.listingrenders import ListingRenders
from workbench.app.livereload import LiveReload
from workbench.app.scanpass import (
    OverlayParseCache,
    Progress,
    ScanResult,
    TextlessReport,
    make_parse_cache,
    render_listings,
    scan_everything,
    without_text,
)
from workbench.app.settings import Settings
from workbench.app.turns import LoopTurns
from workbench.app.workers import Cancelled, Job, describe, run_in_background
from workbench.core.discovery import WORKSPACE_MODES, WorkspaceTreatment
from workbench.core.listing import ListingReport
from workbench.core.model import CLIENT_IDS, Catalog, Environment, Skill
from workbench.core.rediscover import refresh_all

if TYPE_CHECKING:
    from workbench.core.parsepool import ParsePool
    from workbench.core.watch import RootWatcher

__all__ = ["AppContext", "ScanResult"]

log = logging.getLogger(__name__)

#: Seconds the scan job waits, after handing the first client to the GUI, for the GUI to show it
#: before it scans the others (``AppContext._on_partial`` ends the wait; issue 14).
PARTIAL_WAIT_S = 2.0


class AppContext(QObject):
    """Shared state of one window. Pass it explicitly to every widget (no globals).

    Signals:
        catalog_changed(): catalogs and/or listings changed (full scan or incremental update).
        listing_changed(): only listings changed (a background render: the shown client's text,
            the other clients' listings); the catalogs are the same objects.
        client_changed(str): the current client id.
        context_changed(int): the context size in tokens.
        skill_selected(object): the selected SKILL.md path (``Path``) or None.
        scan_started(): a background scan began.
        scan_progress(int, int): done, total.
        scan_finished(float): seconds the scan took (after ``catalog_changed``).
        scan_failed(str): message.
        loaded_changed(): the set of chat-loaded skill names changed.
        notes_changed(): ``notes`` (banner lines) changed.
        workspace_changed(): a new environment was opened.
        problem(str): a failure the user should see, one line (also logged); the window shows
            it in the status bar.

    Attributes:
        settings: the ``Settings``.
        env: the ``Environment`` being shown (after demo/extra-root decisions).
        client_id: current client (``CLIENT_IDS``).
        context_tokens: current context window in tokens.
        cache: the shared ``scanpass.OverlayParseCache`` (serves unsaved editor buffers).
        catalogs / listings / errors: per client id (see ``ScanResult``).
        selected_path: the selected SKILL.md (``Path``) or None.
        loaded_names: skill names the chat loaded this session.
        notes: banner lines (collection banner, demo, live reload off, failed updates).
        scan_seconds: duration of the last full scan; ``last_update_seconds``: of the last
            incremental update.
        watcher: the ``RootWatcher`` or None (editor: ``with ctx.suppress(path): atomic_write``).
    """

    catalog_changed = Signal()
    listing_changed = Signal()
    client_changed = Signal(str)
    context_changed = Signal(int)
    skill_selected = Signal(object)
    scan_started = Signal()
    scan_progress = Signal(int, int)
    scan_finished = Signal(float)
    scan_failed = Signal(str)
    loaded_changed = Signal()
    notes_changed = Signal()
    workspace_changed = Signal()
    problem = Signal(str)

    def __init__(
        self,
        settings: Settings,
        env: Environment | None = None,
        *,
        client_id: str | None = None,
        context_tokens: int | None = None,
        allow_demo: bool = False,
        watch: bool | None = None,
        parse_pool: ParsePool | None = None,
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self.settings = settings
        self.credentials = Credentials(parent=self)  # the API key service (app/credentials.py)
        cid = client_id or settings.get("client")
        self.client_id = cid if cid in CLIENT_IDS else CLIENT_IDS[0]
        self.context_tokens = int(context_tokens or settings.get("context_tokens") or 200_000)
        self.env = env or Environment(workspace=Path.cwd())
        self.env.context_tokens = self.context_tokens
        self._overlays: dict[str, str] = {}
        self.cache: OverlayParseCache = make_parse_cache(self._overlays)
        # processes forked at start-up (``core.parsepool``): the first scan parses there
        self._parse_pool = parse_pool
        if parse_pool is not None:
            self.cache.pool = parse_pool.blobs
        self.catalogs: dict[str, Catalog] = {}
        self.listings: dict[str, ListingReport] = {}
        self.errors: dict[str, str] = {}
        self.notes: list[str] = []
        self.selected_path: Path | None = None
        self.loaded_names: set[str] = set()
        self.scan_seconds = 0.0
        self.last_update_seconds = 0.0
        self.demo = False
        self.extra_root: Path | None = None
        self.workspace_mode = "auto"  # set_workspace_mode; discovery.WORKSPACE_MODES
        self.treatment: WorkspaceTreatment | None = None  # of the last scan
        self._allow_demo = allow_demo
        self._job: Job | None = None
        self._scan_token = 0
        self._pending_paths: set[str] = set()
        self._lock = threading.Lock()  # guards the cache between a scan job and GUI updates
        self._partial_shown = threading.Event()  # set once the GUI has shown a partial result
        self._turns = LoopTurns(self)  # idle calls and the scan's give-way gate
        self.watch_enabled = bool(settings.get("live_reload") if watch is None else watch)
        self._live = LiveReload(self.refresh_paths, self)  # the file watcher (``watcher``)
        self._update_timer = QTimer(self)
        self._update_timer.setSingleShot(True)
        self._update_timer.setInterval(15)  # coalesce keystroke bursts; well under 100 ms
        self._update_timer.timeout.connect(self._apply_pending)
        self._renders = ListingRenders(self)  # listings rendered on worker threads

    # -- queries --------------------------------------------------------------------------
    @property
    def scanning(self) -> bool:
        return self._job is not None

    def catalog(self, client_id: str | None = None) -> Catalog | None:
        return self.catalogs.get(client_id or self.client_id)

    def listing(self, client_id: str | None = None) -> ListingReport | None:
        return self.listings.get(client_id or self.client_id)

    def skill(self, path: Path | None = None, client_id: str | None = None) -> Skill | None:
        """The Skill at ``path`` (default: the selected one) as ``client_id`` sees it."""
        path = path if path is not None else self.selected_path
        cat = self.catalog(client_id)
        if path is None or cat is None:
            return None
        for s in cat.skills:
            if s.path == path:
                return s
        return None

    def all_roots(self) -> list[Path]:
        """Every existing root of every client, plus the workspace (for the watcher)."""
        seen: dict[Path, None] = {}
        for cat in self.catalogs.values():
            for r in cat.roots:
                if r.exists:
                    seen.setdefault(r.path, None)
        # A root inside another root is covered by the recursive watch of its parent.
        paths = sorted(seen)
        out = [p for p in paths if not any(q != p and q in p.parents for q in paths)]
        if self.env.workspace.is_dir() and not any(
            q == self.env.workspace or q in self.env.workspace.parents for q in out
        ):
            out = [p for p in out if self.env.workspace not in p.parents] + [self.env.workspace]
        return out

    # -- commands -------------------------------------------------------------------------
    def set_client(self, client_id: str) -> None:
        """Switch the shown client (emits ``client_changed``; remembered in settings)."""
        if client_id not in CLIENT_IDS or client_id == self.client_id:
            return
        old = self.listings.get(self.client_id)
        if old is not None and not isinstance(old, TextlessReport):
            # only the shown client's listing keeps its text (issue 14: memory)
            self.listings = {**self.listings, self.client_id: without_text(old)}
        self.client_id = client_id
        self.settings.set("client", client_id)
        self.client_changed.emit(client_id)
        self._renders.ensure_text()

    def set_context_tokens(self, tokens: int) -> None:
        """Change the context window (tokens > 0); re-renders every listing synchronously
        (rendering is cheap; no rescan)."""
        tokens = int(tokens)
        if tokens <= 0 or tokens == self.context_tokens:
            return
        self.context_tokens = tokens
        self.env.context_tokens = tokens
        self.settings.set("context_tokens", tokens)
        self.errors = {k: v for k, v in self.errors.items() if not v.startswith("listing")}
        cur = {self.client_id: self.catalogs[self.client_id]} if self.client_id in self.catalogs else {}
        self.listings = {**self.listings, **render_listings(cur, tokens, self.errors)}
        self.context_changed.emit(tokens)
        self.catalog_changed.emit()
        self._renders.render_others()

    def select_skill(self, path: Path | str | None) -> None:
        p = Path(path) if path is not None else None
        if p == self.selected_path:
            return
        self.selected_path = p
        self.skill_selected.emit(p)

    @Slot(list)
    def mark_loaded(self, names: Iterable[str]) -> None:
        """Mark skills the chat loaded (adds to ``loaded_names``; emits ``loaded_changed``)."""
        new = set(names) - self.loaded_names
        if new:
            self.loaded_names |= new
            self.loaded_changed.emit()

    def clear_loaded(self) -> None:
        if self.loaded_names:
            self.loaded_names.clear()
            self.loaded_changed.emit()

    def open_workspace(self, env: Environment, allow_demo: bool = False) -> None:
        """Open another environment: forget catalogs and overlays, rescan."""
        self.env = env
        self.env.context_tokens = self.context_tokens
        self._allow_demo = allow_demo
        self._overlays.clear()
        self.cache = make_parse_cache(self._overlays)
        self.selected_path = None
        self.loaded_names.clear()
        self.workspace_changed.emit()
        self.rescan()

    def set_workspace_mode(self, mode: str) -> None:
        """Show the workspace as "project", "collection" or "auto" (``discovery.WORKSPACE_MODES``)
        and rescan: the one-click toggle of the banner (``self.treatment.toggle_label`` selects
        ``self.treatment.other``). Raises ValueError for another mode."""
        if mode not in WORKSPACE_MODES:
            raise ValueError(f"workspace mode {mode!r}: expected auto, project or collection")
        self.workspace_mode = mode
        if self.env.collection:  # undo the previous treatment; the scan applies the new one
            ws = self.env.workspace
            self.env = dataclasses.replace(
                self.env, collection=False, extra_roots=[r for r in self.env.extra_roots if r != ws]
            )
            self.env.context_tokens = self.context_tokens
        self.rescan()

    def rescan(self) -> None:
        """Scan every client in the background. A running scan's result becomes stale."""
        if self._job is not None:
            self._job.cancel()
            self._partial_shown.set()
        self._turns.baton.reset()  # unattended until the first partial is shown (``_on_partial``)
        env = self.env
        clients = [self.client_id] + [c for c in CLIENT_IDS if c != self.client_id]
        job = run_in_background(
            self._locked_scan,
            env,
            self.cache,
            self.context_tokens,
            self._allow_demo,
            clients,
            self.workspace_mode,
            progress=True,
            yields=True,
            connect={
                "progress": self._on_progress,
                "yielded": self._on_partial,
                "returned": self._on_scanned,
                "errored": self._on_scan_error,
            },
        )
        self._job = job
        self._scan_token = job.token
        self.scan_started.emit()

    def _locked_scan(
        self,
        env: Environment,
        cache: OverlayParseCache,
        tokens: int,
        allow_demo: bool,
        clients: list[str],
        mode: str = "auto",
        progress: Progress | None = None,
        emit: Callable[[ScanResult], None] | None = None,
    ) -> ScanResult:

        pool = self._parse_pool

        def emit_and_wait(part: ScanResult) -> None:
            # The GUI shows the first client before the others are scanned: while it fills the
            # tree and the listing, this thread leaves it the GIL (issue 14: sharing it made the
            # GUI thread's first block 3x longer). Bounded: a busy GUI only delays the rest.
            assert emit is not None
            if not part.catalogs:  # the treatment's banner before the first client: no wait
                emit(part)
                return
            if pool is not None:
                pool.release()  # the first client is scanned: its speculative results served
            self._partial_shown.clear()
            emit(part)
            with self._turns.baton.away():  # the GUI thread does not wait for this one meanwhile
                self._partial_shown.wait(PARTIAL_WAIT_S)

        # the pass runs in slices between the GUI thread's turns (``LoopTurns.baton``; issue 14:
        # no GUI-thread block over 50 ms)
        with self._lock, self._turns.baton.applied():
            if pool is not None:  # the start-up walk's folder listings: not listed again
                cache.dirs.adopt(pool.listings())
            return scan_everything(
                env,
                cache,
                tokens,
                allow_demo,
                clients,
                progress=progress,
                emit=emit_and_wait if emit is not None else None,
                workspace_mode=mode,
            )

    @Slot(int, object)
    def _on_partial(self, token: int, res: ScanResult) -> None:
        """The current client is scanned: show it while the others are still being scanned
        (the scan job waits until the panes have shown it: the end of the wait is queued behind
        their own deferred work, ``PARTIAL_WAIT_S`` at most)."""
        try:
            if token != self._scan_token:
                return
            if not res.catalogs:  # only the workspace's banner (``scan_everything``'s first emit)
                self._set_notes(res.notes)
                return
            self.env = res.env
            self.env.context_tokens = self.context_tokens
            self.catalogs, self.listings, self.errors = res.catalogs, res.listings, res.errors
            self.extra_root, self.treatment = res.extra_root, res.treatment
            self._set_notes(res.notes)
            self.catalog_changed.emit()
            self._turns.when_idle(self._partial_shown.set)  # after every turn the panes queued
            # From now on the job runs in slices between the GUI's turns (before, the window had
            # nothing to show: the first client is scanned at full speed).
            self._turns.start_slicing()
        finally:
            if token != self._scan_token or not self.catalogs:
                self._partial_shown.set()

    def wait_for_scan(self, timeout_ms: int = 60_000) -> bool:
        """Block (processing events) until no scan and no background listing render runs.
        For tests and ``--screenshot``."""
        from PySide6.QtCore import QCoreApplication, QEventLoop

        deadline = time.monotonic() + timeout_ms / 1000
        while (self._job is not None or self.listings_pending) and time.monotonic() < deadline:
            QCoreApplication.processEvents(QEventLoop.ProcessEventsFlag.AllEvents, 50)
            self._turns.run_idle()  # processEvents never blocks: no ``aboutToBlock``
            if self._job is not None:
                if not self._turns.baton.run_slice():  # its turns: no timer tick is waited for
                    self._job.done.wait(0.005)
            else:
                time.sleep(0.005)
        return self._job is None and not self.listings_pending

    @Slot(int, int, int)
    def _on_progress(self, token: int, done: int, total: int) -> None:
        if token == self._scan_token:
            self.scan_progress.emit(done, total)

    @Slot(int, object)
    def _on_scanned(self, token: int, res: ScanResult) -> None:
        if token != self._scan_token:
            return  # stale: a newer scan was started
        self._job = None
        self._turns.stop_slicing()
        self._renders.drop_others()
        self.env = res.env
        self.env.context_tokens = self.context_tokens
        self.catalogs, self.listings, self.errors = res.catalogs, res.listings, res.errors
        self.demo, self.extra_root, self.treatment = res.demo, res.extra_root, res.treatment
        self.scan_seconds = res.seconds
        self._end_parse_pool()
        self._set_notes(res.notes)
        self.catalog_changed.emit()
        self.scan_finished.emit(res.seconds)
        self._renders.ensure_text()  # switched during the scan: its listing came without text
        self._start_watcher()
        if self._pending_paths or self._overlays:
            self._pending_paths |= set(self._overlays)
            self._update_timer.start()

    def _on_scan_error(self, token: int, error: BaseException) -> None:
        """The scan job failed (``error``: its exception): logged, and
        ``scan_failed`` tells the window (a cancelled job says nothing)."""
        if token != self._scan_token:
            return
        self._job = None
        self._turns.stop_slicing()
        self._end_parse_pool()
        line = describe(error)
        if line == "cancelled" or isinstance(error, Cancelled):
            return
        log.warning("scan of %s failed: %s", self.env.workspace, error)
        self.scan_failed.emit(line)

    def _end_parse_pool(self) -> None:
        """The start-up parse pool served the first scan: end its processes (later scans parse
        in this process: they read few files, or fork a pool of their own when they may)."""
        pool, self._parse_pool = self._parse_pool, None
        if pool is not None:
            self.cache.pool = None
            pool.shutdown()

    def _set_notes(self, notes: list[str]) -> None:
        if notes != self.notes:
            self.notes = list(notes)
            self.notes_changed.emit()

    # -- incremental updates --------------------------------------------------------------
    def apply_buffer(self, path: Path | str, text: str | None) -> None:
        """Overlay an unsaved editor buffer for ``path`` (None removes the overlay, e.g. after
        save or close). The tree, details and listings update shortly after (coalesced over
        ~15 ms), re-reading only this file."""
        key = str(Path(path).absolute())
        if text is None:
            if self._overlays.pop(key, None) is None:
                return
        else:
            if self._overlays.get(key) == text:
                return
            self._overlays[key] = text
        self.refresh_paths([key])

    def has_overlay(self, path: Path | str) -> bool:
        return str(Path(path).absolute()) in self._overlays

    def refresh_paths(self, paths: Iterable[Path | str]) -> None:
        """Re-read these SKILL.md files (changed on disk or in the editor) and update every
        catalog and listing; coalesced on a short timer, deferred while a full scan runs."""
        self._pending_paths |= {str(p) for p in paths}
        if self._job is None:
            self._update_timer.start()

    def flush_updates(self) -> None:
        """Apply pending incremental updates now (tests, screenshots); the other clients'
        listings are then re-rendered in the background (see ``wait_for_scan``)."""
        if self._update_timer.isActive():
            self._update_timer.stop()
            self._apply_pending()
        self._renders.flush()

    def _apply_pending(self) -> None:
        """Re-derive the catalogs for the pending paths (no walk), re-render the current
        client's listing now and the other clients' listings on a worker."""
        if self._job is not None or not self._pending_paths:
            return
        paths = {Path(p) for p in self._pending_paths}
        self._pending_paths.clear()
        t0 = time.perf_counter()
        try:
            catalogs = refresh_all(self.catalogs, paths, self.cache, buffers=self._overlays.keys())
        except Exception as exc:  # noqa: BLE001 - a client bug: a full scan gives the right answer
            log.warning("incremental update of %s failed; rescanning", sorted(map(str, paths)), exc_info=True)
            self.problem.emit(f"Update failed, rescanning: {type(exc).__name__}: {exc}")
            catalogs = None
        if catalogs is None:  # a file no client has seen (new/moved), a deleted one, or a failure
            self.rescan()
            return
        self.catalogs = catalogs
        listings = dict(self.listings)
        cur = {self.client_id: catalogs[self.client_id]} if self.client_id in catalogs else {}
        listings.update(render_listings(cur, self.context_tokens, self.errors))
        self.listings = listings
        self.last_update_seconds = time.perf_counter() - t0
        self.catalog_changed.emit()
        # The other clients' listings are only seen in the all-clients view: re-render them once
        # the edits pause, so a typing burst does not keep a worker busy (and the GIL taken).
        self._renders.others_due()

    @property
    def listings_pending(self) -> bool:
        """True while other clients' listings (or the shown client's text) are being rendered
        in the background."""
        return self._renders.pending

    # -- live reload ----------------------------------------------------------------------
    @property
    def watcher(self) -> RootWatcher | None:
        """The running file watcher, or None (``app/livereload``)."""
        return self._live.watcher

    def _start_watcher(self) -> None:
        if self.watch_enabled:
            off = self._live.watch(self.all_roots())
            if off:
                self._set_notes([*self.notes, off])

    def suppress(self, path: Path | str) -> contextlib.AbstractContextManager[None]:
        """Wrap the app's own save of ``path`` so the watcher does not reload it."""
        return self._live.suppress(path)

    def shutdown(self) -> None:
        """Stop the watcher and drop the running scan (window close)."""
        self._turns.close()  # a job waiting for its turn goes on (to see the cancel)
        if self._job is not None:
            self._job.cancel()
            self._partial_shown.set()  # a job waiting for the GUI goes on to see the cancel
            self._job.done.wait(10)
            self._job = None
        self._end_parse_pool()
        self._live.stop()
