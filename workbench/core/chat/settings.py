"""Connection settings for the chat loop, and the API key (kept out of every file we write).

Non-secret settings (``ChatSettings``) are stored as JSON in ``appdirs.config_dir()/chat.json``
(``save_settings`` / ``load_settings``; atomic writes). The API key is **never** a field of
``ChatSettings``: it comes from, in order,

1. a key typed in the GUI during this session (passed as ``typed``),
2. the ``ANTHROPIC_API_KEY`` environment variable,
3. the system keyring (service ``skill-workbench``, user ``anthropic-api-key``) when the optional
   ``keyring`` package and a usable backend are present.

Decision (spec silent): a typed key wins over the environment so that the GUI does what the user
just did; the environment wins over the keyring so that a shell can override a stored key.
``store_api_key`` puts a typed key into the keyring; when no keyring is available it returns
False and the GUI keeps the key in memory for the session only (it is never written to a file).

``base_url``: the ``base_url`` setting when set, else ``ANTHROPIC_BASE_URL``, else the SDK default
(https://api.anthropic.com). Paths are appended after it, without a trailing ``/v1``
(chat-loop.md section 1.2).
"""

from __future__ import annotations

import json
import logging
import os
from collections.abc import Mapping
from dataclasses import asdict, dataclass, fields
from pathlib import Path
from typing import Any

from workbench.core import appdirs
from workbench.core.safefile import atomic_write

log = logging.getLogger(__name__)

KEYRING_SERVICE = "skill-workbench"
KEYRING_USER = "anthropic-api-key"
SETTINGS_FILE = "chat.json"

#: Default model for chat (chat-loop.md section 1.8: "sonnet for chat"); editable, and replaced by
#: the server's list when ``models.list()`` answers.
DEFAULT_MODEL = "claude-sonnet-5-5"

#: Fields a caller may never put into settings JSON (defence in depth; see ``to_json``).
_SECRET_NAMES = ("api_key", "key", "token", "auth_token", "secret", "password")


@dataclass
class ChatSettings:
    """Non-secret connection and generation settings.

    Attributes:
        base_url: server root without ``/v1`` ("" = ``ANTHROPIC_BASE_URL`` or the SDK default).
        model: model id (free text; filled from ``models.list()`` in the GUI).
        max_tokens: output cap per request, in **tokens** (the API's ``max_tokens``).
        temperature: 0.0-1.0, or None to let the server choose.
        max_turns: model requests allowed per user message (tool loop limit).
        timeout: seconds per request (the SDK's read timeout).
        max_retries: SDK retries for 408/409/429/5xx/connection errors (SDK default 2).
        client: the simulated client id whose listing and load tool are used.
        cache: put ``cache_control`` breakpoints on the stable prefix (tools, system, listing).
    """

    base_url: str = ""
    model: str = DEFAULT_MODEL
    max_tokens: int = 4096
    temperature: float | None = None
    max_turns: int = 8
    timeout: float = 120.0
    max_retries: int = 2
    client: str = "claude-code"
    cache: bool = True

    def effective_base_url(self, environ: Mapping[str, str] | None = None) -> str | None:
        """The URL the SDK will use: the setting, else ``ANTHROPIC_BASE_URL``, else None (SDK default)."""
        env = os.environ if environ is None else environ
        url = (self.base_url or env.get("ANTHROPIC_BASE_URL") or "").strip()
        return url.rstrip("/") or None

    def to_json(self) -> dict[str, Any]:
        """The JSON written to ``chat.json`` (no secrets: ``ChatSettings`` has no key field)."""
        d = asdict(self)
        for k in list(d):
            if k in _SECRET_NAMES:  # pragma: no cover - guards future edits
                del d[k]
        return d

    @classmethod
    def from_json(cls, data: Any) -> ChatSettings:
        """Build from a dict; unknown keys ignored, wrong types fall back to defaults. Never raises."""
        s = cls()
        if not isinstance(data, dict):
            return s
        for f in fields(cls):
            if f.name not in data:
                continue
            v = data[f.name]
            default = getattr(s, f.name)
            if f.name == "temperature":
                if v is None or (isinstance(v, (int, float)) and not isinstance(v, bool) and 0 <= v <= 1):
                    s.temperature = None if v is None else float(v)
                continue
            if isinstance(default, bool):
                ok = isinstance(v, bool)
            elif isinstance(default, int):
                ok = isinstance(v, int) and not isinstance(v, bool) and v > 0
            elif isinstance(default, float):
                ok = isinstance(v, (int, float)) and not isinstance(v, bool) and v > 0
            else:
                ok = isinstance(v, str)
            if ok:
                setattr(s, f.name, type(default)(v) if isinstance(default, float) else v)
        return s


