"""``AppContext``: the one object every widget is given (style.md section 7 habit 14).

It holds the simulated ``Environment``, the current client and context size, the shared
``ParseCache``, the catalogs and listing reports of *all* clients, the selected skill, unsaved
editor buffers (overlays) and the names the chat loaded. Widgets read it and listen to its
signals; they never talk to each other directly.

Scanning runs off the GUI thread (``workers.run_in_background``) with progress; each scan has a
token and a stale result (a newer scan was started) is dropped. Small changes (an editor buffer,
a file changed on disk) are applied incrementally: only the changed files are re-read (the
ParseCache keeps every other file), the catalogs are re-derived and the listings re-rendered,
without a walk on the GUI thread when discovery offers ``refresh`` (see ``_refresh_catalog``).

Core modules built by other engineers are imported lazily through ``core_module`` so the window
opens (with a placeholder saying what is missing) while a module does not exist yet.
"""

from __future__ import annotations

import contextlib
import dataclasses
import importlib
import os
import threading
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from PySide6.QtCore import QObject, QTimer, Signal, Slot

from workbench.app.credentials import Credentials
from workbench.app.settings import Settings
from workbench.app.workers import Job, describe, run_in_background
from workbench.core.model import CLIENT_IDS, Catalog, Environment, Skill

#: How deep ``has_skill_files`` looks for a SKILL.md below a folder (HACKING.md: extra roots are
#: walked up to 8 levels).
_SKILL_WALK_DEPTH = 8
_SKIP_DIRS = {".git", "node_modules"}

_unavailable: dict[str, str] = {}


def core_module(name: str) -> Any | None:
    """Import ``workbench.core.<name>`` (or ``workbench.app.<name>`` when ``name`` starts with
    ``app.``) or return None when it does not exist (yet). Any other import error is kept in
    ``unavailable_reason(name)`` (and also gives None): the GUI shows it instead of crashing."""
    full = f"workbench.app.{name[4:]}" if name.startswith("app.") else f"workbench.core.{name}"
    try:
        return importlib.import_module(full)
    except ModuleNotFoundError as exc:
        if exc.name and (full == exc.name or full.startswith(exc.name + ".")):
            _unavailable[name] = f"{full} is not available yet"
        else:
            _unavailable[name] = f"{full} failed to import: {exc}"
        return None
    except Exception as exc:  # noqa: BLE001 - a broken module must not take the window down
        _unavailable[name] = f"{full} failed to import: {type(exc).__name__}: {exc}"
        return None


def unavailable_reason(name: str) -> str:
    """Why ``core_module(name)`` returned None ("" when it did not)."""
    return _unavailable.get(name, "")


def has_skill_files(folder: Path, max_depth: int = _SKILL_WALK_DEPTH) -> bool:
    """True when some ``SKILL.md`` lies at most ``max_depth`` levels below ``folder``
    (skipping ``.git`` and ``node_modules``, as HACKING.md's extra-root walk does). Stops at the
    first hit."""
    base_depth = len(folder.parts)
    for dirpath, dirnames, filenames in os.walk(folder):
        if "SKILL.md" in filenames and dirpath != str(folder):
            return True
        depth = len(Path(dirpath).parts) - base_depth
        if depth >= max_depth:
            dirnames[:] = []
        else:
            dirnames[:] = [d for d in dirnames if d not in _SKIP_DIRS]
    return False


@dataclass
class ScanResult:
    """What one background scan produced (all clients).

    Attributes:
        env: the environment actually scanned (may differ from the requested one: the demo
            workspace, or the workspace added as an extra root).
        catalogs: client id -> Catalog.
        listings: client id -> ListingReport (missing when listing is unavailable or failed).
        errors: client id -> one-line error (scan or listing failed for that client).
        notes: banner lines for the user (extra root added, demo shown, module missing).
        seconds: wall time of the whole scan.
        demo: True when the bundled demo replaced an empty workspace.
        extra_root: the workspace when it was added as an extra root, else None.
        treatment: how the workspace is shown (``discovery.WorkspaceTreatment``: ``.banner``,
            ``.toggle_label``, ``.other``), or None when discovery is unavailable.
    """

    env: Environment
    catalogs: dict[str, Catalog] = field(default_factory=dict)
    listings: dict[str, Any] = field(default_factory=dict)
    errors: dict[str, str] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    seconds: float = 0.0
    demo: bool = False
    extra_root: Path | None = None
    treatment: Any = None
    walks: dict = field(default_factory=dict, repr=False)  # discovery's walk memo for this pass


