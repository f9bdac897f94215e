"""The chat loop: a client-shaped skill listing, the client's load tool, a trace of every turn.

* ``engine`` — ``ChatSession`` (``send(text, cancel=, on_event=) -> TurnResult``), ``listing_for``.
* ``listinginfo`` (listing, loader), ``result`` (``TurnResult``), ``stream`` (one streamed request),
  ``toolcalls`` (running tool calls) — the engine's parts, re-exported by ``engine``.
* ``loadkit`` — the ``Loader`` base of ``workbench/core/clients/<id>/loading.py``.
* ``tools`` — confined read/list tools, the approval-gated shell tool, ``ToolSpec`` for extras.
* ``propose`` — ``make_propose_tool``: ``propose_skill``, drafts as pending Workshop proposals.
* ``settings`` — ``ChatSettings`` (JSON in the config dir) and the API key (env / keyring).
* ``backend`` — ``make_client``, ``list_models`` on the ``anthropic`` SDK.
* ``errors`` — ``ChatError(kind, message, hint, request_id)``.
"""

from workbench.core.chat.errors import ChatError
from workbench.core.chat.settings import ChatSettings

__all__ = ["ChatError", "ChatSettings"]
