"""Running the real GitHub Copilot CLI against the recorder (recipe:
../shared/reference/real-clients.md).

Bring-your-own-key offline mode (``copilot help environment``): ``COPILOT_OFFLINE=true``,
``COPILOT_PROVIDER_BASE_URL`` = the recorder, ``COPILOT_PROVIDER_TYPE=anthropic``,
``COPILOT_PROVIDER_API_KEY`` (any), ``COPILOT_MODEL=claude-sonnet-4.5``, ``COPILOT_AUTO_UPDATE=false``.
Command: ``copilot -p PROMPT --allow-all-tools`` (the recorder never asks for a tool). The folder
is trusted with ``COPILOT_ALLOW_ALL=true`` ("trusts the working directory") unless
``options["trusted"]`` is False.

The listing is a text block of the Anthropic ``system`` list, inside ``<available_skills>`` ...
``</available_skills>``; the loader is the ``skill`` tool.
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

OPEN_TAG = "<available_skills>"
CLOSE_TAG = "</available_skills>"
TOOL = "skill"
_ENTRY = re.compile(
    r"<skill>\n  <name>([^<]*)</name>\n  <description>([^<]*)</description>\n"
    r"  <location>([^<]*)</location>\n</skill>"
)
_OVERFLOW = re.compile(
    r"^Additional skills available \(invoke by name\): (.*?)(?:\.\.\. and \d+ more)?$", re.M
)


def parse_listing(listing: str) -> tuple[list[str], list[dict[str, str]]]:
    """(skill names in order, the overflow line's names included; the built-in entries as
    ``client_texts`` builtins: name, description as listed, location "builtin")."""
    names, builtins = [], []
    for m in _ENTRY.finditer(listing):
        names.append(m.group(1))
        if m.group(3) == "builtin":
            builtins.append({"name": m.group(1), "description": m.group(2), "location": "builtin"})
    over = _OVERFLOW.search(listing)
    if over:
        names += [n for n in over.group(1).split(", ") if n]
    return names, builtins


class CopilotCliRunner(ClientRunner):
    client_id = "copilot-cli"
    npm_package = "@github/copilot"
    version = "1.0.102"
    bin_name = "copilot"

    def prepare(self, ctx: RunContext) -> RunSpec:
        env = {
            "COPILOT_OFFLINE": "true",
            "COPILOT_PROVIDER_BASE_URL": ctx.base_url,
            "COPILOT_PROVIDER_TYPE": "anthropic",
            "COPILOT_PROVIDER_API_KEY": "sk-ant-recorder",
            "COPILOT_MODEL": str(ctx.options.get("model", "claude-sonnet-4.5")),
            "COPILOT_AUTO_UPDATE": "false",
        }
        if ctx.options.get("trusted", True):
            env["COPILOT_ALLOW_ALL"] = "true"
        return RunSpec(argv=[str(ctx.exe), "-p", ctx.prompt, "--allow-all-tools"], env=env)

    def is_listing_request(self, req: RecordedRequest) -> bool:
        data = req.json()
        return req.api == "anthropic-messages" and isinstance(data, dict) and bool(data.get("tools"))

    def extract(self, req: RecordedRequest) -> Extracted:
        """The text from ``<available_skills>`` to ``</available_skills>`` in the system list
        (or the first message holding it), its block index, names in order, the ``skill`` tool."""
        data = req.json() or {}
        tool = request_tool(data, TOOL)
        system = data.get("system")
        places: list[tuple[str, int | None, list[Any]]] = [
            ("system", None, system if isinstance(system, list) else [{"text": system}])
        ]
        for msg_i, msg in enumerate(data.get("messages") or []):
            content = msg.get("content") if isinstance(msg, dict) else None
            places.append(
                (str(msg.get("role")), msg_i, content if isinstance(content, list) else [{"text": content}])
            )
        for location, mi, blocks in places:
            for bi, block in enumerate(blocks):
                text = block.get("text") if isinstance(block, dict) else None
                if not isinstance(text, str) or OPEN_TAG not in text:
                    continue
                start = text.index(OPEN_TAG)
                end = text.find(CLOSE_TAG, start)
                listing = text[start : end + len(CLOSE_TAG)] if end >= 0 else text[start:]
                names, builtins = parse_listing(listing)
                from workbench.core.clients.copilot_cli.builtins import BUILTINS

                known = {n for n, _ in BUILTINS.get(self.version, ())}
                builtin_names = [b["name"] for b in builtins]
                builtin_names += [n for n in names if n in known and n not in builtin_names]
                return Extracted(
                    listing,
                    Placement(location, mi, bi, "<available_skills>"),
                    names,
                    tool,
                    builtin_names,
                    client_texts={"builtins": builtins},
                )
        return Extracted(None, None, tool=tool)


RUNNER = CopilotCliRunner()
