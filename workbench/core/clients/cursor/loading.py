"""Cursor: how a skill is loaded in the chat loop.

Source: ../shared/reference/clients.md section 7 (cursor.com/docs/context/skills). Cursor's
listing text, its place and its load tool are **not public**. The workbench assumes the
agentskills.io recommendation: listing in the system prompt, loaded by reading SKILL.md with a file
read tool (the workbench's generic ``read_file{path}``). All of it is unverified.
"""

from __future__ import annotations

from workbench.core.chat.loadkit import Loader, make_read_tool
from workbench.core.chat.tools import ToolSpec


class CursorLoader(Loader):
    def read_tool(self) -> ToolSpec:
        return make_read_tool("read_file", "path")


LOADER = CursorLoader(
    client_id="cursor",
    placement="system",
    placement_note="system prompt (assumed: Cursor's placement is not public)",
    load_tool=None,
    source="clients.md §7 (cursor.com/docs/context/skills)",
    unverified=["listing placement", "load mechanism (file read assumed)"],
)
