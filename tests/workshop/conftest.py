"""Fixtures for workshop tests: an isolated WORKBENCH_HOME, a workspace with one skill, a store."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.helpers import write_skill


class SimulatedCrash(BaseException):
    """Raised from ``fault_hook`` to stop an apply like a killed process would: not an
    ``Exception``, so the store's in-process undo does not run and the journal stays behind."""


@pytest.fixture()
def wb_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    h = tmp_path / "wbhome"
    monkeypatch.setenv("WORKBENCH_HOME", str(h))
    return h


@pytest.fixture()
def ws(tmp_path: Path, wb_home: Path) -> Path:
    w = tmp_path / "ws"
    write_skill(
        w / ".claude" / "skills" / "alpha",
        name="alpha",
        description="Use when testing alpha.",
        body="# Alpha\n\nRun `ls`.\n",
    )
    (w / ".claude" / "skills" / "alpha" / "scripts").mkdir()
    (w / ".claude" / "skills" / "alpha" / "scripts" / "run.sh").write_bytes(b"echo old\n")
    return w


@pytest.fixture()
def alpha(ws: Path) -> Path:
    return ws / ".claude" / "skills" / "alpha" / "SKILL.md"


@pytest.fixture()
def store(ws: Path):
    from workbench.core.workshop import WorkshopStore

    return WorkshopStore(ws)


def snapshot(folder: Path) -> dict[str, bytes]:
    """Every file under folder (relative posix path -> bytes); folders as b'<dir>'."""
    out: dict[str, bytes] = {}
    if not folder.exists():
        return out
    for p in sorted(folder.rglob("*")):
        out[p.relative_to(folder).as_posix()] = p.read_bytes() if p.is_file() else b"<dir>"
    return out
