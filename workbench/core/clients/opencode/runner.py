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

import json
from typing import Any

from workbench.core.capture.recorder import RecordedRequest
from workbench.core.capture.runner import ClientRunner, Extracted, RunContext, RunSpec

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
            "provider": {"anthropic": {
                "options": {"baseURL": ctx.base_url + "/v1", "apiKey": "sk-ant-recorder"},
                "models": {MODEL: {"name": "Claude Sonnet 4.5",
                                   "limit": {"context": 200000, "output": 64000}}},
            }},
        }
        config.update(ctx.options.get("opencode_config") or {})
        (cfg_dir / "opencode.json").write_text(json.dumps(config, indent=2), "utf-8")
        return RunSpec(
            argv=[str(ctx.exe), "run", ctx.prompt],
            env={"OPENCODE_DISABLE_MODELS_FETCH": "1", "OPENCODE_DISABLE_AUTOUPDATE": "1",
                 "OPENCODE_DISABLE_LSP_DOWNLOAD": "1", "OPENCODE_DISABLE_SHARE": "1"},
        )

    def is_listing_request(self, req: RecordedRequest) -> bool:
        data = req.json()
        return (req.api == "anthropic-messages" and isinstance(data, dict)
                and any(isinstance(t, dict) and t.get("name") == "skill"
                        for t in data.get("tools") or []))

    def extract(self, req: RecordedRequest) -> Extracted:
        raise NotImplementedError


RUNNER = OpenCodeRunner()
