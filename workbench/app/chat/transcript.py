"""The Chat pane's two views of a conversation: the transcript and the trace tree.

``Transcript`` (a QScrollArea) shows the bubbles (You / Assistant / notes / errors), one
collapsible ``ToolCallRow`` per tool call (input, resolved skill, substitutions, result) and a
``ProposalCard`` per Workshop proposal. ``TraceView`` shows, per turn, every event (listing,
tool_use, skill_loaded, tool_result, usage with cache note and request id ...) with the selected
event's JSON below. Both are fed the chat engine's event dicts (``core/chat/trace.py`` wording).
"""

from __future__ import annotations

import json
from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QHeaderView,
    QLabel,
    QPlainTextEdit,
    QScrollArea,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from workbench.app.chat.widgets import ProposalCard, ToolCallRow
from workbench.core.chat.trace import event_line, fork_lines, mark_substitutions, substitution_summary


def _fork_line(ev: dict) -> str | None:
    """One line for an event of a fork's sub-transcript (the CLI's wording)."""
    return event_line(ev)


class Transcript(QScrollArea):
    """The transcript (module docstring). ``content`` is the widget inside, ``content_layout`` its
    layout (a trailing stretch keeps bubbles at the top).

    Signals:
        review_requested(str): a proposal card's "Review in Workshop" button was clicked.
    """

    review_requested = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWidgetResizable(True)
        self.content = QWidget()
        self.content_layout = QVBoxLayout(self.content)
        self.content_layout.addStretch(1)
        self.setWidget(self.content)
        self._assistant: QLabel | None = None
        self._tool_rows: dict[str, ToolCallRow] = {}

    # -- building --------------------------------------------------------------------------
    def start_turn(self, message: str) -> None:
        """A new turn: the user's bubble; assistant text starts a new bubble."""
        self.add_bubble("You", message)
        self._assistant = None
        self._tool_rows = {}

    def clear(self) -> None:
        """Remove every bubble, row and card."""
        while self.content_layout.count() > 1:
            item = self.content_layout.takeAt(0)
            w = item.widget() if item is not None else None
            if w:
                w.deleteLater()
        self._assistant = None
        self._tool_rows = {}

    def _insert(self, w: QWidget) -> None:
        self.content_layout.insertWidget(self.content_layout.count() - 1, w)
        # A layout shows a child added to a visible parent only later (a queued show): show it
        # now, so the transcript is complete when turn_finished is handled (a click on a fresh
        # tool-call row used to find its details hidden, intermittently).
        if self.content.isVisible():
            w.show()
        bar = self.verticalScrollBar()
        bar.setValue(bar.maximum())

    def add_bubble(self, who: str, text: str) -> QLabel:
        """Append a "who: text" bubble (plain text, selectable)."""
        lab = QLabel(self.content)
        lab.setWordWrap(True)
        lab.setTextFormat(Qt.TextFormat.PlainText)
        lab.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        lab.setText(f"{who}: {text}")
        lab.setProperty("who", who)
        self._insert(lab)
        return lab

    def add_note(self, text: str) -> None:
        """Append a grey note ("— text")."""
        lab = self.add_bubble("—", text)
        lab.setStyleSheet("color: gray;")

    def add_proposal(self, ev: dict) -> ProposalCard:
        """Append the card of a ``proposal`` event; its button emits ``review_requested``."""
        card = ProposalCard(ev, self.content)
        card.button.clicked.connect(lambda _=False, pid=card.proposal_id: self.review_requested.emit(pid))
        self._insert(card)
        self._assistant = None
        return card

    def show_event(self, ev: dict) -> None:
        """Render one engine event (``proposal`` events go through ``add_proposal``)."""
        t = ev["type"]
        if t == "text_delta":
            if self._assistant is None:
                self._assistant = self.add_bubble("Assistant", "")
            self._assistant.setText(self._assistant.text() + ev["text"])
        elif t == "tool_use_start":
            self._assistant = None  # text after a tool call starts a new bubble
        elif t == "tool_use":
            inp = json.dumps(ev.get("input"), ensure_ascii=False)
            where = f" → {ev['skill']}" if ev.get("skill") else ""
            cut = "  [truncated: not run]" if ev.get("truncated") else ""
            shown = inp if len(inp) <= 1000 else inp[:1000] + "…"  # the row elides it to its width
            row = ToolCallRow(
                f"{ev['name']} {shown}{where}{cut}",
                f"input: {inp}\nresolved: {ev.get('resolved')}",
                self.content,
            )
            self._tool_rows[ev["id"]] = row
            self._insert(row)
            self._assistant = None
        elif t == "substitution" and ev.get("tool_use_id") in self._tool_rows:
            self._tool_rows[ev["tool_use_id"]].append(
                substitution_summary(ev) + "\n" + mark_substitutions(ev["text"], ev["spans"])
            )
        elif t == "fork":
            row = ToolCallRow(
                f"fork: {ev.get('skill')} ran as a subagent ({ev.get('agent') or 'default agent'})"
                " — it does not see this conversation",
                "\n".join(fork_lines(ev, _fork_line)) + "\n\nprompt:\n" + ev.get("prompt", ""),
                self.content,
            )
            row.setProperty("fork", True)
            self._insert(row)
            self._assistant = None
        elif t == "tool_result" and ev["id"] in self._tool_rows:
            self._tool_rows[ev["id"]].append(
                f"result ({ev['chars']} chars{', error' if ev['is_error'] else ''}):\n{ev['preview']}"
            )
        elif t == "error":
            self.add_bubble(
                "Error",
                ev["message"]
                + (f"\n{ev['hint']}" if ev.get("hint") else "")
                + (f"\nrequest id: {ev['request_id']}" if ev.get("request_id") else ""),
            )
        elif t == "cancelled":
            self.add_note("(stopped)")

    # -- reading ---------------------------------------------------------------------------
    def widgets(self) -> list[QWidget | None]:
        """The widget of every layout item, in order (None for the stretch)."""
        out: list[QWidget | None] = []
        for i in range(self.content_layout.count()):
            item = self.content_layout.itemAt(i)
            out.append(item.widget() if item is not None else None)
        return out

    def is_empty(self) -> bool:
        return self.content_layout.count() <= 1

    def assistant_text(self) -> str:
        """All assistant text of the transcript (for tests and accessibility)."""
        out = []
        for w in self.widgets():
            if isinstance(w, QLabel) and w.property("who") == "Assistant":
                out.append(w.text()[len("Assistant: ") :])
        return "\n".join(out)


