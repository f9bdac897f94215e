"""Tools the chat loop offers besides the client's load tool: read a file, list a folder, a shell.

Everything here is **read-only**. Reads and listings are confined to the skill roots, the skill
folders and the workspace: a path is resolved with ``os.path.realpath`` (so symlinks are followed
to where they really lead) and refused with an error ``tool_result`` when it lands outside every
allowed folder. The shell tool runs nothing unless an approval callback says yes for that call
(the GUI asks the user); by default it tells the model that commands are not run here.

Tool names, descriptions and schemas in this module are the workbench's own (they do not reproduce
a client's tool), except where a client's ``loading.py`` passes its own name and parameter names
(OpenClaw ``read{path, offset?, limit?}``, VS Code ``read_file``).

Extra tools (e.g. the workshop's ``propose_skill``) plug in as ``ToolSpec`` objects passed to
``ChatSession(extra_tools=...)``; their handler gets the input dict and a ``ToolContext``.
"""

from __future__ import annotations

import io
import logging
import os
import subprocess
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast
from urllib.parse import unquote, urlparse

from workbench.core.skillfile import read_regular_file

log = logging.getLogger(__name__)

#: Read caps of the generic read tool: lines and characters returned per call.
READ_MAX_LINES = 2000
READ_MAX_CHARS = 50_000
#: Bytes of a file the read tool looks at (lines past them are not reachable: a 3 GB log).
READ_MAX_FILE_BYTES = 8_000_000
LIST_MAX_ENTRIES = 500
SHELL_TIMEOUT_S = 30
SHELL_MAX_CHARS = 20_000


class AccessError(Exception):
    """A path the model asked for is outside the allowed folders, missing, or unreadable."""


@dataclass
class ToolOutcome:
    """What running one tool call produced.

    Attributes:
        content: the ``tool_result`` content (a string) the model receives.
        is_error: sent as the result's ``is_error``.
        skill: the name of the skill this call loaded (load tool, or a read of its SKILL.md), else None.
        skill_path: that skill's SKILL.md path (str), else None.
        resolved: what the input resolved to, for the trace (an absolute real path, or a skill name).
        body_chars: characters of the skill body returned (None when no skill was loaded).
        extra_blocks: content blocks to append to the next user message *after* all tool_results
            (Claude Code delivers the skill body as such a separate message; see its loading.py).
        injections: ``!`cmd``` commands found in a loaded body (never run; shown in the trace).
        args: the arguments passed to a skill load (Claude Code), else None.
        notes: extra lines for the trace (e.g. "substitution point unverified").
        events: extra trace events (dicts with a ``type``) the engine emits after ``tool_use`` and
            before ``tool_result``, e.g. the ``proposal`` event of ``propose_skill``.
    """

    content: str
    is_error: bool = False
    skill: str | None = None
    skill_path: str | None = None
    resolved: str | None = None
    body_chars: int | None = None
    extra_blocks: list[dict[str, Any]] = field(default_factory=list)
    injections: list[str] = field(default_factory=list)
    args: str | None = None
    notes: list[str] = field(default_factory=list)
    events: list[dict[str, Any]] = field(default_factory=list)


@dataclass
class ToolContext:
    """What a tool handler may use.

    Attributes:
        fs: the confined file access.
        skills: listed skills (name resolution for load tools), in listing order.
        known: every skill of the catalog (path resolution: a read of its SKILL.md is a load).
        workspace: the workspace folder (relative paths resolve against it).
        session_id: an id for ``${CLAUDE_SESSION_ID}``.
        shell_approver: ``callable(command: str) -> bool`` or None (= never run).
        client_id: the simulated client.
        subagent: ``callable(prompt: str, info: dict) -> dict`` that runs ``prompt`` as a separate
            conversation (a forked skill, Claude Code ``context: fork``) and returns a ``fork``
            trace event (``{"type": "fork", "text", "events", "usage", "error"}``); None inside a
            fork (no nested forks are simulated).
    """

    fs: FileAccess
    skills: list[Any]
    known: list[Any]
    workspace: Path
    session_id: str = ""
    shell_approver: Callable[[str], bool] | None = None
    client_id: str = ""
    subagent: Callable[[str, dict[str, Any]], dict[str, Any]] | None = None

    def skill_for_path(self, real: Path) -> Any:
        """The known skill whose SKILL.md is ``real`` (a realpath), preferring listed ones, or None."""
        hit = None
        for s in list(self.skills) + list(self.known):
            try:
                if Path(os.path.realpath(s.path)) == real:
                    return s
            except OSError:  # pragma: no cover
                continue
        return hit


