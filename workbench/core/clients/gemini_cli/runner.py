"""Running the real Gemini CLI against the recorder (recipe: ../shared/reference/real-clients.md).

Env: ``GEMINI_API_KEY`` (any), ``GOOGLE_GEMINI_BASE_URL`` = the recorder. ``~/.gemini/settings.json``:
``security.auth.selectedType = "gemini-api-key"`` (otherwise the base URL selects another auth type
and ``-p`` exits 41), usage statistics off. Trust: the workspace is written to
``~/.gemini/trustedFolders.json`` as ``TRUST_FOLDER`` (or, with ``options["trust_via"] = "env"``,
by ``GEMINI_CLI_TRUST_WORKSPACE=true``) unless ``options["trusted"]`` is False: then the folder is
marked ``DO_NOT_TRUST`` and Gemini CLI 0.61.0 refuses a headless run (exit 55, no request), so
the untrusted listing cannot be captured headless.
Command: ``gemini -p PROMPT --approval-mode yolo`` (``activate_skill`` is only sent in yolo mode;
``options["approval_mode"]`` overrides). The first call is a router classification answered by the
recorder's JSON-schema reply; the listing is in ``systemInstruction`` of the streamed turn.
"""

from __future__ import annotations

import json
import re
from typing import Any

from workbench.core.capture.recorder import RecordedRequest
from workbench.core.capture.runner import ClientRunner, Extracted, Placement, RunContext, RunSpec
from workbench.core.clients.gemini_cli.builtins import BUILTIN_DIR

HEADER = "# Available Agent Skills"
_NAME = re.compile(r"^  <skill>\n    <name>(.*?)</name>", re.M | re.S)
TOOL = "activate_skill"
_ENTRY = re.compile(
    r"^  <skill>\n    <name>(.*?)</name>\n    <description>(.*?)</description>\n"
    r"    <location>(.*?)</location>\n  </skill>$",
    re.M | re.S,
)


def _prose(listing: str) -> dict[str, str]:
    """The intro sentence between the header and ``<available_skills>`` (a ``client_texts`` slot)."""
    parts = listing.split("\n\n")
    return {"intro": parts[1]} if len(parts) > 2 and parts[0] == HEADER else {}


def _listing_span(text: str) -> tuple[int, int] | None:
    """The span of the skills section: from its header to the end of ``</available_skills>``."""
    start = text.find(HEADER)
    if start < 0:
        return None
    end = text.find("</available_skills>", start)
    return (start, end + len("</available_skills>")) if end >= 0 else (start, len(text))


class GeminiCliRunner(ClientRunner):
    client_id = "gemini-cli"
    npm_package = "@google/gemini-cli"
    version = "0.61.0"
    bin_name = "gemini"

    def prepare(self, ctx: RunContext) -> RunSpec:
        gdir = ctx.home / ".gemini"
        gdir.mkdir(parents=True, exist_ok=True)
        settings_path = gdir / "settings.json"
        settings: dict[str, Any] = {}
        if settings_path.exists():
            try:
                settings = json.loads(settings_path.read_text("utf-8"))
            except ValueError:
                settings = {}
        settings.setdefault("security", {}).setdefault("auth", {})["selectedType"] = "gemini-api-key"
        settings.setdefault("privacy", {})["usageStatisticsEnabled"] = False
        settings.setdefault("general", {}).setdefault("disableAutoUpdate", True)
        settings_path.write_text(json.dumps(settings, indent=2), "utf-8")
        env = {"GEMINI_API_KEY": "recorder-key", "GOOGLE_GEMINI_BASE_URL": ctx.base_url}
        if ctx.options.get("trusted", True) and ctx.options.get("trust_via") == "env":
            env["GEMINI_CLI_TRUST_WORKSPACE"] = "true"
        elif ctx.options.get("trusted", True):
            (gdir / "trustedFolders.json").write_text(
                json.dumps({str(ctx.workspace): "TRUST_FOLDER"}), "utf-8"
            )
        else:
            (gdir / "trustedFolders.json").write_text(
                json.dumps({str(ctx.workspace): "DO_NOT_TRUST"}), "utf-8"
            )
        mode = str(ctx.options.get("approval_mode", "yolo"))
        return RunSpec(argv=[str(ctx.exe), "-p", ctx.prompt, "--approval-mode", mode], env=env)

    def is_listing_request(self, req: RecordedRequest) -> bool:
        return req.api == "gemini-stream" and req.method == "POST"

    def extract(self, req: RecordedRequest) -> Extracted:
        """The ``# Available Agent Skills`` section of ``systemInstruction`` (header to
        ``</available_skills>``), the part index, names in order, ``activate_skill``, and the
        built-ins (entries whose location is inside the package's ``bundle/builtin``) as
        ``client_texts``."""
        data = req.json() or {}
        tool = None
        for group in data.get("tools") or []:
            for fd in (group.get("functionDeclarations") or []) if isinstance(group, dict) else []:
                if isinstance(fd, dict) and fd.get("name") == TOOL:
                    tool = fd
        si = data.get("systemInstruction") or {}
        for bi, part in enumerate(si.get("parts") or []):
            text = part.get("text") if isinstance(part, dict) else None
            span = _listing_span(text) if isinstance(text, str) else None
            if span is None or not isinstance(text, str):
                continue
            listing = text[span[0] : span[1]]
            builtins = [
                {"name": m.group(1), "description": m.group(2), "location": m.group(3)}
                for m in _ENTRY.finditer(listing)
                if f"/{BUILTIN_DIR}/" in m.group(3)
            ]
            return Extracted(
                listing,
                Placement("systemInstruction", None, bi, "section '# Available Agent Skills'"),
                _NAME.findall(listing),
                tool,
                [b["name"] for b in builtins],
                client_texts={"builtins": builtins, "prose": _prose(listing)},
            )
        return Extracted(None, None, tool=tool)


RUNNER = GeminiCliRunner()
