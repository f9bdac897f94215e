"""The Anthropic SDK client and the model list, built from ``ChatSettings`` and a key.

``make_client(settings, api_key)`` passes ``api_key=`` explicitly (so the SDK reads no credential
from the environment or disk on its own; chat-loop.md section 1.2), ``base_url`` from the settings
or ``ANTHROPIC_BASE_URL``, the timeout and retries. ``list_models`` calls ``GET /v1/models``
(``client.models.list()``, auto-paginated) and keeps the ``active`` ones.

Whoever makes a client closes it (``client.close()``, or ``with``). ``close()`` of a client made
here also shuts down the sockets it opened (``SocketLedger``), so a request thread still waiting
for a silent server's headers ends at once instead of at the SDK's read timeout.
"""

from __future__ import annotations

import logging
import socket
import threading
import weakref
from typing import Any

from workbench.core.chat.errors import RETRY_AFTER_CAP_S, ChatError, from_exception, no_key_error
from workbench.core.chat.settings import ChatSettings

log = logging.getLogger(__name__)


def make_client(settings: ChatSettings, api_key: str | None) -> Any:
    """An ``anthropic.Anthropic`` for these settings. Raises ``ChatError("no-key")`` without a key."""
    if not api_key:
        raise no_key_error()
    kw: dict[str, Any] = {
        "api_key": api_key,
        "timeout": float(settings.timeout),
        "max_retries": int(settings.max_retries),
    }
    url = settings.effective_base_url()
    if url:
        kw["base_url"] = url
    client = _capped_client_class()(**kw)
    client._wb_ledger = SocketLedger.attach(client)
    return client


class SocketLedger:
    """The sockets an SDK client's connection pool opened, to ``shutdown`` on close.

    A ``socket.close()`` from another thread does not wake a thread blocked in ``recv`` on Linux;
    ``shutdown(SHUT_RDWR)`` does (the read ends with EOF). Wraps the pool's network backend (the
    ``httpcore2`` ``NetworkBackend`` interface: ``connect_tcp``, ``connect_unix_socket``,
    ``sleep``); the streams' sockets come from its public ``get_extra_info("socket")``.
    """

    def __init__(self, backend: Any) -> None:
        self._backend = backend
        self._lock = threading.Lock()
        self._sockets: weakref.WeakSet[socket.socket] = weakref.WeakSet()

    @classmethod
    def attach(cls, client: Any) -> SocketLedger | None:
        """Wrap the network backend of ``client``'s pools (``Anthropic._client``: its transport and
        proxy mounts). Returns None (nothing tracked; ``close`` still closes the pool) when the
        SDK's layout is not the known one."""
        http = getattr(client, "_client", None)
        transports = [getattr(http, "_transport", None), *(getattr(http, "_mounts", None) or {}).values()]
        ledger = None
        for t in transports:
            pool = getattr(t, "_pool", None)
            backend = getattr(pool, "_network_backend", None)
            if pool is None or not hasattr(backend, "connect_tcp"):
                continue
            ledger = ledger or cls(backend)
            pool._network_backend = _LedgerBackend(backend, ledger)
        if ledger is None:
            log.debug("SDK client layout unknown: its sockets are not tracked for close")
        return ledger

    def add(self, stream: Any) -> Any:
        """Record the socket of ``stream`` (a ``NetworkStream``); returns ``stream``."""
        sock = stream.get_extra_info("socket")
        if isinstance(sock, socket.socket):
            with self._lock:
                self._sockets.add(sock)
        return stream

    def shutdown(self) -> None:
        """``shutdown(SHUT_RDWR)`` every tracked socket still open (errors ignored: the peer or
        the pool may have closed it already)."""
        with self._lock:
            socks = list(self._sockets)
        for sock in socks:
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass


class _LedgerBackend:
    """A network backend that records each new connection's socket in a ``SocketLedger``."""

    def __init__(self, backend: Any, ledger: SocketLedger) -> None:
        self._backend = backend
        self._ledger = ledger

    def connect_tcp(self, *args: Any, **kwargs: Any) -> Any:
        return self._ledger.add(self._backend.connect_tcp(*args, **kwargs))

    def connect_unix_socket(self, *args: Any, **kwargs: Any) -> Any:
        return self._ledger.add(self._backend.connect_unix_socket(*args, **kwargs))

    def sleep(self, seconds: float) -> None:
        self._backend.sleep(seconds)


_CAPPED: Any = None


def _capped_client_class() -> Any:
    """``anthropic.Anthropic`` whose retries wait at most ``RETRY_AFTER_CAP_S`` (the SDK honours
    any ``retry-after``: ``86400`` would sleep a day)."""
    global _CAPPED
    if _CAPPED is None:
        import anthropic

        class CappedAnthropic(anthropic.Anthropic):
            _wb_ledger: SocketLedger | None = None

            def _calculate_retry_timeout(self, *args: Any, **kwargs: Any) -> float:
                return min(float(super()._calculate_retry_timeout(*args, **kwargs)), RETRY_AFTER_CAP_S)

            def close(self) -> None:
                """Shut the client's sockets down (waking a reader blocked on them), then close."""
                if self._wb_ledger is not None:
                    self._wb_ledger.shutdown()
                super().close()

        _CAPPED = CappedAnthropic
    return _CAPPED


def list_models(settings: ChatSettings, api_key: str | None, client: Any = None) -> list[dict[str, Any]]:
    """The server's models with ``lifecycle == "active"`` (a model without the field counts as
    active, for servers that omit it), newest first as the server orders them.

    Returns ``[{"id","display_name","lifecycle","max_input_tokens","max_tokens"}]``.
    Raises ``ChatError`` (e.g. kind "not-found" when the server has no ``/v1/models``; the GUI then
    keeps the model field as free text). A client made here (``client`` None) is closed before
    returning; a passed-in one is left open.
    """
    own = None
    try:
        c = client or (own := make_client(settings, api_key))
        out = []
        for m in c.models.list():
            life = getattr(m, "lifecycle", None) or "active"
            if life != "active":
                continue
            out.append(
                {
                    "id": m.id,
                    "display_name": getattr(m, "display_name", None) or m.id,
                    "lifecycle": life,
                    "max_input_tokens": getattr(m, "max_input_tokens", None),
                    "max_tokens": getattr(m, "max_tokens", None),
                }
            )
        return out
    except ChatError:
        raise
    except Exception as exc:  # noqa: BLE001 - every failure becomes a ChatError for the caller
        log.debug("listing the models failed: %s", type(exc).__name__)
        raise from_exception(exc, settings.effective_base_url()) from None
    finally:
        if own is not None:
            own.close()
