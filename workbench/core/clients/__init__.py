"""Client profiles: one package per client (see ``base.py`` for the contract)."""

from __future__ import annotations

import importlib
from types import ModuleType
from typing import TYPE_CHECKING, cast

from workbench.core.model import CLIENT_IDS

if TYPE_CHECKING:
    from workbench.core.clients.base import ClientProfile

__all__ = ["CLIENT_IDS", "DISPLAY_NAMES", "client_module", "get_profile"]

_MODULES = {cid: cid.replace("-", "_") for cid in CLIENT_IDS}

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


def get_profile(client_id: str) -> ClientProfile:
    """The discovery profile of a client. Raises KeyError for an unknown id."""
    if client_id not in _MODULES:
        raise KeyError(f"unknown client {client_id!r}; known: {', '.join(CLIENT_IDS)}")
    mod = importlib.import_module(f"workbench.core.clients.{_MODULES[client_id]}.profile")
    return cast("ClientProfile", mod.PROFILE)


def client_module(client_id: str, part: str) -> ModuleType:
    """Import ``workbench.core.clients.<client>.<part>`` (part: profile | listing | loading)."""
    if client_id not in _MODULES:
        raise KeyError(f"unknown client {client_id!r}; known: {', '.join(CLIENT_IDS)}")
    return importlib.import_module(f"workbench.core.clients.{_MODULES[client_id]}.{part}")
