"""The editor pane's chrome: the message banner, the status line and the keyboard actions."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QLabel, QWidget

from workbench.core.text import plural

#: Banner background per level.
BANNER_COLORS = {"error": "#ffebe9", "warning": "#fff8c5", "info": "#ddf4ff"}


class Banner(QLabel):
    """A one-message banner above the editor (hidden when there is none); property ``level``."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWordWrap(True)
        self.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.hide()

    def show_message(self, text: str, level: str = "info") -> None:
        """Show ``text`` at ``level`` ("error" | "warning" | "info")."""
        bg = BANNER_COLORS.get(level, BANNER_COLORS["info"])
        self.setStyleSheet(f"QLabel {{ background: {bg}; padding: 4px; }}")
        self.setText(text)
        self.setProperty("level", level)
        self.show()

    def clear_message(self) -> None:
        self.hide()
        self.setText("")


def status_text(
    line: int,
    column: int,
    counts: tuple[int, int, int],
    *,
    has_bom: bool,
    newline: str,
    modified: bool,
    read_only: bool,
) -> str:
    """The status line: "Ln 3, Col 7 · UTF-8 · LF · 1 error, 0 warnings, 0 infos · modified"."""
    e, w, i = counts
    return (
        f"Ln {line}, Col {column} · UTF-8{' BOM' if has_bom else ''} · "
        f"{'CRLF' if newline == chr(13) + chr(10) else 'LF'} · "
        f"{plural(e, 'error')}, {plural(w, 'warning')}, {plural(i, 'info')}"
        + (" · modified" if modified else "")
        + (" · read-only" if read_only else "")
    )


def install_actions(widget: QWidget, slots: dict[str, Callable[[], object]]) -> dict[str, QAction]:
    """The pane's shortcuts (active while the focus is inside ``widget``): save (Ctrl+S), find
    (Ctrl+F), replace (Ctrl+H), toggle-preview (Ctrl+Shift+V); ``slots`` maps those names to
    callables. Returns the actions by name."""
    keys = {
        "save": ("Save", QKeySequence(QKeySequence.StandardKey.Save)),
        "find": ("Find…", QKeySequence("Ctrl+F")),
        "replace": ("Replace…", QKeySequence("Ctrl+H")),
        "toggle-preview": ("Toggle Preview", QKeySequence("Ctrl+Shift+V")),
    }
    out: dict[str, QAction] = {}
    for name, (title, seq) in keys.items():
        act = QAction(title, widget)
        act.setShortcut(seq)
        act.setShortcutContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
        act.triggered.connect(slots[name])
        widget.addAction(act)
        out[name] = act
    return out
