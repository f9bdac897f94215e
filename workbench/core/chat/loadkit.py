"""The base of every ``workbench/core/clients/<id>/loading.py``: where a client puts its listing,
which tool loads a skill, and what the model gets back.

Each client module exposes ``LOADER``, an instance of a ``Loader`` subclass. The engine
(``workbench.core.chat.engine``) asks it for:

* ``placement`` — "system" (a system-prompt block), "user-reminder" (a block at the start of the
  first user turn, Claude Code's ``<system-reminder>``), "user-context" (a block attached to the
  user request, VS Code) — and ``wrap_listing(text)`` for the exact block text;
* ``tools(skills)`` — the client's own load tool(s) as ``ToolSpec`` (names and input schemas exact,
  descriptions in the workbench's own words), plus ``read_tool()`` — the file-read tool this client
  offers (a read of a known SKILL.md counts as loading that skill);
* per-load result shaping in the tool handlers.

Helpers here: ``current_body(skill)`` (the body as it is on disk now), ``skill_file_sample`` and
``folder_tree`` (resource lists), ``find_injections`` (``!`cmd``` lines, never run).
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from workbench.core.chat.tools import ToolContext, ToolOutcome, ToolSpec, make_read_tool
from workbench.core.clients.common import NEVER_WALKED
from workbench.core.skillfile import read_skill_file
from workbench.core.skillwalk import walk_tree

PLACEMENTS = ("system", "user-reminder", "user-context")

#: ``!`command``` (Claude Code dynamic context injection; clients.md section 1.5). Never run here.
INJECTION_RE = re.compile(r"!`([^`\n]+)`")

#: Our base system prompt (the workbench's own words; no client's prose is reproduced). Clients
#: whose real system prompt is long are represented by this short stand-in; the listing budget
#: is computed by the listing module, not from this text.
BASE_SYSTEM = (
    "You are a coding agent helping a user with the project in {workspace}. Use the "
    "tools you are given when they help with the user's request."
)

#: Our stand-in for a client's subagent system prompt (workbench wording, labelled as such).
FORK_SYSTEM = (
    "You are a subagent ({agent}) working in {workspace}. You see only the task below, "
    "not the conversation that started you. Complete the task with the tools you have "
    "and end with a short report of what you did and found."
)


@dataclass
class Loader:
    """How one client offers skills to the model in the chat loop.

    Attributes:
        client_id: the client id.
        placement: one of ``PLACEMENTS``.
        placement_note: one line for the trace/UI saying where the listing goes and why.
        load_tool: the name of the dedicated load tool, or None when a file read loads a skill.
        source: where the behaviour comes from (repo + file or doc URL, from ../shared/reference).
        unverified: rules reproduced here that the reference marks unverified.
        listing_options: options passed to ``render_listing`` so the listing names the tool this
            loader really offers (VS Code: ``{"skill_tool": False}``, the read_file variant).
    """

    client_id: str = ""
    placement: str = "system"
    placement_note: str = ""
    load_tool: str | None = None
    source: str = ""
    unverified: list[str] = field(default_factory=list)
    listing_options: dict[str, Any] = field(default_factory=dict[str, Any])

    # -- listing ---------------------------------------------------------------------------
    def wrap_listing(self, text: str) -> str:
        """The exact block text that carries the listing (default: the text unchanged)."""
        return text

    def base_system(self, workspace: Path) -> str:
        return BASE_SYSTEM.format(workspace=workspace)

    def fork_system(self, workspace: Path, agent: str | None) -> str:
        """The system prompt of a forked skill's subagent (the workbench's own words; the client's
        own subagent prompt is not reproduced)."""
        return FORK_SYSTEM.format(workspace=workspace, agent=agent or "general-purpose")

    # -- tools -----------------------------------------------------------------------------
    def tools(self, skills: list[Any]) -> list[ToolSpec]:
        """The client's load tool(s) for these listed skills (default: none)."""
        return []

    def read_tool(self) -> ToolSpec:
        """The file-read tool offered to the model (workbench's generic ``read_file{path}`` unless
        the client has its own shape)."""
        return make_read_tool("read_file", "path")

    def describe(self) -> dict[str, Any]:
        """Facts for the UI: placement, load tool, source, unverified."""
        return {
            "client": self.client_id,
            "placement": self.placement,
            "placement_note": self.placement_note,
            "load_tool": self.load_tool,
            "read_tool": self.read_tool().name,
            "source": self.source,
            "unverified": list(self.unverified),
        }


# ---------------------------------------------------------------------------------------------
# helpers shared by client modules


def current_body(skill: Any) -> str:
    """The skill's body as on disk now (edits since the scan count); the scanned body when the
    file cannot be read any more. For a file without frontmatter the whole text is the body."""
    sf = read_skill_file(Path(skill.path))
    if sf.state in ("unreadable", "too-large", "binary"):
        f = getattr(skill, "file", None)
        return f.body if f is not None else ""
    return sf.body


def current_text(skill: Any) -> str:
    """The whole SKILL.md text as on disk now ("" if unreadable)."""
    sf = read_skill_file(Path(skill.path))
    return sf.text


def find_injections(text: str) -> list[str]:
    """The commands of every ``!`cmd``` in ``text``, in order (they are shown, never run)."""
    return [m.group(1) for m in INJECTION_RE.finditer(text)]


def skill_file_sample(skill_dir: Path, limit: int = 10) -> list[Path]:
    """Up to ``limit`` files under ``skill_dir`` (hidden included, SKILL.md excluded), sorted by
    relative path for determinism (OpenCode samples with ripgrep, order unspecified)."""
    out: list[Path] = []
    for dirpath, _dirnames, filenames in walk_tree(skill_dir, sort=True):
        for fn in filenames:
            p = Path(dirpath) / fn
            if p == skill_dir / "SKILL.md":
                continue
            out.append(p)
            if len(out) >= limit:
                return out
    return out


def folder_tree(root: Path, max_items: int = 200) -> str:
    """A folder tree in the ``├───`` / ``└───`` style (Gemini CLI's ``getFolderStructure``; the
    exact format is unverified): the root's absolute path with ``/`` first, then entries, folders
    first then files, each level sorted, at most ``max_items`` entries."""
    lines = [f"{root}{os.sep}"]
    count = 0

    def walk(d: Path, prefix: str) -> None:
        nonlocal count
        try:
            entries = sorted(os.scandir(d), key=lambda e: (not e.is_dir(), e.name))
        except OSError:
            return
        entries = [e for e in entries if e.name not in NEVER_WALKED]
        for i, e in enumerate(entries):
            if count >= max_items:
                lines.append(prefix + "└───...")
                return
            last = i == len(entries) - 1
            is_dir = e.is_dir()
            lines.append(prefix + ("└───" if last else "├───") + e.name + (os.sep if is_dir else ""))
            count += 1
            if is_dir and not e.is_symlink():
                walk(Path(e.path), prefix + ("    " if last else "│   "))

    walk(root, "")
    return "\n".join(lines)


def find_listed(skills: list[Any], name: Any) -> Any | None:
    """The listed skill with exactly this name, or None."""
    if not isinstance(name, str):
        return None
    for s in skills:
        if s.name == name:
            return s
    return None


__all__ = [
    "Loader",
    "PLACEMENTS",
    "BASE_SYSTEM",
    "ToolContext",
    "ToolOutcome",
    "ToolSpec",
    "current_body",
    "current_text",
    "find_injections",
    "skill_file_sample",
    "folder_tree",
    "find_listed",
    "make_read_tool",
]