@dataclass
class ToolSpec:
    """A tool offered to the model.

    ``handler(input: dict, ctx: ToolContext) -> ToolOutcome``; it must not raise for bad input
    (return ``ToolOutcome(..., is_error=True)``); an exception is turned into an error result.
    """

    name: str
    description: str
    input_schema: dict[str, Any]
    handler: Callable[[dict[str, Any], ToolContext], ToolOutcome]

    def to_param(self) -> dict[str, Any]:
        """The Messages API tool definition ``{"name","description","input_schema"}``."""
        return {"name": self.name, "description": self.description, "input_schema": self.input_schema}


class FileAccess:
    """Read-only access confined to a set of folders (compared by realpath).

    ``allowed``: folders the model may read under. ``base``: where relative paths start.
    """

    def __init__(self, allowed: Iterable[Path], base: Path):
        self.base = Path(base)
        roots = []
        for a in allowed:
            try:
                roots.append(Path(os.path.realpath(a)))
            except OSError:  # pragma: no cover
                continue
        self.allowed = sorted(set(roots))

    def resolve(self, raw: Any) -> Path:
        """The realpath of ``raw`` (a path string, ``~`` or a ``file://`` URL). Raises AccessError
        when it is empty, or outside every allowed folder (after following symlinks)."""
        if not isinstance(raw, str) or not raw.strip():
            raise AccessError("path must be a non-empty string")
        s = raw.strip()
        if s.startswith("file://"):
            s = unquote(urlparse(s).path)
        p = Path(os.path.expanduser(s))
        if not p.is_absolute():
            p = self.base / p
        real = Path(os.path.realpath(p))
        for a in self.allowed:
            if real == a or a in real.parents:
                return real
        raise AccessError(
            f"{raw}: outside the folders this chat may read (the workspace and the skill roots); refused"
        )

    def read_text(
        self,
        raw: Any,
        offset: int | None = None,
        limit: int | None = None,
        max_lines: int = READ_MAX_LINES,
        max_chars: int = READ_MAX_CHARS,
    ) -> tuple[str, Path]:
        """(text, realpath). ``offset`` is the 1-based first line, ``limit`` a line count.
        A cut adds a last line ``[... truncated: use offset=N to continue]``. Raises AccessError."""
        real = self.resolve(raw)
        if real.is_dir():
            raise AccessError(f"{raw}: is a folder (use the list tool)")
        try:  # a regular file only (a FIFO would block), at most READ_MAX_FILE_BYTES of it
            data = read_regular_file(real, READ_MAX_FILE_BYTES, cut=True)
        except FileNotFoundError:
            raise AccessError(f"{raw}: no such file") from None
        except OSError as exc:
            raise AccessError(f"{raw}: cannot read ({exc.strerror or exc})") from None
        if len(data) == READ_MAX_FILE_BYTES:  # cut: drop a partial last line
            data = data[: data.rfind(b"\n") + 1] or data
        if b"\0" in data[:8192]:
            raise AccessError(f"{raw}: binary file, not shown")
        text = data.decode("utf-8", errors="replace")
        if text.startswith("\ufeff"):
            text = text[1:]
        lines = text.splitlines(keepends=True)
        start = max(1, int(offset or 1))
        n = max_lines if not limit or limit <= 0 else min(int(limit), max_lines)
        chunk = lines[start - 1 : start - 1 + n]
        out, used = [], 0
        for line in chunk:
            if used + len(line) > max_chars:
                break
            out.append(line)
            used += len(line)
        shown_end = start - 1 + len(out)
        result = "".join(out)
        if shown_end < len(lines):
            if result and not result.endswith("\n"):
                result += "\n"
            result += f"[... truncated: use offset={shown_end + 1} to continue]"
        return result, real

    def list_dir(self, raw: Any) -> tuple[str, Path]:
        """One entry per line (folders end with ``/``), sorted; at most ``LIST_MAX_ENTRIES``."""
        real = self.resolve(raw if raw not in (None, "") else str(self.base))
        if not real.is_dir():
            raise AccessError(f"{raw}: not a folder")
        try:
            entries = sorted(os.scandir(real), key=lambda e: e.name)
        except OSError as exc:
            raise AccessError(f"{raw}: cannot list ({exc.strerror or exc})") from None
        lines = []
        for e in entries[:LIST_MAX_ENTRIES]:
            try:
                is_dir = e.is_dir()
            except OSError:
                is_dir = False
            lines.append(e.name + ("/" if is_dir else ""))
        if len(entries) > LIST_MAX_ENTRIES:
            lines.append(f"[... {len(entries) - LIST_MAX_ENTRIES} more entries]")
        return "\n".join(lines) if lines else "(empty folder)", real


