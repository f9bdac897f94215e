"""Errors are seen: an uncaught exception anywhere in the app becomes a dialog with the details.

``install(parent)`` sets ``sys.excepthook`` (exceptions escaping a Qt slot or the main thread) and
``threading.excepthook`` (exceptions ending a Python thread); ``app/main.py`` calls it when the
window opens, ``uninstall()`` restores the previous hooks. Each exception is logged (logger
``workbench.app.errorhook``, with the traceback) and handed to the ``ErrorReporter`` on the GUI
thread (a queued signal, so a worker thread never touches a widget), which shows a ``QMessageBox``
("Unexpected error", the one-line message, the traceback under "Show Details...").

The box is opened with ``open()`` (window-modal, returns at once): it never blocks the event loop,
so tests and ``--screenshot`` runs go on; ``ErrorReporter.shown`` keeps every box shown (tests read
it) and ``ErrorReporter.dialogs_enabled = False`` only logs. ``KeyboardInterrupt`` goes to the
previous hook (Ctrl+C still ends the app).
"""

from __future__ import annotations

import logging
import sys
import threading
import traceback
from types import TracebackType
from typing import Any

import shiboken6
from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtWidgets import QMessageBox, QWidget

log = logging.getLogger(__name__)

#: Boxes open at once at most; later errors add their details to the last one (an error in a
#: timer or a paint event would otherwise open a box per tick).
MAX_OPEN_BOXES = 3


def _alive(box: QMessageBox) -> bool:
    return shiboken6.isValid(box)


def format_exception(exc: BaseException) -> str:
    """The traceback text of ``exc`` (as Python prints it)."""
    return "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))


class ErrorReporter(QObject):
    """Shows uncaught exceptions in a dialog on the GUI thread (module docstring).

    Signals:
        reported(object): the exception, emitted from any thread; handled on the GUI thread.
    """

    reported = Signal(object)

    def __init__(self, parent_widget: QWidget | None = None) -> None:
        super().__init__()
        self.parent_widget = parent_widget
        self.dialogs_enabled = True
        self.shown: list[QMessageBox] = []
        self.reported.connect(self._show, Qt.ConnectionType.QueuedConnection)

    def report(self, exc: BaseException) -> None:
        """Log ``exc`` and show it (from any thread)."""
        log.error("uncaught %s", type(exc).__name__, exc_info=exc)
        try:
            self.reported.emit(exc)
        except RuntimeError:  # the reporter is gone (shutting down): the log has it
            pass

    def _show(self, exc: BaseException) -> None:
        if not self.dialogs_enabled:
            return
        self.shown = [b for b in self.shown if _alive(b) and b.isVisible()]
        if len(self.shown) >= MAX_OPEN_BOXES:
            box = self.shown[-1]  # too many at once: add to the last box instead of a new one
            box.setDetailedText(box.detailedText() + "\n\n" + format_exception(exc))
            return
        box = QMessageBox(self.parent_widget)
        box.setIcon(QMessageBox.Icon.Critical)
        box.setWindowTitle("Unexpected error")
        first = (str(exc).strip().splitlines() or [""])[0]
        box.setText(f"{type(exc).__name__}: {first}" if first else type(exc).__name__)
        box.setInformativeText(
            "The workbench goes on running; what you were doing may not have finished. "
            "The details (below) are also in the log."
        )
        box.setDetailedText(format_exception(exc))
        box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        box.open()  # never blocks (tests, --screenshot)
        self.shown.append(box)


_installed: dict[str, Any] = {}


def install(parent_widget: QWidget | None = None) -> ErrorReporter:
    """Route uncaught exceptions (main thread, Qt slots, Python threads) to a new reporter.

    Returns it; a second call replaces the first reporter (the saved previous hooks stay the
    ones from before the first call). Needs a QApplication.
    """
    reporter = ErrorReporter(parent_widget)
    if not _installed:
        _installed["sys"] = sys.excepthook
        _installed["threading"] = threading.excepthook
    previous = _installed["sys"]

    def excepthook(etype: type[BaseException], value: BaseException, tb: TracebackType | None) -> None:
        if issubclass(etype, KeyboardInterrupt):
            previous(etype, value, tb)
            return
        if value.__traceback__ is None:
            value = value.with_traceback(tb)
        reporter.report(value)

    def thread_excepthook(args: threading.ExceptHookArgs) -> None:
        if args.exc_value is None or isinstance(args.exc_value, KeyboardInterrupt):
            return
        reporter.report(args.exc_value)

    sys.excepthook = excepthook
    threading.excepthook = thread_excepthook
    _installed["reporter"] = reporter
    return reporter


def uninstall() -> None:
    """Restore the hooks that were there before ``install`` (no-op when not installed)."""
    if not _installed:
        return
    sys.excepthook = _installed.pop("sys")
    threading.excepthook = _installed.pop("threading")
    _installed.pop("reporter", None)
