"""Watch skill roots for changes: watchfiles in one worker thread, batches of skill-file events.

``RootWatcher`` runs ``watchfiles.watch`` in a daemon thread (stopped through a
``threading.Event``) and calls its listeners with debounced batches of ``(change, path)`` where
``change`` is ``"added" | "modified" | "deleted"`` and ``path`` an absolute ``str``. Listeners are
called **on the worker thread**; a Qt caller must hop to the GUI thread itself (e.g. by emitting
a signal).

Only skill files are reported (see ``is_skill_file``): every ``SKILL.md`` and every file inside a
folder that holds a ``SKILL.md`` (the skill's support files: references, scripts, assets), at any
depth below that folder. watchfiles' ``DefaultFilter`` already drops ``.git``, ``__pycache__``,
``node_modules``, ``.venv`` and editor swap/backup files; the temporary files of
``workbench.core.safefile.atomic_write`` (``.NAME.xxxx.tmp``) are dropped too.

The app's own saves: wrap them in ``with watcher.suppress(path): atomic_write(...)``. On exit the
watcher records the file's new sha256; any later event for that path whose content still has that
hash is dropped (watchfiles delivers events up to ``debounce_ms`` after the write, so a plain
"ignore while saving" window would be too short). The entry is forgotten as soon as an event shows
different content. ``expect(path, sha256)`` registers a hash directly.

This follows the recommendation in ``../shared/reference/style.md`` §6 "Watching files" (watchfiles
in a worker with a ``threading.Event``) and §7.11 (Frescobaldi ``documentwatcher.py::whileSaving``,
re-done here as a content-hash registry).

Decisions (the brief was silent):
  * Within one batch, a path that was both deleted and added (an atomic rename over it) is
    reported once as ``"modified"``; a rename over an existing file alone shows as ``"added"`` —
    consumers should treat "added" for a path they already know as a modification.
  * Paths that do not exist are skipped when the watcher starts (a missing root is not an error;
    ``update_paths`` can add it once created).
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
import os
import threading
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path

import watchfiles

from workbench.core.skillwalk import walk_tree

log = logging.getLogger(__name__)

#: One event: (change, absolute path). change is "added" | "modified" | "deleted".
Change = tuple[str, str]
Listener = Callable[[list[Change]], None]
#: One raw watchfiles event: (watchfiles.Change, path).
RawChange = tuple[watchfiles.Change, str]

SKILL_FILE = "SKILL.md"
_CHANGE_NAMES = {
    watchfiles.Change.added: "added",
    watchfiles.Change.modified: "modified",
    watchfiles.Change.deleted: "deleted",
}


def _is_temp(name: str) -> bool:
    """atomic_write's temp names look like ``.SKILL.md.k2j3h4.tmp``."""
    return name.startswith(".") and name.endswith(".tmp")


def is_skill_file(path: str | Path, roots: Iterable[str | Path] = ()) -> bool:
    """True for a ``SKILL.md`` (exact case, as every client spells it) or a file inside a skill.

    "Inside a skill": some ancestor folder, below or equal to the first matching root, holds a
    ``SKILL.md``. Without roots the walk goes up to the filesystem root (at most 12 levels).
    Deleted support files cannot be placed by their own existence, but their folder is checked
    the same way, so a deleted ``references/x.md`` of a live skill is still reported.
    """
    p = Path(path)
    if p.name == SKILL_FILE:
        return True
    if _is_temp(p.name):
        return False
    stop: Path | None = None
    for r in roots:
        rp = Path(r)
        if p == rp or rp in p.parents:
            stop = rp
            break
    for i, folder in enumerate(p.parents):
        if i >= 12:
            break
        if (folder / SKILL_FILE).is_file():
            return True
        if stop is not None and folder == stop:
            break
    return False


def _sha256(path: str) -> str | None:
    try:
        with open(path, "rb") as fh:
            return hashlib.sha256(fh.read()).hexdigest()
    except OSError:
        return None


