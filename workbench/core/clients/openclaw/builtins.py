"""OpenClaw's own skills, per client version: facts only (names, lengths, where they live).

OpenClaw lists its bundled skills (``<package>/skills``), its custodian skills
(``<package>/custodian-skills``) and its plugin skills (copied to ``~/.openclaw/plugin-skills``)
among the user's, sorted by name with them; they count against ``maxSkillsPromptChars``. The
project stores their names, description lengths (code points) and kind, measured by the
conformance lab on the real client, never their texts; those come from a capture
(``options["client_texts"]``) or the listing shows placeholders of these lengths. The
``## Skills`` section also opens with OpenClaw's own instruction prose (``PROSE_CHARS``; slot
``"preamble"`` of ``client_texts["prose"]``).

Checked on OpenClaw 2026.9.6 by the lab (scenario ``basic-one``).
"""

from __future__ import annotations

#: The version the facts below were measured on (the pinned lab version).
VERSION = "2026.9.6"

#: (name, description length in code points, kind: bundled | custodian | plugin).
BUILTINS: dict[str, tuple[tuple[str, int, str], ...]] = {
    "2026.9.6": (
        ("add-model-provider", 105, "custodian"),
        ("browser-automation", 159, "plugin"),
        ("canvas", 102, "plugin"),
        ("clawhub", 140, "bundled"),
        ("cloud-image-bake", 95, "custodian"),
        ("configure-channel", 95, "custodian"),
        ("control-ui", 170, "bundled"),
        ("diagnose-gateway", 89, "custodian"),
        ("diagram-maker", 90, "bundled"),
        ("healthcheck", 106, "bundled"),
        ("meme-maker", 81, "bundled"),
        ("node-connect", 161, "bundled"),
        ("node-inspect-debugger", 85, "bundled"),
        ("notion", 110, "bundled"),
        ("python-debugpy", 87, "bundled"),
        ("skill-creator", 108, "bundled"),
        ("spike", 91, "bundled"),
        ("taskflow", 118, "bundled"),
        ("taskflow-inbox-triage", 118, "bundled"),
        ("tmux", 111, "bundled"),
        ("visualize", 114, "bundled"),
        ("weather", 125, "bundled"),
    ),
}

#: Length (code points) of the instruction prose between ``## Skills`` and the catalog.
PROSE_CHARS: dict[str, int] = {"2026.9.6": 228}

#: Where each kind lives, as OpenClaw lists the location (``{pkg}`` = the installed package).
LOCATIONS = {
    "bundled": "{pkg}/skills/{name}/SKILL.md",
    "custodian": "{pkg}/custodian-skills/{name}/SKILL.md",
    "plugin": "~/.openclaw/plugin-skills/{name}/SKILL.md",
}