def client_roots_in_workspace(env: Environment) -> list[Path]:
    """Existing project-level roots (scope project or nested) of any client inside the
    workspace."""
    clients = core_module("clients")
    out: list[Path] = []
    if clients is None:
        return out
    ws = env.workspace
    for cid in CLIENT_IDS:
        try:
            roots = clients.get_profile(cid).roots(env)
        except Exception:  # noqa: BLE001 - a client not built yet
            continue
        for r in roots:
            if r.exists and r.scope in ("project", "nested") and (r.path == ws or ws in r.path.parents):
                out.append(r.path)
    return out


def workspace_as_root(env: Environment) -> Environment | None:
    """``env`` with the workspace appended to ``extra_roots`` when it holds skill folders but no
    client root (HACKING.md "Extra roots"; ``discovery.workspace_root_candidate`` decides when
    available), else None. Never mutates ``env``."""
    if env.workspace in env.extra_roots:
        return None
    discovery = core_module("discovery")
    if discovery is not None and hasattr(discovery, "workspace_root_candidate"):
        if discovery.workspace_root_candidate(env) is None:
            return None
    elif client_roots_in_workspace(env) or not has_skill_files(env.workspace):
        return None
    return dataclasses.replace(env, extra_roots=[*env.extra_roots, env.workspace])


def demo_environment() -> tuple[Environment | None, str]:
    """(the bundled demo environment or None, a note for the banner)."""
    demo = core_module("demo")
    if demo is None:
        return None, f"the demo workspace is not available: {unavailable_reason('demo')}"
    try:
        denv = demo.demo_environment()
    except Exception as exc:  # noqa: BLE001
        return None, f"the bundled demo could not be loaded: {exc}"
    return (
        denv,
        f"showing the bundled demo workspace ({denv.workspace}). Use File > Open folder to open your own.",
    )


def render_listings(
    catalogs: dict[str, Catalog], context_tokens: int | None, errors: dict[str, str] | None = None
) -> dict[str, Any]:
    """client id -> ListingReport via ``workbench.core.listing.render_listing``; a client whose
    listing fails is left out and its error recorded in ``errors``."""
    listing = core_module("listing")
    out: dict[str, Any] = {}
    if listing is None:
        return out
    for cid, cat in catalogs.items():
        try:
            out[cid] = listing.render_listing(cat, context_tokens, None)
        except Exception as exc:  # noqa: BLE001 - one client's bug must not hide the others
            if errors is not None:
                errors[cid] = f"listing failed: {type(exc).__name__}: {exc}"
    return out


def _scan_first(env, cache, clients, res, progress, total, context_tokens, emit, allow_demo) -> int:
    """Scan ``clients[0]`` and ``emit`` a partial result; returns how many clients were done."""
    if emit is None or not clients:
        return 0
    _scan_clients(env, cache, clients[:1], res, progress, total)
    cat = res.catalogs.get(clients[0])
    if cat is None or (allow_demo and not cat.listed()):
        return 1  # nothing worth showing yet (or the demo may replace it)
    part = dataclasses.replace(
        res, catalogs=dict(res.catalogs), errors=dict(res.errors), notes=list(res.notes)
    )
    part.listings = render_listings(part.catalogs, context_tokens, part.errors)
    res.listings.update(part.listings)
    emit(part)
    return 1


def _scan_clients(
    env: Environment, cache: Any, clients: list[str], res: ScanResult, progress, total: int, offset: int = 0
) -> None:
    discovery: Any = core_module("discovery")
    walks = res.walks
    # identical walks memoised across clients (discovery.scan ``_walks``)
    for i, cid in enumerate(clients, offset):
        try:
            try:
                res.catalogs[cid] = discovery.scan(env, cid, cache=cache, _walks=walks)
            except TypeError:  # a discovery without the walk memo
                res.catalogs[cid] = discovery.scan(env, cid, cache=cache)
        except Exception as exc:  # noqa: BLE001 - a client not built yet or buggy
            res.errors[cid] = f"scan failed: {type(exc).__name__}: {exc}"
        if progress:
            progress(i + 1, total)


