"""Claude Code's built-in skills, per client version: facts only (names and lengths).

Claude Code appends its own skills after the user's in the listing, and they share the listing
budget. The project stores their names and the length of what each lists after ``name: ``
(description, plus `` - when_to_use`` where it has one), in code points, measured by the
conformance lab on the real client; never their texts. The texts come from a capture of the
installed client (``options["client_texts"]``, see ``workbench.core.listing.CLIENT_TEXTS``);
without one the listing shows placeholders of these lengths.

Checked on Claude Code 2.1.328 by the lab (scenario ``basic-one``).
"""

from __future__ import annotations

#: The version the facts below were measured on (the pinned lab version).
VERSION = "2.1.328"

#: (name, listed description length in code points), in listing order.
BUILTINS: dict[str, tuple[tuple[str, int], ...]] = {
    "2.1.328": (
        ("dataviz", 1436), ("update-config", 690), ("keybindings-help", 228),
        ("code-review", 835), ("simplify", 176), ("fewer-permission-prompts", 163),
        ("loop", 336), ("claude-api", 1157), ("workflow-authoring", 230), ("run", 361),
        ("plugin-authoring", 255), ("init", 59), ("security-review", 71),
    ),
}


def builtin_names(version: str = VERSION) -> set[str]:
    """Names of the built-in skills of ``version`` (empty for an unknown version)."""
    return {n for n, _ in BUILTINS.get(version, ())}
