"""Triggering through the real client: ``workbench chat --via-client`` and ``eval --via-client``.

The user's installed client runs once per message, in the workspace, with the copy-on-write HOME
overlay; its model requests go to the recorder, which forwards them to the configured Messages API
(``ForwardingResponder``: the user's key or a local server) and lets only skill loads back. Any
other tool call (shell, write, edit, web) never reaches the client: the proxy ends the turn and
reports it. The client also runs with its own tools restricted where it has a switch for that
(``RESTRICT``), so two locks hold.

Supported: the clients that speak the Messages API (``proxy.FORWARDABLE``). Every run has a timeout.
"""

from __future__ import annotations

import logging
import tempfile
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from workbench.core.capture import get_runner
from workbench.core.capture.overlay import make_overlay
from workbench.core.capture.proxy import FORWARDABLE, ForwardingResponder
from workbench.core.capture.runner import ClientRunner, RunContext, RunSpec, client_version, run_client

#: Extra command-line switches / options that take tools away from the client for a trigger test.
#: Claude Code: ``--disallowedTools`` (its CLI); OpenCode: ``permission`` deny in its config.
RESTRICT_ARGS: dict[str, list[str]] = {
    "claude-code": ["--disallowedTools", "Bash,Edit,Write,MultiEdit,NotebookEdit,WebFetch,WebSearch"],
}
RESTRICT_OPTIONS: dict[str, dict[str, Any]] = {
    "opencode": {"opencode_config": {"permission": {"edit": "deny", "bash": "deny", "webfetch": "deny"}}},
}

log = logging.getLogger(__name__)


class ViaClientError(Exception):
    """The client cannot be driven (not installed, unsupported). ``kind``: not-installed | unsupported."""

    def __init__(self, kind: str, message: str) -> None:
        super().__init__(message)
        self.kind = kind


@dataclass
class ViaResult:
    """One message through the real client."""

    client: str
    version: str | None
    message: str
    loaded: list[str] = field(default_factory=list)
    blocked: list[dict[str, Any]] = field(default_factory=list)
    text: str = ""
    requests: int = 0
    exit_code: int | None = None
    seconds: float = 0.0
    error: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "client": self.client,
            "version": self.version,
            "message": self.message,
            "triggered": self.loaded,
            "blocked": self.blocked,
            "text": self.text,
            "requests": self.requests,
            "exit_code": self.exit_code,
            "seconds": round(self.seconds, 2),
            "error": self.error,
        }


class _Restricted(ClientRunner):
    """Wraps a runner: appends the restricting switches and never stops the client early."""

    def __init__(self, inner: ClientRunner) -> None:
        self.inner = inner
        self.client_id, self.version, self.bin_name = inner.client_id, inner.version, inner.bin_name
        self.npm_package = inner.npm_package

    def path_dirs(self, exe: Path) -> list[str]:
        return self.inner.path_dirs(exe)

    def prepare(self, ctx: RunContext) -> RunSpec:
        ctx.options.update(RESTRICT_OPTIONS.get(self.client_id, {}))
        spec = self.inner.prepare(ctx)
        spec.argv = spec.argv + RESTRICT_ARGS.get(self.client_id, [])
        return spec

    def is_listing_request(self, req: Any) -> bool:
        return self.inner.is_listing_request(req)

    def done(self, requests: list[Any]) -> bool:
        return False

    def extract(self, req: Any) -> Any:
        try:
            return self.inner.extract(req)
        except Exception:  # noqa: BLE001 - the listing is not what a trigger run needs
            log.debug("via: the listing could not be read from a request", exc_info=True)
            return None


def resolve_client(
    client_id: str, exe: Path | None, runner: ClientRunner | None = None
) -> tuple[ClientRunner, Path]:
    """The runner and executable for ``--via-client``. Raises ViaClientError."""
    if client_id not in FORWARDABLE:
        raise ViaClientError(
            "unsupported",
            f"--via-client {client_id}: only clients that speak the "
            f"Messages API can be driven ({', '.join(FORWARDABLE)})",
        )
    runner = runner or get_runner(client_id)
    found = exe or runner.find_installed() or runner.lab_executable()
    if found is None or not Path(found).exists():
        raise ViaClientError(
            "not-installed",
            f"{client_id} is not installed (no `{runner.bin_name}` on "
            f"PATH); install {runner.npm_package} or pass --client-bin PATH",
        )
    return runner, Path(found)


