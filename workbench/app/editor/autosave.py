"""Recovery copies of unsaved buffers, written off the GUI thread.

``RecoveryWriter`` queues ``RecoveryStore.write`` / ``remove`` calls on the app's runner (lane
"recovery": one thread, so they happen in request order); ``flush`` waits for them (tests,
shutdown). A write that fails is logged and reported through ``failed(message)`` (the pane shows
it in its banner). ``crashed_entries`` lists what a crash left behind (``EditorPane.recoverable``).
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable, Iterable
from typing import Any

from PySide6.QtCore import QObject, Signal

from workbench.app import workers
from workbench.core.recovery import RecoveryEntry, RecoveryStore

log = logging.getLogger(__name__)

#: The runner lane of recovery writes (one thread: request order).
RECOVERY_LANE = "recovery"


class RecoveryWriter(QObject):
    """Queues recovery writes/removals of one pane (module docstring).

    Signals:
        failed(str): a write or removal failed (the message names the error).
    """

    failed = Signal(str)

    def __init__(self, store: RecoveryStore | None = None, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._store = store
        self._jobs: list[workers.Job] = []

    @property
    def store(self) -> RecoveryStore:
        """The store (default ``RecoveryStore()`` in the state dir, created on first use)."""
        if self._store is None:
            self._store = RecoveryStore()
        return self._store

    def write(self, path: str, text: str, base_sha256: str, has_bom: bool, newline: str) -> None:
        """Queue a recovery copy of ``text`` (the buffer of ``path``, based on ``base_sha256``)."""
        self._queue(self.store.write, path, text, base_sha256, has_bom, newline)

    def remove(self, path: str) -> None:
        """Queue the removal of ``path``'s recovery copy (saved, reloaded or discarded)."""
        self._queue(self.store.remove, path)

    def _queue(self, fn: Callable[..., Any], *args: Any) -> None:
        job = workers.run_in_background(fn, *args, lane=RECOVERY_LANE, connect={"errored": self._errored})
        self._jobs = [j for j in self._jobs if not j.done.is_set()] + [job]

    def _errored(self, _token: int, exc: BaseException) -> None:
        log.warning("recovery copy not written", exc_info=exc)
        self.failed.emit(f"Could not write the recovery copy of this buffer: {exc}")

    def flush(self, timeout: float = 10.0) -> None:
        """Wait until queued writes/removals are on disk."""
        workers.wait_jobs(self._jobs, int(timeout * 1000))
        self._jobs = []


def crashed_entries(store: RecoveryStore, live_keys: Iterable[str]) -> list[RecoveryEntry]:
    """Entries of ``store`` not held by a live pane here (``live_keys``) nor by another running
    instance (its pid is alive). Malformed entries are included (``error`` set)."""
    live = set(live_keys)
    return [
        e
        for e in store.entries()
        if e.key not in live and not (e.pid and e.pid != os.getpid() and _pid_alive(e.pid))
    ]


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # PermissionError: alive, someone else's
        return True
    return True
