"""Errors are seen (issue 15 item 7): an uncaught exception — on the GUI thread, in a Qt slot or
in a Python thread — is logged and shown in a dialog with its traceback, without blocking."""

from __future__ import annotations

import logging
import sys
import threading

import pytest

from workbench.app import errorhook
from workbench.app.main import configure_logging


@pytest.fixture
def reporter(qtbot):
    rep = errorhook.install(None)
    yield rep
    errorhook.uninstall()
    for box in rep.shown:
        box.close()


def _boom(msg: str) -> BaseException:
    try:
        raise ValueError(msg)
    except ValueError as exc:
        return exc


def test_main_thread_exception_shows_a_dialog_with_details(reporter, qtbot, caplog):
    exc = _boom("bad value\nsecond line")
    with caplog.at_level(logging.ERROR, logger="workbench.app.errorhook"):
        sys.excepthook(type(exc), exc, exc.__traceback__)
    qtbot.waitUntil(lambda: len(reporter.shown) == 1, timeout=5000)
    box = reporter.shown[0]
    assert box.text() == "ValueError: bad value"
    assert "Traceback" in box.detailedText() and "_boom" in box.detailedText()
    assert box.isVisible()  # opened, not exec'd: the test goes on
    assert any(r.exc_info and r.exc_info[1] is exc for r in caplog.records)


def test_thread_exception_reaches_the_gui_thread(reporter, qtbot):
    def work():
        raise RuntimeError("in a worker")

    t = threading.Thread(target=work)
    t.start()
    t.join(5)
    qtbot.waitUntil(lambda: len(reporter.shown) == 1, timeout=5000)
    assert reporter.shown[0].text() == "RuntimeError: in a worker"


def test_an_error_storm_opens_few_boxes(reporter, qtbot):
    for i in range(10):
        exc = _boom(f"tick {i}")
        sys.excepthook(type(exc), exc, exc.__traceback__)
    qtbot.wait(100)
    assert len(reporter.shown) == errorhook.MAX_OPEN_BOXES
    assert "tick 9" in reporter.shown[-1].detailedText()


def test_uninstall_restores_the_hooks(qtbot):
    before = (sys.excepthook, threading.excepthook)
    errorhook.install(None)
    assert sys.excepthook is not before[0]
    errorhook.uninstall()
    assert (sys.excepthook, threading.excepthook) == before


def test_log_level_from_the_environment():
    logger = logging.getLogger("workbench")
    level, handlers_before = logger.level, list(logger.handlers)
    try:
        _check_levels()
    finally:  # leave no handler behind for the other tests
        logger.handlers[:] = handlers_before
        logger.setLevel(level)


def _check_levels() -> None:
    assert configure_logging({"WORKBENCH_LOG_LEVEL": "debug"}) == logging.DEBUG
    assert configure_logging({"WORKBENCH_LOG_LEVEL": "nonsense"}) == logging.WARNING
    assert configure_logging({}) == logging.WARNING
    handlers = [h for h in logging.getLogger("workbench").handlers if getattr(h, "_workbench", False)]
    assert len(handlers) == 1