def scan_everything(
    env: Environment,
    cache: Any,
    context_tokens: int | None,
    allow_demo: bool,
    clients: Iterable[str] = CLIENT_IDS,
    progress=None,
    emit=None,
    workspace_mode: str = "auto",
) -> ScanResult:
    """Scan every client (sharing ``cache``) and render every listing. Runs on a worker thread.

    * ``workspace_mode`` (auto|project|collection, ``discovery.apply_workspace_mode`` on a copy
      of ``env``): a collection of skills is shown as if installed where each client looks,
      with its banner as a note (``ScanResult.treatment``).
    * With ``allow_demo`` (no WORKSPACE argument) and no skill listed by any client, the bundled
      demo is scanned instead, with a note.

    ``progress(done, total)`` counts clients scanned (+1 for the listings). ``emit(result)``, if
    given, receives a partial ``ScanResult`` with only the first client (catalog + listing) as
    soon as it is ready, so the window shows something while the others are scanned (put the
    current client first in ``clients``). Never raises for a client's failure (recorded in
    ``ScanResult.errors``).
    """
    t0 = time.perf_counter()
    res = ScanResult(env=env)
    discovery = core_module("discovery")
    if discovery is not None and hasattr(discovery, "apply_workspace_mode"):
        res.env = env = dataclasses.replace(env, extra_roots=list(env.extra_roots))
        res.treatment = t = discovery.apply_workspace_mode(env, workspace_mode)
        if t.mode == "collection":
            res.extra_root = env.workspace
        if t.banner and (t.mode == "collection" or t.requested == "project"):
            res.notes.append(t.banner)
    elif (as_root := workspace_as_root(env)) is not None:
        res.env = env = as_root
        res.extra_root = env.workspace
        res.notes.append(
            f"{env.workspace} holds skill folders but no client roots: it is scanned "
            "as an extra root (scope 'extra'), as if installed where each client looks."
        )
    if core_module("discovery") is None:
        res.notes.append(f"Discovery is not available yet ({unavailable_reason('discovery')}).")
        res.seconds = time.perf_counter() - t0
        return res
    clients = list(clients)
    total = len(clients) + 1
    first = _scan_first(env, cache, clients, res, progress, total, context_tokens, emit, allow_demo)
    _scan_clients(env, cache, clients[first:], res, progress, total, offset=first)
    # "No skills" = no client would list any (skills only waiting for a touch, hidden or skipped
    # don't count): e.g. `workbench` run in this repository, whose demo folders hold nested roots.
    if allow_demo and not any(c.listed() for c in res.catalogs.values()):
        denv, note = demo_environment()
        res.notes.append(f"No client would list a skill in {env.workspace}: {note}")
        if denv is not None:
            res.env, res.demo, res.catalogs, res.errors, res.listings = denv, True, {}, {}, {}
            res.treatment = res.extra_root = None
            demo_mod = core_module("demo")
            if demo_mod is not None and hasattr(demo_mod, "ensure_demo_proposal"):
                demo_mod.ensure_demo_proposal(denv)  # the Workshop tab has something to review
            res.walks = {}
            _scan_clients(denv, cache, clients, res, progress, total)
    todo = {c: cat for c, cat in res.catalogs.items() if c not in res.listings}
    res.listings.update(render_listings(todo, context_tokens, res.errors))
    if core_module("listing") is None:
        res.notes.append(f"Listing preview is not available yet ({unavailable_reason('listing')}).")
    if progress:
        progress(total, total)
    res.seconds = time.perf_counter() - t0
    return res


