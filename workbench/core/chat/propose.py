"""The chat agent's ``propose_skill`` tool: a conversation can end in a Workshop proposal.

The model may *draft* a new skill or a change to an existing one; the draft is stored as a
**pending** proposal in the workspace's ``WorkshopStore`` (under ``state_dir()/workshop/``, never
in the workspace) and a person reviews, applies, rejects or rolls it back in the Workshop. The tool
writes nothing to any live skill folder, and there is no tool to apply: the model cannot install
what it drafted.

Typical use::

    from workbench.core.chat.propose import make_propose_tool
    from workbench.core.workshop import WorkshopStore

    tool = make_propose_tool(lambda: WorkshopStore(catalog.env.workspace), catalog)
    session = ChatSession(catalog, ..., extra_tools=[tool])
    # the trace then carries {"type": "proposal", "id", "state", "kind", "name", "target", ...}

Input (JSON schema in ``INPUT_SCHEMA``)::

    {"action": "create" | "update",
     "name": str,            # create: the new skill's folder name
                             # update: a skill name of the current catalog (exact), or - after an
                             #         "ambiguous" answer - one of the SKILL.md paths it listed
     "skill_md": str,        # the complete proposed SKILL.md text (frontmatter + body)
     "files": {relpath: str},   # optional support files, UTF-8 text, paths inside the skill folder
     "executable": [relpath],   # optional: support files to write with the executable bit
     "target_root": str,     # create only; default: the client's project skill folder
     "note": str}            # optional: why (shown in the Workshop queue)

Result: a ``ToolOutcome`` whose content names the proposal id, says it is pending and that nothing
was written, lists blocking risks (they make ``apply`` refuse) and counts lint
diagnostics; ``outcome.events`` holds one ``proposal`` event for the trace. Every problem (bad
input, unknown or ambiguous name, ``ProposalError`` such as a path leaving the skill folder or an
existing target, a busy or damaged store) is an ``is_error`` result with the message. Any other
exception (a bug) propagates to the engine, which turns it into a ``Tool failed: ...`` error result.

Decisions where the task was silent (written here for the next person):

* **Default target root** = ``workshop.default_target_root(workspace, client_id)``, the same
  function ``workbench workshop propose-create --client X`` uses (the client's project skill
  folder, e.g. ``<workspace>/.claude/skills`` for Claude Code).
* **Allowed target roots** (issue 12 item 2): a ``target_root`` must be one of
  ``allowed_target_roots``: the client's default project skill folder or a catalog root of a
  scope people author in (project, user, nested, extra; existing or not, never the workspace
  itself). Anything else (``.github/workflows``, ``.claude/commands``, ``scripts/``, ``.vscode``,
  ``.git/hooks``, ``/etc``) is refused with the list of roots; nothing is stored. The store's
  risk checks add a critical ``WS-TARGET`` finding for such folders from any other source.
* **Name resolution for update** uses every skill of the catalog with that exact name, whatever its
  status (a skipped skill with a broken frontmatter is a legitimate thing to fix). Several distinct
  files (compared by realpath) → error listing their SKILL.md paths; the model may then call again
  with one of those paths as ``name`` (only paths of catalog skills are accepted, nothing else).
* ``target_root`` given with ``update`` is an error (not silently ignored).
* Support-file values must be strings (text); they are stored UTF-8 encoded. Binary support files
  cannot be proposed through chat.
* A create whose name already exists in the catalog is allowed (the person decides); the result
  says which skill of that name exists, because one of them would shadow the other.

The tool's name, description and schema are this project's own wording (no client has such a tool).
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from workbench.core.chat.tools import ToolContext, ToolOutcome, ToolSpec
from workbench.core.text import plural

log = logging.getLogger(__name__)

TOOL_NAME = "propose_skill"

#: At most this many names / paths are listed in an error result (the rest are counted).
MAX_CANDIDATES = 40
#: At most this many blocking findings are spelled out in a result.
MAX_FINDINGS_SHOWN = 10

PENDING_TEXT = "pending — a person must review and apply it in the Workshop; nothing was written to the skill"

DESCRIPTION = (
    "Draft a new skill, or a change to an existing skill, for the person to review. The draft is "
    "saved as a pending proposal in Skill Workbench's Workshop queue: it is NOT installed and no "
    "skill file is written. You cannot apply proposals yourself; a person reviews the diff and the "
    "risk findings and decides. Use action \"create\" with the new skill's folder name, or action "
    "\"update\" with the name of an existing skill from the listing. Always send the complete "
    "SKILL.md text (YAML frontmatter with name and description, then the body), not a fragment. "
    "Optional support files go in \"files\" as paths relative to the skill folder with text "
    "content. The result gives the proposal id and any findings that would block applying it."
)

INPUT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "action": {
            "type": "string",
            "enum": ["create", "update"],
            "description": "create = a new skill; update = new content for an existing skill.",
        },
        "name": {
            "type": "string",
            "description": "create: the new skill's folder name (lowercase-hyphenated). update: the "
            "exact name of an existing skill.",
        },
        "skill_md": {"type": "string", "description": "The complete proposed SKILL.md text."},
        "files": {
            "type": "object",
            "additionalProperties": {"type": "string"},
            "description": "Optional support files: {path relative to the skill folder: text}.",
        },
        "executable": {
            "type": "array",
            "items": {"type": "string"},
            "description": "Optional: paths of support files (scripts) to make executable.",
        },
        "target_root": {
            "type": "string",
            "description": "create only: one of this client's skill roots to create it in "
            "(default: the project's skill folder for this client).",
        },
        "note": {"type": "string", "description": "Optional: why this proposal (shown to the reviewer)."},
    },
    "required": ["action", "name", "skill_md"],
}

StoreFactory = Callable[[], Any]


def make_propose_tool(
    store_factory: StoreFactory | Any,
    catalog: Any = None,
    *,
    client_id: str | None = None,
    workspace: Path | str | None = None,
    source: str = "chat",
) -> ToolSpec:
    """The ``propose_skill`` ``ToolSpec`` (module docstring for input, result and decisions).

    Args:
        store_factory: ``() -> WorkshopStore`` (called once, on the first call of the tool, on the
            thread that runs the tool; a failure to open is an error result), or a
            ``WorkshopStore`` itself.
        catalog: the ``Catalog`` used to resolve update names and allowed target roots, or a
            ``() -> Catalog`` called per tool call (the "current" catalog). None = the chat
            session's known skills (``ToolContext.known``), and no root list beyond the workspace.
        client_id: the client whose project skill folder is the default target root (default:
            ``catalog.client``, else ``ToolContext.client_id``, else "claude-code").
        workspace: the workspace (default: ``catalog.env.workspace``, else ``ToolContext.workspace``).
        source: recorded as the proposal's source (shown in the Workshop queue).

    Returns:
        A ``ToolSpec`` named ``propose_skill``. Its handler returns ``ToolOutcome`` with
        ``events=[{"type": "proposal", "id", "state", "kind", "name", "target", "target_dir",
        "blocking", "findings", "tool": "propose_skill"}]`` on success (``target`` = the live
        SKILL.md path it would write), ``is_error=True`` otherwise. It does not raise for bad input
        or workshop errors.
    """
    holder: dict[str, Any] = {}

    def get_store() -> Any:
        if "store" not in holder:
            holder["store"] = store_factory() if callable(store_factory) else store_factory
        return holder["store"]

    def handler(inp: dict[str, Any], ctx: ToolContext) -> ToolOutcome:
        try:
            return _handle(inp, ctx)
        except Exception as exc:  # noqa: BLE001 - the contract: never raise, the loop goes on
            from workbench.core.workshop.errors import WorkshopError

            if isinstance(exc, OSError):
                log.warning("propose_skill: the Workshop store could not be used", exc_info=True)
            elif isinstance(exc, WorkshopError):
                log.debug("propose_skill refused: %s", exc)
            if isinstance(exc, (WorkshopError, OSError)):
                return _error(
                    str(exc)
                    if isinstance(exc, WorkshopError)
                    else f"the Workshop store could not be used: {exc}",
                    inp,
                )
            raise

    def _handle(inp: dict[str, Any], ctx: ToolContext) -> ToolOutcome:
        action = inp.get("action")
        if action not in ("create", "update"):
            return _error(f"action must be \"create\" or \"update\", got {action!r}", inp)
        name = inp.get("name")
        if not isinstance(name, str) or not name.strip():
            return _error("name must be a non-empty string", inp)
        name = name.strip()
        text = inp.get("skill_md")
        if not isinstance(text, str) or not text.strip():
            return _error("skill_md must be the complete SKILL.md text (a non-empty string)", inp)
        note = inp.get("note", "")
        if note is None:
            note = ""
        if not isinstance(note, str):
            return _error("note must be a string", inp)
        files, why = _files(inp.get("files"))
        if why:
            return _error(why, inp)
        exe = inp.get("executable") or []
        if not isinstance(exe, list) or not all(isinstance(x, str) for x in exe):
            return _error("executable must be a list of support-file paths", inp)
        cat = catalog() if callable(catalog) else catalog
        skills = list(getattr(cat, "skills", None) or ctx.known or [])
        cid = client_id or getattr(cat, "client", None) or ctx.client_id or "claude-code"
        ws = Path(workspace or getattr(getattr(cat, "env", None), "workspace", None) or ctx.workspace)

        if action == "create":
            root, why = _target_root(inp.get("target_root"), cat, ws, cid)
            if why:
                return _error(why, inp)
            store = get_store()
            p = store.propose_create(
                name, text, files, target_root=root, source=source, note=note, executable=exe
            )
            same = [s for s in skills if s.name == name]
            extra = []
            if same:
                extra.append(
                    f"Note: a skill named {name!r} already exists at {same[0].path}; if both are "
                    "installed, one shadows the other."
                )
            return _success(p, extra)

        if inp.get("target_root") not in (None, ""):
            return _error(
                "target_root applies to action \"create\" only; an update writes the existing skill's folder",
                inp,
            )
        skill, why = _resolve(name, skills)
        if why:
            return _error(why, inp)
        store = get_store()
        p = store.propose_update(skill.path, text, files, source=source, note=note, executable=exe)
        return _success(
            p,
            [
                f"It is bound to the current content of {skill.path}: if that file changes "
                "before review, the proposal goes stale."
            ],
        )

    return ToolSpec(TOOL_NAME, DESCRIPTION, INPUT_SCHEMA, handler)


# ---------------------------------------------------------------------------------------------
# helpers


def _error(message: str, inp: dict[str, Any]) -> ToolOutcome:
    return ToolOutcome(
        f"No proposal was made: {message}",
        is_error=True,
        resolved=str(inp.get("name")) if isinstance(inp, dict) else None,
        notes=["propose_skill: refused"],
    )


def _files(raw: Any) -> tuple[dict[str, bytes], str | None]:
    """{relpath: bytes} from the tool input, or an error message. Path safety is the store's job."""
    if raw is None:
        return {}, None
    if not isinstance(raw, dict):
        return {}, "files must be an object mapping relative paths to text"
    out: dict[str, bytes] = {}
    for k, v in raw.items():
        if not isinstance(v, str):
            return {}, f"files[{k!r}] must be text (a string), got {type(v).__name__}"
        out[str(k)] = v.encode("utf-8")
    return out, None


