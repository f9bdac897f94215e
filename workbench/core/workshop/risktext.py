"""The workshop's checks of one proposed text file: shell patterns (``workshop.shellrules``),
injection phrasing, secrets and hidden characters (``workbench.core.riskpatterns``).

``check_text`` is called by ``workshop.risks.check_files`` for SKILL.md and each text support file.
"""

from __future__ import annotations

import bisect
import re
import unicodedata
from collections.abc import Callable

from workbench.core.riskpatterns import (
    BIDI_CHARS,
    HIDDEN_RE,
    PLACEHOLDER,
    find_injections,
    find_secrets,
    is_tag,
)
from workbench.core.workshop.paths import SKILL_MD
from workbench.core.workshop.risk import CRITICAL, INFO, WARNING, Risk, Severity
from workbench.core.workshop.shellrules import (
    BANG,
    CRED_READ,
    FIND_DELETE,
    HOME_SENSITIVE,
    KEYCHAIN,
    LINE_RULES,
    RM,
    RM_TARGETS,
    SECRET_ASSIGN,
    SYSTEM_TOP,
)

_NL = re.compile("\n")


def excerpt(s: str, limit: int = 120) -> str:
    """``s`` stripped, hidden characters shown as ``<U+XXXX>``, cut to ``limit`` characters."""
    t = HIDDEN_RE.sub(lambda m: f"<U+{ord(m.group(0)):04X}>", s).strip()
    return t if len(t) <= limit else t[: limit - 1] + "…"


def _is_emoji(ch: str) -> bool:
    o = ord(ch)
    return o >= 0x1F000 or 0x2600 <= o <= 0x27BF or unicodedata.category(ch) == "So"


def check_text(rel: str, text: str) -> list[Risk]:
    """The risks in one proposed text file ``rel`` (its decoded ``text``), in line order, one per
    (code, line) for the character-level codes. Lines and columns are 1-based, columns in code
    points. Never raises on content."""
    out: list[Risk] = []
    starts = [0] + [m.end() for m in _NL.finditer(text)]

    def pos(off: int) -> tuple[int, int]:
        ln = bisect.bisect_right(starts, off)
        return ln, off - starts[ln - 1] + 1

    def add(severity: Severity, code: str, off: int, message: str, shown: str) -> None:
        ln, col = pos(off)
        out.append(Risk(severity, code, rel, ln, col, message, shown))

    low = text.lower()
    for rule in LINE_RULES:
        if rule.triggers and not any(t in low for t in rule.triggers):
            continue
        for m in rule.matches(text):
            if "\n" not in m.group(0):
                add(rule.severity, rule.code, m.start(), rule.message, excerpt(m.group(0)))
    for m in RM.finditer(text) if "rm" in low else ():
        if _risky_rm(m.group(1)):
            msg = "recursive delete of the root, home, a credential or a system folder"
            add(CRITICAL, "WS-RM", m.start(), msg, excerpt(m.group(0)))
    for m in FIND_DELETE.finditer(text) if "-delete" in low else ():
        add(CRITICAL, "WS-RM", m.start(), "deletes files under the root or home folder", excerpt(m.group(0)))
    for inj in find_injections(text):
        add(Severity(inj.severity), inj.code, inj.start, inj.message, excerpt(inj.text))
    cred_hits = list(CRED_READ.finditer(text)) if any(t in low for t in _CRED_WORDS) else []
    cred_hits += list(KEYCHAIN.finditer(text)) if "security" in low or "secret-tool" in low else []
    bangs = list(BANG.finditer(text)) if rel == SKILL_MD and "!`" in text else []
    for m in cred_hits:
        if not any(b.start() <= m.start() < b.end() for b in bangs):  # else WS-BANG (critical)
            add(WARNING, "WS-CRED-READ", m.start(), "reads a credential file", excerpt(m.group(0)))
    for b in bangs:
        if CRED_READ.search(b.group(1)) or KEYCHAIN.search(b.group(1)):
            msg = "!`command` reads credentials into the model's context when the skill loads (Claude Code runs it)"
            add(CRITICAL, "WS-BANG", b.start(), msg, excerpt(b.group(0)))
        else:
            msg = "!`command`: Claude Code runs this shell command when the skill loads, without asking"
            add(WARNING, "WS-BANG", b.start(), msg, excerpt(b.group(0)))
    for sm in find_secrets(text):
        tok = text[sm.start : sm.end]
        if sm.what == "private key" and sm.placeholder:
            add(WARNING, "WS-SECRET", sm.start, "private key header (content elided)", excerpt(tok))
        elif sm.placeholder:
            add(
                INFO,
                "WS-SECRET",
                sm.start,
                f"looks like a {sm.what}, but a placeholder/example one",
                excerpt(tok),
            )
        else:
            msg = f"looks like a real {sm.what}; never ship secrets in a skill"
            add(CRITICAL, "WS-SECRET", sm.start, msg, excerpt(tok[:12] + "…" if len(tok) > 16 else tok))
    assigns = (
        SECRET_ASSIGN.finditer(text) if any(t in low for t in ("key", "secret", "token", "passw")) else ()
    )
    for m in assigns:
        val = m.group(1)
        if not (PLACEHOLDER.search(val) or len(set(val)) < 10):
            msg = "a credential-like value is assigned in the text"
            add(WARNING, "WS-SECRET-ASSIGN", m.start(), msg, excerpt(m.group(0)[:40]))
    _hidden(text, starts, pos, add)
    out.sort(key=lambda f: (f.line, f.column))
    return _collapse(out)


