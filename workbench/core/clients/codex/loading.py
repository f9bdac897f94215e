"""Codex CLI: how a skill is loaded in the chat loop.

Source: ../shared/reference/clients.md section 2.3/2.5 and chat-loop.md section 2.5
(openai/codex ``codex-rs/core-skills/src/render.rs``, ``injection.rs``).

* **Listing** — Codex sends it as a *developer*-role message wrapped in ``<skills_instructions>``.
  Decision: the Messages API has no developer role; the workbench puts that block in the
  **system prompt** (a second system block after the base prompt). Reason: a developer message ranks
  between system and user and is written by the client, not the user, so the system prompt is the
  nearest equivalent, and it keeps the block in the cached stable prefix. (The alternative, a first
  user-turn block, would present client instructions as the user's words.)
* **Load** — no skill tool: the model opens SKILL.md with its file/shell tools. The workbench offers
  its generic ``read_file{path}`` (Codex's real shell tool is not reproduced); a read of a known
  SKILL.md counts as loading it and returns the raw file (frontmatter included).
* No argument substitution. The ``$name`` mention injection (``<skill>`` fragment) is not simulated.
"""

from __future__ import annotations

from workbench.core.chat.loadkit import Loader, make_read_tool
from workbench.core.chat.tools import ToolSpec


class CodexLoader(Loader):
    def wrap_listing(self, text: str) -> str:
        t = text.strip("\n")
        if t.startswith("<skills_instructions>"):
            return t
        return f"<skills_instructions>\n{t}\n</skills_instructions>"

    def read_tool(self) -> ToolSpec:
        return make_read_tool("read_file", "path")


LOADER = CodexLoader(
    client_id="codex",
    placement="system",
    placement_note="developer message <skills_instructions> -> represented as a system block "
    "(the Messages API has no developer role)",
    load_tool=None,
    source="clients.md §2 (openai/codex codex-rs/core-skills render.rs, injection.rs)",
    unverified=[
        "developer role represented as a system block (workbench decision)",
        "read_file stands in for Codex's shell-based reading",
    ],
)