# ---------------------------------------------------------------------------------------------
# the generic tools (workbench's own wording)


def make_read_tool(
    name: str = "read_file",
    path_key: str = "path",
    *,
    line_keys: tuple[str, str] = ("offset", "limit"),
    line_mode: str = "offset",
    description: str | None = None,
    post: Callable[[str, Any, ToolContext], tuple[str, list[str]]] | None = None,
) -> ToolSpec:
    """A read-file tool. ``path_key`` names the path parameter; ``line_mode`` "offset" takes
    ``{offset (1-based), limit}``, "range" takes ``{startLine, endLine}`` (1-based, inclusive).
    ``post(text, skill, ctx) -> (text, notes)`` may transform the text of a skill's SKILL.md (OpenClaw
    ``{baseDir}``). A read whose realpath is a known skill's SKILL.md is reported as loading it."""
    a, b = line_keys
    props: dict[str, Any] = {
        path_key: {
            "type": "string",
            "description": "Absolute path of the file (or relative to the workspace).",
        }
    }
    if line_mode == "offset":
        props[a] = {"type": "integer", "description": "First line to read, 1-based (optional)."}
        props[b] = {"type": "integer", "description": "How many lines to read (optional)."}
    else:
        props[a] = {"type": "integer", "description": "First line, 1-based (optional)."}
        props[b] = {"type": "integer", "description": "Last line, inclusive (optional)."}
    schema = {"type": "object", "properties": props, "required": [path_key]}
    desc = description or (
        "Read a text file from the workspace or an installed skill folder. "
        "Returns the file's text; long files are cut and say how to continue."
    )

    def handler(inp: dict[str, Any], ctx: ToolContext) -> ToolOutcome:
        raw = inp.get(path_key)
        try:
            if line_mode == "offset":
                off, lim = _int_or_none(inp.get(a)), _int_or_none(inp.get(b))
            else:
                s, e = _int_or_none(inp.get(a)), _int_or_none(inp.get(b))
                off = s
                lim = (e - (s or 1) + 1) if e else None
            text, real = ctx.fs.read_text(raw, off, lim)
        except AccessError as exc:
            return ToolOutcome(
                str(exc), is_error=True, resolved=str(raw), notes=skill_relative_hint(raw, ctx)
            )
        skill = ctx.skill_for_path(real)
        if skill is None:
            return ToolOutcome(text, resolved=str(real))
        notes: list[str] = []
        if post is not None:
            text, notes = post(text, skill, ctx)
        return ToolOutcome(
            text,
            skill=skill.name,
            skill_path=str(skill.path),
            resolved=str(real),
            body_chars=len(text),
            notes=notes,
        )

    return ToolSpec(name, desc, schema, handler)


def skill_relative_hint(raw: Any, ctx: ToolContext) -> list[str]:
    """For a failed read of a relative path: a trace note when that path exists inside a listed
    skill's folder (the body named it relative to the skill, the tool resolved it against the
    working directory — issue-17 case 5)."""
    if not isinstance(raw, str) or not raw or os.path.isabs(raw) or raw.startswith(("~", "file:")):
        return []
    for s in ctx.skills:
        cand = Path(s.dir) / raw
        if cand.is_file():
            return [
                f"{raw!r} was resolved against the working directory ({ctx.workspace}); it exists in "
                f"the skill folder of {s.name}: {cand}"
            ]
    return []


def make_list_tool(name: str = "list_directory") -> ToolSpec:
    """List a folder of the workspace or of a skill root (workbench's own tool)."""
    schema = {
        "type": "object",
        "properties": {
            "path": {
                "type": "string",
                "description": "Folder to list (absolute, or relative to the workspace).",
            }
        },
        "required": ["path"],
    }

    def handler(inp: dict[str, Any], ctx: ToolContext) -> ToolOutcome:
        try:
            text, real = ctx.fs.list_dir(inp.get("path"))
        except AccessError as exc:
            return ToolOutcome(str(exc), is_error=True, resolved=str(inp.get("path")))
        return ToolOutcome(text, resolved=str(real))

    return ToolSpec(
        name,
        "List the entries of a folder in the workspace or in a skill folder (folders end with '/').",
        schema,
        handler,
    )


