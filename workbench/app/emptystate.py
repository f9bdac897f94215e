"""Empty states: a sentence and an action where a view has nothing to show (issue 13).

``EmptyState(view, text, actions, is_empty)`` is an overlay on a scroll area's viewport (a table,
tree, text view or the chat transcript): centred near the top, shown only while ``is_empty()``
is true. For item views it follows the model (reset, rows inserted/removed); for text views the
document; anything else calls ``refresh()`` after changing what ``is_empty`` reads. Nothing in
the host view changes, so panes keep their layout and their tests.

``go_to_tab(widget, key)`` shows a main-window tab from inside any pane (no-op outside one), for
actions such as "Open the Chat tab"; ``open_folder(widget)`` runs the window's File > Open folder;
``select_first_skill(ctx)`` selects the first listed skill (else the first one).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtWidgets import (
    QAbstractItemView,
    QAbstractScrollArea,
    QApplication,
    QFrame,
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QTextEdit,
    QVBoxLayout,
    QWidget,
)

#: (button label, callback) pairs.
Actions = Sequence[tuple[str, Callable[[], object]]]

_MAX_WIDTH = 460  # px: a sentence reads better in a column than across a wide table


def go_to_tab(widget: QWidget, key: str) -> None:
    """Show tab ``key`` (``main_window.TAB_KEYS``) of the window holding ``widget``, if any."""
    win = widget.window()
    show = getattr(win, "show_tab", None)
    if callable(show):
        show(key)


def open_folder(widget: QWidget) -> None:
    """File > Open folder… of the window holding ``widget``, if any."""
    fn = getattr(widget.window(), "open_folder", None)
    if callable(fn):
        fn()


def select_first_skill(ctx) -> bool:
    """Select the current client's first listed skill (else its first skill) in ``ctx``
    (an ``AppContext``). False when the catalog is missing or empty."""
    cat = ctx.catalog()
    if cat is None or not cat.skills:
        return False
    first = next((s for s in cat.skills if s.status == "listed"), cat.skills[0])
    ctx.select_skill(first.path)
    return True


def _default_is_empty(view: QAbstractScrollArea) -> Callable[[], bool]:
    if isinstance(view, QAbstractItemView):
        return lambda: view.model() is None or view.model().rowCount() == 0
    if isinstance(view, (QTextEdit, QPlainTextEdit)):
        return lambda: view.document().isEmpty()
    return lambda: False


class EmptyState(QFrame):
    """Overlay with a sentence and action buttons over ``view``'s viewport.

    Args:
        view: the host (any ``QAbstractScrollArea``: item views, text views, scroll areas).
        text: the sentence (rich text allowed; say what is missing and what to do).
        actions: ``(label, callback)`` pairs, one button each (at least one is expected).
        is_empty: ``() -> bool``; default: the item model has no rows / the document is empty.

    Attributes:
        label: the QLabel with the sentence. buttons: the QPushButtons, in ``actions`` order.
    """

    def __init__(
        self,
        view: QAbstractScrollArea,
        text: str,
        actions: Actions = (),
        is_empty: Callable[[], bool] | None = None,
    ) -> None:
        super().__init__(view.viewport())
        self.setObjectName("empty_state")
        self.view = view
        self.is_empty = is_empty or _default_is_empty(view)
        self.setAutoFillBackground(False)
        self.setFont(QApplication.font())  # not the host's (a monospace editor or diff view)
        self.label = QLabel(self)
        self.label.setWordWrap(True)
        self.label.setTextFormat(Qt.TextFormat.RichText)
        self.label.setAlignment(Qt.AlignmentFlag.AlignHCenter | Qt.AlignmentFlag.AlignTop)
        self.label.setStyleSheet("color: #57606a;")
        self._row = QHBoxLayout()
        self._row.addStretch(1)
        self._row.addStretch(1)
        self._lay = QVBoxLayout(self)
        self._lay.setContentsMargins(12, 16, 12, 12)
        self._lay.addWidget(self.label)
        self._lay.addLayout(self._row)
        self.buttons: list[QPushButton] = []
        self.set_content(text, actions)
        view.viewport().installEventFilter(self)
        if isinstance(view, QAbstractItemView) and view.model() is not None:
            m = view.model()
            for sig in (m.modelReset, m.rowsInserted, m.rowsRemoved, m.layoutChanged):
                sig.connect(self.refresh)
        elif isinstance(view, (QTextEdit, QPlainTextEdit)):
            view.document().contentsChanged.connect(self.refresh)
        self.refresh()

    def set_content(self, text: str, actions: Actions | None = None) -> None:
        """Replace the sentence and, when given, the actions."""
        self.label.setText(text)
        if actions is not None:
            for b in self.buttons:
                self._row.removeWidget(b)
                b.deleteLater()
            self.buttons = []
            for i, (title, fn) in enumerate(actions):
                b = QPushButton(title, self)
                b.clicked.connect(lambda _c=False, fn=fn: fn())
                self._row.insertWidget(1 + i, b)
                self.buttons.append(b)
        self._place()

    def refresh(self) -> None:
        """Show or hide according to ``is_empty()``."""
        empty = bool(self.is_empty())
        self.setVisible(empty)  # isHidden, not isVisible: the host's tab may not be shown yet
        if empty:
            self._place()

    def _place(self) -> None:
        vp = self.view.viewport()
        width = max(120, min(_MAX_WIDTH, vp.width() - 24))
        self.setFixedWidth(width)
        self.setFixedHeight(
            self._lay.heightForWidth(width) if self._lay.hasHeightForWidth() else self.sizeHint().height()
        )
        top = 24 if vp.height() > 3 * self.height() else 4
        self.move(max(0, (vp.width() - width) // 2), top)
        self.raise_()

    def eventFilter(self, obj: QObject, ev: QEvent) -> bool:  # Override QObject::eventFilter
        if ev.type() == QEvent.Type.Resize:
            self._place()
        return False
