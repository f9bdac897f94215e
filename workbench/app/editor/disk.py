"""The editor's link to the file on disk: watching it and writing it.

``FileWatch.attach(path)`` subscribes to the shared ``RootWatcher`` when it covers the file, else
starts a watcher of its own (non-recursive, on the file's folder); ``changed`` fires on the GUI
thread when a batch of events touches the file. ``write`` saves atomically
(``safefile.atomic_write`` with the expected hash) while the active watcher suppresses the app's
own write.
"""

from __future__ import annotations

import contextlib
import logging
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from PySide6.QtCore import QObject, Signal

from workbench.core.safefile import atomic_write

log = logging.getLogger(__name__)


class FileWatch(QObject):
    """Watches one file (module docstring). ``shared`` is the app's ``RootWatcher`` or None.

    Signals:
        changed(): a watcher batch touched the attached file (GUI thread).
    """

    changed = Signal()
    _batch = Signal(object)

    def __init__(self, shared: Any = None, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.shared = shared
        self._own: Any = None
        self._unsubscribe: Callable[[], None] | None = None
        self._path: str | None = None
        self._batch.connect(self._on_batch)

    def attach(self, path: str) -> None:
        """Watch ``path`` (absolute) instead of the previous file."""
        self.release()
        self._path = path
        covered = False
        if self.shared is not None:
            pp = Path(path)
            covered = any(pp == Path(r) or Path(r) in pp.parents for r in getattr(self.shared, "paths", []))
            if covered:
                self._unsubscribe = self.shared.subscribe(self._listener)
        if not covered:
            from workbench.core.watch import RootWatcher

            folder = os.path.dirname(path)
            if os.path.isdir(folder):
                self._own = RootWatcher(
                    [folder], self._listener, debounce_ms=150, recursive=False, skill_files_only=False
                )

    def release(self) -> None:
        """Stop watching (unsubscribe, or stop the own watcher)."""
        if self._unsubscribe is not None:
            self._unsubscribe()
            self._unsubscribe = None
        if self._own is not None:
            self._own.stop()
            self._own = None
        self._path = None

    def active(self) -> Any:
        """The watcher now watching the file (own or shared), or None."""
        return self._own or (self.shared if self._unsubscribe else None)

    def _listener(self, batch: list) -> None:  # watcher thread
        with contextlib.suppress(RuntimeError):  # the pane went away meanwhile
            self._batch.emit(batch)

    def _on_batch(self, batch: list) -> None:
        if self._path is not None and any(os.path.abspath(p) == self._path for _kind, p in batch):
            self.changed.emit()

    def write(self, path: str, data: bytes, expected: str, allow_read_only: bool) -> str:
        """``atomic_write`` (raises ``ConflictError``, ``ReadOnlyError``, ``OSError``) with the
        active watcher told to ignore this write; returns the new sha256."""
        w = self.active()
        guard = w.suppress(path) if w is not None else contextlib.nullcontext()
        with guard:
            return atomic_write(path, data, expected_sha256=expected, allow_read_only=allow_read_only)
