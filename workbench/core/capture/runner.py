"""Running a real client once against the recorder, and what comes back (``Capture``).

Each client package that can be run for real has a ``runner.py`` exposing ``RUNNER``, an instance of a
``ClientRunner`` subclass: how to install it (npm package and pinned version, for the conformance lab),
how to find it, how to configure a run (files written into a fresh HOME, environment, command line),
which recorded request holds the listing, and how to pull the listing block, its placement, the
skill-load tool and the skills in order out of that request. Recipes: ../shared/reference/real-clients.md.

``run_client(runner, workspace, ...)`` starts a ``Recorder``, runs the client with an isolated
environment (``env -i`` style: a made-up HOME and XDG dirs, PATH with node, nothing else of the
caller's), kills its whole process group at the timeout, and returns a ``Capture``. It never raises
for a client that fails: ``Capture.error`` says what went wrong in one sentence.
"""

from __future__ import annotations

import logging
import os
import shutil
import signal
import subprocess
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from workbench.core.capture.recorder import RecordedRequest, Recorder, Responder

DEFAULT_PROMPT = "hello"
DEFAULT_TIMEOUT = 120.0

#: The context window (tokens) of the model each runner asks its client for; the simulation of a
#: real run uses the same window so budgets compare like for like.
MODEL_CONTEXT_TOKENS: dict[str, int] = {
    "claude-code": 200_000,
    "opencode": 200_000,
    "openclaw": 200_000,
    "codex": 272_000,
    "gemini-cli": 1_048_576,
    "copilot-cli": 200_000,
}

log = logging.getLogger(__name__)


def lab_dir() -> Path:
    """Where the conformance lab installs pinned clients: ``$WB_LAB_CACHE`` or
    ``~/.cache/skill-workbench-lab`` (one folder per ``<client-id>-<version>``)."""
    env = os.environ.get("WB_LAB_CACHE")
    return Path(env) if env else Path.home() / ".cache" / "skill-workbench-lab"


@dataclass
class Placement:
    """Where a listing sits in the request.

    Attributes:
        location: "system" | "developer" | "user" | "tool-description" | "systemInstruction".
        message_index: index in the request's messages/input list (None for a system field).
        block_index: index of the content block / part inside that message or system list.
        detail: free text (e.g. "inside <system-reminder>", "section '## Skills'").
    """

    location: str
    message_index: int | None = None
    block_index: int | None = None
    detail: str = ""

    def to_json(self) -> dict[str, Any]:
        return {
            "location": self.location,
            "message_index": self.message_index,
            "block_index": self.block_index,
            "detail": self.detail,
        }


@dataclass
class Extracted:
    """What a runner pulls out of the request that holds the listing.

    ``listing`` is the client's listing block exactly as sent (None when the request has none);
    ``skills`` the skill names in listing order; ``tool`` the skill-load tool definition (as sent) or
    None; ``builtins`` names of skills the client itself adds (built-ins), where the runner can tell;
    ``client_texts`` the client's own texts in the listing, in the ``client_texts`` render-option
    shape of ``workbench.core.listing.CLIENT_TEXTS`` (pass them back to ``render_listing``).
    """

    listing: str | None
    placement: Placement | None
    skills: list[str] = field(default_factory=list)
    tool: dict[str, Any] | None = None
    builtins: list[str] = field(default_factory=list)
    client_texts: dict[str, Any] = field(default_factory=dict)


@dataclass
class RunSpec:
    """A prepared run: the command line, extra environment, and the working directory."""

    argv: list[str]
    env: dict[str, str] = field(default_factory=dict)
    cwd: Path | None = None
    stdin: bytes | None = None


@dataclass
class RunContext:
    """Inputs a runner's ``prepare`` gets.

    ``home`` is a fresh folder that stands for HOME (the runner writes its config files there);
    ``workspace`` the current directory of the run (a git repository); ``base_url`` the recorder's
    ``http://127.0.0.1:PORT``; ``exe`` the client's executable; ``prompt`` the user message.
    """

    home: Path
    workspace: Path
    base_url: str
    exe: Path
    prompt: str = DEFAULT_PROMPT
    options: dict[str, Any] = field(default_factory=dict)


