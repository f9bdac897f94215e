"""OpenCode's built-in skills, per client version: facts only (names and lengths).

OpenCode lists its own skill(s) among the user's (sorted by name with them), with the location
``<built-in>``. The project stores their names and description lengths (code points), measured
by the conformance lab on the real client, never their texts; those come from a capture
(``options["client_texts"]``) or the listing shows placeholders of these lengths.

Checked on OpenCode 1.18.33 by the lab (scenario ``basic-one``).
"""

from __future__ import annotations

#: The version the facts below were measured on (the pinned lab version).
VERSION = "1.18.33"

#: (name, description length in code points).
BUILTINS: dict[str, tuple[tuple[str, int], ...]] = {
    "1.18.33": (("customize-opencode", 386),),
}

#: The location OpenCode lists for a built-in skill (before XML escaping).
BUILTIN_LOCATION = "<built-in>"
