"""Records of submitted batch evals (``BatchStore``) and the batch eval's error (``BatchError``)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from workbench.core.chat.errors import ChatError
from workbench.core.safefile import atomic_write


class BatchError(Exception):
    """A batch operation failed (submit, poll, results, cancel, or a bad record); ``str(err)`` is
    the user-facing message. ``error`` is the ``ChatError`` when the API refused."""

    def __init__(self, message: str, error: ChatError | None = None):
        self.error = error
        super().__init__(message)


class BatchStore:
    """Records of submitted batch evals, as JSON under ``<history dir>/_batches/``
    (``HistoryStore.dir`` of the workspace, or ``folder``). Written with ``atomic_write``.

    The folder ``_batches`` cannot be a skill's history folder (``history._safe`` strips a leading
    "_"). A record: ``{"version": 1, "kind": "batch-eval", "id", "created_at", "state": "submitted" |
    "done" | "cancelled", "batch_ids", "workspace", "client", "roots", "context_tokens",
    "settings": {model, max_tokens, temperature, base_url, cache, max_turns}, "options": {runs,
    threshold, competitors, context_tokens}, "jobs": [{"skill", "description", "queries"}],
    "estimate", "collection": bool, "queries_dir", "history_ids"}``.
    """

    def __init__(self, history: Any = None, folder: Path | str | None = None):
        if folder is None:
            if history is None:
                raise ValueError("BatchStore needs a HistoryStore or a folder")
            folder = Path(history.dir) / "_batches"  # "_": no skill folder can have this name
        self.dir = Path(folder)

    def path(self, rid: str) -> Path:
        return self.dir / f"{re.sub(r'[^A-Za-z0-9_-]', '_', rid)}.json"

    def save(self, rec: dict[str, Any]) -> dict[str, Any]:
        """Write ``rec`` (created or updated). Raises OSError."""
        self.dir.mkdir(parents=True, exist_ok=True)
        atomic_write(self.path(rec["id"]), (json.dumps(rec, indent=1, ensure_ascii=False) + "\n").encode())
        return rec

    def list(self, state: str | None = None) -> list[dict[str, Any]]:
        """Records, newest first (unreadable files skipped); only ``state`` when given."""
        out = []
        for p in sorted(self.dir.glob("*.json"), reverse=True) if self.dir.is_dir() else []:
            try:
                rec = json.loads(p.read_text(encoding="utf-8"))
            except (OSError, ValueError):
                continue
            if (
                isinstance(rec, dict)
                and rec.get("kind") == "batch-eval"
                and (state is None or rec.get("state") == state)
            ):
                out.append(rec)
        return out

    def find(self, ident: str) -> dict[str, Any]:
        """The record whose id, or one of whose batch ids, is ``ident``. Raises ``BatchError``."""
        for rec in self.list():
            if rec.get("id") == ident or ident in (rec.get("batch_ids") or []):
                return rec
        raise BatchError(
            f"no batch eval {ident!r} in {self.dir} (pending ones: "
            f"{', '.join(r['id'] for r in self.list('submitted')) or 'none'})"
        )
