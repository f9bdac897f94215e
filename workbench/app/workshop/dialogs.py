"""The Workshop pane's default questions (Qt dialogs); tests inject lambdas instead."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtWidgets import QInputDialog, QMessageBox, QWidget


def default_confirm(parent: QWidget) -> Callable[[str, str], bool]:
    def confirm(title: str, text: str) -> bool:
        r = QMessageBox.question(
            parent,
            title,
            text,
            QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.Cancel,
            QMessageBox.StandardButton.Cancel,
        )
        return r == QMessageBox.StandardButton.Yes

    return confirm


def default_ask_reason(parent: QWidget) -> Callable[[str, str], str | None]:
    def ask(title: str, label: str) -> str | None:
        text, ok = QInputDialog.getText(parent, title, label)
        return text if ok else None

    return ask
