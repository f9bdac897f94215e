"""``workbench capture``: run the user's own installed client once, offline, and show its listing
beside the workbench's simulation of the same tree.

``capture(env, client_id, exe=None, timeout=..., cancel=None) -> CaptureReport``:

1. finds the installed client (``exe`` / ``--bin``, else ``PATH``) and asks its version;
2. builds a copy-on-write HOME over the user's real one (``overlay.make_overlay``: the user's
   skills are seen, the user's config files are neither read for secrets nor written);
3. runs the client once in the workspace against the ``Recorder`` (no key, no network) and reads the
   listing block, its placement, the skill-load tool and the skills in order (the client's runner);
4. stores the client's own texts (built-in skills, prose) in the user's cache dir, keyed by client
   and version (``store_client_texts``); the simulation then uses them (``stored_client_texts``);
5. renders the simulated listing for the same tree with those texts and diffs the two.

Errors never raise: ``CaptureReport.error`` (one sentence) and ``.error_kind`` (``not-installed`` |
``unsupported`` | ``exit`` | ``no-request`` | ``timeout`` | ``cancelled`` | ``extract``).
"""

from __future__ import annotations

import difflib
import shutil
import tempfile
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from workbench.core.capture import RUNNABLE_CLIENTS, get_runner
from workbench.core.capture.overlay import OVERLAYS, make_overlay
from workbench.core.capture.runner import MODEL_CONTEXT_TOKENS, Capture, client_version, run_client
from workbench.core.capture.texts import store_client_texts, stored_client_texts


@dataclass
class CaptureReport:
    """One capture. JSON: ``to_json()`` = DESIGN.md section 3 ``capture`` plus extras."""

    client: str
    version: str | None = None
    modelled_version: str | None = None
    exe: str | None = None
    placement: dict[str, Any] | None = None
    listing: str | None = None
    skills: list[str] = field(default_factory=list)
    builtins: list[str] = field(default_factory=list)
    tool: dict[str, Any] | None = None
    simulated: str | None = None
    diff: list[str] = field(default_factory=list)
    texts_version: str | None = None
    overlay_note: str = ""
    seconds: float = 0.0
    error: str | None = None
    error_kind: str | None = None

    @property
    def version_differs(self) -> bool:
        return bool(self.version and self.modelled_version and self.version != self.modelled_version)

    def to_json(self) -> dict[str, Any]:
        return {
            "client": self.client,
            "version": self.version,
            "modelled_version": self.modelled_version,
            "placement": self.placement,
            "listing": self.listing,
            "skills": self.skills,
            "tool": self.tool,
            "simulated": self.simulated,
            "diff": self.diff,
            "builtins": self.builtins,
            "texts_version": self.texts_version,
            "exe": self.exe,
            "overlay": self.overlay_note,
            "seconds": round(self.seconds, 2),
            "error": self.error,
            "error_kind": self.error_kind,
        }


# -- capture --------------------------------------------------------------------------------------


def _error(rep: CaptureReport, kind: str, message: str) -> CaptureReport:
    rep.error, rep.error_kind = message, kind
    return rep


def listing_diff(real: str, simulated: str) -> list[str]:
    """A unified line diff, real client first (``---`` real, ``+++`` simulated); [] when equal."""
    if real == simulated:
        return []
    return list(
        difflib.unified_diff(
            real.split("\n"), simulated.split("\n"), "real client", "workbench simulation", lineterm="", n=1
        )
    )


def simulate(env: Any, client_id: str, texts: dict[str, Any] | None, exe: Path | None = None) -> str:
    """The workbench's listing text for the tree of a real run of ``client_id``: the same HOME,
    workspace, PATH (the run's) and model context window, with the given client texts."""
    import os

    from workbench.core.discovery import scan
    from workbench.core.listing import CLIENT_TEXTS, render_listing
    from workbench.core.model import Environment

    runner = get_runner(client_id)
    path = os.pathsep.join(runner.path_dirs(exe)) if exe is not None else os.environ.get("PATH", "")
    sim_env = Environment(
        workspace=Path(env.workspace),
        home=Path(env.home),
        cwd=Path(env.workspace),
        env={"HOME": str(env.home), "PATH": path},
        bins=None,
        trusted=env.trusted,
        context_tokens=MODEL_CONTEXT_TOKENS.get(client_id, 200_000),
    )
    catalog = scan(sim_env, client_id)
    return render_listing(catalog, sim_env.context_tokens, {CLIENT_TEXTS: texts or {}}).text


