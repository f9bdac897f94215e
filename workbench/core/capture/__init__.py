"""Real clients: the recording stand-in server (``recorder``) and running a client once (``runner``).

Per-client runners live in ``workbench/core/clients/<id>/runner.py`` (``RUNNER``);
``workbench.core.capture.runners()`` lists them.
"""

from __future__ import annotations

import importlib

from workbench.core.capture.runner import ClientRunner

#: Client ids with a real-client runner (the CLI clients installable from npm).
RUNNABLE_CLIENTS = ("claude-code", "codex", "gemini-cli", "opencode", "openclaw", "copilot-cli")


def get_runner(client_id: str) -> ClientRunner:
    """The ``RUNNER`` of a client package. Raises KeyError for a client that cannot be run."""
    if client_id not in RUNNABLE_CLIENTS:
        raise KeyError(f"no real-client runner for {client_id!r}")
    module = importlib.import_module(f"workbench.core.clients.{client_id.replace('-', '_')}.runner")
    runner: ClientRunner = module.RUNNER
    return runner
