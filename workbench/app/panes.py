"""What the main window needs from a pane it hosts as a tab (``HostedPane``).

A hosted pane (editor, chat, evals, workshop, real client) is built lazily by its factory in
``app/hosting.py`` and talks to the rest of the app only through the ``AppContext`` and its services
(``ctx.credentials`` for the API key; ``workers`` for background work), never through another
pane's widgets. On closing, the window asks every built pane ``maybe_close()`` (False vetoes the
close: unsaved work the user wants to keep) and then calls ``shutdown()`` (stop timers and
background work, and wait for it).
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable


@runtime_checkable
class HostedPane(Protocol):
    """The hosted-pane protocol (module docstring)."""

    def maybe_close(self) -> bool:
        """True when the window may close now (the pane never blocks: no dialog here unless
        it holds work the user could lose)."""
        ...

    def shutdown(self) -> None:
        """Stop timers and background work and wait for it; the pane is not used afterwards."""
        ...
