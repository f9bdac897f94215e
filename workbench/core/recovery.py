"""Crash recovery for unsaved editor buffers: one small JSON file per buffer.

Pure store, no Qt. The editor writes an entry (debounced, about 1 s after the last edit) and
removes it when the buffer is saved or closed without saving; whatever is still there at the next
start was left by a crash and is offered back.

Layout: ``<folder>/<key>.json`` with ``folder`` = ``appdirs.state_dir() / "recovery"`` by default
and ``key`` = the first 20 hex digits of sha256(absolute path). Each file holds::

    {"version": 1, "path": "/abs/SKILL.md", "text": "...", "base_sha256": "...",
     "has_bom": false, "newline": "\\n", "saved_at": 1735000000.0, "pid": 1234}

``text`` is the buffer as the editor holds it (``\\n`` line endings, no BOM); ``has_bom`` and
``newline`` say how it would be saved; ``base_sha256`` is the hash of the file on disk when the
buffer was opened (``""`` = the file did not exist), so a restore can tell whether the disk copy
changed since. Every write goes through ``safefile.atomic_write``: an entry is never half-written.

Unreadable or malformed entries are reported by ``entries()`` with ``error`` set (never raised),
so a UI can offer to discard them; nothing is deleted behind the user's back.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from dataclasses import dataclass
from pathlib import Path

from workbench.core import appdirs
from workbench.core.safefile import atomic_write

VERSION = 1


def recovery_key(path: str | Path) -> str:
    """Stable file key for a buffer path: 20 hex digits of sha256 of the absolute path."""
    ab = os.path.abspath(os.fspath(path))
    return hashlib.sha256(ab.encode("utf-8", "surrogatepass")).hexdigest()[:20]


@dataclass(frozen=True, slots=True)
class RecoveryEntry:
    """One recovery file. ``error`` is non-empty when the file could not be read/parsed."""

    key: str
    file: Path
    path: str | None = None
    text: str = ""
    base_sha256: str = ""
    has_bom: bool = False
    newline: str = "\n"
    saved_at: float = 0.0
    pid: int = 0
    error: str = ""

    @property
    def ok(self) -> bool:
        return not self.error


class RecoveryStore:
    """Recovery files in one folder.

    Args:
        folder: where entries live; default ``appdirs.state_dir() / "recovery"`` (created).

    Methods never raise for a bad entry; ``write`` raises ``OSError`` if the folder is unwritable.
    """

    def __init__(self, folder: Path | str | None = None) -> None:
        self.folder = Path(folder) if folder is not None else appdirs.state_dir() / "recovery"
        self.folder.mkdir(parents=True, exist_ok=True)

    def file_for(self, path: str | Path) -> Path:
        return self.folder / f"{recovery_key(path)}.json"

    def write(
        self, path: str | Path, text: str, base_sha256: str = "", has_bom: bool = False, newline: str = "\n"
    ) -> Path:
        """Write (atomically replace) the entry for ``path``; returns the entry file."""
        doc = {
            "version": VERSION,
            "path": os.path.abspath(os.fspath(path)),
            "text": text,
            "base_sha256": base_sha256,
            "has_bom": bool(has_bom),
            "newline": newline,
            "saved_at": time.time(),
            "pid": os.getpid(),
        }
        data = json.dumps(doc, ensure_ascii=False).encode("utf-8", "surrogatepass")
        target = self.file_for(path)
        atomic_write(target, data, mode=0o600)
        return target

    def remove(self, path: str | Path) -> bool:
        """Delete the entry for ``path``; True if one existed."""
        return self.discard(recovery_key(path))

    def discard(self, key: str) -> bool:
        """Delete the entry with this key; True if one existed."""
        try:
            (self.folder / f"{key}.json").unlink()
            return True
        except FileNotFoundError:
            return False

    def get(self, path: str | Path) -> RecoveryEntry | None:
        """The entry for ``path`` or None."""
        f = self.file_for(path)
        return self._read(f) if f.exists() else None

    def entries(self) -> list[RecoveryEntry]:
        """All entries, oldest first (bad ones included, with ``error`` set)."""
        out = [self._read(f) for f in sorted(self.folder.glob("*.json"))]
        return sorted(out, key=lambda e: (e.saved_at, e.key))

    @staticmethod
    def _read(f: Path) -> RecoveryEntry:
        key = f.stem
        try:
            doc = json.loads(f.read_text(encoding="utf-8", errors="surrogatepass"))
        except (OSError, ValueError) as exc:
            return RecoveryEntry(key=key, file=f, error=f"unreadable recovery file: {exc}")
        if not isinstance(doc, dict) or not isinstance(doc.get("text"), str):
            return RecoveryEntry(key=key, file=f, error="malformed recovery file (no text)")
        nl = doc.get("newline")
        return RecoveryEntry(
            key=key,
            file=f,
            path=doc.get("path") if isinstance(doc.get("path"), str) else None,
            text=doc["text"],
            base_sha256=str(doc.get("base_sha256") or ""),
            has_bom=bool(doc.get("has_bom")),
            newline=nl if nl in ("\n", "\r\n") else "\n",
            saved_at=float(doc.get("saved_at") or 0.0),
            pid=int(doc.get("pid") or 0),
        )
