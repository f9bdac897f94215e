"""Claude Code's built-in skills, per client version: facts only (names and lengths).

Claude Code appends its own skills after the user's in the listing, and they share the listing
budget. The project stores their names and the length of what each lists after ``name: ``
(description, plus `` - when_to_use`` where it has one), in code points, measured by the
conformance lab on the real client; never their texts. The texts come from a capture of the
installed client (``options["client_texts"]``, see ``workbench.core.listingkit.CLIENT_TEXTS``);
without one the listing shows placeholders of these lengths.

Checked on Claude Code 2.1.328 by the lab (scenario ``basic-one``).
"""

from __future__ import annotations

#: The version the facts below were measured on (the pinned lab version).
VERSION = "2.1.328"

#: (name, listed text length in code points, pinned), in listing order. *Pinned* built-ins keep
#: their text whatever the budget; the others are budgeted like the user's skills (lab:
#: ``budget-80-short``, ``budget-300-short``).
BUILTINS: dict[str, tuple[tuple[str, int, bool], ...]] = {
    "2.1.328": (
        ("dataviz", 1436, True),
        ("update-config", 690, True),
        ("keybindings-help", 228, True),
        ("code-review", 835, True),
        ("simplify", 176, True),
        ("fewer-permission-prompts", 163, True),
        ("loop", 336, True),
        ("claude-api", 1157, True),
        ("workflow-authoring", 230, True),
        ("run", 361, True),
        ("plugin-authoring", 255, True),
        ("init", 59, False),
        ("security-review", 71, False),
    ),
}


def builtin_names(version: str = VERSION) -> set[str]:
    """Names of the built-in skills of ``version`` (empty for an unknown version)."""
    return {n for n, _, _ in BUILTINS.get(version, ())}