SHELL_REFUSED = (
    "Not run: this chat runs inside Skill Workbench, which does not execute commands "
    "unless the user approves each one, and no approval was given. Continue without "
    "the command's output, or ask the user to run it."
)
SHELL_DECLINED = "Not run: the user declined to run this command."


def make_shell_tool(name: str = "shell") -> ToolSpec:
    """A shell tool that runs nothing unless ``ctx.shell_approver(command)`` returns True.

    Approved commands run with ``/bin/sh -c`` in the workspace, 30 s timeout, output (stdout then
    stderr) cut at 20,000 chars. Approval is per call; a raising approver counts as "no".
    """
    schema = {
        "type": "object",
        "properties": {"command": {"type": "string", "description": "The command line to run."}},
        "required": ["command"],
    }

    def handler(inp: dict[str, Any], ctx: ToolContext) -> ToolOutcome:
        cmd = inp.get("command")
        if not isinstance(cmd, str) or not cmd.strip():
            return ToolOutcome("command must be a non-empty string", is_error=True)
        if ctx.shell_approver is None:
            return ToolOutcome(
                SHELL_REFUSED, is_error=True, resolved=cmd, notes=["shell: not run (no approval callback)"]
            )
        try:
            ok = bool(ctx.shell_approver(cmd))
        except Exception:  # noqa: BLE001 - a failing approval is a refusal (the command is not run)
            log.warning("the shell approval callback failed; the command is declined", exc_info=True)
            ok = False
        if not ok:
            return ToolOutcome(SHELL_DECLINED, is_error=True, resolved=cmd, notes=["shell: declined"])
        try:
            code, out = _run_capped(cmd, ctx.workspace)
        except subprocess.TimeoutExpired:
            return ToolOutcome(f"timed out after {SHELL_TIMEOUT_S}s", is_error=True, resolved=cmd)
        except OSError as exc:
            return ToolOutcome(f"could not run: {exc}", is_error=True, resolved=cmd)
        if len(out) > SHELL_MAX_CHARS:
            out = out[:SHELL_MAX_CHARS] + "\n[... output truncated]"
        return ToolOutcome(
            f"exit code {code}\n{out}",
            is_error=code != 0,
            resolved=cmd,
            notes=["shell: run with user approval"],
        )

    return ToolSpec(
        name,
        "Run a shell command in the workspace. Commands only run when the user "
        "approves them; otherwise the result says it was not run.",
        schema,
        handler,
    )


def _run_capped(cmd: str, cwd: Path) -> tuple[int, str]:
    """Run ``cmd`` with ``/bin/sh -c``: (exit code, stdout+stderr as text). Keeps at most
    ``4 * SHELL_MAX_CHARS`` bytes of output (a command printing forever is killed once over it,
    instead of filling memory for 30 s). Raises ``subprocess.TimeoutExpired`` after
    ``SHELL_TIMEOUT_S`` (the process is killed), ``OSError`` when it cannot start."""
    cap = 4 * SHELL_MAX_CHARS
    with subprocess.Popen(
        ["/bin/sh", "-c", cmd],
        cwd=cwd,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        stdin=subprocess.DEVNULL,
        start_new_session=True,
    ) as proc:
        assert proc.stdout is not None
        deadline = time.monotonic() + SHELL_TIMEOUT_S

        def kill() -> None:  # the whole group: a child holding the pipe must not keep us reading
            try:
                os.killpg(proc.pid, 9)
            except (OSError, AttributeError):  # AttributeError: no process groups (Windows)
                proc.kill()

        buf = bytearray()
        timer = threading.Timer(SHELL_TIMEOUT_S, kill)
        timer.start()
        try:
            while len(buf) <= cap:
                # Popen's default bufsize gives a BufferedReader; the stub only says IO[bytes]
                chunk = cast(io.BufferedReader, proc.stdout).read1(65536)
                if not chunk:
                    break
                buf += chunk
            if len(buf) > cap:
                kill()
            code = proc.wait()
        finally:
            timer.cancel()
        if time.monotonic() >= deadline and len(buf) <= cap:
            raise subprocess.TimeoutExpired(cmd, SHELL_TIMEOUT_S)
    return code, bytes(buf[:cap]).decode("utf-8", "replace")


def _int_or_none(v: Any) -> int | None:
    if isinstance(v, bool):
        return None
    if isinstance(v, int):
        return v
    if isinstance(v, float) and v.is_integer():
        return int(v)
    if isinstance(v, str) and v.strip().isdigit():
        return int(v.strip())
    return None