def capture(
    env: Any,
    client_id: str,
    exe: Path | None = None,
    timeout: float = 120.0,
    cancel: threading.Event | None = None,
    texts_version: str | None = None,
) -> CaptureReport:
    """Run the installed client once against the recorder and compare (module docstring).

    Args:
        env: the ``Environment`` (workspace, home = the user's real HOME).
        exe: the client executable (``--bin``); default: found on PATH.
        texts_version: simulate with the stored client texts of this version instead of the ones
            just captured (to see what another version's built-ins would change).
    """
    rep = CaptureReport(client=client_id)
    if client_id not in RUNNABLE_CLIENTS:
        return _error(
            rep,
            "unsupported",
            f"{client_id} cannot be run for real here; capture supports {', '.join(RUNNABLE_CLIENTS)}",
        )
    runner = get_runner(client_id)
    rep.modelled_version = runner.version
    rep.overlay_note = OVERLAYS[client_id].note if client_id in OVERLAYS else ""
    exe = exe or runner.find_installed()
    if exe is None or not Path(exe).exists():
        where = f"{exe} does not exist" if exe else f"no `{runner.bin_name}` on PATH"
        return _error(
            rep,
            "not-installed",
            f"{client_id} is not installed ({where}); install {runner.npm_package} or pass --bin PATH",
        )
    rep.exe = str(exe)
    rep.version = client_version(runner, Path(exe))
    if rep.version is None:
        return _error(rep, "exit", f"{exe} did not answer `--version`: is it {client_id}?")
    if cancel is not None and cancel.is_set():
        return _error(rep, "cancelled", "capture cancelled")
    with tempfile.TemporaryDirectory(prefix=f"wb-capture-{client_id}-") as tmp:
        home = Path(tmp) / "home"
        make_overlay(Path(env.home), client_id, home)
        cap = run_client(
            runner,
            Path(env.workspace),
            exe=Path(exe),
            home=home,
            timeout=timeout,
            ask_version=False,
            cancel=cancel,
        )
    rep.seconds = cap.seconds
    if cap.error:
        return _error(rep, _kind(cap, cancel), _explain_error(cap, client_id, timeout))
    ex = cap.extracted
    assert ex is not None
    ex = _unoverlay(ex, str(home), str(env.home))
    rep.listing, rep.skills, rep.builtins, rep.tool = ex.listing, list(ex.skills), list(ex.builtins), ex.tool
    rep.placement = ex.placement.to_json() if ex.placement else None
    if ex.client_texts:
        store_client_texts(client_id, rep.version, ex.client_texts)
    stored = stored_client_texts(client_id, texts_version or rep.version)
    texts = stored[1] if stored else (ex.client_texts or None)
    rep.texts_version = stored[0] if stored else None
    rep.simulated = simulate(env, client_id, texts, Path(exe))
    rep.diff = listing_diff(rep.listing or "", rep.simulated)
    return rep


def _unoverlay(obj: Any, overlay: str, real: str) -> Any:
    """``obj`` with the overlay HOME's path written as the real HOME's (the overlay stands for it: a
    client that writes into HOME during the run, e.g. Codex unpacking its system skills, lists the
    overlay's path where a normal run lists yours). Walks dataclasses, dicts, lists and strings."""
    import dataclasses

    if isinstance(obj, str):
        return obj.replace(overlay, real)
    if isinstance(obj, list):
        return [_unoverlay(x, overlay, real) for x in obj]
    if isinstance(obj, dict):
        return {k: _unoverlay(v, overlay, real) for k, v in obj.items()}
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        return dataclasses.replace(
            obj, **{f.name: _unoverlay(getattr(obj, f.name), overlay, real) for f in dataclasses.fields(obj)}
        )
    return obj


def _kind(cap: Capture, cancel: threading.Event | None) -> str:
    if cancel is not None and cancel.is_set():
        return "cancelled"
    msg = cap.error or ""
    if "timed out" in msg:
        return "timeout"
    if "sent no model request" in msg:
        return "no-request" if cap.exit_code in (0, None) else "exit"
    return "extract"


def _explain_error(cap: Capture, client_id: str, timeout: float) -> str:
    tail = (cap.stderr or cap.stdout).strip().splitlines()[-3:]
    said = f" It said: {' | '.join(tail)[:300]}" if tail else ""
    msg = cap.error or "failed"
    if "timed out" in msg:
        return f"{client_id} did not send its model request within {timeout:.0f} s (stopped).{said}"
    if "sent no model request" in msg and cap.exit_code not in (0, None):
        return f"{client_id} exited with code {cap.exit_code} before sending a model request.{said}"
    if "sent no model request" in msg:
        return f"{client_id} exited without sending a model request.{said}"
    return msg + said


def which(client_id: str) -> str | None:
    """The installed client's path on PATH, or None."""
    runner = get_runner(client_id)
    return shutil.which(runner.bin_name)