def settings_path() -> Path:
    return appdirs.config_dir() / SETTINGS_FILE


def load_settings(path: Path | None = None) -> ChatSettings:
    """Read ``chat.json`` (defaults when missing or unreadable). Never raises."""
    p = path or settings_path()
    try:
        return ChatSettings.from_json(json.loads(p.read_text(encoding="utf-8")))
    except (OSError, ValueError):
        return ChatSettings()


def save_settings(settings: ChatSettings, path: Path | None = None) -> Path:
    """Write ``chat.json`` atomically and return its path. Raises OSError on a failed write."""
    p = path or settings_path()
    data = json.dumps(settings.to_json(), indent=2, sort_keys=True) + "\n"
    atomic_write(p, data.encode("utf-8"))
    return p


# ---------------------------------------------------------------------------------------------
# the key


def _keyring() -> Any:
    """The ``keyring`` module when installed *and* backed by a real store, else None."""
    if os.environ.get("WORKBENCH_NO_KEYRING"):
        return None
    try:
        import keyring
        from keyring.backends import fail
    except ImportError:  # not installed
        return None
    except Exception as exc:  # noqa: BLE001 - a broken install: no keyring, with the reason logged
        _keyring_failed("importing keyring", exc)
        return None
    try:
        kr = keyring.get_keyring()
    except Exception as exc:  # noqa: BLE001 - no usable backend
        _keyring_failed("opening the keyring", exc)
        return None
    if (
        isinstance(kr, fail.Keyring)
        or type(kr).__name__ == "Keyring"
        and type(kr).__module__.endswith(("fail", "null"))
    ):
        return None
    return keyring


_last_error: list[str] = []


def _keyring_failed(what: str, exc: BaseException, key: str | None = None) -> None:
    """Log a keyring failure (warning; the key redacted from the message) and keep its reason for
    ``last_keyring_error``."""
    reason = f"{what} failed: {type(exc).__name__}: {redact(str(exc), key)}"
    log.warning("%s", reason)
    _last_error[:] = [reason]


def last_keyring_error() -> str | None:
    """Why the last keyring operation of this process failed (e.g. "storing the key failed:
    KeyringLocked: ..."; never holds the key), or None when none failed."""
    return _last_error[0] if _last_error else None


def keyring_available() -> bool:
    """True when a usable system keyring backend exists."""
    return _keyring() is not None


def keyring_key() -> str | None:
    kr = _keyring()
    if kr is None:
        return None
    try:
        return kr.get_password(KEYRING_SERVICE, KEYRING_USER) or None
    except Exception as exc:  # noqa: BLE001 - no stored key then; the reason is logged
        _keyring_failed("reading the key", exc)
        return None


def get_api_key(typed: str | None = None, environ: Mapping[str, str] | None = None) -> tuple[str | None, str]:
    """The API key to use and where it came from.

    Returns ``(key, source)`` with source ∈ "typed" | "env" | "keyring" | "none" (key None).
    """
    if typed and typed.strip():
        return typed.strip(), "typed"
    env = os.environ if environ is None else environ
    k = (env.get("ANTHROPIC_API_KEY") or "").strip()
    if k:
        return k, "env"
    k2 = keyring_key()
    if k2:
        return k2, "keyring"
    return None, "none"


def store_api_key(key: str) -> bool:
    """Put ``key`` into the system keyring. Returns False (nothing stored anywhere) when no
    keyring is available or it refused (``last_keyring_error`` says why); the caller then keeps
    the key in memory only."""
    kr = _keyring()
    if kr is None or not key.strip():
        return False
    try:
        kr.set_password(KEYRING_SERVICE, KEYRING_USER, key.strip())
        return True
    except Exception as exc:  # noqa: BLE001 - reported by the False return and last_keyring_error
        _keyring_failed("storing the key", exc, key.strip())
        return False


def delete_api_key() -> bool:
    """Remove the stored key from the keyring. Returns True when one was removed."""
    kr = _keyring()
    if kr is None:
        return False
    try:
        kr.delete_password(KEYRING_SERVICE, KEYRING_USER)
        return True
    except Exception as exc:  # noqa: BLE001 - nothing stored, or the keyring refused; logged
        if type(exc).__name__ == "PasswordDeleteError":  # nothing was stored: not a fault
            log.debug("no key in the keyring to delete")
        else:
            _keyring_failed("deleting the key", exc)
        return False


def redact(text: str, key: str | None) -> str:
    """``text`` with every occurrence of ``key`` replaced by ``[redacted]`` (for logs)."""
    if key and len(key) >= 4:
        return text.replace(key, "[redacted]")
    return text