#: Words one of which a credential-file read (``CRED_READ``) needs.
_CRED_WORDS = (
    "credentials",
    ".ssh/",
    ".netrc",
    "/etc/shadow",
    ".npmrc",
    ".pypirc",
    ".env",
    "kube/config",
    "docker/config",
)


def _risky_rm(args: str) -> bool:
    """An ``rm`` whose arguments (``args``) delete recursively the root, home, a credential or
    a system folder, or pass ``--no-preserve-root``."""
    toks = [t.strip("\"'") for t in args.split()]
    flags = [t for t in toks if t.startswith("-")]
    targets = [t for t in toks if not t.startswith("-")]
    recursive = (
        any(("r" in f.lstrip("-") or "R" in f) for f in flags if not f.startswith("--"))
        or "--recursive" in flags
    )
    risky = any(t in RM_TARGETS or HOME_SENSITIVE.match(t) or SYSTEM_TOP.match(t) for t in targets)
    return "--no-preserve-root" in flags or (recursive and risky)


def _hidden(
    text: str,
    starts: list[int],
    pos: Callable[[int], tuple[int, int]],
    add: Callable[[Severity, str, int, str, str], None],
) -> None:
    """``WS-BIDI``/``WS-TAGS``/``WS-INVISIBLE`` risks: the first of each kind per line, shown
    with the 40 characters around it on its line (not the whole line: a 1 MB line per character)."""
    seen: set[tuple[int, int]] = set()  # (line, kind): ``_collapse`` keeps only a line's first
    for m in HIDDEN_RE.finditer(text):
        ch = m.group(0)
        o = ord(ch)
        i = m.start()
        ln, _col = pos(i)
        kind = 0 if ch in BIDI_CHARS else 1 if is_tag(ch) else 2
        if (ln, kind) in seen:
            continue
        if kind < 2:  # (an invisible one may be skipped below: it marks its line when reported)
            seen.add((ln, kind))
        lo = max(starts[ln - 1], i - 19)
        around = excerpt(text[lo : i + 21].split("\n", 1)[0].rstrip("\r"))
        if kind == 0:
            msg = f"bidirectional control character U+{o:04X} ({unicodedata.name(ch, '?')}): "
            add(CRITICAL, "WS-BIDI", i, msg + "text may read differently than it runs", around)
        elif kind == 1:
            add(
                CRITICAL,
                "WS-TAGS",
                i,
                f"Unicode tag character U+{o:05X}: invisible text a model can read",
                around,
            )
        elif not (o == 0xFEFF and i == 0) and not (  # a BOM (skillfile reports it separately)
            o == 0x200D and 0 < i < len(text) - 1 and _is_emoji(text[i - 1]) and _is_emoji(text[i + 1])
        ):  # an emoji ZWJ sequence
            seen.add((ln, kind))
            add(
                WARNING,
                "WS-INVISIBLE",
                i,
                f"invisible character U+{o:04X} ({unicodedata.name(ch, '?')})",
                around,
            )


def _collapse(risks: list[Risk]) -> list[Risk]:
    """One finding per (code, file, line) for character-level codes, so a line with 40 zero-width
    spaces gives one finding, not 40."""
    seen: set[tuple[str, str, int]] = set()
    out: list[Risk] = []
    for f in risks:
        if f.code in ("WS-BIDI", "WS-TAGS", "WS-INVISIBLE"):
            key = (f.code, f.file, f.line)
            if key in seen:
                continue
            seen.add(key)
        out.append(f)
    return out