def _make_cache(overlays: dict[str, str]) -> Any:
    """A ``discovery.ParseCache`` that serves unsaved editor buffers (``overlays``: absolute
    path str -> text) instead of the file on disk. None when discovery is unavailable."""
    discovery = core_module("discovery")
    if discovery is None or not hasattr(discovery, "ParseCache"):
        return None
    base = discovery.ParseCache
    from workbench.core.skillfile import parse_skill_text

    class OverlayParseCache(base):  # type: ignore[misc, valid-type]
        """ParseCache + editor overlays: ``get(path)`` parses the buffer when one is applied."""

        def get(self, path, *a, **kw):  # noqa: ANN001 - same signature as the base
            text = overlays.get(str(path))
            if text is not None:
                key = (str(path), hash(text))
                memo = self.__dict__.setdefault("_overlay_memo", {})
                sf = memo.get(key)
                if sf is None:
                    memo.clear() if len(memo) > 64 else None
                    sf = parse_skill_text(text, path)
                    memo[key] = sf
                return sf
            return super().get(path, *a, **kw)

    try:
        # Persistent parse facts (appdirs.cache_dir()): reopening an unchanged tree reads no file.
        return OverlayParseCache(persist=True)
    except Exception:  # noqa: BLE001 - unexpected constructor or unusable cache folder
        return base()


