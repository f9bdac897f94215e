"""The agentskills.io specification: how a skill is loaded in the chat loop.

Source: ../shared/reference/clients.md section 0.3/0.5 (agentskills/agentskills
``docs/client-implementation/adding-skills-support.mdx``, ``skills-ref prompt.py``).

* **Listing** — in the system prompt (``<available_skills>`` with ``<location>``, from the listing
  module). The spec allows the system prompt or the activation tool's description; the workbench
  uses the system prompt.
* **Load** — the file-read variant: the model reads the SKILL.md at ``<location>`` with a file-read
  tool (the workbench's generic ``read_file{path}``); a read of a known SKILL.md counts as loading it.
  The spec's alternative (a dedicated enum-constrained tool returning ``<skill_content>``) is not
  offered.
"""

from __future__ import annotations

from workbench.core.chat.loadkit import Loader, make_read_tool
from workbench.core.chat.tools import ToolSpec


class SpecLoader(Loader):
    def read_tool(self) -> ToolSpec:
        return make_read_tool("read_file", "path")


LOADER = SpecLoader(
    client_id="agentskills",
    placement="system",
    placement_note="system prompt",
    load_tool=None,
    source="clients.md §0 (agentskills/agentskills client implementation guide)",
)
