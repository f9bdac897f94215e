"""Client profiles: one package per client (see ``base.py`` for the contract).

``get_profile(id)`` and ``listing_module(id)`` import the one client module asked for, on first
use (plain imports, no look-up by name: a ``workbench lint`` imports no listing module). A
client's loader is ``chat.listinginfo.get_loader``, its real-client runner ``capture.get_runner``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

from workbench.core.model import CLIENT_IDS

if TYPE_CHECKING:
    from workbench.core.clients.base import ClientProfile
    from workbench.core.listingkit import ListingReport
    from workbench.core.model import Environment, Skill

__all__ = ["CLIENT_IDS", "DISPLAY_NAMES", "ListingModule", "get_profile", "listing_module", "unknown_client"]

DISPLAY_NAMES = {
    "claude-code": "Claude Code",
    "codex": "Codex CLI",
    "openclaw": "OpenClaw",
    "gemini-cli": "Gemini CLI",
    "opencode": "OpenCode",
    "vscode-copilot": "VS Code Copilot",
    "cursor": "Cursor",
    "agentskills": "Agent Skills spec",
    "copilot-cli": "GitHub Copilot CLI",
}


class ListingModule(Protocol):
    """What a client's ``listing.py`` provides (``listing.render_listing`` calls it)."""

    def listing_order(self, skills: list[Skill], /) -> list[Skill]:
        """The listed skills in the order the client lists them."""
        ...

    def render(
        self, skills: list[Skill], env: Environment, context_tokens: int | None, options: dict[str, Any], /
    ) -> ListingReport:
        """The client's listing of ``skills`` (already in listing order)."""
        ...


def unknown_client(client_id: str) -> KeyError:
    """The KeyError the per-client look-ups raise for an id not in ``CLIENT_IDS``."""
    return KeyError(f"unknown client {client_id!r}; known: {', '.join(CLIENT_IDS)}")


def get_profile(client_id: str) -> ClientProfile:
    """The discovery profile (``PROFILE`` of ``clients/<id>/profile.py``) of a client, imported on
    first use. Raises KeyError for an unknown id."""
    profile: ClientProfile
    match client_id:
        case "claude-code":
            from workbench.core.clients.claude_code.profile import PROFILE as profile
        case "codex":
            from workbench.core.clients.codex.profile import PROFILE as profile
        case "openclaw":
            from workbench.core.clients.openclaw.profile import PROFILE as profile
        case "gemini-cli":
            from workbench.core.clients.gemini_cli.profile import PROFILE as profile
        case "opencode":
            from workbench.core.clients.opencode.profile import PROFILE as profile
        case "vscode-copilot":
            from workbench.core.clients.vscode_copilot.profile import PROFILE as profile
        case "cursor":
            from workbench.core.clients.cursor.profile import PROFILE as profile
        case "agentskills":
            from workbench.core.clients.agentskills.profile import PROFILE as profile
        case "copilot-cli":
            from workbench.core.clients.copilot_cli.profile import PROFILE as profile
        case _:
            raise unknown_client(client_id)
    return profile


def listing_module(client_id: str) -> ListingModule:
    """The listing module (``clients/<id>/listing.py``) of a client, imported on first use.
    Raises KeyError for an unknown id."""
    module: ListingModule
    match client_id:
        case "claude-code":
            from workbench.core.clients.claude_code import listing as module
        case "codex":
            from workbench.core.clients.codex import listing as module
        case "openclaw":
            from workbench.core.clients.openclaw import listing as module
        case "gemini-cli":
            from workbench.core.clients.gemini_cli import listing as module
        case "opencode":
            from workbench.core.clients.opencode import listing as module
        case "vscode-copilot":
            from workbench.core.clients.vscode_copilot import listing as module
        case "cursor":
            from workbench.core.clients.cursor import listing as module
        case "agentskills":
            from workbench.core.clients.agentskills import listing as module
        case "copilot-cli":
            from workbench.core.clients.copilot_cli import listing as module
        case _:
            raise unknown_client(client_id)
    return module