class AppContext(QObject):
    """Shared state of one window. Pass it explicitly to every widget (no globals).

    Signals:
        catalog_changed(): catalogs and/or listings changed (full scan or incremental update).
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

    Attributes:
        settings: the ``Settings``.
        env: the ``Environment`` being shown (after demo/extra-root decisions).
        client_id: current client (``CLIENT_IDS``).
        context_tokens: current context window in tokens.
        cache: the shared ParseCache (with editor overlays), or None without discovery.
        catalogs / listings / errors: per client id (see ``ScanResult``).
        selected_path: the selected SKILL.md (``Path``) or None.
        loaded_names: skill names the chat loaded this session.
        notes: banner lines (extra root, demo, unavailable modules).
        scan_seconds: duration of the last full scan; ``last_update_seconds``: of the last
            incremental update.
        watcher: the ``RootWatcher`` or None (editor: ``with ctx.suppress(path): atomic_write``).
    """

    catalog_changed = Signal()
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
    _files_changed = Signal(list)  # from the watcher thread -> GUI thread

    def __init__(
        self,
        settings: Settings,
        env: Environment | None = None,
        *,
        client_id: str | None = None,
        context_tokens: int | None = None,
        allow_demo: bool = False,
        watch: bool | None = None,
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
        self.cache = _make_cache(self._overlays)
        self.catalogs: dict[str, Catalog] = {}
        self.listings: dict[str, Any] = {}
        self.errors: dict[str, str] = {}
        self.notes: list[str] = []
        self.selected_path: Path | None = None
        self.loaded_names: set[str] = set()
        self.scan_seconds = 0.0
        self.last_update_seconds = 0.0
        self.demo = False
        self.extra_root: Path | None = None
        self.workspace_mode = "auto"  # set_workspace_mode; discovery.WORKSPACE_MODES
        self.treatment: Any = None  # discovery.WorkspaceTreatment of the last scan
        self._allow_demo = allow_demo
        self._job: Job | None = None
        self._scan_token = 0
        self._pending_paths: set[str] = set()
        self._listing_token: int | None = None
        self._lock = threading.Lock()  # guards the cache between a scan job and GUI updates
        self.watch_enabled = settings.get("live_reload") if watch is None else watch
        self.watcher: Any = None
        self._files_changed.connect(self._on_files_changed)
        self._update_timer = QTimer(self)
        self._update_timer.setSingleShot(True)
        self._update_timer.setInterval(15)  # coalesce keystroke bursts; well under 100 ms
        self._update_timer.timeout.connect(self._apply_pending)
        self._others_timer = QTimer(self)
        self._others_timer.setSingleShot(True)
        self._others_timer.setInterval(300)
        self._others_timer.timeout.connect(self._render_others)

    # -- queries --------------------------------------------------------------------------
    @property
    def scanning(self) -> bool:
        return self._job is not None

    def catalog(self, client_id: str | None = None) -> Catalog | None:
        return self.catalogs.get(client_id or self.client_id)

    def listing(self, client_id: str | None = None) -> Any | None:
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
        self.client_id = client_id
        self.settings.set("client", client_id)
        if self._listing_token is not None and client_id in self.catalogs:
            # its listing is being re-rendered in the background: render it now instead
            self.listings = {
                **self.listings,
                **render_listings({client_id: self.catalogs[client_id]}, self.context_tokens, self.errors),
            }
        self.client_changed.emit(client_id)

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
        self._render_others()

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
        self.cache = _make_cache(self._overlays)
        self.selected_path = None
        self.loaded_names.clear()
        self.workspace_changed.emit()
        self.rescan()

    def set_workspace_mode(self, mode: str) -> None:
        """Show the workspace as "project", "collection" or "auto" (``discovery.WORKSPACE_MODES``)
        and rescan: the one-click toggle of the banner (``self.treatment.toggle_label`` selects
        ``self.treatment.other``). Raises ValueError for another mode."""
        if mode not in ("auto", "project", "collection"):
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
        self, env, cache, tokens, allow_demo, clients, mode="auto", progress=None, emit=None
    ) -> ScanResult:
        with self._lock:
            return scan_everything(
                env, cache, tokens, allow_demo, clients, progress=progress, emit=emit, workspace_mode=mode
            )

    @Slot(int, object)
    def _on_partial(self, token: int, res: ScanResult) -> None:
        """The current client is scanned: show it while the others are still being scanned."""
        if token != self._scan_token:
            return
        self.env = res.env
        self.env.context_tokens = self.context_tokens
        self.catalogs, self.listings, self.errors = res.catalogs, res.listings, res.errors
        self.extra_root, self.treatment = res.extra_root, res.treatment
        self._set_notes(res.notes)
        self.catalog_changed.emit()

    def wait_for_scan(self, timeout_ms: int = 60_000) -> bool:
        """Block (processing events) until no scan and no background listing render runs.
        For tests and ``--screenshot``."""
        from PySide6.QtCore import QCoreApplication, QEventLoop

        deadline = time.monotonic() + timeout_ms / 1000
        while (self._job is not None or self._listing_token is not None) and time.monotonic() < deadline:
            QCoreApplication.processEvents(QEventLoop.ProcessEventsFlag.AllEvents, 50)
            if self._job is not None:
                self._job.done.wait(0.01)
            else:
                time.sleep(0.005)
        return self._job is None and self._listing_token is None

    @Slot(int, int, int)
    def _on_progress(self, token: int, done: int, total: int) -> None:
        if token == self._scan_token:
            self.scan_progress.emit(done, total)

    @Slot(int, object)
    def _on_scanned(self, token: int, res: ScanResult) -> None:
        if token != self._scan_token:
            return  # stale: a newer scan was started
        self._job = None
        self._listing_token = None
        self._others_timer.stop()
        self.env = res.env
        self.env.context_tokens = self.context_tokens
        self.catalogs, self.listings, self.errors = res.catalogs, res.listings, res.errors
        self.demo, self.extra_root, self.treatment = res.demo, res.extra_root, res.treatment
        self.scan_seconds = res.seconds
        self._set_notes(res.notes)
        self.catalog_changed.emit()
        self.scan_finished.emit(res.seconds)
        self._start_watcher()
        if self._pending_paths or self._overlays:
            self._pending_paths |= set(self._overlays)
            self._update_timer.start()

    @Slot(int, str)
    def _on_scan_error(self, token: int, exc: BaseException) -> None:
        if token != self._scan_token:
            return
        self._job = None
        self.scan_failed.emit(describe(exc))

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
        if self._others_timer.isActive():
            self._others_timer.stop()
            self._render_others()

    def _apply_pending(self) -> None:
        """Re-derive the catalogs for the pending paths (no walk), re-render the current
        client's listing now and the other clients' listings on a worker."""
        if self._job is not None or not self._pending_paths:
            return
        paths = {Path(p) for p in self._pending_paths}
        self._pending_paths.clear()
        t0 = time.perf_counter()
        known = {s.path for cat in self.catalogs.values() for s in cat.skills}
        if not paths <= known or any(str(p) not in self._overlays and not p.exists() for p in paths):
            self.rescan()  # a file no client has seen (new/moved) or a deleted one: walk again
            return
        if self.cache is not None:  # read each changed file once for all clients
            for p in paths:
                self.cache.invalidate(p)
                self.cache.get(p)
        catalogs = dict(self.catalogs)
        for cid, cat in self.catalogs.items():
            mine = {s.path for s in cat.skills} & paths
            if not mine:
                continue
            try:
                new = _refresh_catalog(cat, mine, self.cache)
            except Exception as exc:  # noqa: BLE001 - fall back to a full scan
                self.errors[cid] = f"update failed: {type(exc).__name__}: {exc}"
                new = None
            if new is None:
                self.rescan()
                return
            catalogs[cid] = new
        self.catalogs = catalogs
        listings = dict(self.listings)
        cur = {self.client_id: catalogs[self.client_id]} if self.client_id in catalogs else {}
        listings.update(render_listings(cur, self.context_tokens, self.errors))
        self.listings = listings
        self.last_update_seconds = time.perf_counter() - t0
        self.catalog_changed.emit()
        # The other clients' listings are only seen in the all-clients view: re-render them once
        # the edits pause, so a typing burst does not keep a worker busy (and the GIL taken).
        self._listing_token = -1  # pending (listings_pending is True until they are rendered)
        self._others_timer.start()

    def _render_others(self) -> None:
        """Re-render every client's listing but the current one on a worker thread."""
        self._others_timer.stop()
        others = {c: cat for c, cat in self.catalogs.items() if c != self.client_id}
        self._listing_token = None
        if others:
            job = run_in_background(
                render_listings, others, self.context_tokens, connect={"returned": self._on_other_listings}
            )
            self._listing_token = job.token

    @property
    def listings_pending(self) -> bool:
        """True while other clients' listings are being re-rendered in the background."""
        return self._listing_token is not None

    @Slot(int, object)
    def _on_other_listings(self, token: int, listings: dict) -> None:
        if token != self._listing_token:
            return
        self._listing_token = None
        # Only keep results rendered from the catalogs still current.
        merged = dict(self.listings)
        merged.update({c: r for c, r in listings.items() if c != self.client_id})
        self.listings = merged
        self.catalog_changed.emit()

    # -- live reload ----------------------------------------------------------------------
    def _start_watcher(self) -> None:
        if not self.watch_enabled:
            return
        watch = core_module("watch")
        if watch is None:
            return
        roots = self.all_roots()
        try:
            if self.watcher is None:
                self.watcher = watch.RootWatcher(roots, self._from_watcher_thread)
            else:
                self.watcher.update_paths(roots)
        except Exception as exc:  # noqa: BLE001 - e.g. inotify limit: keep working without it
            self._set_notes([*self.notes, f"Live reload is off: {exc}"])

    def _from_watcher_thread(self, batch: list[tuple[str, str]]) -> None:
        self._files_changed.emit(list(batch))  # queued to the GUI thread

    @Slot(list)
    def _on_files_changed(self, batch: list) -> None:
        paths = []
        for _kind, p in batch:
            pp = Path(p)
            paths.append(pp if pp.name == "SKILL.md" else _skill_md_for(pp))
        self.refresh_paths([p for p in paths if p is not None])

    @contextlib.contextmanager
    def suppress(self, path: Path | str) -> Iterator[None]:
        """Wrap the app's own save of ``path`` so the watcher does not reload it."""
        if self.watcher is not None:
            with self.watcher.suppress(path):
                yield
        else:
            yield

    def shutdown(self) -> None:
        """Stop the watcher and drop the running scan (window close)."""
        if self._job is not None:
            self._job.cancel()
            self._job.done.wait(10)
            self._job = None
        if self.watcher is not None:
            try:
                self.watcher.stop()
            finally:
                self.watcher = None


