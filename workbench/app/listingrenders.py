"""``ListingRenders``: the listings an ``AppContext`` renders on worker threads.

* the shown client's listing text, when its report has none (a ``TextlessReport``: only the shown
  client keeps its text, issue 14) or is still being re-rendered with the others;
* the other clients' listings after an incremental update, once the edits pause (300 ms), so a
  typing burst does not keep a worker busy and the GIL taken.

Results are merged into the context's ``listings``/``errors`` and announced with its
``listing_changed``; a result whose token is stale is dropped. Split out of ``app/context.py``
(issue 15: modules under 600 lines).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, QTimer, Slot

from workbench.app.scanpass import TextlessReport, render_listings
from workbench.app.workers import describe, run_in_background
from workbench.core.listing import ListingReport

if TYPE_CHECKING:
    from workbench.app.context import AppContext
    from workbench.core.model import Catalog

log = logging.getLogger(__name__)

Rendered = tuple[dict[str, ListingReport], dict[str, str], list[str]]

#: Milliseconds of quiet after an update before the other clients' listings are re-rendered.
OTHERS_DELAY_MS = 300


class ListingRenders(QObject):
    """Background listing renders of ``ctx`` (see the module docstring)."""

    def __init__(self, ctx: AppContext) -> None:
        super().__init__(ctx)
        self._ctx = ctx
        self._text_token: int | None = None  # the shown client's text
        self._others_token: int | None = None  # the other clients (-1: due, not started)
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(OTHERS_DELAY_MS)
        self._timer.timeout.connect(self.render_others)

    @property
    def pending(self) -> bool:
        """True while the other clients' listings (or the shown client's text) are due or
        being rendered."""
        return self._others_token is not None or self._text_token is not None

    def ensure_text(self) -> None:
        """Render the shown client's listing text on a worker when its report has none or is
        still being re-rendered with the others; the listing pane says "rendering…" until it is
        set (a 10,000-skill listing took 40-150 ms on the GUI thread)."""
        ctx = self._ctx
        cid, cat = ctx.client_id, ctx.catalogs.get(ctx.client_id)
        rep = ctx.listings.get(cid)
        if cat is None or (self._others_token is None and not isinstance(rep, TextlessReport)):
            return
        job = run_in_background(
            render_with_errors,
            {cid: cat},
            ctx.context_tokens,
            [cid],
            connect={"returned": self._on_text, "errored": self._on_text_failed},
        )
        self._text_token = job.token

    def others_due(self) -> None:
        """The catalogs changed: re-render the other clients' listings once the edits pause."""
        self._others_token = -1  # pending (``pending`` is True until they are rendered)
        self._timer.start()

    def drop_others(self) -> None:
        """A full scan delivered every listing: forget a due or running render of the others."""
        self._timer.stop()
        self._others_token = None

    def flush(self) -> None:
        """Start a due render of the others now (tests, screenshots)."""
        if self._timer.isActive():
            self.render_others()

    def render_others(self) -> None:
        """Re-render every client's listing but the shown one on a worker thread."""
        self._timer.stop()
        ctx = self._ctx
        others = {c: cat for c, cat in ctx.catalogs.items() if c != ctx.client_id}
        self._others_token = None
        if others:
            job = run_in_background(
                render_with_errors,
                others,
                ctx.context_tokens,
                [],  # not shown: no text
                connect={"returned": self._on_others, "errored": self._on_others_failed},
            )
            self._others_token = job.token

    @Slot(int, object)
    def _on_text(self, token: int, result: Rendered) -> None:
        if token != self._text_token:
            return
        self._text_token = None
        if result[2] != [self._ctx.client_id] or self._ctx.scanning:
            return  # switched again (its own render runs) or a scan will deliver it
        self._merge(*result, take=lambda _c: True)

    def _on_text_failed(self, token: int, error: BaseException) -> None:
        """The shown client's background render failed: logged and shown."""
        if token != self._text_token:
            return
        self._text_token = None
        cid = self._ctx.client_id
        log.warning("rendering the listing of %s failed: %s", cid, error)
        self._ctx.problem.emit(f"Listing of {cid} not rendered: {describe(error)}")

    @Slot(int, object)
    def _on_others(self, token: int, result: Rendered) -> None:
        if token != self._others_token:
            return
        self._others_token = None
        cid = self._ctx.client_id
        self._merge(*result, take=lambda c: c != cid)

    def _on_others_failed(self, token: int, error: BaseException) -> None:
        """The background render itself failed (not one client's listing): logged and shown."""
        if token != self._others_token:
            return
        self._others_token = None
        log.warning("re-rendering the other clients' listings failed: %s", error)
        self._ctx.problem.emit(f"Listings of the other clients not updated: {describe(error)}")

    def _merge(
        self,
        listings: dict[str, ListingReport],
        errors: dict[str, str],
        rendered: list[str],
        take: Callable[[str], bool],
    ) -> None:
        """Keep a render's listings and errors of the clients ``take`` accepts (a rendered
        client's earlier listing error is replaced by this render's verdict); emits the
        context's ``listing_changed`` (only the panes that show listings refresh)."""
        ctx = self._ctx
        ctx.listings = {**ctx.listings, **{c: r for c, r in listings.items() if take(c)}}
        kept = {c: e for c, e in ctx.errors.items() if c not in rendered or not e.startswith("listing")}
        ctx.errors = {**kept, **{c: e for c, e in errors.items() if take(c)}}
        ctx.listing_changed.emit()


def render_with_errors(
    catalogs: dict[str, Catalog], context_tokens: int | None, keep_text: list[str]
) -> Rendered:
    """``render_listings`` on a worker (texts kept for ``keep_text`` only): (listings, errors,
    the client ids rendered)."""
    errors: dict[str, str] = {}
    return render_listings(catalogs, context_tokens, errors, keep_text), errors, list(catalogs)
