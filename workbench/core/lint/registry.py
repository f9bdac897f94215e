r"""The rule registry: every module in ``workbench/core/lint/rules/`` registers one ``Rule``
(``rules/__init__.py`` lists them all; ``ruleset.load_rules`` imports that package on first use).

A rule module looks like::

    r'''NAME003 name-lowercase: the name has uppercase letters.

    Source: skills-ref validator.py ...

    PASS (dir=pdf-tools):
        ---
        name: pdf-tools
        description: Use when ...
        ---
    FAIL (dir=pdf-tools):
        ---
        name: PDF-Tools
        ...
    '''
    from collections.abc import Iterator

    from workbench.core.lint.context import LintContext
    from workbench.core.lint.registry import Finding, rule

    @rule("NAME003", "name-lowercase", "error", profiles={"codex": "info"})
    def check(ctx: LintContext) -> Iterator[Finding]:
        yield Finding(span, "message", fix)

Add the module to the list in ``rules/__init__.py`` (a test checks the list against the files).

The docstring examples are run by ``tests/lint/test_rule_examples.py`` (see ``parse_examples``):
each ``PASS``/``FAIL`` header may carry ``(key=value, ...)`` options — ``dir`` (the skill folder
name), ``profile``, ``files`` (``|``-separated relative paths created next to SKILL.md), and
``catalog`` (``|``-separated ``name=description`` entries of other skills). The example text is
the indented block under the header; ``\t``, ``\r`` and ``\uXXXX`` escapes in it are decoded, so
tabs, CRLF, BOMs and invisible characters can be shown, and ``<<N lines>>`` / ``<<N chars>>``
expand to N filler lines / characters. ``file=NAME`` writes the example under another file name.
"""

from __future__ import annotations

import re
import sys
import textwrap
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from workbench.core.lint.types import OFF, SEVERITIES, Fix
from workbench.core.skillfile import Span

if TYPE_CHECKING:
    from workbench.core.lint.context import LintContext
    from workbench.core.lint.profiles import Profile


@dataclass(slots=True)
class Finding:
    """What a rule's ``check`` yields: where, what, an optional fix, and (rarely) a severity that
    replaces the rule's own for this one finding (a profile's "off" still wins)."""

    span: Span
    message: str
    fix: Fix | None = None
    severity: str | None = None


#: A rule's check: ``check(ctx) -> Iterable[Finding]``.
Check = Callable[["LintContext"], Iterable[Finding]]


@dataclass
class Rule:
    """One lint rule.

    Attributes:
        code: stable id, e.g. "NAME003" (group prefixes: STR files/structure, FM frontmatter syntax,
            NAME, DESC, FLD optional spec fields, CC Claude Code fields, CX Codex, OC OpenClaw,
            BODY, SEC security, CAT catalog).
        name: slug, e.g. "name-lowercase".
        severity: default severity ("error" | "warning" | "info").
        profiles: per-profile overrides: profile id -> severity or "off".
        check: ``check(ctx) -> Iterable[Finding]``.
        doc: the module docstring (summary line, source, PASS/FAIL examples).
        unverified: the client behaviour it reproduces is marked unverified in the reference.
    """

    code: str
    name: str
    severity: str
    profiles: dict[str, str]
    check: Check
    doc: str = ""
    unverified: bool = False
    module: str = ""

    @property
    def summary(self) -> str:
        """The docstring's first line after its ``CODE slug:`` prefix (else the slug)."""
        first = (self.doc or "").strip().splitlines()[:1]
        s = first[0] if first else self.name
        return s.split(":", 1)[1].strip() if ":" in s else s

    def severity_for(self, profile: Profile | str) -> str:
        """The severity under a profile ("off" = the rule does not run)."""
        pid = profile if isinstance(profile, str) else profile.id
        return self.profiles.get(pid, self.severity)

    def examples(self) -> list[Example]:
        """The PASS/FAIL examples of the docstring (``parse_examples``)."""
        return parse_examples(self.doc)


#: code -> Rule, in code order once ``ruleset.load_rules()`` ran.
RULES: dict[str, Rule] = {}


