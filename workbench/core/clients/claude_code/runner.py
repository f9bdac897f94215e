"""Running the real Claude Code against the recorder (recipe: ../shared/reference/real-clients.md).

Env: ``ANTHROPIC_API_KEY`` (any), ``ANTHROPIC_BASE_URL`` = the recorder, non-essential traffic and
telemetry off. Command: ``claude -p PROMPT --model claude-sonnet-4-5``. The listing is a
``<system-reminder>`` text block inside the first user message; the loader is the ``Skill`` tool.
"""

from __future__ import annotations

import re
from typing import Any

from workbench.core.capture.recorder import RecordedRequest
from workbench.core.capture.runner import (
    ClientRunner,
    Extracted,
    Placement,
    RunContext,
    RunSpec,
    request_tool,
)
from workbench.core.clients.claude_code.builtins import BUILTINS, builtin_names
from workbench.core.clients.claude_code.listing import HEADER

REMINDER_OPEN = "<system-reminder>\n"
REMINDER_CLOSE = "\n</system-reminder>"
#: ``- name``, ``- name: text``, ``- folder (declared name): text``.
ENTRY_RE = re.compile(r"^- ([^\s:()]+)(?: \([^)\n]*\))?(?:: (.*))?$")


class ClaudeCodeRunner(ClientRunner):
    client_id = "claude-code"
    npm_package = "@anthropic-ai/claude-code"
    version = "2.1.328"
    bin_name = "claude"

    def prepare(self, ctx: RunContext) -> RunSpec:
        return RunSpec(
            argv=[str(ctx.exe), "-p", ctx.prompt, "--model", "claude-sonnet-4-5"],
            env={
                "ANTHROPIC_API_KEY": "sk-ant-recorder",
                "ANTHROPIC_BASE_URL": ctx.base_url,
                "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
                "DISABLE_TELEMETRY": "1",
                "DISABLE_AUTOUPDATER": "1",
            },
        )

    def is_listing_request(self, req: RecordedRequest) -> bool:
        return req.api == "anthropic-messages" and request_tool(req.json(), "Skill") is not None

    def extract(self, req: RecordedRequest) -> Extracted:
        """The ``<system-reminder>`` block of the first user message that starts with the header.

        ``listing`` is the block's content (without the ``<system-reminder>`` tags), the
        placement its message/block index; entries are ``- name`` or ``- name: text`` lines (a
        description may run over several lines). Built-ins: the trailing entries whose names
        are this version's built-ins (``builtins.py``); their texts go to ``client_texts``.
        """
        data = req.json() or {}
        tool = request_tool(data, "Skill")
        for mi, msg in enumerate(data.get("messages") or []):
            if not isinstance(msg, dict) or msg.get("role") != "user":
                continue
            content = msg.get("content")
            blocks = [{"type": "text", "text": content}] if isinstance(content, str) else content
            for bi, block in enumerate(blocks or []):
                text = block.get("text") if isinstance(block, dict) else None
                if not isinstance(text, str) or not text.startswith(REMINDER_OPEN + HEADER):
                    continue
                listing = text[len(REMINDER_OPEN) :]
                if listing.endswith(REMINDER_CLOSE):
                    listing = listing[: -len(REMINDER_CLOSE)]
                entries = parse_entries(listing)
                names = [n for n, _ in entries]
                builtins = builtin_tail(entries, self.version)
                return Extracted(
                    listing=listing,
                    placement=Placement("user", mi, bi, "a <system-reminder> text block"),
                    skills=names,
                    tool=tool,
                    builtins=[n for n, _ in builtins],
                    client_texts=captured_texts(listing, self.version),
                )
        return Extracted(None, None, tool=tool)


def builtin_tail(entries: list[tuple[str, str]], version: str) -> list[tuple[str, str]]:
    """The trailing entries that are ``version``'s built-ins (they follow the user's, in their own
    fixed order). Walked from the end while the names keep to that order backwards, so a skill of
    the user's named like a built-in (which replaces it, listed among the user's) is not taken
    for one."""
    order = {n: i for i, (n, _, _) in enumerate(BUILTINS.get(version, ()))}
    known = builtin_names(version)
    k = len(entries)
    last = len(order)
    while k > 0 and entries[k - 1][0] in known and order[entries[k - 1][0]] < last:
        last = order[entries[k - 1][0]]
        k -= 1
    return entries[k:]


def captured_texts(listing: str, version: str = ClaudeCodeRunner.version) -> dict[str, Any]:
    """The built-ins' texts of a real listing, in the ``client_texts`` shape (listing.CLIENT_TEXTS)."""
    tail = builtin_tail(parse_entries(listing), version)
    return {"builtins": [{"name": n, "description": d} for n, d in tail], "prose": {}}


def parse_entries(listing: str) -> list[tuple[str, str]]:
    """``(name, text after "name: ")`` per entry of a Claude Code listing (header skipped)."""
    entries: list[tuple[str, str]] = []
    for line in listing.split("\n")[2:]:
        m = ENTRY_RE.match(line)
        if m:
            entries.append((m.group(1), m.group(2) or ""))
        elif entries:
            name, text = entries[-1]
            entries[-1] = (name, text + "\n" + line)
    return entries


RUNNER = ClaudeCodeRunner()
