"""Widgets of the Chat pane's transcript: a collapsible tool-call row and a proposal card."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QSizePolicy,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from workbench.core.text import plural


class ToolCallRow(QWidget):
    """One tool call in the transcript: a header button that expands to the input and result.

    The title is elided to the row's width (full text in ``title`` and the button's tooltip): a
    long tool input used to make the transcript wider than its view.
    """

    def __init__(self, title: str, details: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.title = title
        lay = QVBoxLayout(self)
        lay.setContentsMargins(12, 0, 0, 0)
        self.button = QToolButton(self)
        self.button.setText(title)
        self.button.setToolTip(title)
        self.button.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Fixed)
        self.button.setCheckable(True)
        self.button.setArrowType(Qt.ArrowType.RightArrow)
        self.button.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        self.button.setAutoRaise(True)
        self.details = QPlainTextEdit(self)
        self.details.setReadOnly(True)
        self.details.setPlainText(details)
        self.details.setMaximumHeight(160)
        self.details.setVisible(False)
        self.button.toggled.connect(self._toggle)
        lay.addWidget(self.button)
        lay.addWidget(self.details)

    def _toggle(self, on: bool) -> None:
        self.button.setArrowType(Qt.ArrowType.DownArrow if on else Qt.ArrowType.RightArrow)
        self.details.setVisible(on)

    def resizeEvent(self, ev: Any) -> None:  # Override QWidget::resizeEvent
        super().resizeEvent(ev)
        lay = self.layout()
        margin = lay.contentsMargins().left() if lay is not None else 0
        room = max(40, self.width() - margin - 40)  # arrow + padding
        self.button.setText(
            self.button.fontMetrics().elidedText(self.title, Qt.TextElideMode.ElideRight, room)
        )

    def append(self, text: str) -> None:
        self.details.appendPlainText(text)


class ProposalCard(QFrame):
    """A Workshop proposal the model made: "Proposal <id> (<state>) — review in Workshop", a detail
    line (kind, skill, target, blocking findings) and a "Review in Workshop" button.

    Attributes: proposal_id, proposal_event (the ``proposal`` trace event), title (QLabel), detail (QLabel),
    button (QPushButton).
    """

    def __init__(self, ev: dict, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.proposal_id = str(ev.get("id", ""))
        self.proposal_event = dict(ev)  # not "event": that would shadow QWidget.event()
        self.setObjectName("proposalCard")
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.setStyleSheet(
            "QFrame#proposalCard { background: #eef4ff; border: 1px solid #9ab8f0; border-radius: 4px; }"
        )
        lay = QVBoxLayout(self)
        lay.setContentsMargins(8, 6, 8, 6)
        self.title = QLabel(self)
        self.title.setTextFormat(Qt.TextFormat.PlainText)
        self.title.setText(f"Proposal {self.proposal_id} ({ev.get('state', '?')}) — review in Workshop")
        f = self.title.font()
        f.setBold(True)
        self.title.setFont(f)
        blocking = int(ev.get("blocking") or 0)
        target = str(ev.get("target", ""))
        self.detail = QLabel(self)
        self.detail.setTextFormat(Qt.TextFormat.PlainText)
        self.detail.setWordWrap(True)
        self.detail.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        # a long absolute path would force the transcript wider than the view: show its tail,
        # the full path is the tooltip
        self.detail.setText(
            f"{ev.get('kind', '')} of {ev.get('name', '')} → {_path_tail(target)}"
            + (
                f"\n{plural(blocking, 'blocking scanner finding')}: apply is refused until fixed"
                if blocking
                else ""
            )
            + "\nNothing was written to the skill."
        )
        self.detail.setToolTip(target)
        if blocking:
            self.detail.setStyleSheet("color: #8a1c1c;")
        self.button = QPushButton("Review in Workshop", self)
        row = QHBoxLayout()
        row.addWidget(self.button)
        row.addStretch(1)
        lay.addWidget(self.title)
        lay.addWidget(self.detail)
        lay.addLayout(row)


def _path_tail(path: str, parts: int = 4) -> str:
    """The last ``parts`` components of ``path`` ("…/" prefixed when shortened)."""
    bits = path.replace("\\", "/").split("/")
    return path if len(bits) <= parts else "…/" + "/".join(bits[-parts:])
