"""What the chat model is shown: the client-shaped listing (``listing_for``) and the client's
``Loader`` (``get_loader``), which decides where the listing goes and which tool loads a skill."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from workbench.core.chat.loadkit import Loader


def get_loader(client_id: str) -> Loader:
    """The ``LOADER`` of ``workbench/core/clients/<id>/loading.py``. Raises KeyError if unknown."""
    from workbench.core.clients import client_module

    loader: Loader = client_module(client_id, "loading").LOADER
    return loader


@dataclass
class ListingInfo:
    """The listing text sent to the model and what it lists (``names`` in listing order).

    ``budget`` is ``{"unit", "limit", "used"}`` from the listing report (None for a stub)."""

    text: str
    names: list[str]
    stub: bool = False
    budget: dict[str, Any] | None = None


def listing_for(
    catalog: Any, context_tokens: int | None = None, options: dict[str, Any] | None = None
) -> ListingInfo:
    """The client-shaped listing of ``catalog`` via ``workbench.core.listing.render_listing``.

    Falls back to an agentskills.io-style ``<available_skills>`` block (``stub=True``) only while the
    listing module is not in the tree."""
    try:
        from workbench.core.listing import render_listing

        have_listing = True
    except ImportError:
        have_listing = False
    if have_listing:
        rep = render_listing(catalog, context_tokens, options)
        names = [
            s.name if hasattr(s, "name") else s["name"]
            for s in getattr(rep, "skills", [])
            if (getattr(s, "state", None) if hasattr(s, "state") else s.get("state")) != "omitted"
        ]
        budget = {
            "unit": getattr(rep, "budget_unit", None),
            "limit": getattr(rep, "budget_limit", None),
            "used": getattr(rep, "budget_used", None),
        }
        return ListingInfo(rep.text, names, False, budget)
    return _stub_listing(catalog)


def _stub_listing(catalog: Any) -> ListingInfo:
    from html import escape

    listed = catalog.listed()
    if not listed:
        return ListingInfo("", [], True)
    parts = [
        "The following skills provide specialized instructions for specific tasks.",
        "When a task matches a skill's description, load it before proceeding.",
        "",
        "<available_skills>",
    ]
    for s in listed:
        parts += [
            "  <skill>",
            f"    <name>{escape(s.name)}</name>",
            f"    <description>{escape(s.description)}</description>",
            f"    <location>{escape(str(s.path))}</location>",
            "  </skill>",
        ]
    parts.append("</available_skills>")
    return ListingInfo("\n".join(parts), [s.name for s in listed], True)
