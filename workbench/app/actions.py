"""Actions as data (style.md section 7 habit 15): one table of id, title, shortcut, menu and tip
that the menus, the toolbar and the Help > Keyboard shortcuts dialog all read.

``ACTIONS`` lists every command of the main window; ``build_actions(parent, handlers)`` turns it
into ``QAction``s (``handlers``: id -> callable; an action without a handler is created disabled
so the table stays the single source of truth). Client switching gets one row per client
(Ctrl+1 … Ctrl+9, in ``CLIENT_IDS`` order).

Icons: one set, Qt's standard icons (``QStyle.StandardPixmap``; ``ActionSpec.icon`` names one,
``action_icon`` resolves it). Under a desktop icon theme Qt draws them from that theme, else from
the icons built into Qt (LGPLv3, shipped with PySide6); licence note in
``workbench/resources/icons/README.md``. Nothing else is bundled.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

from PySide6.QtGui import QAction, QIcon, QKeySequence
from PySide6.QtWidgets import (
    QApplication,
    QDialog,
    QDialogButtonBox,
    QHeaderView,
    QStyle,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from workbench.core.model import CLIENT_IDS


@dataclass(frozen=True)
class ActionSpec:
    """One command: ``id`` (handler key), ``title`` (menu text), ``shortcut`` (portable text
    for ``QKeySequence``, "" for none), ``menu`` ("File", "View", "Client", "Help"), ``tip``,
    ``toolbar`` (also on the toolbar), ``icon`` (a ``QStyle.StandardPixmap`` name, "" = none)."""

    id: str
    title: str
    shortcut: str
    menu: str
    tip: str = ""
    toolbar: bool = False
    icon: str = ""


def _client_actions() -> tuple[ActionSpec, ...]:
    from workbench.core.clients import DISPLAY_NAMES

    return tuple(
        ActionSpec(
            f"client.{cid}",
            DISPLAY_NAMES.get(cid, cid),
            f"Ctrl+{i}",
            "Client",
            f"Show what {DISPLAY_NAMES.get(cid, cid)} sees",
        )
        for i, cid in enumerate(CLIENT_IDS, 1)
    )


ACTIONS: tuple[ActionSpec, ...] = (
    ActionSpec(
        "open_folder",
        "&Open folder…",
        "Ctrl+O",
        "File",
        "Open a project folder or a folder of skills",
        True,
        "SP_DirOpenIcon",
    ),
    ActionSpec(
        "rescan", "&Rescan", "F5", "File", "Scan every root again for every client", True, "SP_BrowserReload"
    ),
    ActionSpec("quit", "&Quit", "Ctrl+Q", "File", "Close the window", icon="SP_DialogCloseButton"),
    ActionSpec(
        "filter",
        "&Filter skills",
        "Ctrl+F",
        "View",
        "Focus the filter box of the skills tree",
        icon="SP_FileDialogContentsView",
    ),
    ActionSpec(
        "focus_tree", "Skills &tree", "Ctrl+T", "View", "Focus the skills tree", icon="SP_FileDialogListView"
    ),
    ActionSpec(
        "tab_listing",
        "&Listing",
        "Ctrl+Shift+L",
        "View",
        "Show the listing preview",
        icon="SP_FileDialogDetailedView",
    ),
    ActionSpec("tab_editor", "&Editor", "Ctrl+Shift+E", "View", "Show the editor", icon="SP_FileIcon"),
    ActionSpec(
        "tab_explain",
        "E&xplain",
        "Ctrl+Shift+X",
        "View",
        "Show the explain pane",
        icon="SP_MessageBoxQuestion",
    ),
    ActionSpec(
        "tab_shadowing",
        "&Shadowing",
        "Ctrl+Shift+D",
        "View",
        "Show names defined more than once",
        icon="SP_FileLinkIcon",
    ),
    ActionSpec("tab_chat", "&Chat", "Ctrl+Shift+C", "View", "Show the chat pane", icon="SP_CommandLink"),
    ActionSpec(
        "tab_evals", "E&vals", "Ctrl+Shift+V", "View", "Show trigger evaluations", icon="SP_MediaPlay"
    ),
    ActionSpec(
        "tab_workshop",
        "&Workshop",
        "Ctrl+Shift+W",
        "View",
        "Show the workshop pane",
        icon="SP_DialogApplyButton",
    ),
    ActionSpec(
        "tab_capture",
        "&Real client",
        "Ctrl+Shift+R",
        "View",
        "Capture what your installed client really sends",
        icon="SP_ComputerIcon",
    ),
    *_client_actions(),
    ActionSpec(
        "shortcuts",
        "&Keyboard shortcuts",
        "F1",
        "Help",
        "List every keyboard shortcut",
        icon="SP_DialogHelpButton",
    ),
    ActionSpec("about", "&About Skill Workbench", "", "Help", "", icon="SP_MessageBoxInformation"),
)

MENUS = ("File", "View", "Client", "Help")


def spec(action_id: str) -> ActionSpec:
    for a in ACTIONS:
        if a.id == action_id:
            return a
    raise KeyError(action_id)


def action_icon(name: str) -> QIcon:
    """The standard icon ``name`` (a ``QStyle.StandardPixmap`` member, e.g. "SP_DirOpenIcon") of
    the application's style; a null ``QIcon`` for "" or an unknown name."""
    pixmap = getattr(QStyle.StandardPixmap, name, None) if name else None
    app = QApplication.instance()
    if pixmap is None or not isinstance(app, QApplication):
        return QIcon()
    return app.style().standardIcon(pixmap)


