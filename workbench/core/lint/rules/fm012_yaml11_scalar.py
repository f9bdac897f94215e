r"""FM012 non-string-scalar: a text field whose unquoted value YAML reads as a boolean, number,
date or null (``description: yes``, ``name: 123``, ``license: 2.0``).

skills-ref (strictyaml) keeps every scalar a string and accepts these; quick_validate (PyYAML)
fails with "must be a string, got bool/int" (validators.md B5, 4.2 ``name: 123``,
``description: yes``), and YAML 1.1 and 1.2 clients disagree on ``yes``/``no``. Warning, not
error, so the ``agentskills`` verdict matches skills-ref. Quick fix: quote the value.

PASS:
    ---
    name: pdf-tools
    description: "yes"
    ---
FAIL:
    ---
    name: pdf-tools
    description: yes
    ---
"""

from collections.abc import Iterator

from workbench.core.lint.context import LintContext
from workbench.core.lint.registry import Finding, rule
from workbench.core.lint.rules._util import replace_value, yaml_quote

TEXT_FIELDS = ("name", "description", "compatibility", "license", "when_to_use", "argument-hint")


@rule("FM012", "non-string-scalar", "warning")
def check(ctx: LintContext) -> Iterator[Finding]:
    if ctx.sf.state != "ok":
        return
    for key in TEXT_FIELDS:
        f = ctx.fields.get(key)
        if f is None or f.value is None or isinstance(f.value, (str, dict, list)):
            continue
        src = ctx.scalar_source(f)
        if src is None:
            continue
        kind = type(f.value).__name__
        yield Finding(
            f.value_span,
            f"{key}: YAML reads {src!r} as {kind}, not text; quote it",
            replace_value(f, yaml_quote(src), f"Quote the value of '{key}'"),
        )