@dataclass
class Capture:
    """The outcome of one real run. JSON shape: ``to_json()``."""

    client: str
    version: str | None
    extracted: Extracted | None
    requests: list[RecordedRequest]
    exit_code: int | None
    stdout: str
    stderr: str
    seconds: float
    error: str | None = None

    @property
    def listing(self) -> str | None:
        return self.extracted.listing if self.extracted else None

    @property
    def skills(self) -> list[str]:
        return self.extracted.skills if self.extracted else []

    def to_json(self) -> dict[str, Any]:
        ex = self.extracted
        return {
            "client": self.client,
            "version": self.version,
            "placement": ex.placement.to_json() if ex and ex.placement else None,
            "listing": ex.listing if ex else None,
            "skills": ex.skills if ex else [],
            "builtins": ex.builtins if ex else [],
            "tool": ex.tool if ex else None,
            "exit_code": self.exit_code,
            "seconds": round(self.seconds, 2),
            "error": self.error,
            "requests": [
                {"seq": r.seq, "method": r.method, "path": r.path, "api": r.api} for r in self.requests
            ],
        }


class ClientRunner:
    """How to run one real client. Subclasses set the class attributes and override the hooks.

    Class attributes:
        client_id: the workbench client id (``copilot-cli``, ``claude-code``, ...).
        npm_package: the npm package installed by the lab, pinned at ``version``.
        extra_packages: other npm packages the lab installs beside it (e.g. a Node runtime).
        bin_name: the executable's name in ``node_modules/.bin`` (and on PATH).
        node_dir: a lab sub-path whose ``bin/`` goes first on PATH (OpenClaw needs Node 24).
    """

    client_id: str = ""
    npm_package: str = ""
    version: str = ""
    extra_packages: tuple[str, ...] = ()
    bin_name: str = ""
    node_dir: str | None = None

    # -- locating -------------------------------------------------------------------------------
    def install_dir(self) -> Path:
        """The lab folder of the pinned version (``lab_dir()/<client_id>-<version>``)."""
        return lab_dir() / f"{self.client_id}-{self.version}"

    def lab_executable(self) -> Path | None:
        """The pinned client installed by the lab, or None."""
        exe = self.install_dir() / "node_modules" / ".bin" / self.bin_name
        return exe if exe.exists() else None

    def find_installed(self) -> Path | None:
        """The user's own installed client on PATH, or None."""
        found = shutil.which(self.bin_name)
        return Path(found) if found else None

    def path_dirs(self, exe: Path) -> list[str]:
        """Folders for PATH, in order: the client's own bin folder, node's, then the system's."""
        dirs = [str(exe.parent)]
        node = shutil.which("node")
        if node:
            dirs.append(str(Path(node).parent))
        dirs += ["/usr/local/bin", "/usr/bin", "/bin"]
        return list(dict.fromkeys(dirs))

    # -- running --------------------------------------------------------------------------------
    def version_argv(self, exe: Path) -> list[str]:
        return [str(exe), "--version"]

    def parse_version(self, output: str) -> str | None:
        """The version number in ``--version`` output (first dotted number)."""
        import re

        m = re.search(r"\d+\.\d+(?:\.\d+)*", output)
        return m.group(0) if m else None

    def prepare(self, ctx: RunContext) -> RunSpec:
        """Write config into ``ctx.home`` and return the command line. Must be overridden."""
        raise NotImplementedError

    def is_listing_request(self, req: RecordedRequest) -> bool:
        """Whether ``req`` is the request that holds the listing (default: the first model turn)."""
        return (
            req.api in ("anthropic-messages", "openai-responses", "openai-chat", "gemini-stream")
            and req.method == "POST"
        )

    def done(self, requests: list[RecordedRequest]) -> bool:
        """Whether the run has what it needs (then the client is stopped early)."""
        return any(self.is_listing_request(r) for r in requests)

    def extract(self, req: RecordedRequest) -> Extracted:
        """Pull the listing out of the request. Must be overridden."""
        raise NotImplementedError


