"""Running the real Claude Code against the recorder (recipe: ../shared/reference/real-clients.md).

Env: ``ANTHROPIC_API_KEY`` (any), ``ANTHROPIC_BASE_URL`` = the recorder, non-essential traffic and
telemetry off. Command: ``claude -p PROMPT --model claude-sonnet-4-5``. The listing is a
``<system-reminder>`` text block inside the first user message; the loader is the ``Skill`` tool.
"""

from __future__ import annotations

from workbench.core.capture.recorder import RecordedRequest
from workbench.core.capture.runner import ClientRunner, Extracted, RunContext, RunSpec


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
        data = req.json()
        return (req.api == "anthropic-messages" and isinstance(data, dict)
                and any(t.get("name") == "Skill" for t in data.get("tools") or []
                        if isinstance(t, dict)))

    def extract(self, req: RecordedRequest) -> Extracted:
        raise NotImplementedError("filled in by the conformance lab")


RUNNER = ClaudeCodeRunner()
