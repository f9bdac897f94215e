"""The credentials service: the API key of this session, shared by every pane that calls the API.

One ``Credentials`` object is created with the application context (``AppContext.credentials``)
and handed to the panes that need a key (Chat, Evals): panes talk to it, never to each other's
fields (issue 15 item 6). It holds

* the **session key**: a key typed in a pane (or the dummy "local" key of a local server preset),
  kept in memory only — never logged, never written to a settings file, not in ``repr``;
* access to the **system keyring** (``save_to_keyring`` / ``forget_keyring``), which return a
  ``KeyringOutcome`` with the reason when nothing was stored or removed.

``api_key()`` resolves the key the way the chat loop does (``core.chat.settings.get_api_key``):
the session key, then ``ANTHROPIC_API_KEY``, then the keyring.

Signals:
    changed(): the session key changed, or the keyring was written (the resolved key may differ).
"""

from __future__ import annotations

import logging
import os
from collections.abc import Mapping
from typing import Any, NamedTuple

from PySide6.QtCore import QObject, Signal

from workbench.core.chat import settings as chat_settings

log = logging.getLogger(__name__)


class KeyringOutcome(NamedTuple):
    """What a keyring write or removal did: ``ok`` True when it happened; else ``reason`` says
    why not in a sentence fit for a status line (it never contains the key)."""

    ok: bool
    reason: str = ""


def _keyring_module() -> tuple[Any, str]:
    """``(keyring module, "")`` when a usable system keyring exists, else ``(None, reason)``."""
    if os.environ.get("WORKBENCH_NO_KEYRING"):
        return None, "WORKBENCH_NO_KEYRING is set"
    if not chat_settings.keyring_available():
        return None, (
            "no usable system keyring (the keyring package is missing, or it found no backend "
            "such as the Secret Service, macOS Keychain or Windows Credential Locker)"
        )
    import keyring

    return keyring, ""


class Credentials(QObject):
    """The session's API key and keyring access (module docstring).

    Args:
        environ: the environment read for ``ANTHROPIC_API_KEY`` (default ``os.environ``; tests
            pass a dict).
    """

    changed = Signal()

    def __init__(self, environ: Mapping[str, str] | None = None, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.environ = environ
        self._session_key: str | None = None

    def __repr__(self) -> str:  # never the key
        return f"<Credentials session_key={'set' if self._session_key else 'unset'}>"

    # -- the session key -------------------------------------------------------------------
    @property
    def session_key(self) -> str | None:
        """The key typed this session (None when none); memory only."""
        return self._session_key

    def set_session_key(self, key: str | None) -> None:
        """Use ``key`` (stripped; "" or None = none) for this session; emits ``changed``."""
        key = (key or "").strip() or None
        if key != self._session_key:
            self._session_key = key
            self.changed.emit()

    # -- resolving -------------------------------------------------------------------------
    def api_key(self) -> tuple[str | None, str]:
        """``(key, source)``, source ∈ "typed" | "env" | "keyring" | "none" (key None)."""
        return chat_settings.get_api_key(self._session_key, self.environ)

    def key(self) -> str | None:
        """The key to use, or None (the pane then shows ``NO_KEY_HINT``)."""
        return self.api_key()[0]

    # -- the keyring -----------------------------------------------------------------------
    def save_to_keyring(self, key: str | None = None) -> KeyringOutcome:
        """Store ``key`` (default: the session key) in the system keyring.

        Returns ``KeyringOutcome(True)`` when stored, else ``(False, reason)``: no key, no usable
        keyring, or the keyring refused (its error, with the key redacted). Never raises.
        """
        key = (key or self._session_key or "").strip()
        if not key:
            return KeyringOutcome(False, "no key to save")
        kr, reason = _keyring_module()
        if kr is None:
            return KeyringOutcome(False, reason)
        try:
            kr.set_password(chat_settings.KEYRING_SERVICE, chat_settings.KEYRING_USER, key)
        except Exception as exc:  # noqa: BLE001 - any backend error becomes the reason
            why = chat_settings.redact(f"{type(exc).__name__}: {exc}", key)
            log.warning("keyring write failed: %s", why)
            return KeyringOutcome(False, f"the system keyring refused the key ({why})")
        self.changed.emit()
        return KeyringOutcome(True)

    def forget_keyring(self) -> KeyringOutcome:
        """Remove the stored key from the system keyring; ``(False, reason)`` when nothing was."""
        kr, reason = _keyring_module()
        if kr is None:
            return KeyringOutcome(False, reason)
        try:
            kr.delete_password(chat_settings.KEYRING_SERVICE, chat_settings.KEYRING_USER)
        except Exception as exc:  # noqa: BLE001 - e.g. PasswordDeleteError: nothing stored
            log.info("keyring delete failed: %s: %s", type(exc).__name__, exc)
            return KeyringOutcome(False, f"nothing removed from the system keyring ({type(exc).__name__})")
        self.changed.emit()
        return KeyringOutcome(True)
