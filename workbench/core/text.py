"""Small text helpers shared by the command line and the core's user-facing messages."""

from __future__ import annotations


def plural(n: int, noun: str, plural_form: str | None = None) -> str:
    """``"1 file"``, ``"0 files"``, ``"2 queries"``: the count and the noun, plural unless n == 1.

    ``plural_form`` for irregular nouns (default: noun + "s").
    """
    return f"{n:,} {noun}" if n == 1 else f"{n:,} {plural_form or noun + 's'}"


def agree(n: int, one: str, many: str) -> str:
    """``one`` when n == 1 else ``many``: the verb agreeing with a count (``agree(n, "is", "are")``)."""
    return one if n == 1 else many
