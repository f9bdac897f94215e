"""Typed application settings, declared once (style.md section 7 habit 16).

Every setting is a ``Setting`` row in ``SETTINGS`` with its type, default and description; the
``Settings`` object reads and writes only declared keys, emits ``changed(key)`` and stores a JSON
file ``settings.json`` in ``workbench.core.appdirs.config_dir()`` (tests set ``WORKBENCH_HOME``
so they never touch the real user's config). Writes go through ``safefile.atomic_write``.

The file carries ``"schema": SCHEMA_VERSION``; ``_migrate`` upgrades older files. Unknown keys in
the file are kept (a newer version may have written them) but not exposed; a value of the wrong
type falls back to the default (a hand-edited file never crashes the app).

Decision (spec silent): JSON rather than QSettings, so the file is readable, diffable and testable
without Qt, and so the schema version and migrations are explicit.
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from PySide6.QtCore import QObject, Signal

from workbench.core import appdirs
from workbench.core.safefile import atomic_write

log = logging.getLogger(__name__)

SCHEMA_VERSION = 1

#: Context-size presets shown in the toolbar and listing pane (tokens).
CONTEXT_PRESETS = (8_000, 32_000, 128_000, 200_000, 400_000, 1_000_000)


@dataclass(frozen=True)
class Setting:
    """One declared setting: ``key``, Python ``type``, ``default`` and a human ``description``."""

    key: str
    type: type
    default: Any
    description: str


SETTINGS: tuple[Setting, ...] = (
    Setting("client", str, "claude-code", "The client whose view is shown (a CLIENT_IDS entry)."),
    Setting("context_tokens", int, 200_000, "The model context window in tokens (listing budget)."),
    Setting("last_workspace", str, "", "The folder opened last (absolute path, '' for none)."),
    Setting("recent_workspaces", list, [], "Recently opened folders, newest first (max 10)."),
    Setting("window_geometry", str, "", "Main window geometry (hex of QWidget.saveGeometry)."),
    Setting("window_state", str, "", "Main window dock/toolbar state (hex of saveState)."),
    Setting("splitter_state", str, "", "Tree/details splitter sizes (hex of saveState)."),
    Setting("current_tab", str, "listing", "The right-hand tab shown on start."),
    Setting("live_reload", bool, True, "Watch the roots and re-read changed skills."),
)

_BY_KEY = {s.key: s for s in SETTINGS}


class Settings(QObject):
    """The app's settings, backed by ``<config_dir>/settings.json``.

    Signals:
        changed(str): a setting's value changed (key).

    Args:
        path: the JSON file (default ``config_dir()/settings.json``); ``persist=False`` keeps
            everything in memory (used by ``--screenshot`` so a render never rewrites the file).

    Raises:
        KeyError: ``get``/``set`` of an undeclared key (a programming error, caught in tests).
    """

    changed = Signal(str)

    def __init__(self, path: Path | None = None, persist: bool = True, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.persist = persist
        self.path = (
            path if path is not None else (appdirs.config_dir() / "settings.json" if persist else None)
        )
        self._raw: dict[str, Any] = {}
        self._values: dict[str, Any] = {s.key: _copy(s.default) for s in SETTINGS}
        self.load_error: str = ""
        if self.path is not None:
            self._load()

    # -- access ----------------------------------------------------------------------------
    def get(self, key: str) -> Any:
        """The current value of a declared setting."""
        return _copy(self._values[_BY_KEY[key].key])

    def set(self, key: str, value: Any) -> None:
        """Set a declared setting (type-checked); saves and emits ``changed`` when it differs.

        Raises:
            KeyError: undeclared key.  TypeError: value of the wrong type.
        """
        spec = _BY_KEY[key]
        if not _type_ok(spec, value):
            raise TypeError(f"setting {key!r} expects {spec.type.__name__}, got {type(value).__name__}")
        if self._values[key] == value:
            return
        self._values[key] = _copy(value)
        self.save()
        self.changed.emit(key)

    # -- persistence -----------------------------------------------------------------------
    def _load(self) -> None:
        assert self.path is not None
        try:
            raw = json.loads(self.path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return
        except (OSError, ValueError) as exc:
            self.load_error = f"{self.path}: could not read settings ({exc}); using defaults"
            log.warning("%s", self.load_error)
            return
        if not isinstance(raw, dict):
            self.load_error = f"{self.path}: settings file is not a JSON object; using defaults"
            return
        raw = _migrate(raw)
        self._raw = raw
        for spec in SETTINGS:
            if spec.key in raw and _type_ok(spec, raw[spec.key]):
                self._values[spec.key] = raw[spec.key]

    def save(self) -> None:
        """Write the file atomically (no-op when not persisting). I/O errors are reported in
        ``load_error`` rather than raised: losing a window size must never crash the app."""
        if not self.persist or self.path is None:
            return
        data = dict(self._raw)
        data.update(self._values)
        data["schema"] = SCHEMA_VERSION
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            atomic_write(self.path, (json.dumps(data, indent=2, sort_keys=True) + "\n").encode())
        except OSError as exc:
            self.load_error = f"{self.path}: could not save settings ({exc})"
            log.warning("%s", self.load_error)


def _migrate(raw: dict[str, Any]) -> dict[str, Any]:
    """Upgrade an older settings file. Version 0 (no ``schema``) had the same keys."""
    raw = dict(raw)
    raw.setdefault("schema", SCHEMA_VERSION)
    return raw


def _type_ok(spec: Setting, value: Any) -> bool:
    if spec.type is int:
        return isinstance(value, int) and not isinstance(value, bool)
    return isinstance(value, spec.type)


def _copy(v: Any) -> Any:
    return list(v) if isinstance(v, list) else v
