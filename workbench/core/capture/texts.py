"""The client's own texts (built-in skills, prose) captured from the user's installed client,
stored per client and version in the user's cache folder (``cache_dir()/client-texts``).

``workbench capture`` writes them (``store_client_texts``); ``listing.render_listing`` reads the
newest capture of a client (``stored_client_texts``) when no ``client_texts`` option is given, so the
simulation's budgets match the user's machine. The project itself never ships these texts.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from workbench.core.appdirs import cache_dir
from workbench.core.safefile import atomic_write

_memo: dict[str, tuple[float, tuple[str, dict[str, Any]] | None]] = {}


def _texts_dir() -> Path:
    return cache_dir() / "client-texts"


def store_client_texts(client_id: str, version: str, texts: dict[str, Any]) -> Path:
    """Save a capture's ``client_texts`` (listing.CLIENT_TEXTS shape) for ``client_id`` at ``version``."""
    path = _texts_dir() / f"{client_id}-{version}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    payload = {"client": client_id, "version": version, "client_texts": texts}
    atomic_write(path, json.dumps(payload, indent=1, ensure_ascii=False).encode("utf-8"))
    return path


def stored_client_texts(client_id: str, version: str | None = None) -> tuple[str, dict[str, Any]] | None:
    """``(version, client_texts)`` captured for ``client_id`` (``version``, else the newest file), or None.

    Memoised on the folder's modification time (a listing re-render does not re-read the file)."""
    folder = _texts_dir()
    try:
        stamp = folder.stat().st_mtime
    except OSError:
        return None
    key = f"{folder}|{client_id}|{version}"
    hit = _memo.get(key)
    if hit is not None and hit[0] == stamp:
        return hit[1]
    found = _read(folder, client_id, version)
    _memo[key] = (stamp, found)
    return found


def _read(folder: Path, client_id: str, version: str | None) -> tuple[str, dict[str, Any]] | None:
    if version is not None:
        files = [folder / f"{client_id}-{version}.json"]
    else:
        try:
            files = sorted(folder.glob(f"{client_id}-*.json"), key=lambda p: p.stat().st_mtime, reverse=True)
        except OSError:
            files = []
    for path in files:
        try:
            data = json.loads(path.read_text("utf-8"))
        except (OSError, ValueError):
            continue
        if data.get("client") == client_id and isinstance(data.get("client_texts"), dict):
            return str(data.get("version")), data["client_texts"]
    return None