def _real(p: Path | str) -> Path:
    return Path(os.path.realpath(os.path.expanduser(str(p))))


#: Root scopes a proposal may create a skill in (people author there; the others are installed by
#: tools or administrators: managed, plugin, bundled, system, admin).
WRITABLE_SCOPES = ("project", "user", "nested", "extra")


def allowed_target_roots(cat: Any, ws: Path, cid: str) -> list[Path]:
    """Skill roots of client ``cid`` a proposal may create a skill in: the default project root
    (``default_target_root``) and the catalog's roots of a ``WRITABLE_SCOPES`` scope, except a
    root that is the workspace itself or one of its ancestors (a skill there could be named like
    any project folder). Absolute paths, in catalog order, without duplicates."""
    from workbench.core.workshop import default_target_root

    out = [default_target_root(ws, cid)]
    real_ws = _real(ws)
    for r in getattr(cat, "roots", []) or []:
        if getattr(r, "scope", "project") not in WRITABLE_SCOPES:
            continue
        real = _real(r.path)
        if real == real_ws or real in real_ws.parents:
            continue
        if all(_real(p) != real for p in out):
            out.append(Path(r.path))
    return out


def _target_root(raw: Any, cat: Any, ws: Path, cid: str) -> tuple[Path | None, str | None]:
    """The create target root: the default or another of ``allowed_target_roots`` (issue 12
    item 2: a model must not place files in ``.github/workflows``, ``.git/hooks``, ...)."""
    allowed = allowed_target_roots(cat, ws, cid)
    if raw in (None, ""):
        return allowed[0], None
    if not isinstance(raw, str):
        return None, "target_root must be a string"
    p = Path(os.path.expanduser(raw.strip()))
    if not p.is_absolute():
        p = ws / p
    p = Path(os.path.abspath(p))
    real = _real(p)
    for root in allowed:
        if _real(root) == real:
            return p, None
    shown = ", ".join(str(r) for r in allowed[:MAX_CANDIDATES])
    return None, (
        f"target_root {raw!r} is not one of the {cid} skill roots; a new skill may only be created "
        f"in: {shown}"
    )


