"""The Chat pane's connection form: server preset, base URL, API key, model, limits, drafts.

``ConnectionBox`` is the form (a QFrame the pane shows under its "Connection" toggle) plus the
"what to set" banner (``key_banner``, placed by the pane). The key goes through the
``Credentials`` service (``app/credentials.py``): a typed key is the session key (memory only),
"Save key" stores it in the system keyring or says why it could not. The model list is fetched in
the background through the app's runner (``workers.run_in_background``).

Signals:
    message(str): a sentence for the pane's status line (model list loaded, key saved, ...).
"""

from __future__ import annotations

import logging
from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDoubleSpinBox,
    QFormLayout,
    QFrame,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QSizePolicy,
    QSpinBox,
    QWidget,
)

from workbench.app import workers
from workbench.app.credentials import Credentials
from workbench.core.chat import settings as chat_settings
from workbench.core.chat.settings import ChatSettings

log = logging.getLogger(__name__)

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

_KEY_SOURCES = {"typed": "typed here", "env": "from ANTHROPIC_API_KEY", "keyring": "from the system keyring"}


class ConnectionBox(QFrame):
    """The connection form (module docstring). ``banner_parent`` owns ``key_banner``."""

    message = Signal(str)

    def __init__(
        self, credentials: Credentials, banner_parent: QWidget, parent: QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self.credentials = credentials
        self._models_job: workers.Job | None = None
        form = QFormLayout(self)
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

        self.key_banner = QLabel(banner_parent)
        self.key_banner.setWordWrap(True)
        self.key_banner.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.key_banner.setStyleSheet("QLabel { background: #fff4ce; color: #3b2f00; padding: 6px; }")

        self.save_key_btn.clicked.connect(self.save_key)
        self.key_edit.textChanged.connect(self._key_typed)
        self.preset_combo.activated.connect(self.apply_preset)
        credentials.changed.connect(self.update_key_banner)

    # -- settings ----------------------------------------------------------------------------
    def load(self, s: ChatSettings) -> None:
        """Show the non-secret settings ``s`` in the form."""
        self.base_url.setText(s.base_url)
        self.model_combo.setEditText(s.model)
        self.max_tokens.setValue(s.max_tokens)
        self.temperature.setValue(-0.1 if s.temperature is None else s.temperature)
        self.max_turns.setValue(s.max_turns)

    def settings(self, base: ChatSettings) -> ChatSettings:
        """``base`` with the form's values (a copy; non-secret)."""
        s = ChatSettings(**base.to_json())
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
        if url and not self.credentials.key():
            self.credentials.set_session_key("local")
        if url:
            self.message.emit(
                "Local server: a small local model's triggering says little about "
                "Claude's; use it to check the loop, then measure with the real API."
            )
        self.update_key_banner()

    # -- the key -----------------------------------------------------------------------------
    def _key_typed(self, text: str) -> None:
        if text.strip() or self.credentials.session_key != "local":
            self.credentials.set_session_key(text)
        self.update_key_banner()

    def update_key_banner(self) -> None:
        """Show the no-key banner, or say in the key field's placeholder where the key is from."""
        key, source = self.credentials.api_key()
        if key:
            self.key_banner.setVisible(False)
            self.key_edit.setPlaceholderText(f"key {_KEY_SOURCES[source]}" if source != "typed" else "")
        else:
            self.key_banner.setText(NO_KEY_GUI_HINT)
            self.key_banner.setVisible(True)
            self.key_edit.setPlaceholderText("sk-ant-… (or any key for a local server)")

    def save_key(self) -> bool:
        """Store the typed key in the keyring. Returns True when stored there; else the status
        line says why (the key stays in memory for this session)."""
        k = self.key_edit.text().strip()
        if not k:
            return False
        self.credentials.set_session_key(k)
        outcome = self.credentials.save_to_keyring(k)
        self.message.emit(
            "Key saved in the system keyring."
            if outcome.ok
            else f"Key not saved ({outcome.reason}): it is kept for this session only."
        )
        self.update_key_banner()
        return outcome.ok

    # -- models ------------------------------------------------------------------------------
    def refresh_models(self, base: ChatSettings) -> None:
        """Fill the model combo from the server in the background (free text stays possible);
        ``base`` = the settings the form's values complete (the pane's)."""
        from workbench.core.chat.backend import list_models

        s = self.settings(base)
        self.message.emit("Loading models…")
        self._models_job = workers.run_in_background(
            list_models,
            s,
            self.credentials.key(),
            connect={"returned": self._on_models, "errored": self._on_models_failed},
        )

    def _on_models_failed(self, _token: int, exc: BaseException) -> None:
        log.info("model list unavailable", exc_info=exc)
        why = getattr(exc, "message", None) or workers.describe(exc)
        self.message.emit(f"Model list unavailable ({why}); type a model id.")

    def _on_models(self, _token: int, res: Any) -> None:
        current = self.model_combo.currentText()
        self.model_combo.clear()
        for m in res:
            self.model_combo.addItem(m["id"])
            self.model_combo.setItemData(
                self.model_combo.count() - 1, m.get("display_name"), Qt.ItemDataRole.ToolTipRole
            )
        self.model_combo.setEditText(current if current else (res[0]["id"] if res else ""))
        self.message.emit(f"{len(res)} active models from the server.")