def _skill_md_for(path: Path) -> Path | None:
    """The SKILL.md a support file belongs to (nearest ancestor folder holding one)."""
    for folder in list(path.parents)[:12]:
        cand = folder / "SKILL.md"
        if cand.is_file():
            return cand
    return None


def _refresh_catalog(cat: Catalog, paths: set[Path], cache: Any) -> Catalog | None:
    """A new Catalog for ``cat.client`` with ``paths`` re-read; None = "do a full rescan"
    (a path this catalog does not know: a new or moved file). The caller refreshes ``cache``
    for ``paths`` first (``AppContext._apply_pending`` reads each changed file once).

    Prefers ``discovery.refresh(catalog, paths, cache=...)`` when discovery offers it. Otherwise
    re-derives, without walking any folder, only the skills that can change: those at ``paths``
    and every skill sharing a name with them (before or after the change), following
    ``discovery.scan`` steps 3-6 (read the client's way, namespace, gate, collisions) on fresh
    ``Skill`` objects. Collision rules group by name, so resolving them on that subset gives the
    same result as on the whole catalog. The old catalog is never mutated (a worker may be
    rendering it). Walk-level skips (too deep, skipped folder) depend only on the path, so a
    skill skipped by the walk stays skipped.

    Decision: this mirrors discovery.scan's per-file steps (app layer, because discovery.py is
    not ours); if discovery grows ``refresh``, it is used instead.
    """
    discovery = core_module("discovery")
    if discovery is None:
        return None
    fn = getattr(discovery, "refresh", None)
    if fn is not None:
        return fn(cat, paths, cache=cache)
    from workbench.core.clients import get_profile

    profile = get_profile(cat.client)
    changed = [i for i, s in enumerate(cat.skills) if s.path in paths]
    if len({cat.skills[i].path for i in changed}) != len(paths):
        return None  # a file this catalog has not seen (new, or moved)
    env = cat.env
    fresh: dict[int, Skill] = {}
    for i in changed:
        fresh[i] = _reread(profile, cat.skills[i], cache.get(cat.skills[i].path) if cache else None, env)
    names = {_base_name(cat.skills[i]) for i in changed} | {_base_name(s) for s in fresh.values()}
    group = [i for i, s in enumerate(cat.skills) if _base_name(s) in names]
    for i in group:
        if i not in fresh:  # unchanged file: its parse is still valid (no stat, no read)
            fresh[i] = _reread(profile, cat.skills[i], cat.skills[i].file, env)
    subset = [fresh[i] for i in sorted(fresh)]
    profile.resolve_collisions(subset, env)
    skills = list(cat.skills)
    for i, s in fresh.items():
        skills[i] = s
    return dataclasses.replace(cat, skills=skills)


