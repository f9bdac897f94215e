"""Facts about Codex CLI's own system skills, per client version (never their texts).

Codex unpacks them into ``$CODEX_HOME/skills/.system/<name>/SKILL.md`` on its first run and lists
them first (System scope). Measured by the conformance lab from the real client's request: names
in listing order and description lengths (code points = UTF-8 bytes: all ASCII). The texts come
from a capture (``options["client_texts"]``) or from the unpacked files when they exist; without
either the listing shows placeholders of these lengths.
"""

from __future__ import annotations

#: Client version -> system skills in listing order: (name, description length in chars).
BUILTINS: dict[str, tuple[tuple[str, int], ...]] = {
    "0.169.0": (("imagegen", 570), ("openai-docs", 624), ("skill-creator", 106), ("skill-installer", 225)),
}
