"""The shared vocabulary of the core: environment, roots, discovered skills and the catalog.

Every other core module (clients, discovery, listing, lint, explain, chat, workshop) speaks in
these types. They are plain dataclasses with no Qt and no I/O beyond what ``Environment`` needs
to fill its defaults from the real machine.
"""

from __future__ import annotations

import gc
import os
import shutil
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from workbench.core.skillfile import SkillFile

#: Client ids, in the order the UI and ``--client all`` present them.
CLIENT_IDS = (
    "claude-code",
    "codex",
    "openclaw",
    "gemini-cli",
    "opencode",
    "vscode-copilot",
    "cursor",
    "agentskills",
    "copilot-cli",
)


class SkillStatus(StrEnum):
    """What a client does with a discovered skill (DESIGN.md section 1.2 / section 3 ``workbench
    scan``). A ``StrEnum``: each member is its plain string ("listed", ...), so JSON output and
    comparisons with strings are unchanged."""

    LISTED = "listed"  # offered to the model
    SHADOWED = "shadowed"  # another skill of the same name wins
    HIDDEN = "hidden"  # loaded but not listed (disable-model-invocation, no description, ...)
    GATED = "gated"  # a requirement is missing (a binary, an env var, trust)
    CONDITIONAL = "conditional"  # activates only when a matching file is touched
    SKIPPED = "skipped"  # the client does not load it (bad file, wrong place)


#: Discovery statuses, in the order they are counted and shown.
STATUSES = tuple(SkillStatus)
# An enum member read through its class costs ~0.1 µs on Python 3.11: loops over every skill of a
# scan compare with these module constants instead.
_LISTED = SkillStatus.LISTED

#: Scopes (DESIGN.md section 5).
SCOPES = ("managed", "user", "project", "nested", "plugin", "bundled", "system", "admin", "extra")


