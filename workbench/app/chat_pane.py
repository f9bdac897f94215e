"""The chat pane: run the skill-disclosure loop against a Messages API server and trace it.

Host it anywhere::

    pane = ChatPane(lambda: (current_catalog, context_tokens))
    pane.skills_loaded.connect(listing_pane.mark_loaded)   # list[str], in load order

Parts (``workbench/app/chat/``): the connection form (``connection.ConnectionBox``: base URL, API
key through the ``Credentials`` service, model combo filled from the server's ``models.list()``
with free text as fallback, max tokens, temperature, turn limit) and its "what to set" banner when
there is no key; the transcript (``transcript.Transcript``: streaming assistant text; each tool
call a collapsible row) and the trace tree beside it (``transcript.TraceView``: per turn: listing,
tool_use, skill_loaded, tool_result, usage with cache note and request id; the selected event's
JSON below); Send / Stop / New chat / Copy as JSON here.

Threads: each turn runs ``ChatSession.send`` through the app's runner (``workers``): events come
back as the job's ``yielded`` objects, the ``TurnResult`` as ``returned`` (queued to the GUI
thread). Stop cancels the job (its cancel event is the turn's) and closes the stream. A shell
command the model asks for is shown to the user (``approve_shell``, on the GUI thread) while the
worker waits; answering no (the default when the pane is closed) runs nothing.

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
typed in the field is the session key of the ``Credentials`` service (shared with the Evals pane);
"Save key" stores it in the keyring (or says why not: the key then stays in memory only). The key
is never written to a file.
"""

from __future__ import annotations

import json
import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QSplitter,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from workbench.app import workers
from workbench.app.chat.connection import ConnectionBox
from workbench.app.chat.transcript import TraceView, Transcript
from workbench.app.chat.widgets import ProposalCard, ToolCallRow
from workbench.app.credentials import Credentials
from workbench.app.dialogs import ask_yes_no
from workbench.app.emptystate import EmptyState
from workbench.core.chat import settings as chat_settings
from workbench.core.chat.errors import ChatError
from workbench.core.chat.settings import ChatSettings

if TYPE_CHECKING:  # imported lazily at run time: the SDK import takes seconds
    from workbench.core.chat.engine import ChatSession

log = logging.getLogger(__name__)

CatalogProvider = Callable[[], Any]


@dataclass
class ShellRequest:
    """A shell command the model asks for, carried from the turn's worker to the GUI thread;
    ``ok`` is the answer, ``done`` is set once it is given."""

    command: str
    ok: bool = False
    done: threading.Event = field(default_factory=threading.Event)


