"""Facts about GitHub Copilot CLI's own built-in skills, per client version (never their texts).

Measured by the conformance lab from the real client's request (``copilot-cli`` scenarios):
names in listing order and the length of each description *as listed* (XML-escaped, code points).
The texts themselves come from a capture (``options["client_texts"]``); without one the listing
shows placeholders of these lengths.
"""

from __future__ import annotations

#: Client version -> built-ins in listing order: (name, listed description length in chars).
BUILTINS: dict[str, tuple[tuple[str, int], ...]] = {
    "1.0.102": (("customize-cloud-agent", 329), ("github-pr-media", 216)),
}
