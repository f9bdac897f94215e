"""The Anthropic SDK client and the model list, built from ``ChatSettings`` and a key.

``make_client(settings, api_key)`` passes ``api_key=`` explicitly (so the SDK reads no credential
from the environment or disk on its own; chat-loop.md section 1.2), ``base_url`` from the settings
or ``ANTHROPIC_BASE_URL``, the timeout and retries. ``list_models`` calls ``GET /v1/models``
(``client.models.list()``, auto-paginated) and keeps the ``active`` ones.
"""

from __future__ import annotations

import logging
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
    return _capped_client_class()(**kw)


_CAPPED: Any = None


def _capped_client_class() -> Any:
    """``anthropic.Anthropic`` whose retries wait at most ``RETRY_AFTER_CAP_S`` (the SDK honours
    any ``retry-after``: ``86400`` would sleep a day)."""
    global _CAPPED
    if _CAPPED is None:
        import anthropic

        class CappedAnthropic(anthropic.Anthropic):
            def _calculate_retry_timeout(self, *args: Any, **kwargs: Any) -> float:
                return min(float(super()._calculate_retry_timeout(*args, **kwargs)), RETRY_AFTER_CAP_S)

        _CAPPED = CappedAnthropic
    return _CAPPED


def list_models(settings: ChatSettings, api_key: str | None, client: Any = None) -> list[dict[str, Any]]:
    """The server's models with ``lifecycle == "active"`` (a model without the field counts as
    active, for servers that omit it), newest first as the server orders them.

    Returns ``[{"id","display_name","lifecycle","max_input_tokens","max_tokens"}]``.
    Raises ``ChatError`` (e.g. kind "not-found" when the server has no ``/v1/models``; the GUI then
    keeps the model field as free text).
    """
    try:
        c = client or make_client(settings, api_key)
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
