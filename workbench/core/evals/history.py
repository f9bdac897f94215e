"""History of eval runs per skill and description, as JSON files.

Where (decision): ``appdirs.state_dir()/evals/<workspace-folder>-<sha8 of its resolved path>/
<skill>/<UTC time>-<description sha12>-<random>.json`` — outside the workspace, like the workshop
store (``workshop/store.py``): an eval never writes into the project (the "no file changes" test
covers the whole workspace), a read-only workspace still gets a history, and the files cannot be
discovered by a client or committed by accident. ``workspace.txt`` in each workspace folder names
its workspace. Pass ``root=`` to keep the history elsewhere.

Each file is one record::

    {"version": 1, "kind": "eval" | "improve", "id", "saved_at", "workspace", "skill",
     "skill_path", "description", "description_sha", "client", "model", "queries_sha",
     "report": EvalReport.to_json(details=True), ...extra}

Files are written with ``atomic_write`` and never modified. Unreadable files are skipped by
``list`` (and named in ``HistoryStore.skipped``).
"""

from __future__ import annotations

import builtins
import datetime as _dt
import hashlib
import json
import re
import secrets
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from workbench.core import appdirs
from workbench.core.safefile import atomic_write

VERSION = 1
_SAFE = re.compile(r"[^A-Za-z0-9._-]+")


def _safe(name: str) -> str:
    s = _SAFE.sub("_", name).strip("._") or "skill"
    return s[:80]


def workspace_key(workspace: Path | str) -> str:
    """``<folder name>-<first 8 hex of sha256(resolved path)>``."""
    p = Path(workspace).expanduser().resolve()
    return f"{_safe(p.name or 'root')}-{hashlib.sha256(str(p).encode()).hexdigest()[:8]}"


def queries_sha(queries: list[Any]) -> str:
    """sha256 (12 hex) of a query list's skill-creator JSON (order and labels matter)."""
    data = json.dumps(
        [{"query": q.query, "should_trigger": q.should_trigger} for q in queries],
        ensure_ascii=False,
        sort_keys=True,
    )
    return hashlib.sha256(data.encode()).hexdigest()[:12]


@dataclass
class HistoryEntry:
    """One saved record, without its report body (``HistoryStore.load(id)`` reads it).

    ``summary`` is the report's summary dict (passed, failed, errored, total, precision, recall...).
    """

    id: str
    path: Path
    kind: str
    saved_at: str
    skill: str
    description: str
    description_sha: str
    model: str = ""
    client: str = ""
    runs_per_query: int = 0
    queries_sha: str = ""
    summary: dict[str, Any] = field(default_factory=dict)
    extra: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "path": str(self.path),
            "kind": self.kind,
            "saved_at": self.saved_at,
            "skill": self.skill,
            "description": self.description,
            "description_sha": self.description_sha,
            "model": self.model,
            "client": self.client,
            "runs_per_query": self.runs_per_query,
            "queries_sha": self.queries_sha,
            "summary": dict(self.summary),
        }


class HistoryStore:
    """Eval history of one workspace (module docstring)."""

    def __init__(self, workspace: Path | str, root: Path | str | None = None):
        self.workspace = Path(workspace).expanduser().absolute()
        base = Path(root) if root else appdirs.state_dir() / "evals"
        self.dir = base / workspace_key(self.workspace)
        self.skipped: list[str] = []

    def skill_dir(self, skill: str) -> Path:
        return self.dir / _safe(skill)

    def save(
        self,
        report: Any,
        *,
        kind: str = "eval",
        queries: list[Any] | None = None,
        extra: dict[str, Any] | None = None,
    ) -> HistoryEntry:
        """Save ``report`` (an ``EvalReport``) and return its entry. Raises OSError on a failed
        write (nothing partial is left: ``atomic_write``)."""
        body = report.to_json(details=True)
        now = _dt.datetime.now(_dt.UTC)
        rid = f"{now.strftime('%Y%m%dT%H%M%S')}-{body['description_sha']}-{secrets.token_hex(2)}"
        rec = {
            "version": VERSION,
            "kind": kind,
            "id": rid,
            "saved_at": now.isoformat(timespec="seconds"),
            "workspace": str(self.workspace),
            "skill": body["skill"],
            "skill_path": body["skill_path"],
            "description": body["description"],
            "description_sha": body["description_sha"],
            "client": body["client"],
            "model": body["model"],
            "queries_sha": queries_sha(queries) if queries is not None else "",
            "report": body,
            **(extra or {}),
        }
        d = self.skill_dir(body["skill"])
        d.mkdir(parents=True, exist_ok=True)
        ws_file = self.dir / "workspace.txt"
        if not ws_file.exists():
            atomic_write(ws_file, (str(self.workspace) + "\n").encode())
        path = d / f"{rid}.json"
        atomic_write(path, (json.dumps(rec, indent=1, ensure_ascii=False) + "\n").encode("utf-8"))
        return self._entry(rec, path)

    @staticmethod
    def _entry(rec: dict[str, Any], path: Path) -> HistoryEntry:
        rep = rec.get("report") or {}
        known = {
            "version",
            "kind",
            "id",
            "saved_at",
            "workspace",
            "skill",
            "skill_path",
            "description",
            "description_sha",
            "client",
            "model",
            "queries_sha",
            "report",
        }
        return HistoryEntry(
            rec.get("id") or path.stem,
            path,
            rec.get("kind", "eval"),
            rec.get("saved_at", ""),
            rec.get("skill", ""),
            rec.get("description", ""),
            rec.get("description_sha", ""),
            rec.get("model", ""),
            rec.get("client", ""),
            int(rep.get("runs_per_query") or 0),
            rec.get("queries_sha", ""),
            dict(rep.get("summary") or {}),
            {k: v for k, v in rec.items() if k not in known},
        )

    def list(self, skill: str) -> list[HistoryEntry]:
        """Saved records of ``skill``, newest first. Unreadable files are skipped."""
        out = []
        self.skipped = []
        d = self.skill_dir(skill)
        if not d.is_dir():
            return []
        for p in sorted(d.glob("*.json"), reverse=True):
            try:
                rec = json.loads(p.read_text(encoding="utf-8"))
                if not isinstance(rec, dict):
                    raise ValueError("not an object")
                out.append(self._entry(rec, p))
            except (OSError, ValueError) as exc:
                self.skipped.append(f"{p}: {exc}")
        return out

    def by_description(self, skill: str) -> builtins.list[dict[str, Any]]:
        """``[{"description_sha","description","entries":[HistoryEntry...]}]``, the group with the
        newest record first; entries newest first."""
        groups: dict[str, dict[str, Any]] = {}
        for e in self.list(skill):
            g = groups.setdefault(
                e.description_sha,
                {"description_sha": e.description_sha, "description": e.description, "entries": []},
            )
            g["entries"].append(e)
        return list(groups.values())

    def load(self, skill: str, entry_id: str) -> dict[str, Any]:
        """The full record. Raises FileNotFoundError / ValueError."""
        p = self.skill_dir(skill) / f"{_safe(entry_id)}.json"
        rec: dict[str, Any] = json.loads(p.read_text(encoding="utf-8"))
        return rec