def _base_name(s: Skill) -> str:
    return s.flags.get("unscoped_name", s.name)


def _reread(profile: Any, old: Skill, sf: Any, env: Environment) -> Skill:
    """A fresh Skill for ``old.path`` from its parsed file ``sf`` (discovery.scan steps 3-5 for
    one file; ``sf`` None = read it now)."""
    from workbench.core.clients.base import Found
    from workbench.core.clients.common import best_name
    from workbench.core.discovery import read_name

    if sf is None:
        from workbench.core.skillfile import read_skill_file

        sf = read_skill_file(old.path)
    root = old.root
    sk = Skill(path=old.path, root=root, name="", file=sf, depth=old.depth)
    if not root.verified:
        sk.unverified.append(f"root {root.label or root.path} is unverified ({root.note})")
    # Dedupe-shadowed (same real file) and walk-skipped skills keep their verdict.
    if old.status == "shadowed" and "deduplicated by real path" in old.reason:
        return dataclasses.replace(old, file=sf, flags=dict(old.flags), unverified=list(old.unverified))
    found = Found(path=old.path, depth=old.depth)
    if old.status == "skipped" and old.file is not None:
        try:
            walk_skip = profile.read(old.file, found, root, env).ok
        except Exception:  # noqa: BLE001
            walk_skip = False
        if walk_skip:
            return dataclasses.replace(
                old,
                file=sf,
                name=best_name(sf, old.path),
                flags=dict(old.flags),
                unverified=list(old.unverified),
            )
    try:
        rr = profile.read(sf, found, root, env)
    except Exception as exc:  # noqa: BLE001 - a profile bug must not lose the file
        sk.name = best_name(sf, old.path)
        sk.status, sk.reason, sk.parse_mode = "skipped", f"internal error reading: {exc!r}", "failed"
        return sk
    sk.name = read_name(rr, sf, old.path)
    if rr.ok and root.namespace:
        sk.name = f"{root.namespace}:{sk.name}"
    sk.description, sk.when_to_use, sk.fields = rr.description, rr.when_to_use, rr.fields
    sk.parse_mode, sk.parse_note = rr.mode, rr.note
    sk.unverified.extend(u for u in rr.unverified if u not in sk.unverified)
    if not rr.ok:
        sk.status, sk.reason = "skipped", rr.reason or "skipped by the client"
        return sk
    if not root.active:
        sk.status = (
            profile.inactive_status(root, env) if hasattr(profile, "inactive_status") else "conditional"
        )
        sk.reason = root.condition or "its root is not active"
        return sk
    g = profile.gate(sk, env)
    if g:
        sk.status, sk.reason = g
    else:
        sk.status, sk.reason = "listed", rr.note or "frontmatter read normally"
    return sk
