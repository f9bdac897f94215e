"""Loading the rules: ``load_rules()`` imports every rule module once, on first use.

Apart from ``registry`` so that the rule modules (which import ``registry.rule``) and the import
that loads them form no cycle. A fully cached lint never calls it and imports no rule module.
"""

from __future__ import annotations

from workbench.core.lint.registry import RULES, Rule

_loaded = False


def load_rules() -> dict[str, Rule]:
    """``registry.RULES`` with every rule registered, sorted by code (the package
    ``workbench.core.lint.rules`` imports every rule module; importing it, once, registers them)."""
    global _loaded
    if not _loaded:
        from workbench.core.lint import rules  # noqa: F401 - importing it registers every rule

        ordered = dict(sorted(RULES.items()))
        RULES.clear()
        RULES.update(ordered)
        _loaded = True
    return RULES