@contextmanager
def gc_paused() -> Iterator[None]:
    """The cyclic GC off inside the block (restored after, nested blocks are fine). For
    allocation-heavy passes over many skills (a scan, a listing of 10,000 skills) whose objects
    form no cycles: otherwise each generation-2 pass rescans every catalog already built
    (measured: ~40% of a warm 10,000-skill scan). The outermost block re-enables it with
    ``gc_resume`` (the pass's objects go to the oldest generation: no young collection over them;
    measured after a cold `workbench scan --client all` at 10k skills: 93-132 ms)."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc_resume()


def gc_resume() -> None:
    """``gc.enable()`` after a pass that ran with the cyclic GC off, without the collection it
    would cost: the objects allocated meanwhile (all in the youngest generation) are first moved
    to the oldest one (``gc.freeze()`` + ``gc.unfreeze()``, a list splice), so the next young
    collection does not traverse them. Measured: after a cold 10k ``workbench lint`` with the
    caches filled that first collection (generations 0 and 1) took 0.08-0.12 s of the tail; after
    a cold ``workbench scan --client all`` 93-132 ms; after an in-process ``lint_paths`` 33-42 ms.
    When objects are frozen already (``gc.get_freeze_count()``: the window's scan pass freezes
    its catalogs, the bench its heap) it only enables the GC: ``gc.unfreeze()`` would thaw them."""
    if not gc.get_freeze_count():
        gc.freeze()
        gc.unfreeze()
    gc.enable()


def skip_exit_collection() -> None:
    """Make the interpreter's exit skip the cyclic GC's last full pass (``atexit``:
    ``gc.freeze()``, registered once per process): at 10k skills it traverses the caches' and
    catalogs' objects (~35 ms of a warm ``workbench lint``; ~20-60 ms after ``workbench scan
    --client all``). The objects are still freed and their finalizers run (the modules are
    cleared as usual); a cycle still alive at exit is not collected, which the process ending
    makes moot. For commands that exit after their work (``workbench lint``, ``workbench
    scan``); in-process callers (tests) only see it when their process exits."""
    global _exit_hook
    if not _exit_hook:
        import atexit

        atexit.register(gc.freeze)
        _exit_hook = True


_exit_hook = False

#: Objects handed to the process's end (``keep_until_exit``); None until the entry point
#: arms a fast exit (``arm_fast_exit``).
_exit_kept: list[object] | None = None


def arm_fast_exit() -> None:
    """Called by the process's entry point (``workbench.cli.console_main``: the ``workbench``
    script, ``python -m workbench``) only: from now on ``keep_until_exit`` keeps what it is
    given, and the entry point ends the process with ``os._exit`` when a command did so."""
    global _exit_kept
    if _exit_kept is None:
        _exit_kept = []


def keep_until_exit(*objs: object) -> bool:
    """For a command whose process ends after its output (``workbench scan``): keep ``objs``
    (its caches, parses, walks, texts) alive until the process ends, which then ends without
    freeing anything one by one (``os._exit``, once the output is flushed: ~0.1 s less after
    a scan of every client over 10,000 skills: its ~60k objects and the interpreter's own
    teardown). Only when the entry point armed it (``arm_fast_exit``); in-process callers
    (tests) keep nothing. Returns whether they are kept."""
    if _exit_kept is None:
        return False
    _exit_kept.extend(objs)
    return True


def fast_exit_wanted() -> bool:
    """Whether a command handed objects to ``keep_until_exit`` (the entry point then ends the
    process with ``os._exit``)."""
    return bool(_exit_kept)


def _default_os() -> str:
    if sys.platform.startswith("win"):
        return "win32"
    if sys.platform == "darwin":
        return "darwin"
    return "linux"


def find_git_root(start: Path) -> Path | None:
    """The nearest ancestor of ``start`` (inclusive) holding a ``.git`` entry, or None."""
    p = start
    for cand in (p, *p.parents):
        if (cand / ".git").exists():
            return cand
    return None


def absolute_path(p: str | os.PathLike[str]) -> Path:
    """``p`` with ``~`` expanded, made absolute, and its ``..`` parts removed when that names the
    same folder (``../shared/corpus`` given in ``/x/main`` -> ``/x/shared/corpus``, as a user
    expects to see it). A ``..`` after a symlink can lead elsewhere than the lexical
    ``normpath``: then, and for a path that does not exist, the ``..`` stays (the kernel's
    reading is the right one and no symlink is resolved)."""
    a = Path(p).expanduser().absolute()
    if ".." not in a.parts:
        return a
    n = Path(os.path.normpath(a))
    try:
        return n if os.path.samestat(os.stat(a), os.stat(n)) else a
    except OSError:
        return a


@dataclass
class Environment:
    """The simulated machine a client runs on. Defaults come from the real machine.

    Attributes:
        workspace: the project folder the client is opened on (absolute).
        home: the user's home directory (``--home``; default ``Path.home()``).
        cwd: the client's current directory (``--cwd``; default ``workspace``).
        env: environment variables (default ``os.environ``; ``--env K=V`` adds/overrides).
        bins: binaries on PATH. None = ask the real PATH (``shutil.which``); a set = exactly these.
        os_name: "linux" | "darwin" | "win32".
        trusted: whether the workspace folder is trusted (Gemini CLI, Codex project layer).
        touched: files the agent has worked with this session (nested roots and ``paths`` globs
            activate on these), absolute.
        extra_roots: folders of skills not installed anywhere (scope ``extra``), absolute.
        context_tokens: the model's context window in tokens (None = the client's fallback).
        most_used: skill names the user marks as most used (Claude Code keeps their descriptions
            longest when over budget).
        collection: the workspace is opened as a collection of skills, not as a project: it is
            one of ``extra_roots`` and no client scans project-level roots (scope project or
            nested) inside it (``discovery.apply_workspace_mode``).
    """

    workspace: Path
    home: Path = field(default_factory=Path.home)
    cwd: Path | None = None
    env: dict[str, str] = field(default_factory=lambda: dict(os.environ))
    bins: set[str] | None = None
    os_name: str = field(default_factory=_default_os)
    trusted: bool = True
    touched: list[Path] = field(default_factory=list)
    extra_roots: list[Path] = field(default_factory=list)
    context_tokens: int | None = None
    most_used: list[str] = field(default_factory=list)
    collection: bool = False

    def __post_init__(self) -> None:
        self.workspace = absolute_path(self.workspace)
        self.home = absolute_path(self.home)
        self.cwd = absolute_path(self.cwd) if self.cwd else self.workspace
        self.touched = [absolute_path(p) for p in self.touched]
        self.extra_roots = [absolute_path(p) for p in self.extra_roots]
        self._git_root: Path | None | bool = False

    @property
    def git_root(self) -> Path | None:
        """The git root above ``cwd`` (the project root for walks), computed once."""
        if self._git_root is False:
            self._git_root = find_git_root(self.cwd)  # type: ignore[arg-type]
        return self._git_root  # type: ignore[return-value]

    def has_bin(self, name: str) -> bool:
        """True when ``name`` is on the simulated PATH."""
        if self.bins is not None:
            return name in self.bins
        return shutil.which(name, path=self.env.get("PATH")) is not None

    def getenv(self, key: str, default: str | None = None) -> str | None:
        return self.env.get(key, default)


@dataclass
class Root:
    """A folder a client scans for skills.

    Attributes:
        path: absolute folder.
        scope: one of ``SCOPES``.
        precedence: 0 is the highest; on a name collision the client's policy decides what the
            number means (see ``ClientProfile.collision``).
        exists: whether the folder exists on disk now.
        label: short human text, e.g. "personal (~/.claude/skills)".
        max_depth: how many directory levels below the root a SKILL.md may be (1 = ``<root>/<dir>/SKILL.md``).
        condition: None, or why this root only counts under a condition (e.g. "nested: active
            once a file under apps/web is touched"); ``active`` says whether it holds now.
        active: False when the condition is not met (its skills become ``conditional``).
        namespace: prefix the client adds to names found here (e.g. "plugin-name" -> "plugin-name:x").
        verified: False when the existence or rules of this root are unverified in the reference.
        note: source of the rule (repo + file or doc URL).
    """

    path: Path
    scope: str
    precedence: int
    exists: bool = False
    label: str = ""
    max_depth: int = 1
    condition: str | None = None
    active: bool = True
    namespace: str | None = None
    verified: bool = True
    note: str = ""

    def to_json(self) -> dict[str, Any]:
        return {
            "path": str(self.path),
            "scope": self.scope,
            "precedence": self.precedence,
            "exists": self.exists,
        }


@dataclass(slots=True)
class Skill:
    """One SKILL.md as a particular client sees it.

    Attributes:
        path: absolute SKILL.md path (as found under the root, symlinks not resolved).
        root: the root it was found under.
        name: the name the client uses (after fallbacks, sanitising and namespacing); for a
            skipped file, the best guess (frontmatter name or folder name).
        description: the description the client would list ("" if none), after the client's own
            normalisation (Codex collapses whitespace, VS Code strips tags, ...).
        when_to_use: Claude Code's ``when_to_use`` (appended in its listing), else None.
        status: a ``SkillStatus``.
        reason: one line saying why (for listed: how it was read).
        shadowed_by: absolute SKILL.md path of the winner when status == "shadowed".
        file: the parsed file (None when it could not even be read).
        parse_mode: "strict" | "fallback" (a line parser recovered fields) | "dropped" (Claude Code
            kept the skill with every field dropped) | "failed" (skipped).
        parse_note: what the fallback lost or changed ("" when strict).
        fields: the frontmatter as this client reads it (keys -> values).
        depth: directory levels below the root (1 = ``<root>/<dir>/SKILL.md``).
        unverified: client rules applied to this skill that the reference marks unverified.
        flags: extra facts for the UI/explain, e.g. {"user_invocable": False}; keys starting with
            "_" are a client module's bookkeeping (e.g. Gemini CLI's load key), not shown.

    Slots (no ``__dict__``): a scan of every client over 10,000 skills holds 90,000 of them.
    """

    path: Path
    root: Root
    name: str
    description: str = ""
    when_to_use: str | None = None
    status: SkillStatus = SkillStatus.LISTED
    reason: str = ""
    shadowed_by: Path | None = None
    file: SkillFile | None = None
    parse_mode: str = "strict"
    parse_note: str = ""
    fields: dict[str, Any] = field(default_factory=dict)
    depth: int = 1
    unverified: list[str] = field(default_factory=list)
    flags: dict[str, Any] = field(default_factory=dict)

    @property
    def dir(self) -> Path:
        return self.path.parent

    @property
    def listed(self) -> bool:
        return self.status == _LISTED

    def to_json(self) -> dict[str, Any]:
        """The ``workbench scan`` JSON shape of DESIGN.md section 3 (plus a few extras)."""
        return {
            "name": self.name,
            "path": str(self.path),
            "root": str(self.root.path),
            "scope": self.root.scope,
            "status": str(self.status),  # a plain str: the fast JSON writer (``jsontext``)
            "reason": self.reason,
            "shadowed_by": str(self.shadowed_by) if self.shadowed_by else None,
            "description": self.description,
            "parse_mode": self.parse_mode,
            "unverified": list(self.unverified),
        }


@dataclass
class Catalog:
    """What one client finds in one environment: its roots and every SKILL.md under them.

    ``skills`` is in root precedence order (highest first), then by path. ``listed()`` gives the
    skills the model is offered, in the client's listing order.
    """

    client: str
    env: Environment
    roots: list[Root]
    skills: list[Skill]
    scan_seconds: float = 0.0
    notes: list[str] = field(default_factory=list)

    def listed(self) -> list[Skill]:
        return [s for s in self.skills if s.status == _LISTED]

    def by_name(self, name: str) -> list[Skill]:
        return [s for s in self.skills if s.name == name]

    def counts(self) -> dict[str, int]:
        out = {str(st): 0 for st in STATUSES}  # plain str keys: JSON and repr as before
        for s in self.skills:
            out[s.status] = out.get(s.status, 0) + 1
        return out

    def to_json(self) -> dict[str, Any]:
        """The ``workbench scan`` JSON shape of DESIGN.md section 3."""
        return {
            "client": self.client,
            "workspace": str(self.env.workspace),
            "home": str(self.env.home),
            "roots": [r.to_json() for r in self.roots],
            "skills": [s.to_json() for s in self.skills],
        }
