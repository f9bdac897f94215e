"""The app's small modal questions (Qt dialogs). Panes take them as injectable callables, so tests
pass lambdas instead (style.md §7 habit 13)."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtWidgets import QInputDialog, QMessageBox, QWidget

_Button = QMessageBox.StandardButton


def ask_yes_no(parent: QWidget | None, title: str, text: str, no: _Button = _Button.No) -> bool:
    """A modal question with Yes and ``no`` (No or Cancel, the default button); True = Yes."""
    return QMessageBox.question(parent, title, text, _Button.Yes | no, no) == _Button.Yes


def default_confirm(parent: QWidget) -> Callable[[str, str], bool]:
    """``confirm(title, text) -> bool``: Yes / Cancel (default Cancel)."""

    def confirm(title: str, text: str) -> bool:
        return ask_yes_no(parent, title, text, _Button.Cancel)

    return confirm


def default_ask_reason(parent: QWidget) -> Callable[[str, str], str | None]:
    """``ask(title, label) -> str | None``: a line of text, None when cancelled."""

    def ask(title: str, label: str) -> str | None:
        text, ok = QInputDialog.getText(parent, title, label)
        return text if ok else None

    return ask
