"""Where the workbench keeps its own files (platformdirs), overridable for tests.

``WORKBENCH_HOME`` (env) puts config, cache, recovery and state under one folder; tests set it
to a temporary directory so they never touch the real user's files.
"""

from __future__ import annotations

import os
from pathlib import Path

import platformdirs

APP = "skill-workbench"


def _base(kind: str) -> Path:
    override = os.environ.get("WORKBENCH_HOME")
    if override:
        p = Path(override) / kind
    else:
        p = Path(
            {
                "config": platformdirs.user_config_dir(APP),
                "cache": platformdirs.user_cache_dir(APP),
                "state": platformdirs.user_state_dir(APP),
            }[kind]
        )
    p.mkdir(parents=True, exist_ok=True)
    return p


def config_dir() -> Path:
    """Settings (never secrets: the API key lives in the system keyring or the environment)."""
    return _base("config")


def cache_dir() -> Path:
    return _base("cache")


def state_dir() -> Path:
    """Recovery files for unsaved editor buffers, window state."""
    return _base("state")
