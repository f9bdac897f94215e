"""The workbench's one token estimate: characters → tokens, without a tokenizer.

Every token figure the workbench shows without asking a server (the listing's ``token_estimate``,
lint rule BODY002, the chat trace's ``tokens_est`` and cache note, the capture recorder's
count-tokens replies) comes from ``estimate_tokens`` and is labelled "≈ est." where it is shown.
"""

from __future__ import annotations

#: Characters per token of the estimate. Source: chat-loop.md section 6 — Claude Code budgets its
#: listing at 4 chars/token and estimates ``round(len/4)``, OpenClaw's docs say about 4 chars per
#: token, Codex estimates UTF-8 bytes / 4; no offline tokenizer matches current models.
CHARS_PER_TOKEN = 4


def estimate_tokens(chars: int) -> int:
    """≈ tokens for ``chars`` characters: ``ceil(chars / CHARS_PER_TOKEN)``, 0 for ``chars <= 0``.

    Args:
        chars: a length in characters (Python ``len`` of a ``str``: Unicode code points). A
            caller with bytes passes their count (the estimate is no finer than that).

    Returns:
        An estimate in tokens (int), not a tokenizer count: show it labelled as an estimate.
    """
    return -(-chars // CHARS_PER_TOKEN) if chars > 0 else 0