def trace_detail(ev: dict) -> str:
    """The "Detail" column of a trace row for the engine event ``ev``."""
    t = ev["type"]
    if t == "listing":
        return (
            f"{len(ev['skills'])} skills, {ev['chars']} chars, ≈{ev['tokens_est']} tokens (est.) "
            f"— {ev['placement_note']}"
        )
    if t == "tool_use":
        return f"{ev['name']} → {ev.get('skill') or ev.get('resolved')}" + (
            " [truncated]" if ev.get("truncated") else ""
        )
    if t == "skill_loaded":
        return f"{ev['name']} via {ev['via']}: {ev['body_chars']} chars (≈{ev['tokens_est']} tokens)"
    if t == "tool_result":
        return f"{ev['chars']} chars" + (" (error)" if ev["is_error"] else "")
    if t == "text":
        return str(ev["text"][:120])
    if t == "usage":
        return (
            f"in {ev['input_tokens']} · out {ev['output_tokens']} · cache read "
            f"{ev['cache_read_input_tokens']} · write {ev['cache_creation_input_tokens']} · "
            f"{ev['seconds']}s · {ev['stop_reason']} · {ev['request_id']}"
        )
    if t == "proposal":
        return (
            f"{ev.get('id')} ({ev.get('state')}): {ev.get('kind')} {ev.get('name')} → {ev.get('target')}"
            + (f" · {ev['blocking']} blocking" if ev.get("blocking") else "")
        )
    if t == "error":
        return f"{ev['kind']}: {ev['message']}"
    if t == "substitution":
        return substitution_summary(ev)
    if t == "fork":
        return (
            f"{ev.get('skill')} as a subagent: {len(ev.get('events') or [])} events, "
            f"{len(ev.get('text') or '')} chars back" + (f", error: {ev['error']}" if ev.get("error") else "")
        )
    return str(ev.get("message", ""))


class TraceView(QWidget):
    """The trace tree (``tree``: one top-level item per turn) and the selected event's JSON
    (``details``)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        rv = QVBoxLayout(self)
        rv.setContentsMargins(0, 0, 0, 0)
        self.tree = QTreeWidget(self)
        self.tree.setHeaderLabels(["Trace", "Detail"])
        # both columns fit the pane: the event stays whole, the detail wraps (issue 13)
        self.tree.setWordWrap(True)
        self.tree.setUniformRowHeights(False)
        self.tree.header().setSectionResizeMode(0, QHeaderView.ResizeMode.ResizeToContents)
        self.tree.header().setSectionResizeMode(1, QHeaderView.ResizeMode.Stretch)
        self.tree.header().setMinimumSectionSize(60)
        self.details = QPlainTextEdit(self)
        self.details.setReadOnly(True)
        self.details.setMaximumHeight(180)
        self.details.setPlaceholderText("Select a trace row to see its JSON here.")
        rv.addWidget(self.tree, 1)
        rv.addWidget(self.details)
        self._turn: QTreeWidgetItem | None = None
        self.tree.currentItemChanged.connect(self._show_item)

    def start_turn(self, number: int, message: str) -> None:
        self._turn = QTreeWidgetItem(self.tree, [f"Turn {number}", message[:80]])
        self._turn.setExpanded(True)

    def clear(self) -> None:
        self.tree.clear()
        self.details.clear()
        self._turn = None

    def add(self, ev: dict) -> None:
        """Add the event ``ev`` under the current turn (a fork's events as child rows)."""
        if self._turn is None:
            return
        t = ev["type"]
        item = QTreeWidgetItem(self._turn, [t, trace_detail(ev)])
        item.setData(0, Qt.ItemDataRole.UserRole, ev)
        if t == "fork":  # the sub-transcript as child rows
            for sub in ev.get("events") or []:
                line = _fork_line(sub)
                if line:
                    child = QTreeWidgetItem(item, [sub.get("type", ""), line.splitlines()[0]])
                    child.setData(0, Qt.ItemDataRole.UserRole, sub)
        if t == "usage":
            item.setToolTip(1, ev.get("cache_note", ""))

    def _show_item(self, cur: QTreeWidgetItem | None, _prev: Any = None) -> None:
        ev = cur.data(0, Qt.ItemDataRole.UserRole) if cur is not None else None
        self.details.setPlainText(json.dumps(ev, indent=2, ensure_ascii=False) if ev else "")
