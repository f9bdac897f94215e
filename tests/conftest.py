"""Shared fixtures. Qt runs offscreen; no test needs the internet or an API key."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ.pop("ANTHROPIC_API_KEY", None)  # tests never use a real key
os.environ.pop("ANTHROPIC_BASE_URL", None)
# Never touch the real user's settings, caches, recovery files, workshop queues or keyring.
if "WORKBENCH_HOME" not in os.environ:
    import tempfile

    os.environ["WORKBENCH_HOME"] = tempfile.mkdtemp(prefix="wb-tests-")
os.environ.setdefault("WORKBENCH_NO_KEYRING", "1")

# PySide6 6.12 on Python < 3.12 drops a reference to None on every void Qt call, and a long GUI
# run then aborts ("deallocating None"); see workbench/app/_shiboken_none.py (no-op elsewhere).
from workbench.app import _shiboken_none  # noqa: E402

_shiboken_none.apply()

REPO = Path(__file__).resolve().parents[1]
ARTIFACTS = REPO / "tests" / "_artifacts"


def _shared() -> Path:
    env = os.environ.get("WB_SHARED")
    if env:
        return Path(env)
    return REPO.parent / "shared"


SHARED = _shared()
CORPUS = SHARED / "corpus"


@pytest.fixture(scope="session")
def corpus() -> Path:
    """../shared/corpus (1,241 real public skills), read-only."""
    if not CORPUS.is_dir():
        pytest.skip(f"corpus not found at {CORPUS} (set WB_SHARED)")
    return CORPUS


@pytest.fixture(scope="session")
def artifacts() -> Path:
    """A folder for screenshots and other files to look at after a run."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    return ARTIFACTS


@pytest.fixture()
def fake_home(tmp_path: Path) -> Path:
    """An empty simulated HOME."""
    h = tmp_path / "home"
    h.mkdir()
    return h