def request_tool(data: Any, name: str) -> dict[str, Any] | None:
    """The tool definition called ``name`` in a request body (Anthropic ``tools``), or None."""
    tools = data.get("tools") if isinstance(data, dict) else None
    return next((t for t in tools or [] if isinstance(t, dict) and t.get("name") == name), None)


def system_texts(data: Any) -> list[tuple[int, str]]:
    """``(block index, text)`` of each text block of a request's ``system`` (Anthropic Messages;
    a plain string is block 0)."""
    system = data.get("system") if isinstance(data, dict) else None
    blocks = [{"text": system}] if isinstance(system, str) else system or []
    return [
        (i, b["text"]) for i, b in enumerate(blocks) if isinstance(b, dict) and isinstance(b.get("text"), str)
    ]


def isolated_env(home: Path, path_dirs: list[str], extra: dict[str, str]) -> dict[str, str]:
    """An ``env -i`` style environment: HOME, XDG dirs under it, PATH, a UTF-8 locale, ``extra``."""
    env = {
        "HOME": str(home),
        "USER": "workbench",
        "LOGNAME": "workbench",
        "XDG_CONFIG_HOME": str(home / ".config"),
        "XDG_DATA_HOME": str(home / ".local" / "share"),
        "XDG_CACHE_HOME": str(home / ".cache"),
        "XDG_STATE_HOME": str(home / ".local" / "state"),
        "PATH": os.pathsep.join(path_dirs),
        "LANG": "C.UTF-8",
        "LC_ALL": "C.UTF-8",
        "TERM": "dumb",
        "NO_COLOR": "1",
        "CI": "1",
        "TMPDIR": str(home / ".tmp"),
    }
    env.update(extra)
    return env


def _kill_group(proc: subprocess.Popen[bytes]) -> None:
    try:
        os.killpg(proc.pid, signal.SIGTERM)
    except (ProcessLookupError, PermissionError):
        return
    try:
        proc.wait(timeout=3)
    except subprocess.TimeoutExpired:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        proc.wait()


def client_version(runner: ClientRunner, exe: Path, timeout: float = 30.0) -> str | None:
    """Ask the client for its version (``--version``); None when it does not answer."""
    with tempfile.TemporaryDirectory(prefix="wb-ver-") as tmp:
        home = Path(tmp)
        (home / ".tmp").mkdir()
        env = isolated_env(home, runner.path_dirs(exe), {})
        try:
            out = subprocess.run(
                runner.version_argv(exe),
                env=env,
                cwd=tmp,
                capture_output=True,
                timeout=timeout,
                stdin=subprocess.DEVNULL,
            )
        except (OSError, subprocess.TimeoutExpired):
            return None
        return runner.parse_version(
            out.stdout.decode("utf-8", "replace") + out.stderr.decode("utf-8", "replace")
        )