def build_actions(parent: QWidget, handlers: Mapping[str, Callable[[], object]]) -> dict[str, QAction]:
    """QActions for every ``ACTIONS`` row (id -> QAction), parented to ``parent``.

    Shortcuts use ``Qt.WindowShortcut`` context, so they work wherever focus is in the window.
    """
    out: dict[str, QAction] = {}
    for a in ACTIONS:
        act = QAction(a.title, parent)
        act.setObjectName(f"action.{a.id}")
        if a.icon:
            act.setIcon(action_icon(a.icon))
        if a.shortcut:
            act.setShortcut(QKeySequence(a.shortcut))
        if a.tip:
            act.setStatusTip(a.tip)
            act.setToolTip(f"{a.tip} ({a.shortcut})" if a.shortcut else a.tip)
        fn = handlers.get(a.id)
        if fn is None:
            act.setEnabled(False)
        else:
            act.triggered.connect(lambda _checked=False, fn=fn: fn())
        out[a.id] = act
    return out


class ShortcutsDialog(QDialog):
    """Help > Keyboard shortcuts: a table of every action with a shortcut, read from ``ACTIONS``."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Keyboard shortcuts")
        rows = [a for a in ACTIONS if a.shortcut]
        self.table = QTableWidget(len(rows), 3, self)
        self.table.setHorizontalHeaderLabels(["Shortcut", "Command", "Menu"])
        for i, a in enumerate(rows):
            seq = QKeySequence(a.shortcut).toString(QKeySequence.SequenceFormat.NativeText)
            self.table.setItem(i, 0, QTableWidgetItem(seq))
            self.table.setItem(i, 1, QTableWidgetItem(a.title.replace("&", "").rstrip("…")))
            self.table.setItem(i, 2, QTableWidgetItem(a.menu))
        self.table.verticalHeader().setVisible(False)
        self.table.horizontalHeader().setSectionResizeMode(1, QHeaderView.ResizeMode.Stretch)
        self.table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close, self)
        buttons.rejected.connect(self.reject)
        lay = QVBoxLayout(self)
        lay.addWidget(self.table)
        lay.addWidget(buttons)
        self.resize(460, 520)