class RootWatcher:
    """Watch folders (recursively) for skill-file changes in a worker thread.

    Args:
        paths: folders (or files) to watch; missing ones are skipped.
        on_changes: optional first listener, ``callable(list[(change, path)])``; called on the
            worker thread.
        debounce_ms: watchfiles' debounce window in milliseconds (events within it form a batch).
        step_ms: watchfiles' polling step in milliseconds (also how fast ``stop()`` takes effect).
        recursive: watch sub-folders (True for skill roots).
        skill_files_only: report only ``is_skill_file`` paths (False: every non-ignored file).

    Raises nothing on missing paths; errors inside the watch loop are logged and the loop ends.
    """

    def __init__(
        self,
        paths: Iterable[str | Path],
        on_changes: Listener | None = None,
        debounce_ms: int = 300,
        step_ms: int = 50,
        recursive: bool = True,
        skill_files_only: bool = True,
    ) -> None:
        self._paths = [Path(p) for p in paths]
        self._listeners: list[Listener] = [on_changes] if on_changes else []
        self.debounce_ms = debounce_ms
        self.step_ms = step_ms
        self.recursive = recursive
        self.skill_files_only = skill_files_only
        self._lock = threading.Lock()
        self._expected: dict[str, str] = {}
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._ready = threading.Event()
        self.start()

    # -- listeners --------------------------------------------------------------------
    def subscribe(self, listener: Listener) -> Callable[[], None]:
        """Add a listener; returns a function that removes it again."""
        with self._lock:
            self._listeners.append(listener)

        def unsubscribe() -> None:
            with self._lock:
                if listener in self._listeners:
                    self._listeners.remove(listener)

        return unsubscribe

    # -- lifecycle --------------------------------------------------------------------
    @property
    def paths(self) -> list[Path]:
        """The watched paths (a copy), as given (missing ones included)."""
        return list(self._paths)

    def start(self) -> None:
        """Start the worker (called by the constructor; again after ``stop``)."""
        if self._thread is not None and self._thread.is_alive():
            return
        existing = [str(p) for p in self._paths if p.exists()]
        self._stop = threading.Event()
        self._ready = threading.Event()
        if not existing:
            self._thread = None
            self._ready.set()
            return
        self._thread = threading.Thread(
            target=self._run, args=(existing, self._stop, self._ready), name="RootWatcher", daemon=True
        )
        self._thread.start()

    def wait_ready(self, timeout: float = 5.0) -> bool:
        """Block until the OS watch is installed (tests; events before that are missed)."""
        return self._ready.wait(timeout)

    def stop(self, timeout: float = 5.0) -> None:
        """Stop the worker and wait for it (at most ``timeout`` seconds)."""
        self._stop.set()
        t = self._thread
        if t is not None and t is not threading.current_thread():
            t.join(timeout)
        self._thread = None

    def update_paths(self, paths: Iterable[str | Path]) -> None:
        """Replace the watched paths (restarts the worker if they differ)."""
        new = [Path(p) for p in paths]
        if new == self._paths and self._thread is not None and self._thread.is_alive():
            return
        self.stop()
        self._paths = new
        self.start()

    @property
    def running(self) -> bool:
        """True while the worker thread is alive."""
        return self._thread is not None and self._thread.is_alive()

    # -- own saves --------------------------------------------------------------------
    def expect(self, path: str | Path, sha256: str | None) -> None:
        """Drop future events for ``path`` while its content hash equals ``sha256``.

        ``None`` means "the app deleted it": a ``deleted`` event for it is dropped once.
        """
        key = os.path.abspath(os.fspath(path))
        with self._lock:
            self._expected[key] = sha256 if sha256 is not None else ""

    @contextlib.contextmanager
    def suppress(self, path: str | Path) -> Iterator[None]:
        """Context manager around the app's own write of ``path``: no reload loop.

        On exit (also after an exception) the file's current hash is registered with ``expect``.
        """
        try:
            yield
        finally:
            self.expect(path, _sha256(os.path.abspath(os.fspath(path))))

    # -- worker -----------------------------------------------------------------------
    def _run(self, paths: list[str], stop: threading.Event, ready: threading.Event) -> None:
        try:
            gen = watchfiles.watch(
                *paths,
                debounce=self.debounce_ms,
                step=self.step_ms,
                stop_event=stop,
                recursive=self.recursive,
                yield_on_timeout=True,
                rust_timeout=max(self.step_ms * 4, 100),
                raise_interrupt=False,
            )
            for raw in gen:
                ready.set()
                if stop.is_set():
                    break
                if not raw:
                    continue
                batch = self._filter(raw)
                if batch:
                    with self._lock:
                        listeners = list(self._listeners)
                    for cb in listeners:
                        try:
                            cb(batch)
                        except Exception:  # noqa: BLE001 - a listener must not kill the watcher
                            log.exception("RootWatcher listener failed")
        except Exception:  # noqa: BLE001 - e.g. inotify limits; the app keeps running
            log.exception("RootWatcher stopped on an error")
        finally:
            ready.set()

    def _filter(self, raw: set[RawChange]) -> list[Change]:
        per_path: dict[str, set[str]] = {}
        raw = set(raw) | _expand_new_dirs(raw)
        for change, path in raw:
            name = os.path.basename(path)
            if _is_temp(name):
                continue
            per_path.setdefault(os.path.abspath(path), set()).add(_CHANGE_NAMES[change])
        out: list[Change] = []
        for path, kinds in sorted(per_path.items()):
            if "deleted" in kinds and ("added" in kinds or "modified" in kinds):
                kind = "modified" if os.path.exists(path) else "deleted"
            else:
                kind = "deleted" if "deleted" in kinds else ("added" if "added" in kinds else "modified")
            if self.skill_files_only and not is_skill_file(path, self._paths):
                continue
            if self._is_own(path, kind):
                continue
            out.append((kind, path))
        return out

    def _is_own(self, path: str, kind: str) -> bool:
        with self._lock:
            expected = self._expected.get(path)
        if expected is None:
            return False
        if kind == "deleted":
            if expected == "":
                with self._lock:
                    self._expected.pop(path, None)
                return True
            return False
        if expected and _sha256(path) == expected:
            return True
        with self._lock:
            self._expected.pop(path, None)
        return False


def _expand_new_dirs(raw: set[RawChange], max_entries: int = 5000) -> set[RawChange]:
    """``added`` events for the files inside folders that were just added.

    inotify watches a new folder only after it sees it appear, so a ``SKILL.md`` written right
    after ``mkdir`` (a copied or unpacked skill) can be created before the watch exists and never
    be reported. Listing each added folder once closes that race; duplicates are merged later.
    """
    out: set[RawChange] = set()
    seen = 0
    for change, path in raw:
        if change != watchfiles.Change.added or not os.path.isdir(path):
            continue
        for dirpath, _dirnames, filenames in walk_tree(path):
            for fn in filenames:
                out.add((watchfiles.Change.added, os.path.join(dirpath, fn)))
                seen += 1
            if seen > max_entries:
                return out
    return out
