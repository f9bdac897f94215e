"""The chat pane: run the skill-disclosure loop against a Messages API server and trace it.

Host it anywhere::

    pane = ChatPane(lambda: (current_catalog, context_tokens))
    pane.skills_loaded.connect(listing_pane.mark_loaded)   # list[str], in load order

Parts: a settings area (base URL, API key → system keyring, model combo filled from the server's
``models.list()`` with free text as fallback, max tokens, temperature, turn limit), a "what to set"
banner when there is no key, the transcript (streaming assistant text; each tool call a collapsible
row), the trace tree beside it (per turn: listing, tool_use, skill_loaded, tool_result, usage with
cache note and request id; the selected event's JSON below), Send / Stop / New chat / Copy as JSON.

Threads: each turn runs ``ChatSession.send`` on a Python worker thread; events come back through
a QObject's signals (queued to the GUI thread). Stop sets the cancel event and closes the stream.
A shell command the model asks for is shown to the user (``approve_shell``, on the GUI thread)
while the worker waits; answering no (the default when the pane is closed) runs nothing.

Drafting skills: with ``allow_propose`` (default off, as in the CLI: a person opts in with the
"Drafts" checkbox in the connection settings) the model is offered ``propose_skill``
(``workbench/core/chat/propose.py``). A proposal it makes appears in the transcript as a card
"Proposal <id> (pending) — review in Workshop" and the pane emits ``proposal_created(id)`` as
soon as the proposal is stored (while the turn may still be running); the card's button emits
``review_requested(id)``. Nothing is applied from here: the Workshop pane does that. Decision:
the checkbox is not persisted in ``chat.json`` (ChatSettings is shared with the CLI, where the tool
is opt-in); toggling it starts a new conversation at the next Send because the tool list changes.

Decisions (spec silent): the catalog and listing are captured when a conversation starts; they
are re-read from ``catalog_provider`` on "New chat", when a connection setting changes, or when
the catalog object or context size differ at the next Send (the conversation then restarts, and
the transcript says so). Non-secret settings are saved to ``chat.json`` when a turn starts. A key
typed in the field is used for this session; "Save key" stores it in the keyring (or says that
no keyring exists and the key stays in memory only). The key is never written to a file.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QObject, Qt, Signal, Slot
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDoubleSpinBox,
    QFormLayout,
    QFrame,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QMessageBox,
    QPlainTextEdit,
    QPushButton,
    QScrollArea,
    QSizePolicy,
    QSpinBox,
    QSplitter,
    QToolButton,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from workbench.app.emptystate import EmptyState
from workbench.core.chat import settings as chat_settings
from workbench.core.chat.errors import ChatError
from workbench.core.chat.settings import ChatSettings
from workbench.core.chat.trace import event_line, fork_lines, mark_substitutions, substitution_summary
from workbench.core.text import plural

if TYPE_CHECKING:  # imported lazily at run time: the SDK import takes seconds
    from workbench.core.chat.engine import ChatSession

CatalogProvider = Callable[[], Any]

#: The no-key banner, worded for this pane (``NO_KEY_HINT`` speaks of CLI flags and "chat
#: settings"; here the fields are under "Connection").
NO_KEY_GUI_HINT = (
    "No API key. Open Connection (above) and type a key — \"Save key\" keeps it in the "
    "system keyring, never in a file — or set ANTHROPIC_API_KEY before starting the "
    "workbench. For a local server that speaks the Messages API (Ollama, llama.cpp, "
    "vLLM, LiteLLM), set its Base URL under Connection and type any key, e.g. local."
)


#: (label, base URL) for the Server preset box; "" = the Anthropic API (or ANTHROPIC_BASE_URL).
#: Local servers that speak the Messages API: ../shared/reference/chat-loop.md section 5.
SERVER_PRESETS = (
    ("Anthropic API", ""),
    ("Local: Ollama (≥ 0.14)", "http://localhost:11434"),
    ("Local: llama.cpp llama-server", "http://localhost:8080"),
    ("Local: vLLM", "http://localhost:8000"),
    ("Local: LiteLLM proxy", "http://localhost:4000"),
)


class _Bridge(QObject):
    """Signals emitted from worker threads; connected slots run on the GUI thread."""

    carried = Signal(int, object)  # generation, event dict (not ``event``: QObject.event())
    finished = Signal(int, object)  # generation, TurnResult
    approval = Signal(str, object)  # command, holder dict {"ok", "done": threading.Event}
    models = Signal(object)  # list[dict] | ChatError


def _fork_line(ev: dict) -> str | None:
    """One line for an event of a fork's sub-transcript (the CLI's wording)."""
    return event_line(ev)


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


class ChatPane(QWidget):
    """The chat pane (module docstring).

    Args:
        catalog_provider: ``() -> (Catalog, context_tokens | None)`` (or just a Catalog).
        settings: initial ``ChatSettings`` (default: ``load_settings()``).
        environ: environment mapping for the key and base URL (default ``os.environ``).
        allow_propose: offer ``propose_skill`` (default False; the "Drafts" checkbox).
        store_factory: ``() -> WorkshopStore`` used by ``propose_skill`` (called on the worker
            thread at the first proposal of a conversation). Default: ``WorkshopStore`` of the
            conversation's catalog workspace (the same store folder a ``WorkshopPane`` on that
            workspace opens).

    Signals:
        skills_loaded(list): names of the skills loaded in the finished turn, in order (emitted
            after every turn that loaded at least one).
        turn_finished(object): the ``TurnResult``.
        proposal_created(str): the id of a Workshop proposal the model just made (emitted on the
            GUI thread when its ``proposal`` event arrives, before the turn ends).
        review_requested(str): a proposal card's "Review in Workshop" button was clicked.
    """

    skills_loaded = Signal(list)
    turn_finished = Signal(object)
    proposal_created = Signal(str)
    review_requested = Signal(str)

    #: The transcript's scroll area; shadows ``QWidget.scroll()`` (kept: tests use ``chat.scroll``).
    scroll: QScrollArea  # type: ignore[assignment]  # deliberately replaces the Qt method

    def __init__(
        self,
        catalog_provider: CatalogProvider,
        parent: QWidget | None = None,
        *,
        settings: ChatSettings | None = None,
        environ: dict | None = None,
        allow_propose: bool = False,
        store_factory: Callable[[], Any] | None = None,
    ) -> None:
        super().__init__(parent)
        self.catalog_provider = catalog_provider
        self.store_factory = store_factory
        self.proposals: list[str] = []
        self.settings = settings or chat_settings.load_settings()
        self.environ = environ
        self.approve_shell: Callable[[str], bool] = self._ask_shell
        self.results: list[Any] = []
        self._session: ChatSession | None = None
        self._session_key: tuple | None = None
        self._typed_key: str | None = None
        self._cancel: threading.Event | None = None
        self._worker: threading.Thread | None = None
        self._busy = False
        self._gen = 0
        self._turns = 0
        self._assistant: QLabel | None = None
        self._tool_rows: dict[str, ToolCallRow] = {}
        self._turn_item: QTreeWidgetItem | None = None
        self._bridge = _Bridge(self)
        self._bridge.carried.connect(self._on_event)
        self._bridge.finished.connect(self._on_finished)
        self._bridge.approval.connect(self._on_approval)
        self._bridge.models.connect(self._on_models)
        self._build()
        self.propose_check.setChecked(bool(allow_propose))
        self._load_settings_into_form()
        self._update_key_banner()

    # -- construction ----------------------------------------------------------------------
    def _build(self) -> None:
        root = QVBoxLayout(self)
        top = QHBoxLayout()
        self.settings_toggle = QToolButton(self)
        self.settings_toggle.setText("Connection")
        self.settings_toggle.setCheckable(True)
        self.settings_toggle.setArrowType(Qt.ArrowType.RightArrow)
        self.settings_toggle.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        self.status = QLabel(self)
        top.addWidget(self.settings_toggle)
        top.addWidget(self.status, 1)
        root.addLayout(top)

        self.settings_box = QFrame(self)
        form = QFormLayout(self.settings_box)
        self.preset_combo = QComboBox(self)
        for label, url in SERVER_PRESETS:
            self.preset_combo.addItem(label, url)
        self.preset_combo.setToolTip(
            "Fill the base URL for the Anthropic API or a local server that speaks the Messages API"
        )
        form.addRow("Server", self.preset_combo)
        self.base_url = QLineEdit(self)
        self.base_url.setPlaceholderText("https://api.anthropic.com (or ANTHROPIC_BASE_URL)")
        form.addRow("Base URL", self.base_url)
        keyrow = QHBoxLayout()
        self.key_edit = QLineEdit(self)
        self.key_edit.setEchoMode(QLineEdit.EchoMode.Password)
        self.save_key_btn = QPushButton("Save key", self)
        self.save_key_btn.setToolTip("Store the key in the system keyring (never in a file)")
        keyrow.addWidget(self.key_edit, 1)
        keyrow.addWidget(self.save_key_btn)
        form.addRow("API key", keyrow)
        modelrow = QHBoxLayout()
        self.model_combo = QComboBox(self)
        self.model_combo.setEditable(True)
        self.model_combo.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        self.refresh_models_btn = QPushButton("Refresh", self)
        self.refresh_models_btn.setToolTip("Fill the list from the server's /v1/models (active models)")
        modelrow.addWidget(self.model_combo, 1)
        modelrow.addWidget(self.refresh_models_btn)
        form.addRow("Model", modelrow)
        self.max_tokens = QSpinBox(self)
        self.max_tokens.setRange(1, 128_000)
        self.max_tokens.setSuffix(" tokens")
        form.addRow("Max tokens", self.max_tokens)
        self.temperature = QDoubleSpinBox(self)
        self.temperature.setRange(-0.1, 1.0)
        self.temperature.setSingleStep(0.1)
        self.temperature.setDecimals(2)
        self.temperature.setSpecialValueText("server default")
        form.addRow("Temperature", self.temperature)
        self.max_turns = QSpinBox(self)
        self.max_turns.setRange(1, 50)
        form.addRow("Turn limit", self.max_turns)
        self.propose_check = QCheckBox(
            "Let the model draft skills as Workshop proposals (never applied without your review)", self
        )
        form.addRow("Drafts", self.propose_check)
        self.settings_box.setVisible(False)
        root.addWidget(self.settings_box)

        self.key_banner = QLabel(self)
        self.key_banner.setWordWrap(True)
        self.key_banner.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.key_banner.setStyleSheet("QLabel { background: #fff4ce; color: #3b2f00; padding: 6px; }")
        root.addWidget(self.key_banner)

        split = QSplitter(Qt.Orientation.Horizontal, self)
        left = QWidget(split)
        lv = QVBoxLayout(left)
        lv.setContentsMargins(0, 0, 0, 0)
        self.scroll = QScrollArea(left)
        self.scroll.setWidgetResizable(True)
        self.transcript = QWidget()
        self.transcript_layout = QVBoxLayout(self.transcript)
        self.transcript_layout.addStretch(1)
        self.scroll.setWidget(self.transcript)
        lv.addWidget(self.scroll, 1)
        self.input = QPlainTextEdit(left)
        self.input.setPlaceholderText("Ask something a skill should handle…")
        self.input.setMaximumHeight(80)
        lv.addWidget(self.input)
        btns = QHBoxLayout()
        self.send_btn = QPushButton("Send", left)
        self.stop_btn = QPushButton("Stop", left)
        self.stop_btn.setEnabled(False)
        self.new_btn = QPushButton("New chat", left)
        self.copy_btn = QPushButton("Copy as JSON", left)
        for b in (self.send_btn, self.stop_btn, self.new_btn, self.copy_btn):
            btns.addWidget(b)
        lv.addLayout(btns)

        right = QWidget(split)
        rv = QVBoxLayout(right)
        rv.setContentsMargins(0, 0, 0, 0)
        self.trace = QTreeWidget(right)
        self.trace.setHeaderLabels(["Trace", "Detail"])
        # both columns fit the pane: the event stays whole, the detail wraps (issue 13)
        self.trace.setWordWrap(True)
        self.trace.setUniformRowHeights(False)
        self.trace.header().setSectionResizeMode(0, QHeaderView.ResizeMode.ResizeToContents)
        self.trace.header().setSectionResizeMode(1, QHeaderView.ResizeMode.Stretch)
        self.trace.header().setMinimumSectionSize(60)
        self.trace_details = QPlainTextEdit(right)
        self.trace_details.setReadOnly(True)
        self.trace_details.setMaximumHeight(180)
        rv.addWidget(self.trace, 1)
        rv.addWidget(self.trace_details)
        split.addWidget(left)
        split.addWidget(right)
        split.setStretchFactor(0, 3)
        split.setStretchFactor(1, 2)
        root.addWidget(split, 1)
        self.trace_details.setPlaceholderText("Select a trace row to see its JSON here.")
        self.empty_states = [
            EmptyState(
                self.scroll,
                "No conversation yet. Ask something one of the listed skills should "
                "handle: the transcript shows the model's answer and every skill it loads.",
                [
                    ("Type a message", lambda: self.input.setFocus()),
                    ("Connection…", lambda: self.settings_toggle.setChecked(True)),
                ],
                is_empty=lambda: self.transcript_layout.count() <= 1,
            ),
            EmptyState(
                self.trace,
                "Each request, skill load and tool call of a turn is traced here.",
                [("Connection…", lambda: self.settings_toggle.setChecked(True))],
            ),
        ]

        self.settings_toggle.toggled.connect(self._toggle_settings)
        self.send_btn.clicked.connect(self.send)
        self.stop_btn.clicked.connect(self.stop)
        self.new_btn.clicked.connect(self.new_chat)
        self.copy_btn.clicked.connect(self.copy_json)
        self.save_key_btn.clicked.connect(self.save_key)
        self.refresh_models_btn.clicked.connect(self.refresh_models)
        self.key_edit.textChanged.connect(self._update_key_banner)
        self.preset_combo.activated.connect(self.apply_preset)
        self.trace.currentItemChanged.connect(self._show_trace_item)

    def _toggle_settings(self, on: bool) -> None:
        self.settings_toggle.setArrowType(Qt.ArrowType.DownArrow if on else Qt.ArrowType.RightArrow)
        self.settings_box.setVisible(on)

    def _load_settings_into_form(self) -> None:
        s = self.settings
        self.base_url.setText(s.base_url)
        self.model_combo.setEditText(s.model)
        self.max_tokens.setValue(s.max_tokens)
        self.temperature.setValue(-0.1 if s.temperature is None else s.temperature)
        self.max_turns.setValue(s.max_turns)

    def current_settings(self) -> ChatSettings:
        """The settings as the form shows them now (non-secret)."""
        s = ChatSettings(**self.settings.to_json())
        s.base_url = self.base_url.text().strip()
        s.model = self.model_combo.currentText().strip() or chat_settings.DEFAULT_MODEL
        s.max_tokens = self.max_tokens.value()
        t = self.temperature.value()
        s.temperature = None if t < 0 else round(t, 2)
        s.max_turns = self.max_turns.value()
        return s

    def apply_preset(self, index: int) -> None:
        """Use a server preset: set the base URL; a local server gets the session-only dummy
        key "local" when no key is set (such servers accept any key; nothing is stored)."""
        url = self.preset_combo.itemData(index)
        if url is None:
            return
        self.base_url.setText(url)
        if url and not self.api_key()[0]:
            self._typed_key = "local"
        if url:
            self.status.setText(
                "Local server: a small local model's triggering says little about "
                "Claude's; use it to check the loop, then measure with the real API."
            )
        self._update_key_banner()

    # -- the key ---------------------------------------------------------------------------
    def api_key(self) -> tuple[str | None, str]:
        typed = self.key_edit.text().strip() or self._typed_key
        return chat_settings.get_api_key(typed, self.environ)

    def _update_key_banner(self) -> None:
        key, source = self.api_key()
        if key:
            self.key_banner.setVisible(False)
            where = {
                "typed": "typed here",
                "env": "from ANTHROPIC_API_KEY",
                "keyring": "from the system keyring",
            }[source]
            self.key_edit.setPlaceholderText(f"key {where}" if source != "typed" else "")
        else:
            self.key_banner.setText(NO_KEY_GUI_HINT)
            self.key_banner.setVisible(True)
            self.key_edit.setPlaceholderText("sk-ant-… (or any key for a local server)")

    def save_key(self) -> bool:
        """Store the typed key in the keyring. Returns True when stored there."""
        k = self.key_edit.text().strip()
        if not k:
            return False
        self._typed_key = k
        ok = chat_settings.store_api_key(k)
        self.status.setText(
            "Key saved in the system keyring."
            if ok
            else "No system keyring available: the key is kept for this session only."
        )
        self._update_key_banner()
        return ok

    # -- models ----------------------------------------------------------------------------
    def refresh_models(self) -> None:
        """Fill the model combo from the server in the background (free text stays possible)."""
        from workbench.core.chat.backend import list_models

        s = self.current_settings()
        key, _ = self.api_key()
        self.status.setText("Loading models…")

        def work() -> None:
            try:
                res: Any = list_models(s, key)
            except ChatError as exc:
                res = exc
            self._bridge.models.emit(res)

        threading.Thread(target=work, daemon=True, name="chat-models").start()

    @Slot(object)
    def _on_models(self, res: Any) -> None:
        if isinstance(res, ChatError):
            self.status.setText(f"Model list unavailable ({res.message}); type a model id.")
            return
        current = self.model_combo.currentText()
        self.model_combo.clear()
        for m in res:
            self.model_combo.addItem(m["id"])
            self.model_combo.setItemData(
                self.model_combo.count() - 1, m.get("display_name"), Qt.ItemDataRole.ToolTipRole
            )
        self.model_combo.setEditText(current if current else (res[0]["id"] if res else ""))
        self.status.setText(f"{len(res)} active models from the server.")

    # -- turns -----------------------------------------------------------------------------
    def _provider(self) -> tuple[Any, int | None]:
        got = self.catalog_provider()
        if isinstance(got, tuple):
            return got[0], got[1]
        return got, None

    def is_busy(self) -> bool:
        """True while a turn runs: from ``send()`` until its ``turn_finished`` (not until the
        worker thread has exited, which is a moment later: a slot connected to
        ``turn_finished`` may call ``send()`` right away)."""
        return self._busy

    def send(self, text: str | None = None) -> bool:
        """Send ``text`` (default: the input box). Returns False when nothing was started."""
        if self.is_busy():
            return False
        msg = (text if isinstance(text, str) else self.input.toPlainText()).strip()
        if not msg:
            return False
        key, _ = self.api_key()
        if not key:
            self._update_key_banner()
            self.status.setText("No API key: see the message above.")
            return False
        s = self.current_settings()
        try:
            chat_settings.save_settings(s)
        except OSError as exc:
            self.status.setText(f"Settings not saved: {exc}")
        catalog, ctx = self._provider()
        propose = self.propose_check.isChecked()
        skey = (id(catalog), ctx, json.dumps(s.to_json(), sort_keys=True), key, propose)
        fresh = self._session_key is None or skey != self._session_key
        if fresh and self._session_key is not None:
            self._add_note("(new conversation: the catalog, context size or settings changed)")
        if fresh:
            self._session = None
            self._turns = 0
        self._session_key = skey
        self.settings = s
        self.input.clear()
        self._add_bubble("You", msg)
        self._assistant = None
        self._tool_rows = {}
        self._turns += 1
        self._turn_item = QTreeWidgetItem(self.trace, [f"Turn {self._turns}", msg[:80]])
        self._turn_item.setExpanded(True)
        self._cancel = threading.Event()
        self._gen += 1
        gen, cancel = self._gen, self._cancel
        self.send_btn.setEnabled(False)
        self.stop_btn.setEnabled(True)
        self.status.setText("Waiting for the model…")

        def work() -> None:
            # built here, not on the GUI thread: importing the SDK takes seconds
            try:
                if self._session is None:
                    from workbench.core.chat.engine import ChatSession

                    extra = [self._propose_tool(catalog)] if propose else []
                    self._session = ChatSession(
                        catalog,
                        settings=s,
                        api_key=key,
                        context_tokens=ctx,
                        shell_approver=self._approve_from_worker,
                        extra_tools=extra,
                    )
                res = self._session.send(
                    msg, cancel=cancel, on_event=lambda ev: self._bridge.carried.emit(gen, ev)
                )
            except Exception as exc:  # noqa: BLE001 - setup failed: end the turn, never hang "busy"
                from workbench.core.chat.engine import TurnResult

                err = ChatError("other", f"{type(exc).__name__}: {exc}")
                self._session = None
                self._bridge.carried.emit(gen, err.to_json())
                res = TurnResult(
                    client=getattr(catalog, "client", "?"), model=s.model, stop_reason="error", error=err
                )
            self._bridge.finished.emit(gen, res)

        self._busy = True
        self._worker = threading.Thread(target=work, daemon=True, name="chat-turn")
        self._worker.start()
        return True

    def _propose_tool(self, catalog: Any) -> Any:
        """The ``propose_skill`` tool for a conversation over ``catalog`` (worker thread)."""
        from workbench.core.chat.propose import make_propose_tool

        factory = self.store_factory
        if factory is None:

            def factory() -> Any:
                from workbench.core.workshop import WorkshopStore

                return WorkshopStore(catalog.env.workspace)

        return make_propose_tool(factory, catalog)

    def proposal_cards(self) -> list[ProposalCard]:
        """The proposal cards of the transcript, in order."""
        return [w for w in self._transcript_widgets() if isinstance(w, ProposalCard)]

    def _transcript_widgets(self) -> list[QWidget | None]:
        """The widget of every transcript layout item, in order (None for the stretch)."""
        out: list[QWidget | None] = []
        for i in range(self.transcript_layout.count()):
            item = self.transcript_layout.itemAt(i)
            out.append(item.widget() if item is not None else None)
        return out

    def stop(self) -> None:
        """Cancel the running turn (the partial transcript is kept)."""
        if self._cancel is not None:
            self._cancel.set()
        session = self._session
        if session is not None:
            session.cancel()
        self.status.setText("Stopping…")

    def new_chat(self) -> None:
        """Forget the conversation (the next Send starts a new one with a fresh catalog)."""
        if self.is_busy():
            self.stop()
        self._session = None
        self._session_key = None
        self._turns = 0
        self.results.clear()
        self.proposals.clear()
        self.trace.clear()
        self.trace_details.clear()
        while self.transcript_layout.count() > 1:
            item = self.transcript_layout.takeAt(0)
            w = item.widget() if item is not None else None
            if w:
                w.deleteLater()
        self.empty_states[0].refresh()
        self.status.setText("New conversation.")

    def trace_json(self) -> dict[str, Any]:
        """``{"turns": [TurnResult.to_json(), ...]}`` for this conversation (no key in it)."""
        return {"turns": [r.to_json() for r in self.results]}

    def copy_json(self) -> str:
        text = json.dumps(self.trace_json(), indent=2, ensure_ascii=False)
        QGuiApplication.clipboard().setText(text)
        self.status.setText("Trace copied as JSON.")
        return text

    # -- transcript ------------------------------------------------------------------------
    def _insert(self, w: QWidget) -> None:
        self.transcript_layout.insertWidget(self.transcript_layout.count() - 1, w)
        self.empty_states[0].refresh()
        # A layout shows a child added to a visible parent only later (a queued show): show it
        # now, so the transcript is complete when turn_finished is handled (a click on a fresh
        # tool-call row used to find its details hidden, intermittently).
        if self.transcript.isVisible():
            w.show()
        bar = self.scroll.verticalScrollBar()
        bar.setValue(bar.maximum())

    def _add_bubble(self, who: str, text: str) -> QLabel:
        lab = QLabel(self.transcript)
        lab.setWordWrap(True)
        lab.setTextFormat(Qt.TextFormat.PlainText)
        lab.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        lab.setText(f"{who}: {text}")
        lab.setProperty("who", who)
        self._insert(lab)
        return lab

    def _add_note(self, text: str) -> None:
        lab = self._add_bubble("—", text)
        lab.setStyleSheet("color: gray;")

    def assistant_text(self) -> str:
        """All assistant text of the transcript (for tests and accessibility)."""
        out = []
        for w in self._transcript_widgets():
            if isinstance(w, QLabel) and w.property("who") == "Assistant":
                out.append(w.text()[len("Assistant: ") :])
        return "\n".join(out)

    def tool_rows(self) -> list[ToolCallRow]:
        return [w for w in self._transcript_widgets() if isinstance(w, ToolCallRow)]

    @Slot(int, object)
    def _on_event(self, gen: int, ev: dict) -> None:
        if gen != self._gen:
            return
        t = ev["type"]
        if t == "text_delta":
            if self._assistant is None:
                self._assistant = self._add_bubble("Assistant", "")
            self._assistant.setText(self._assistant.text() + ev["text"])
            return
        if t == "tool_use_start":
            self._assistant = None  # text after a tool call starts a new bubble
            return
        if t == "request":
            return
        if t == "tool_use":
            inp = json.dumps(ev.get("input"), ensure_ascii=False)
            where = f" → {ev['skill']}" if ev.get("skill") else ""
            cut = "  [truncated: not run]" if ev.get("truncated") else ""
            shown = inp if len(inp) <= 1000 else inp[:1000] + "…"  # the row elides it to its width
            row = ToolCallRow(
                f"{ev['name']} {shown}{where}{cut}",
                f"input: {inp}\nresolved: {ev.get('resolved')}",
                self.transcript,
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
                self.transcript,
            )
            row.setProperty("fork", True)
            self._insert(row)
            self._assistant = None
        elif t == "tool_result" and ev["id"] in self._tool_rows:
            self._tool_rows[ev["id"]].append(
                f"result ({ev['chars']} chars{', error' if ev['is_error'] else ''}):\n{ev['preview']}"
            )
        elif t == "proposal":
            card = ProposalCard(ev, self.transcript)
            card.button.clicked.connect(lambda _=False, pid=card.proposal_id: self.review_requested.emit(pid))
            self._insert(card)
            self._assistant = None
            self.proposals.append(card.proposal_id)
            self.status.setText(
                f"Proposal {card.proposal_id} stored as {ev.get('state')}: review it in the Workshop."
            )
            self._add_trace(ev)
            self.proposal_created.emit(card.proposal_id)
            return
        elif t == "error":
            self._add_bubble(
                "Error",
                ev["message"]
                + (f"\n{ev['hint']}" if ev.get("hint") else "")
                + (f"\nrequest id: {ev['request_id']}" if ev.get("request_id") else ""),
            )
        elif t == "cancelled":
            self._add_note("(stopped)")
        self._add_trace(ev)

    def _add_trace(self, ev: dict) -> None:
        if self._turn_item is None:
            return
        t = ev["type"]
        if t == "listing":
            detail = (
                f"{len(ev['skills'])} skills, {ev['chars']} chars, ≈{ev['tokens_est']} tokens (est.) "
                f"— {ev['placement_note']}" + (" [stub]" if ev.get("stub") else "")
            )
        elif t == "tool_use":
            detail = f"{ev['name']} → {ev.get('skill') or ev.get('resolved')}" + (
                " [truncated]" if ev.get("truncated") else ""
            )
        elif t == "skill_loaded":
            detail = f"{ev['name']} via {ev['via']}: {ev['body_chars']} chars (≈{ev['tokens_est']} tokens)"
        elif t == "tool_result":
            detail = f"{ev['chars']} chars" + (" (error)" if ev["is_error"] else "")
        elif t == "text":
            detail = ev["text"][:120]
        elif t == "usage":
            detail = (
                f"in {ev['input_tokens']} · out {ev['output_tokens']} · cache read "
                f"{ev['cache_read_input_tokens']} · write {ev['cache_creation_input_tokens']} · "
                f"{ev['seconds']}s · {ev['stop_reason']} · {ev['request_id']}"
            )
        elif t == "proposal":
            detail = (
                f"{ev.get('id')} ({ev.get('state')}): {ev.get('kind')} {ev.get('name')} → {ev.get('target')}"
                + (f" · {ev['blocking']} blocking" if ev.get("blocking") else "")
            )
        elif t == "error":
            detail = f"{ev['kind']}: {ev['message']}"
        elif t == "substitution":
            detail = substitution_summary(ev)
        elif t == "fork":
            detail = (
                f"{ev.get('skill')} as a subagent: {len(ev.get('events') or [])} events, "
                f"{len(ev.get('text') or '')} chars back"
                + (f", error: {ev['error']}" if ev.get("error") else "")
            )
        else:
            detail = ev.get("message", "")
        item = QTreeWidgetItem(self._turn_item, [t, detail])
        item.setData(0, Qt.ItemDataRole.UserRole, ev)
        if t == "fork":  # the sub-transcript as child rows
            for sub in ev.get("events") or []:
                line = _fork_line(sub)
                if line:
                    child = QTreeWidgetItem(item, [sub.get("type", ""), line.splitlines()[0]])
                    child.setData(0, Qt.ItemDataRole.UserRole, sub)
        if t == "usage":
            item.setToolTip(1, ev.get("cache_note", ""))

    def _show_trace_item(self, cur: QTreeWidgetItem | None, _prev: Any = None) -> None:
        ev = cur.data(0, Qt.ItemDataRole.UserRole) if cur is not None else None
        self.trace_details.setPlainText(json.dumps(ev, indent=2, ensure_ascii=False) if ev else "")

    @Slot(int, object)
    def _on_finished(self, gen: int, res: Any) -> None:
        if gen != self._gen:
            return
        self._busy = False  # ready before turn_finished goes out (see is_busy)
        self.results.append(res)
        self.send_btn.setEnabled(True)
        self.stop_btn.setEnabled(False)
        u = res.usage
        self.status.setText(
            f"{res.stop_reason} · in {u['input_tokens']} · out {u['output_tokens']} · "
            f"cache read {u['cache_read_input_tokens']}"
            + (f" · loaded: {', '.join(res.triggered)}" if res.triggered else "")
        )
        if res.error is not None and res.error.kind in ("no-key", "auth"):
            self.settings_toggle.setChecked(True)
            self.key_edit.setFocus()
        if res.triggered:
            self.skills_loaded.emit(list(res.triggered))
        self.turn_finished.emit(res)

    # -- shell approval (worker thread -> GUI thread -> worker) -------------------------------
    def _approve_from_worker(self, command: str) -> bool:
        holder: dict[str, Any] = {"ok": False, "done": threading.Event()}
        self._bridge.approval.emit(command, holder)
        cancel = self._cancel
        while not holder["done"].wait(0.1):
            if cancel is not None and cancel.is_set():
                return False
        return bool(holder["ok"])

    @Slot(str, object)
    def _on_approval(self, command: str, holder: dict) -> None:
        try:
            holder["ok"] = bool(self.approve_shell(command))
        finally:
            holder["done"].set()

    def _ask_shell(self, command: str) -> bool:
        r = QMessageBox.question(
            self,
            "Run a command?",
            f"The model asks to run:\n\n{command}\n\nRun it in the workspace?",
            QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No,
            QMessageBox.StandardButton.No,
        )
        return r == QMessageBox.StandardButton.Yes

    def shutdown(self, timeout: float = 5.0) -> None:
        """Stop a running turn and wait for the worker (call before closing the window)."""
        worker = self._worker
        if worker is not None and worker.is_alive():
            self.stop()
            worker.join(timeout)