def _resolve(name: str, skills: list[Any]) -> tuple[Any, str | None]:
    """The one catalog skill named ``name`` (or whose SKILL.md/folder path is ``name``)."""
    by_real: dict[Path, Any] = {}
    for s in skills:
        if s.name == name:
            by_real.setdefault(_real(s.path), s)
    if not by_real and ("/" in name or os.sep in name):
        want = _real(name)
        for s in skills:
            if want in (_real(s.path), _real(s.path.parent)):
                by_real.setdefault(_real(s.path), s)
    if len(by_real) == 1:
        return next(iter(by_real.values())), None
    if len(by_real) > 1:
        paths = [str(s.path) for s in by_real.values()]
        return None, (
            f"the name {name!r} is ambiguous: {len(paths)} skills have it: "
            + ", ".join(paths)
            + ". Call again with name set to the SKILL.md path of the one to change."
        )
    names = sorted({s.name for s in skills})
    shown = ", ".join(names[:MAX_CANDIDATES]) + (
        f", … ({len(names) - MAX_CANDIDATES} more)" if len(names) > MAX_CANDIDATES else ""
    )
    return None, (
        f"no skill named {name!r} in the current catalog. Known skills: {shown or '(none)'}. "
        "To draft a new skill use action \"create\"."
    )


