"""Real clients: the recording stand-in server (``recorder``) and running a client once (``runner``).

Per-client runners live in ``workbench/core/clients/<id>/runner.py`` (``RUNNER``);
``workbench.core.capture.runners()`` lists them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the runner pulls in the recorder's HTTP server: not for ``capture.texts``
    from workbench.core.capture.runner import ClientRunner

#: Client ids with a real-client runner (the CLI clients installable from npm).
RUNNABLE_CLIENTS = ("claude-code", "codex", "gemini-cli", "opencode", "openclaw", "copilot-cli")


def get_runner(client_id: str) -> ClientRunner:
    """The ``RUNNER`` of ``workbench/core/clients/<id>/runner.py``, imported on first use. Raises
    KeyError for a client that cannot be run (not in ``RUNNABLE_CLIENTS``)."""
    runner: ClientRunner
    match client_id:
        case "claude-code":
            from workbench.core.clients.claude_code.runner import RUNNER as runner
        case "codex":
            from workbench.core.clients.codex.runner import RUNNER as runner
        case "gemini-cli":
            from workbench.core.clients.gemini_cli.runner import RUNNER as runner
        case "opencode":
            from workbench.core.clients.opencode.runner import RUNNER as runner
        case "openclaw":
            from workbench.core.clients.openclaw.runner import RUNNER as runner
        case "copilot-cli":
            from workbench.core.clients.copilot_cli.runner import RUNNER as runner
        case _:
            raise KeyError(
                f"no real-client runner for {client_id!r}; runnable: {', '.join(RUNNABLE_CLIENTS)}"
            )
    return runner