def chat_via_client(
    env: Any,
    client_id: str,
    message: str,
    *,
    base_url: str,
    api_key: str,
    skill_dirs: list[Path],
    model: str | None = None,
    exe: Path | None = None,
    timeout: float = 180.0,
    runner: ClientRunner | None = None,
    cancel: threading.Event | None = None,
    version: str | None = None,
) -> ViaResult:
    """Send ``message`` through the real client once (module docstring). Never raises for a
    misbehaving client (``ViaResult.error``); raises ViaClientError when it cannot be driven."""
    runner, exe = resolve_client(client_id, exe, runner)
    version = version or client_version(runner, exe)
    proxy = ForwardingResponder(base_url, api_key, client_id, skill_dirs, model=model, timeout=timeout)
    with tempfile.TemporaryDirectory(prefix=f"wb-via-{client_id}-") as tmp:
        home = Path(tmp) / "home"
        make_overlay(Path(env.home), client_id, home)
        cap = run_client(
            _Restricted(runner),
            Path(env.workspace),
            exe=exe,
            home=home,
            prompt=message,
            timeout=timeout,
            responder=proxy,
            ask_version=False,
            stop_when_done=False,
            cancel=cancel,
        )
    rep = proxy.report()
    err = None
    if cap.error and "timed out" in cap.error:
        err = cap.error
    elif rep["errors"]:
        err = rep["errors"][0]
    elif not rep["requests"]:
        err = cap.error or f"{client_id} sent no model request (exit {cap.exit_code})"
    return ViaResult(
        client_id,
        version,
        message,
        rep["loaded"],
        rep["blocked"],
        cap.stdout.strip(),
        rep["requests"],
        cap.exit_code,
        cap.seconds,
        err,
    )


def eval_via_client(
    env: Any,
    client_id: str,
    skill: str,
    queries: list[tuple[str, bool]],
    runs: int,
    *,
    base_url: str,
    api_key: str,
    skill_dirs: list[Path],
    model: str | None = None,
    exe: Path | None = None,
    timeout: float = 180.0,
    concurrency: int = 2,
    threshold: float = 0.5,
    runner: ClientRunner | None = None,
    progress: Callable[[int, int], None] | None = None,
    cancel: threading.Event | None = None,
) -> dict[str, Any]:
    """Run each query ``runs`` times through the real client (bounded parallel) and report in the
    eval format (DESIGN.md section 3: ``results`` per query, ``summary``). An errored run counts as
    an error, never as a non-trigger."""
    from workbench.core.evals.metrics import query_status, summarize

    runner, exe = resolve_client(client_id, exe, runner)
    version = client_version(runner, exe)
    jobs = [(qi, q) for qi, (q, _) in enumerate(queries) for _ in range(runs)]
    counts = [{"triggers": 0, "errors": 0, "runs": 0, "blocked": 0} for _ in queries]
    done = [0]
    lock = threading.Lock()

    def one(job: tuple[int, str]) -> None:
        qi, q = job
        if cancel is not None and cancel.is_set():
            return
        res = chat_via_client(
            env,
            client_id,
            q,
            base_url=base_url,
            api_key=api_key,
            skill_dirs=skill_dirs,
            model=model,
            exe=exe,
            timeout=timeout,
            runner=runner,
            cancel=cancel,
            version=version,
        )
        with lock:
            c = counts[qi]
            c["runs"] += 1
            if res.error:
                c["errors"] += 1
            elif skill in res.loaded:
                c["triggers"] += 1
            c["blocked"] += len(res.blocked)
            done[0] += 1
            if progress is not None:
                progress(done[0], len(jobs))

    with ThreadPoolExecutor(max(1, concurrency)) as pool:
        list(pool.map(one, jobs))
    rows = [
        SimpleNamespace(
            query=q,
            should_trigger=should,
            runs=c["runs"] - c["errors"],
            triggers=c["triggers"],
            errors=c["errors"],
            blocked=c["blocked"],
        )
        for (q, should), c in zip(queries, counts, strict=True)
    ]
    results = []
    for r in rows:
        rate, ok, status = query_status(r.should_trigger, r.runs, r.triggers, r.errors, threshold)
        results.append(
            {
                "query": r.query,
                "should_trigger": r.should_trigger,
                "runs": r.runs + r.errors,
                "triggers": r.triggers,
                "errors": r.errors,
                "trigger_rate": rate,
                "pass": ok,
                "status": status,
                "blocked_tool_calls": r.blocked,
            }
        )
    return {
        "skill": skill,
        "client": client_id,
        "client_version": version,
        "via_client": True,
        "runs_per_query": runs,
        "threshold": threshold,
        "results": results,
        "summary": summarize(rows, threshold).to_json(),
    }
