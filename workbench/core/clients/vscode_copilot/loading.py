"""GitHub Copilot in VS Code: how a skill is loaded in the chat loop.

Source: ../shared/reference/clients.md section 6.3/6.5 (microsoft/vscode + Copilot Chat
``AutomaticInstructionsCollector._buildCustomizationsIndex``, ``agentPrompt.tsx``).

* **Listing** — the ``<skills>`` block is part of the request context attached to the user's
  request. The workbench sends it as a separate text block at the start of the first user turn,
  before the user's own text.
* **Load** — the model reads SKILL.md with ``read_file`` (the skill folder is allow-listed). The
  parameter names ``filePath``, ``startLine``, ``endLine`` (1-based, inclusive) are unverified for
  the newest builds. A read of a known SKILL.md counts as loading it; the result is the raw file.
  The newer dedicated skill tool is not simulated, so the listing is rendered in its read_file
  variant (``listing_options={"skill_tool": False}``: no 15,000-char cap).
* No argument substitution.
"""

from __future__ import annotations

from workbench.core.chat.loadkit import Loader, make_read_tool
from workbench.core.chat.tools import ToolSpec


class VSCodeLoader(Loader):
    def read_tool(self) -> ToolSpec:
        return make_read_tool(
            "read_file",
            "filePath",
            line_keys=("startLine", "endLine"),
            line_mode="range",
            description="Read the contents of a file in the workspace or in a skill folder; "
            "optionally a line range (1-based, inclusive).",
        )


LOADER = VSCodeLoader(
    client_id="vscode-copilot",
    placement="user-context",
    placement_note="the <skills> block in the request context attached to the first user turn",
    load_tool=None,
    source="clients.md §6 (microsoft/vscode, Copilot Chat agentPrompt.tsx)",
    unverified=["read_file parameter names (filePath, startLine, endLine)"],
    # the listing must tell the model to use read_file, the tool offered here (no skill tool)
    listing_options={"skill_tool": False},
)