def run_client(
    runner: ClientRunner,
    workspace: Path,
    *,
    exe: Path | None = None,
    home: Path | None = None,
    prompt: str = DEFAULT_PROMPT,
    timeout: float = DEFAULT_TIMEOUT,
    options: dict[str, Any] | None = None,
    responder: Responder | None = None,
    ask_version: bool = True,
    home_setup: Callable[[Path], None] | None = None,
    stop_when_done: bool = True,
    cancel: threading.Event | None = None,
) -> Capture:
    """Run ``runner``'s client once in ``workspace`` against a fresh recorder.

    Args:
        workspace: the run's current directory (made a git repository by the caller).
        exe: the client executable (default: the lab's pinned install, else PATH).
        home: the folder that stands for HOME (default: a new temp folder, removed afterwards).
        timeout: seconds before the client's process group is killed.
        home_setup: called with HOME before the client starts (scenarios place user-level skills).
        stop_when_done: stop the client as soon as the listing request has arrived.
        cancel: when set, the client's process group is stopped at once (``error`` says so).

    Returns a ``Capture``; never raises for a misbehaving client (see ``Capture.error``).
    """
    exe = exe or runner.lab_executable() or runner.find_installed()
    if exe is None:
        return Capture(
            runner.client_id,
            None,
            None,
            [],
            None,
            "",
            "",
            0.0,
            error=f"{runner.client_id}: client not installed "
            f"(npm package {runner.npm_package}@{runner.version})",
        )
    own_home = home is None
    home = Path(tempfile.mkdtemp(prefix=f"wb-{runner.client_id}-home-")) if home is None else home
    try:
        (home / ".tmp").mkdir(parents=True, exist_ok=True)
        version = client_version(runner, exe) if ask_version else runner.version
        if home_setup is not None:
            home_setup(home)
        with Recorder(responder=responder) as rec:
            ctx = RunContext(
                home=home,
                workspace=workspace,
                base_url=rec.url,
                exe=exe,
                prompt=prompt,
                options=dict(options or {}),
            )
            spec = runner.prepare(ctx)
            env = isolated_env(home, runner.path_dirs(exe), spec.env)
            start = time.monotonic()
            out_path = home / ".tmp" / "stdout"
            err_path = home / ".tmp" / "stderr"
            error = None
            with open(out_path, "wb") as out, open(err_path, "wb") as err:
                try:
                    proc = subprocess.Popen(
                        spec.argv,
                        env=env,
                        cwd=spec.cwd or workspace,
                        stdout=out,
                        stderr=err,
                        stdin=subprocess.PIPE if spec.stdin else subprocess.DEVNULL,
                        start_new_session=True,
                    )
                except OSError as exc:
                    return Capture(
                        runner.client_id,
                        version,
                        None,
                        [],
                        None,
                        "",
                        "",
                        0.0,
                        error=f"{runner.client_id}: cannot start {spec.argv[0]}: {exc}",
                    )
                if spec.stdin and proc.stdin:
                    try:
                        proc.stdin.write(spec.stdin)
                        proc.stdin.close()
                    except OSError:
                        pass
                code: int | None = None
                while True:
                    code = proc.poll()
                    if code is not None:
                        break
                    if stop_when_done and runner.done(rec.requests):
                        time.sleep(0.3)  # let the reply stream finish before stopping
                        _kill_group(proc)
                        code = proc.returncode
                        break
                    if cancel is not None and cancel.is_set():
                        _kill_group(proc)
                        error = f"{runner.client_id}: cancelled"
                        break
                    if time.monotonic() - start > timeout:
                        _kill_group(proc)
                        error = f"{runner.client_id}: timed out after {timeout:.0f} s"
                        break
                    time.sleep(0.05)
            seconds = time.monotonic() - start
            requests = rec.requests
        stdout = out_path.read_text("utf-8", "replace")
        stderr = err_path.read_text("utf-8", "replace")
        main = next((r for r in requests if runner.is_listing_request(r)), None)
        extracted = None
        if main is None:
            if error is None:
                error = (
                    f"{runner.client_id}: the client sent no model request "
                    f"(exit {code}; {len(requests)} other requests)"
                )
        else:
            try:
                extracted = runner.extract(main)
            except Exception as exc:  # noqa: BLE001 - report, don't crash the lab or capture
                log.warning("%s: reading the listing failed", runner.client_id, exc_info=True)
                error = f"{runner.client_id}: could not read the listing from its request: {exc!r}"
        return Capture(runner.client_id, version, extracted, requests, code, stdout, stderr, seconds, error)
    finally:
        if own_home:
            shutil.rmtree(home, ignore_errors=True)
