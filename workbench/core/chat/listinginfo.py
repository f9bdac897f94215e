"""What the chat model is shown: the client-shaped listing (``listing_for``) and the client's
``Loader`` (``get_loader``), which decides where the listing goes and which tool loads a skill."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from workbench.core.chat.loadkit import Loader
from workbench.core.clients import unknown_client
from workbench.core.listingkit import ListingState

if TYPE_CHECKING:
    from workbench.core.model import Catalog


def get_loader(client_id: str) -> Loader:
    """The ``LOADER`` of ``workbench/core/clients/<id>/loading.py``, imported on first use.
    Raises KeyError for an unknown id."""
    loader: Loader
    match client_id:
        case "claude-code":
            from workbench.core.clients.claude_code.loading import LOADER as loader
        case "codex":
            from workbench.core.clients.codex.loading import LOADER as loader
        case "openclaw":
            from workbench.core.clients.openclaw.loading import LOADER as loader
        case "gemini-cli":
            from workbench.core.clients.gemini_cli.loading import LOADER as loader
        case "opencode":
            from workbench.core.clients.opencode.loading import LOADER as loader
        case "vscode-copilot":
            from workbench.core.clients.vscode_copilot.loading import LOADER as loader
        case "cursor":
            from workbench.core.clients.cursor.loading import LOADER as loader
        case "agentskills":
            from workbench.core.clients.agentskills.loading import LOADER as loader
        case "copilot-cli":
            from workbench.core.clients.copilot_cli.loading import LOADER as loader
        case _:
            raise unknown_client(client_id)
    return loader


@dataclass
class ListingInfo:
    """The listing text sent to the model and what it lists (``names`` in listing order).

    ``budget`` is ``{"unit", "limit", "used"}`` from the listing report."""

    text: str
    names: list[str]
    budget: dict[str, Any] | None = None


def listing_for(
    catalog: Catalog, context_tokens: int | None = None, options: dict[str, Any] | None = None
) -> ListingInfo:
    """The client-shaped listing of ``catalog`` (``workbench.core.listing.render_listing``):
    its text, the names it shows (omitted skills left out) and its budget."""
    from workbench.core.listing import render_listing

    rep = render_listing(catalog, context_tokens, options)
    names = [s.name for s in rep.skills if s.state != ListingState.OMITTED]
    budget = {"unit": rep.budget_unit, "limit": rep.budget_limit, "used": rep.budget_used}
    return ListingInfo(rep.text, names, budget)
