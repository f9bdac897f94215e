"""What one chat turn produced: ``TurnResult`` and the usage figures of a reply."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from workbench.core.chat.errors import ChatError

#: The usage figures summed per turn (tokens, as the API reports them).
USAGE_KEYS = ("input_tokens", "output_tokens", "cache_read_input_tokens", "cache_creation_input_tokens")


def zero_usage() -> dict[str, int]:
    """``{key: 0}`` for every ``USAGE_KEYS`` key."""
    return dict.fromkeys(USAGE_KEYS, 0)


def usage_dict(u: Any) -> dict[str, int]:
    """The ``USAGE_KEYS`` figures of an SDK ``Usage`` object (tokens; 0 for a missing or non-numeric
    field, or for ``u is None``)."""
    out = zero_usage()
    for k in USAGE_KEYS:
        v = getattr(u, k, None) if u is not None else None
        out[k] = int(v) if isinstance(v, (int, float)) else 0
    return out


@dataclass
class TurnResult:
    """What one ``send`` produced.

    Attributes: client, model, triggered (skill names loaded, in order, repeats kept once),
    events (recorded events), usage (summed over the requests), stop_reason (the last request's,
    or "max_turns" / "cancelled" / "error"), text (the assistant's text of the final request),
    error (``ChatError`` or None).
    """

    client: str
    model: str
    triggered: list[str] = field(default_factory=list)
    events: list[dict[str, Any]] = field(default_factory=list)
    usage: dict[str, int] = field(default_factory=zero_usage)
    stop_reason: str | None = None
    text: str = ""
    error: ChatError | None = None

    def to_json(self) -> dict[str, Any]:
        """DESIGN.md section 3: ``{"client","model","triggered","events","usage","stop_reason"}``
        plus ``"text"`` and ``"error"`` (null or the error object)."""
        return {
            "client": self.client,
            "model": self.model,
            "triggered": list(self.triggered),
            "events": list(self.events),
            "usage": dict(self.usage),
            "stop_reason": self.stop_reason,
            "text": self.text,
            "error": self.error.to_json() if self.error else None,
        }
