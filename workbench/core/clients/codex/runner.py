"""Running the real Codex CLI against the recorder (recipe: ../shared/reference/real-clients.md).

Config ``$HOME/.codex/config.toml``: ``model = "gpt-5"``, provider ``standin`` (the recorder's
``/v1``, ``wire_api = "responses"``, key from ``STANDIN_KEY``), analytics, plugins and apps off
(without them Codex looks up outside hosts). Command: ``codex exec PROMPT`` in a git repository
(``--skip-git-repo-check`` keeps a run outside one possible). ``options["codex_config"]``: extra
top-level TOML lines (e.g. ``model_context_window = 32000``). The project is trusted by a
``[projects."<workspace>"] trust_level = "trusted"`` table unless ``options["trusted"]`` is False.

The listing is a developer-role input item of the ``POST /v1/responses`` request whose text holds
``<skills_instructions>``; there is no skill tool (the model reads SKILL.md with its shell tool).
Codex unpacks its system skills into ``~/.codex/skills/.system`` on the first run.
"""

from __future__ import annotations

import json
import re
import threading
from pathlib import Path

from workbench.core.capture.recorder import RecordedRequest
from workbench.core.capture.runner import ClientRunner, Extracted, Placement, RunContext, RunSpec

OPEN_TAG = "<skills_instructions>"
CLOSE_TAG = "</skills_instructions>"
_ENTRY = re.compile(r"^- (?P<name>[^\n]*?): (?:.*?)\(file: (?P<path>[^\n]*)\)$", re.M)


_LOCAL = threading.local()  # the HOME of the run in progress on this thread (prepare -> extract)


def system_skill_texts(codex_home: Path) -> list[dict[str, str]]:
    """Codex's system skills as unpacked by the run (``$CODEX_HOME/skills/.system``), in the
    ``client_texts`` builtins shape: name, description (whitespace collapsed, as Codex lists it,
    never cut), location (the SKILL.md path). Empty when Codex unpacked none."""
    from workbench.core.clients.codex.builtins import BUILTINS
    from workbench.core.skillfile import collapse_ws, read_skill_file

    out = []
    for name, _ in BUILTINS.get(CodexRunner.version, ()):
        path = codex_home / "skills" / ".system" / name / "SKILL.md"
        sf = read_skill_file(path)
        desc = (sf.data or {}).get("description") if sf.ok else None
        if isinstance(desc, str):
            out.append({"name": name, "description": collapse_ws(desc), "location": str(path)})
    return out


def _toml_str(s: str) -> str:
    return json.dumps(s)  # a JSON string is a valid TOML basic string


class CodexRunner(ClientRunner):
    client_id = "codex"
    npm_package = "@openai/codex"
    version = "0.169.0"
    bin_name = "codex"

    def prepare(self, ctx: RunContext) -> RunSpec:
        cfg_dir = ctx.home / ".codex"
        cfg_dir.mkdir(parents=True, exist_ok=True)
        lines = [
            'model = "gpt-5"',
            'model_provider = "standin"',
            str(ctx.options.get("codex_config") or ""),  # top-level keys (before any table)
            "",
            "[model_providers.standin]",
            'name = "standin"',
            f"base_url = {_toml_str(ctx.base_url + '/v1')}",
            'wire_api = "responses"',
            'env_key = "STANDIN_KEY"',
            "",
            "[analytics]",
            "enabled = false",
            "",
            "[features]",
            "plugins = false",
            "apps = false",
        ]
        if ctx.options.get("trusted", True):
            lines += ["", f"[projects.{_toml_str(str(ctx.workspace))}]", 'trust_level = "trusted"']
        _LOCAL.codex_home = cfg_dir
        cfg = cfg_dir / "config.toml"
        existing = cfg.read_text("utf-8") + "\n" if cfg.exists() else ""
        cfg.write_text(existing + "\n".join(lines) + "\n", "utf-8")
        return RunSpec(
            argv=[str(ctx.exe), "exec", "--skip-git-repo-check", ctx.prompt],
            env={"STANDIN_KEY": "sk-recorder", "CODEX_HOME": str(cfg_dir)},
        )

    def is_listing_request(self, req: RecordedRequest) -> bool:
        return req.api == "openai-responses" and req.method == "POST"

    def extract(self, req: RecordedRequest) -> Extracted:
        """The ``<skills_instructions>`` text of the developer input item (the whole item text
        from the opening to the closing tag), its placement, and the names in listing order."""
        data = req.json() or {}
        for mi, item in enumerate(data.get("input") or []):
            if not isinstance(item, dict):
                continue
            content = item.get("content")
            blocks = content if isinstance(content, list) else [{"text": content}]
            for bi, block in enumerate(blocks):
                text = block.get("text") if isinstance(block, dict) else None
                if not isinstance(text, str) or OPEN_TAG not in text:
                    continue
                start = text.index(OPEN_TAG)
                end = text.find(CLOSE_TAG, start)
                listing = text[start : end + len(CLOSE_TAG)] if end >= 0 else text[start:]
                names = [m.group("name") for m in _ENTRY.finditer(listing)]
                home = getattr(_LOCAL, "codex_home", None)
                texts = system_skill_texts(home) if home is not None else []
                builtins = [t["name"] for t in texts]
                lines = listing.split("\n")
                prose = {"intro": lines[2]} if len(lines) > 2 and lines[1] == "## Skills" else {}
                return Extracted(
                    listing,
                    Placement(
                        str(item.get("role") or item.get("type")), mi, bi, "input item <skills_instructions>"
                    ),
                    names,
                    builtins=builtins,
                    client_texts={"builtins": texts, "prose": prose},
                )
        return Extracted(None, None)


RUNNER = CodexRunner()
