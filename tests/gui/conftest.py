"""Fixtures for the main-window GUI tests (real widgets, offscreen, no mocks).

``wb_home`` (autouse) points WORKBENCH_HOME at a temp folder so no test reads or writes the real
settings. ``open_window(env, ...)`` builds an AppContext + MainWindow, starts the scan and waits
for it; windows are closed (watchers and jobs stopped) at teardown.
"""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture(autouse=True)
def wb_home(tmp_path_factory, monkeypatch) -> Path:
    home = tmp_path_factory.mktemp("wbhome")
    monkeypatch.setenv("WORKBENCH_HOME", str(home))
    return home


@pytest.fixture()
def open_window(qtbot):
    """Factory: ``open_window(env, client_id=None, context_tokens=None, watch=False,
    allow_demo=False, wait=True) -> MainWindow``."""
    made = []

    def make(
        env, client_id=None, context_tokens=None, watch=False, allow_demo=False, wait=True, size=(1400, 900)
    ):
        from workbench.app.context import AppContext
        from workbench.app.main_window import MainWindow
        from workbench.app.settings import Settings

        ctx = AppContext(
            Settings(persist=False),
            env,
            client_id=client_id,
            context_tokens=context_tokens,
            allow_demo=allow_demo,
            watch=watch,
        )
        win = MainWindow(ctx)
        qtbot.addWidget(win)
        win.resize(*size)
        win.show()
        made.append(win)
        ctx.rescan()
        if wait:
            assert win.settle(120_000), "scan did not finish"
        return win

    yield make
    from workbench.app import workers

    for w in made:
        w.ctx.shutdown()
        w.close()
    workers.wait_all(30_000)


def grab(win, path: Path) -> Path:
    """Save a screenshot of ``win`` to ``path`` (PNG)."""
    from PySide6.QtCore import QCoreApplication

    for _ in range(3):
        QCoreApplication.processEvents()
    assert win.grab().save(str(path), "PNG")
    return path
