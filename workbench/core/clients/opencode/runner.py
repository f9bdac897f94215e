"""Running the real OpenCode against the recorder (recipe: ../shared/reference/real-clients.md).

Config ``~/.config/opencode/opencode.json``: autoupdate off, sharing off, ``model`` and
``small_model`` = ``anthropic/claude-sonnet-4-5``, the Anthropic provider's ``baseURL`` = the
recorder (``/v1``) with any API key, the model declared under ``provider.anthropic.models``. Env
turns off the models fetch, auto-update and LSP downloads. Command: ``opencode run PROMPT``.
OpenCode sends two calls (a title, then the turn); the turn's request carries the ``skill`` tool and
the listing ends its system prompt. OpenCode installs its default plugins from the npm registry at
start-up (not a model API).
"""

from __future__ import annotations

import html
import json
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
    system_texts,
)
from workbench.core.clients.opencode.builtins import BUILTIN_LOCATION
from workbench.core.clients.opencode.listing import EMPTY, INTRO

CLOSE = "</available_skills>"

MODEL = "claude-sonnet-4-5"


class OpenCodeRunner(ClientRunner):
    client_id = "opencode"
    npm_package = "opencode-ai"
    version = "1.18.33"
    bin_name = "opencode"

    def prepare(self, ctx: RunContext) -> RunSpec:
        cfg_dir = ctx.home / ".config" / "opencode"
        cfg_dir.mkdir(parents=True, exist_ok=True)
        config: dict[str, Any] = {
            "$schema": "https://opencode.ai/config.json",
            "autoupdate": False,
            "share": "disabled",
            "model": f"anthropic/{MODEL}",
            "small_model": f"anthropic/{MODEL}",
            "provider": {
                "anthropic": {
                    "options": {"baseURL": ctx.base_url + "/v1", "apiKey": "sk-ant-recorder"},
                    "models": {
                        MODEL: {"name": "Claude Sonnet 4.5", "limit": {"context": 200000, "output": 64000}}
                    },
                }
            },
        }
        config.update(ctx.options.get("opencode_config") or {})
        (cfg_dir / "opencode.json").write_text(json.dumps(config, indent=2), "utf-8")
        return RunSpec(
            argv=[str(ctx.exe), "run", ctx.prompt],
            env={
                "OPENCODE_DISABLE_MODELS_FETCH": "1",
                "OPENCODE_DISABLE_AUTOUPDATE": "1",
                "OPENCODE_DISABLE_LSP_DOWNLOAD": "1",
                "OPENCODE_DISABLE_SHARE": "1",
                "OPENCODE_DISABLE_DEFAULT_PLUGINS": "1",
            },
        )

    def is_listing_request(self, req: RecordedRequest) -> bool:
        return req.api == "anthropic-messages" and request_tool(req.json(), "skill") is not None

    def extract(self, req: RecordedRequest) -> Extracted:
        """The skills section at the end of a system block: from ``INTRO`` to
        ``</available_skills>`` (or the "no skills" line). Built-ins: entries whose location is
        ``<built-in>``; their texts go to ``client_texts``."""
        data = req.json() or {}
        tool = request_tool(data, "skill")
        for bi, text in system_texts(data):
            if INTRO not in text:
                continue
            start = text.index(INTRO)
            end = text.find(CLOSE, start)
            if end >= 0:
                listing = text[start : end + len(CLOSE)]
            else:
                stop = text.find(EMPTY, start)
                listing = text[start : stop + len(EMPTY)] if stop >= 0 else text[start:]
            entries = parse_entries(listing)
            builtins = [e for e in entries if e["location"] == BUILTIN_LOCATION]
            return Extracted(
                listing=listing,
                placement=Placement("system", None, bi, "end of the system prompt"),
                skills=[e["name"] for e in entries],
                tool=tool,
                builtins=[e["name"] for e in builtins],
                client_texts=captured_texts(listing),
            )
        return Extracted(None, None, tool=tool)


_ENTRY_RE = re.compile(
    r"  <skill>\n    <name>(.*?)</name>\n    <description>(.*?)</description>\n"
    r"    <location>(.*?)</location>\n  </skill>",
    re.S,
)


def parse_entries(listing: str) -> list[dict[str, str]]:
    """``{"name", "description", "location"}`` per ``<skill>`` of a listing (location unescaped)."""
    return [
        {"name": m.group(1), "description": m.group(2), "location": html.unescape(m.group(3))}
        for m in _ENTRY_RE.finditer(listing)
    ]


def captured_texts(listing: str) -> dict[str, Any]:
    """The built-ins of a real listing in the ``client_texts`` shape (listing.CLIENT_TEXTS)."""
    return {"builtins": [e for e in parse_entries(listing) if e["location"] == BUILTIN_LOCATION], "prose": {}}


RUNNER = OpenCodeRunner()
