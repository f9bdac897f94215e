"""Facts about Gemini CLI's own built-in skills, per client version (never their texts).

Gemini CLI ships them in its package (``bundle/builtin/<name>/SKILL.md``) and loads them as the
lowest tier, so they open the listing. Measured by the conformance lab from the real client's
request: names in listing order and description lengths (code points). Texts and locations come
from a capture (``options["client_texts"]``); without one the listing shows placeholders.
"""

from __future__ import annotations

#: Client version -> built-ins in listing order: (name, description length in chars).
BUILTINS: dict[str, tuple[tuple[str, int], ...]] = {
    "0.61.0": (("skill-creator", 230), ("antigravity-support", 273)),
}
#: Where the built-ins live inside the installed package (their listed location).
BUILTIN_DIR = "bundle/builtin"
