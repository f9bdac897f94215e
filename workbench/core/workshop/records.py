"""The workshop's records: ``Proposal`` (one queued change), ``FileChange``, ``Event``, the state
and kind enums, and where a workspace's store lives (``default_store_dir``).

Pure Python (no Qt); the store (``workshop.store``) builds them from its database.
"""

from __future__ import annotations

import datetime as _dt
import hashlib
import os
import re
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import Any

from workbench.core import appdirs
from workbench.core.workshop.lintcheck import LintResult
from workbench.core.workshop.paths import SKILL_MD
from workbench.core.workshop.risk import Risk, blocking


class State(StrEnum):
    """A proposal's state (see ``workshop.store`` for the lifecycle). A ``StrEnum``: JSON holds the
    plain strings."""

    PENDING = "pending"
    APPLIED = "applied"
    REJECTED = "rejected"
    QUARANTINED = "quarantined"
    STALE = "stale"


class Kind(StrEnum):
    """What a proposal does: create a new skill folder or update a live one."""

    CREATE = "create"
    UPDATE = "update"


STATES = tuple(State)
KINDS = tuple(Kind)
SCHEMA_VERSION = 1

#: Points where ``WorkshopStore.fault_hook(step)`` is called during apply/rollback (tests inject
#: failures or simulated crashes there). ``file:<i>`` is called after the i-th file is written.
APPLY_STEPS = ("rollback-data", "journal", "dirs", "file:<i>", "files", "switched", "committed", "cleaned")
ROLLBACK_STEPS = ("rollback-journal", "restore:<i>", "restored", "rollback-committed")

#: Project skill folder per client, used when a create names no target root (clients.md §8).
DEFAULT_PROJECT_ROOTS = {
    "claude-code": ".claude/skills",
    "codex": ".agents/skills",
    "openclaw": "skills",
    "gemini-cli": ".gemini/skills",
    "opencode": ".opencode/skills",
    "vscode-copilot": ".github/skills",
    "cursor": ".cursor/skills",
    "agentskills": ".agents/skills",
    "copilot-cli": ".github/skills",
}


def now_iso() -> str:
    """The current UTC time as ISO-8601 with microseconds (the records' timestamps)."""
    return _dt.datetime.now(_dt.UTC).isoformat(timespec="microseconds")


def sha_hex(data: bytes) -> str:
    """The sha256 of ``data`` as 64 hex digits."""
    return hashlib.sha256(data).hexdigest()


def executable_rels(p: Proposal) -> set[str]:
    """Relpaths the proposal's current generation marks executable."""
    return {rel for rel, info in p.files.items() if info.get("executable")}


def workspaces_holding(ident: str) -> list[Path]:
    """Workspaces whose store (under ``state_dir()/workshop/``) holds a proposal whose id is
    ``ident`` or starts with it; read from each store's ``proposals/<id>/`` folders and
    ``workspace.txt`` (no database is opened). Used when a command names a proposal by id
    without saying which workspace (issue 13 item 7). Never raises; [] when none."""
    base = appdirs.state_dir() / "workshop"
    out: list[Path] = []
    if not ident:
        return out
    try:
        stores = sorted(base.iterdir())
    except OSError:
        return out
    for d in stores:
        try:
            ids = [e.name for e in (d / "proposals").iterdir()]
            if not any(i.startswith(ident) for i in ids):
                continue
            ws = Path((d / "workspace.txt").read_text(encoding="utf-8").strip())
        except (OSError, ValueError):
            continue
        if ws.is_dir() and ws not in out:
            out.append(ws)
    return out


def default_store_dir(workspace: Path | str) -> Path:
    """``state_dir()/workshop/<name>-<sha256(realpath)[:12]>`` for a workspace (see module doc)."""
    real = os.path.realpath(os.path.expanduser(str(workspace)))
    slug = re.sub(r"[^A-Za-z0-9._-]+", "_", Path(real).name or "root")[:40]
    return appdirs.state_dir() / "workshop" / f"{slug}-{sha_hex(real.encode('utf-8', 'surrogatepass'))[:12]}"