class ChatPane(QWidget):
    """The chat pane (module docstring).

    Args:
        catalog_provider: ``() -> (Catalog, context_tokens | None)`` (or just a Catalog).
        settings: initial ``ChatSettings`` (default: ``load_settings()``).
        environ: environment mapping for the key and base URL (default ``os.environ``); used
            for a pane-own ``Credentials`` when ``credentials`` is None.
        allow_propose: offer ``propose_skill`` (default False; the "Drafts" checkbox).
        store_factory: ``() -> WorkshopStore`` used by ``propose_skill`` (called on the worker
            thread at the first proposal of a conversation). Default: ``WorkshopStore`` of the
            conversation's catalog workspace (the same store folder a ``WorkshopPane`` on that
            workspace opens).
        credentials: the app's ``Credentials`` service (``AppContext.credentials``); a key typed
            here is its session key, so the Evals pane uses it too.

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
    scroll: Transcript  # type: ignore[assignment]  # deliberately replaces the Qt method

    def __init__(
        self,
        catalog_provider: CatalogProvider,
        parent: QWidget | None = None,
        *,
        settings: ChatSettings | None = None,
        environ: dict | None = None,
        allow_propose: bool = False,
        store_factory: Callable[[], Any] | None = None,
        credentials: Credentials | None = None,
    ) -> None:
        super().__init__(parent)
        self.catalog_provider = catalog_provider
        self.store_factory = store_factory
        self.credentials = credentials if credentials is not None else Credentials(environ, self)
        self.proposals: list[str] = []
        self.settings = settings or chat_settings.load_settings()
        self.environ = environ
        self.approve_shell: Callable[[str], bool] = self._ask_shell
        self.results: list[Any] = []
        self._session: ChatSession | None = None
        self._session_key: tuple | None = None
        self._job: workers.Job | None = None
        self._busy = False
        self._turns = 0
        self._build()
        self.propose_check.setChecked(bool(allow_propose))
        self.connection.load(self.settings)
        self.connection.update_key_banner()

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

        self.connection = self.settings_box = ConnectionBox(self.credentials, self, self)
        c = self.connection
        # the form's fields, by the names the pane always had (tests and hosts use them)
        self.preset_combo, self.base_url, self.key_edit = c.preset_combo, c.base_url, c.key_edit
        self.save_key_btn, self.model_combo = c.save_key_btn, c.model_combo
        self.refresh_models_btn, self.max_tokens = c.refresh_models_btn, c.max_tokens
        self.temperature, self.max_turns, self.propose_check = c.temperature, c.max_turns, c.propose_check
        self.key_banner = c.key_banner
        c.setVisible(False)
        root.addWidget(c)
        root.addWidget(self.key_banner)

        split = QSplitter(Qt.Orientation.Horizontal, self)
        left = QWidget(split)
        lv = QVBoxLayout(left)
        lv.setContentsMargins(0, 0, 0, 0)
        self.scroll = Transcript(left)
        self.transcript, self.transcript_layout = self.scroll.content, self.scroll.content_layout
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

        self.trace_view = TraceView(split)
        self.trace, self.trace_details = self.trace_view.tree, self.trace_view.details
        split.addWidget(left)
        split.addWidget(self.trace_view)
        split.setStretchFactor(0, 3)
        split.setStretchFactor(1, 2)
        root.addWidget(split, 1)
        self.empty_states = [
            EmptyState(
                self.scroll,
                "No conversation yet. Ask something one of the listed skills should "
                "handle: the transcript shows the model's answer and every skill it loads.",
                [
                    ("Type a message", lambda: self.input.setFocus()),
                    ("Connection…", lambda: self.settings_toggle.setChecked(True)),
                ],
                is_empty=self.scroll.is_empty,
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
        self.refresh_models_btn.clicked.connect(lambda: self.refresh_models())
        c.message.connect(self.status.setText)
        self.scroll.review_requested.connect(self.review_requested)

    def _toggle_settings(self, on: bool) -> None:
        self.settings_toggle.setArrowType(Qt.ArrowType.DownArrow if on else Qt.ArrowType.RightArrow)
        self.settings_box.setVisible(on)

    def current_settings(self) -> ChatSettings:
        """The settings as the form shows them now (non-secret)."""
        return self.connection.settings(self.settings)

    def apply_preset(self, index: int) -> None:
        """Use the server preset ``index`` (``connection.SERVER_PRESETS``)."""
        self.connection.apply_preset(index)

    def api_key(self) -> tuple[str | None, str]:
        """``(key, source)`` from the credentials service (typed, env, keyring or none)."""
        return self.credentials.api_key()

    def save_key(self) -> bool:
        """Store the typed key in the keyring (True when stored; else the status says why)."""
        return self.connection.save_key()

    def refresh_models(self) -> None:
        """Fill the model combo from the server in the background (free text stays possible)."""
        self.connection.refresh_models(self.settings)

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
            self.connection.update_key_banner()
            self.status.setText("No API key: see the message above.")
            return False
        s = self.current_settings()
        try:
            chat_settings.save_settings(s)
        except OSError as exc:
            log.warning("chat settings not saved", exc_info=exc)
            self.status.setText(f"Settings not saved: {exc}")
        catalog, ctx = self._provider()
        propose = self.propose_check.isChecked()
        skey = (id(catalog), ctx, json.dumps(s.to_json(), sort_keys=True), key, propose)
        fresh = self._session_key is None or skey != self._session_key
        if fresh and self._session_key is not None:
            self.scroll.add_note("(new conversation: the catalog, context size or settings changed)")
        if fresh:
            self._drop_session()
            self._turns = 0
        self._session_key = skey
        self.settings = s
        self.input.clear()
        self._turns += 1
        self.scroll.start_turn(msg)
        self.empty_states[0].refresh()
        self.trace_view.start_turn(self._turns, msg)
        self.send_btn.setEnabled(False)
        self.stop_btn.setEnabled(True)
        self.status.setText("Waiting for the model…")
        self._busy = True
        self._job = workers.run_in_background(
            self._run_turn,
            msg,
            s,
            key,
            catalog,
            ctx,
            propose,
            yields=True,
            cancel_event=True,
            connect={"yielded": self._on_yielded, "returned": self._on_finished},
        )
        return True

    def _run_turn(
        self,
        msg: str,
        s: ChatSettings,
        key: str,
        catalog: Any,
        ctx: int | None,
        propose: bool,
        *,
        emit: Callable[[Any], None],
        cancel_event: threading.Event,
    ) -> Any:
        """One turn (worker thread): build the session if needed, send, return the TurnResult.

        A failure to set up (or inside the engine) ends the turn with an error result and an
        ``error`` event, never a pane stuck "busy"; it is logged with its traceback."""
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
                    shell_approver=lambda command: self._approve_from_worker(command, emit, cancel_event),
                    extra_tools=extra,
                )
            return self._session.send(msg, cancel=cancel_event, on_event=emit)
        except Exception as exc:  # noqa: BLE001 - shown as the turn's error, never hangs "busy"
            from workbench.core.chat.engine import TurnResult

            log.warning("chat turn failed", exc_info=exc)
            err = ChatError("other", chat_settings.redact(workers.describe(exc), key))
            self._drop_session()
            emit(err.to_json())
            return TurnResult(
                client=getattr(catalog, "client", "?"), model=s.model, stop_reason="error", error=err
            )

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
        return [w for w in self.scroll.widgets() if isinstance(w, ProposalCard)]

    def stop(self) -> None:
        """Cancel the running turn (the partial transcript is kept)."""
        if self._job is not None:
            self._job.cancel()
        session = self._session
        if session is not None:
            session.cancel()
        self.status.setText("Stopping…")

    def new_chat(self) -> None:
        """Forget the conversation (the next Send starts a new one with a fresh catalog)."""
        if self.is_busy():
            self.stop()
        self._drop_session()
        self._session_key = None
        self._turns = 0
        self.results.clear()
        self.proposals.clear()
        self.trace_view.clear()
        self.scroll.clear()
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
    def assistant_text(self) -> str:
        """All assistant text of the transcript (for tests and accessibility)."""
        return self.scroll.assistant_text()

    def tool_rows(self) -> list[ToolCallRow]:
        return [w for w in self.scroll.widgets() if isinstance(w, ToolCallRow)]

    def _on_yielded(self, token: int, obj: Any) -> None:
        if isinstance(obj, ShellRequest):
            self._on_approval(obj)
        elif self._job is not None and token == self._job.token:
            self._on_event(obj)

    def _on_event(self, ev: dict) -> None:
        t = ev["type"]
        if t == "proposal":
            card = self.scroll.add_proposal(ev)
            self.empty_states[0].refresh()
            self.proposals.append(card.proposal_id)
            self.status.setText(
                f"Proposal {card.proposal_id} stored as {ev.get('state')}: review it in the Workshop."
            )
            self.trace_view.add(ev)
            self.proposal_created.emit(card.proposal_id)
            return
        self.scroll.show_event(ev)
        self.empty_states[0].refresh()
        if t not in ("text_delta", "tool_use_start", "request"):
            self.trace_view.add(ev)

    def _on_finished(self, token: int, res: Any) -> None:
        if self._job is None or token != self._job.token:
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
    def _approve_from_worker(
        self, command: str, emit: Callable[[Any], None], cancel: threading.Event
    ) -> bool:
        req = ShellRequest(command)
        emit(req)
        while not req.done.wait(0.1):
            if cancel.is_set():
                return False
        return req.ok

    def _on_approval(self, req: ShellRequest) -> None:
        try:
            req.ok = bool(self.approve_shell(req.command))
        finally:
            req.done.set()

    def _ask_shell(self, command: str) -> bool:
        return ask_yes_no(
            self, "Run a command?", f"The model asks to run:\n\n{command}\n\nRun it in the workspace?"
        )

    def shutdown(self, timeout: float = 5.0) -> None:
        """Stop a running turn and wait for its worker (call before closing the window)."""
        job = self._job
        end = time.monotonic() + timeout
        if job is not None and not job.done.is_set():
            self.stop()
            job.wait(timeout)
        self._drop_session(max(0.0, end - time.monotonic()))

    def _drop_session(self, timeout: float = 0.0) -> None:
        """Forget the conversation's ``ChatSession`` and close it (its SDK client and request
        threads), waiting at most ``timeout`` seconds for them (0 on the GUI thread: the closed
        client's sockets end the threads soon after)."""
        session, self._session = self._session, None
        if session is not None:
            session.close(timeout)

    def maybe_close(self) -> bool:
        """The pane never vetoes closing (a running turn is stopped by ``shutdown``)."""
        return True
