"""How much of a SKILL.md each client's load path hands the model (facts, per client version).

Each ``Surface`` says what the model receives when the skill is loaded through that path, as
measured with the real client against the recorder (``workbench/core/capture``), or as reported:

* Claude Code 2.1.328, ``Skill`` tool: the whole body (a 36,894-byte SKILL.md arrived in full;
  measured 2026-12-01). After compaction, re-attached skills are said to be cut to about 5,000
  tokens each (third-party report, not verified) — ``claude-code-compacted``.
* Codex CLI 0.169.0, ``exec_command`` (the model reads SKILL.md with ``cat``; Codex has no skill
  tool): the output keeps the first 5,000 and the last 5,000 bytes and replaces the middle with
  ``…N chars truncated…`` (measured 2026-12-01 with a 36,894-byte file: 26,894 cut).

Clients not listed here were not measured; no limit is assumed for them.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Surface:
    """One load path and what of the file survives it.

    Attributes:
        id: stable key; client: the client id; title: for messages.
        head: bytes (or chars, see ``unit``) kept from the start; tail: kept from the end (0 = none).
        unit: "bytes" | "chars".
        verified: measured with the real client (False = reported only).
        source: where the figure comes from.
    """

    id: str
    client: str
    title: str
    head: int
    tail: int
    unit: str
    verified: bool
    source: str

    @property
    def limit(self) -> int:
        return self.head + self.tail

    def lost_range(self, text: str, data: bytes | None = None) -> tuple[int, int] | None:
        """``(start, end)`` character offsets of ``text`` the model does not get, or None.
        ``data``: ``text.encode("utf-8")`` when the caller has it (saves encoding it again).
        Raises UnicodeEncodeError for a text with lone surrogates (without ``data``)."""
        if self.unit == "bytes":
            if data is None:
                data = text.encode("utf-8")
            if len(data) <= self.limit:
                return None
            start, end = self.head, len(data) - self.tail
            if len(data) == len(text):  # ASCII: byte offsets are character offsets
                return (start, end)
            return (len(data[:start].decode("utf-8", "ignore")), len(data[:end].decode("utf-8", "ignore")))
        if len(text) <= self.limit:
            return None
        return (self.head, len(text) - self.tail)


SURFACES: tuple[Surface, ...] = (
    Surface(
        "codex-exec",
        "codex",
        "Codex CLI 0.169.0 (the model reads SKILL.md with exec_command)",
        5000,
        5000,
        "bytes",
        True,
        "measured with the real client and the recorder, 2026-12-01",
    ),
    Surface(
        "claude-code-compacted",
        "claude-code",
        "Claude Code after compaction (a re-attached skill)",
        20_000,
        0,
        "chars",
        False,
        "third-party report: about 5,000 tokens per skill (≈20,000 chars); not verified",
    ),
)


def surfaces_for(client: str | None) -> list[Surface]:
    """The surfaces of one client (every surface when ``client`` is None)."""
    return [s for s in SURFACES if client is None or s.client == client]
