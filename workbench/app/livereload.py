"""``LiveReload``: the window's file watcher (live reload), thin over ``core.watch.RootWatcher``.

The watcher runs on its own thread (watchfiles); each batch of changes is queued to the GUI
thread, mapped to the SKILL.md files they belong to (a changed ``references/x.md`` refreshes its
skill) and handed to ``on_paths``. Split out of ``app/context.py`` (issue 15: modules under 600
lines).
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Signal, Slot

if TYPE_CHECKING:
    from workbench.core.watch import RootWatcher

log = logging.getLogger(__name__)


class LiveReload(QObject):
    """Watches roots and reports the SKILL.md files changed under them.

    Args:
        on_paths: called on the GUI thread with the SKILL.md ``Path``s of each batch of changes.

    Attributes:
        watcher: the running ``RootWatcher`` or None (not started, stopped, or unavailable).
    """

    _changed = Signal(list)  # from the watcher thread -> GUI thread

    def __init__(self, on_paths: Callable[[list[Path]], None], parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._on_paths = on_paths
        self.watcher: RootWatcher | None = None
        self._changed.connect(self._on_changed)

    def watch(self, roots: list[Path]) -> str | None:
        """Watch ``roots`` (starting the watcher, or moving it to these roots). Returns None, or
        why live reload is off (e.g. the inotify limit; logged), for the banner."""
        from workbench.core.watch import RootWatcher  # watchfiles + anyio: not before the first scan

        try:
            if self.watcher is None:
                self.watcher = RootWatcher(roots, self._from_watcher_thread)
            else:
                self.watcher.update_paths(roots)
        except Exception as exc:  # noqa: BLE001 - e.g. inotify limit: keep working without it
            log.warning("live reload is off", exc_info=True)
            return f"Live reload is off: {exc}"
        return None

    def _from_watcher_thread(self, batch: list[tuple[str, str]]) -> None:
        self._changed.emit(list(batch))  # queued to the GUI thread

    @Slot(list)
    def _on_changed(self, batch: list) -> None:
        paths = []
        for _kind, p in batch:
            pp = Path(p)
            paths.append(pp if pp.name == "SKILL.md" else skill_md_for(pp))
        self._on_paths([p for p in paths if p is not None])

    @contextlib.contextmanager
    def suppress(self, path: Path | str) -> Iterator[None]:
        """Wrap the app's own save of ``path`` so the watcher does not report it."""
        if self.watcher is not None:
            with self.watcher.suppress(path):
                yield
        else:
            yield

    def stop(self) -> None:
        """Stop the watcher (window close)."""
        if self.watcher is not None:
            try:
                self.watcher.stop()
            finally:
                self.watcher = None


def skill_md_for(path: Path) -> Path | None:
    """The SKILL.md a support file belongs to (nearest ancestor folder holding one, at most 12
    levels up), or None."""
    for folder in list(path.parents)[:12]:
        cand = folder / "SKILL.md"
        if cand.is_file():
            return cand
    return None
