"""OpenClaw: how a skill is loaded in the chat loop.

Source: ../shared/reference/clients.md section 3.3/3.5 and chat-loop.md section 2.3
(openclaw/openclaw ``src/agents/system-prompt.ts``; badlogic/pi-mono ``packages/coding-agent/src/core/
skills.ts`` and ``tools/read.ts``).

* **Listing** — system prompt (``## Skills`` section + ``<available_skills>`` with ``<location>``, from
  the listing module).
* **Load** — no skill tool: the model reads the SKILL.md at ``<location>`` with ``read`` whose input
  is ``{path: string, offset?: number (1-indexed), limit?: number}`` (exact). A read whose realpath is
  a known skill's SKILL.md counts as loading it. The result is the file's text (frontmatter
  included); a cut text ends with a "use offset=N to continue" line.
* **Substitution** — ``{baseDir}`` becomes the skill folder. Where OpenClaw does this (in the read
  result or by the model following the prompt) is unverified; the workbench substitutes in the read
  result of a SKILL.md and says so in the trace.

Unverified: the read tool's default caps (the workbench uses 2,000 lines / 50,000 chars).
"""

from __future__ import annotations

from typing import Any

from workbench.core.chat.loadkit import Loader, make_read_tool
from workbench.core.chat.tools import ToolSpec


def _base_dir(text: str, skill: Any, ctx: object) -> tuple[str, list[str]]:
    if "{baseDir}" not in text:
        return text, []
    return text.replace("{baseDir}", str(skill.dir)), [
        "{baseDir} substituted (substitution point unverified)"
    ]


class OpenClawLoader(Loader):
    def read_tool(self) -> ToolSpec:
        return make_read_tool(
            "read",
            "path",
            line_keys=("offset", "limit"),
            line_mode="offset",
            post=_base_dir,
            description="Read a file (workspace or skill folder). Returns its text; use offset "
            "(1-based line) and limit for long files.",
        )


LOADER = OpenClawLoader(
    client_id="openclaw",
    placement="system",
    placement_note="system prompt section",
    load_tool=None,
    source="clients.md §3 (openclaw src/agents/system-prompt.ts; pi-mono tools/read.ts)",
    unverified=["{baseDir} substitution point", "read tool default caps"],
)