def _success(p: Any, extra: list[str]) -> ToolOutcome:
    state = PENDING_TEXT if p.state == "pending" else (p.state + (f" ({p.reason})" if p.reason else ""))
    n = len(p.files)
    lines = [
        f"Proposal {p.id} recorded: {p.kind} of skill {p.name!r} at {p.skill_md} "
        f"({n} file{'s' if n != 1 else ''}).",
        f"State: {state}.",
    ]
    blocking = p.blocking_findings
    if blocking:
        lines.append(
            f"Scanner: {plural(len(blocking), 'blocking finding')}; applying is refused until "
            "the draft is "
            "changed:"
        )
        for f in blocking[:MAX_FINDINGS_SHOWN]:
            lines.append(f"  {f.severity} {f.code} {f.file}:{f.line}:{f.column}: {f.message}")
        if len(blocking) > MAX_FINDINGS_SHOWN:
            lines.append(f"  … {len(blocking) - MAX_FINDINGS_SHOWN} more")
    others = [f for f in p.findings if not f.blocking]
    if others:
        lines.append(
            f"Scanner: {plural(len(others), 'non-blocking finding')} for the reviewer: "
            + ", ".join(sorted({f.code for f in others}))
            + "."
        )
    if not p.findings:
        lines.append("Scanner: no risks found.")
    if p.lint.available and p.lint.diagnostics:
        lines.append(
            f"Lint: {plural(len(p.lint.diagnostics), 'diagnostic')} (they do not block): "
            + "; ".join(
                f"{d.get('code')} line {d.get('line')}: {d.get('message')}" for d in p.lint.diagnostics[:5]
            )
        )
    lines.extend(extra)
    ev = {
        "type": "proposal",
        "tool": TOOL_NAME,
        "id": p.id,
        "state": p.state,
        "kind": p.kind,
        "name": p.name,
        "target": str(p.skill_md),
        "target_dir": str(p.target_dir),
        "blocking": len(blocking),
        "findings": len(p.findings),
    }
    return ToolOutcome(
        "\n".join(lines),
        resolved=str(p.skill_md),
        events=[ev],
        notes=[f"proposal {p.id} ({p.state}); nothing written to the skill"],
    )