def default_target_root(workspace: Path | str, client_id: str = "claude-code") -> Path:
    """Where a create proposal puts the new skill when no root is given: the client's project
    skill folder under the workspace (``DEFAULT_PROJECT_ROOTS``)."""
    return Path(workspace).expanduser().absolute() / DEFAULT_PROJECT_ROOTS.get(client_id, ".agents/skills")


@dataclass
class Proposal:
    """One proposal as stored, with its current generation's risks and lint.

    Attributes:
        id: short hex id (commands accept any unique prefix).
        kind: "create" | "update".
        name: the skill name (create: the folder name; update: frontmatter name or folder name).
        state: one of ``STATES``; ``reason`` says why for stale/rejected/quarantined.
        target_dir: the live skill folder (absolute, symlinks not resolved).
        target_root: the root a create writes into (None for updates).
        generation: current generation number (1-based).
        base: {relpath: sha256 hex or None (absent)} of the live files when proposed (update).
        files: {relpath: {"sha256", "size"}} of the current generation, "SKILL.md" included.
        findings: the risks (``Risk``) of the current generation (at propose/revise time).
        lint: linter result of the proposed SKILL.md.
        source: who proposed ("manual", "chat", "eval", "cli", ...); note: free text.
        created_at, updated_at: ISO-8601 UTC.
        active_apply: the apply record while applied ({"apply_id", "plan", "applied_at"}), else None.
    """

    id: str
    kind: Kind
    name: str
    state: State
    target_dir: Path
    target_root: Path | None
    generation: int
    base: dict[str, str | None]
    files: dict[str, dict[str, Any]]
    findings: list[Risk]
    lint: LintResult
    source: str = ""
    note: str = ""
    reason: str = ""
    created_at: str = ""
    updated_at: str = ""
    active_apply: dict[str, Any] | None = None

    @property
    def skill_md(self) -> Path:
        """The live SKILL.md this proposal writes."""
        return self.target_dir / SKILL_MD

    @property
    def blocking_findings(self) -> list[Risk]:
        return blocking(self.findings)

    def allowed_actions(self) -> list[str]:
        """Transitions allowed now: pending → revise/apply/reject/quarantine; applied → rollback;
        rejected/quarantined → rollback (reopen); stale → none (it may return to pending)."""
        return {
            "pending": ["revise", "apply", "reject", "quarantine"],
            "applied": ["rollback"],
            "rejected": ["rollback"],
            "quarantined": ["rollback"],
            "stale": [],
        }.get(self.state, [])

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "state": self.state,
            "kind": self.kind,
            "name": self.name,
            "reason": self.reason,
            "target": str(self.skill_md),
            "target_dir": str(self.target_dir),
            "target_root": str(self.target_root) if self.target_root else None,
            "generation": self.generation,
            "source": self.source,
            "note": self.note,
            "created_at": self.created_at,
            "updated_at": self.updated_at,
            "base": self.base,
            "files": self.files,
            "findings": [f.to_json() for f in self.findings],
            "blocking": len(self.blocking_findings),
            "lint": self.lint.to_json(),
            "allowed_actions": self.allowed_actions(),
        }


@dataclass
class FileChange:
    """One file of a proposal against what it replaces. ``old`` None = the file does not exist."""

    rel: str
    path: Path
    old: bytes | None
    new: bytes

    @property
    def changed(self) -> bool:
        return self.old != self.new


@dataclass
class Event:
    """One history entry. ``kind`` e.g. proposed, revised, stale, unstale, applied, apply-blocked,
    apply-failed, apply-interrupted, rolled-back, rejected, quarantined, reopened."""

    seq: int
    proposal_id: str
    at: str
    kind: str
    detail: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {
            "seq": self.seq,
            "proposal_id": self.proposal_id,
            "at": self.at,
            "kind": self.kind,
            "detail": self.detail,
        }