def rule(
    code: str, name: str, severity: str, profiles: dict[str, str] | None = None, unverified: bool = False
) -> Callable[[Check], Check]:
    """Decorator registering ``check`` as rule ``code``. Raises ValueError on a bad severity or a
    code registered twice."""
    profiles = dict(profiles or {})
    for sev in [severity, *profiles.values()]:
        if sev not in SEVERITIES and sev != OFF:
            raise ValueError(f"{code}: bad severity {sev!r}")

    def deco(fn: Check) -> Check:
        mod = sys.modules.get(fn.__module__)
        r = Rule(
            code,
            name,
            severity,
            profiles,
            fn,
            doc=(mod.__doc__ or "") if mod else "",
            unverified=unverified,
            module=fn.__module__,
        )
        if code in RULES and RULES[code].module != r.module:
            raise ValueError(f"rule code {code} registered twice ({RULES[code].module}, {r.module})")
        RULES[code] = r
        return fn

    return deco


# ----------------------------------------------------------------------------------------
# docstring examples


@dataclass
class Example:
    """A PASS or FAIL example from a rule docstring."""

    verdict: str  # "PASS" | "FAIL"
    text: str
    options: dict[str, str] = field(default_factory=dict)

    @property
    def dir(self) -> str | None:
        """The ``dir=`` option: the skill folder's name (None: a default)."""
        return self.options.get("dir")

    @property
    def profile(self) -> str:
        """The ``profile=`` option (default "agentskills")."""
        return self.options.get("profile", "agentskills")

    @property
    def files(self) -> list[str]:
        """The ``files=`` option: relative paths created next to SKILL.md."""
        f = self.options.get("files", "")
        return [x.strip() for x in f.split("|") if x.strip()]

    @property
    def catalog(self) -> list[tuple[str, str]]:
        """The ``catalog=`` option: (name, description) of the other skills."""
        out = []
        for item in self.options.get("catalog", "").split("|"):
            if "=" in item:
                n, d = item.split("=", 1)
                out.append((n.strip(), d.strip()))
        return out


_HEADER = re.compile(r"^(?P<indent>[ ]*)(?P<verdict>PASS|FAIL)(?:\s*\((?P<opts>[^)]*)\))?:\s*$")
_ESC = re.compile(r"\\(t|r|u[0-9a-fA-F]{4})")
_MACRO = re.compile(r"<<(\d+) (lines|chars)>>")


def _expand(m: re.Match[str]) -> str:
    n = int(m.group(1))
    if m.group(2) == "lines":
        return "\n".join(f"line {i}" for i in range(1, n + 1))
    return ("lorem ipsum " * (n // 12 + 1))[:n]


def _unescape(s: str) -> str:
    def sub(m: re.Match[str]) -> str:
        e = m.group(1)
        if e == "t":
            return "\t"
        if e == "r":
            return "\r"
        return chr(int(e[1:], 16))

    return _ESC.sub(sub, s)


def parse_examples(doc: str) -> list[Example]:
    """Extract PASS/FAIL examples from a rule docstring (see the module docstring for the format)."""
    lines = (doc or "").split("\n")
    out: list[Example] = []
    i = 0
    while i < len(lines):
        m = _HEADER.match(lines[i])
        if not m:
            i += 1
            continue
        base = len(m.group("indent"))
        opts: dict[str, str] = {}
        for part in (m.group("opts") or "").split(","):
            if "=" in part:
                k, v = part.split("=", 1)
                opts[k.strip()] = _MACRO.sub(_expand, v.strip())
        block: list[str] = []
        i += 1
        while i < len(lines):
            ln = lines[i]
            if ln.strip() and (len(ln) - len(ln.lstrip(" "))) <= base:
                break
            block.append(ln)
            i += 1
        while block and not block[-1].strip():
            block.pop()
        text = textwrap.dedent("\n".join(block))
        text = _MACRO.sub(_expand, _unescape(text))
        if not text.endswith("\n"):
            text += "\n"
        out.append(Example(m.group("verdict"), text, opts))
    return out
