"""The workshop's checks of one proposed text file: shell patterns (``workshop.shellrules``),
injection phrasing, secrets and hidden characters (``workbench.core.riskpatterns``).

``check_text`` is called by ``workshop.risks.check_files`` for SKILL.md and each text support file.
"""

from __future__ import annotations

import bisect
import re
import unicodedata

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

    low = text.lower()
    for rule in LINE_RULES:
        if rule.triggers and not any(t in low for t in rule.triggers):
            continue
        for m in rule.regex.finditer(text):
            if "\n" in m.group(0):
                continue
            ln, col = pos(m.start())
            out.append(Risk(rule.severity, rule.code, rel, ln, col, rule.message, excerpt(m.group(0))))
    for m in RM.finditer(text) if "rm" in low else ():
        toks = [t.strip("\"'") for t in m.group(1).split()]
        flags = [t for t in toks if t.startswith("-")]
        targets = [t for t in toks if not t.startswith("-")]
        recursive = (
            any(("r" in f.lstrip("-") or "R" in f) for f in flags if not f.startswith("--"))
            or "--recursive" in flags
        )
        risky = any(t in RM_TARGETS or HOME_SENSITIVE.match(t) or SYSTEM_TOP.match(t) for t in targets)
        if "--no-preserve-root" in flags or (recursive and risky):
            ln, col = pos(m.start())
            out.append(
                Risk(
                    CRITICAL,
                    "WS-RM",
                    rel,
                    ln,
                    col,
                    "recursive delete of the root, home, a credential or a system folder",
                    excerpt(m.group(0)),
                )
            )
    for m in FIND_DELETE.finditer(text) if "-delete" in low else ():
        ln, col = pos(m.start())
        out.append(
            Risk(
                CRITICAL,
                "WS-RM",
                rel,
                ln,
                col,
                "deletes files under the root or home folder",
                excerpt(m.group(0)),
            )
        )
    for inj in find_injections(text):
        ln, col = pos(inj.start)
        out.append(Risk(Severity(inj.severity), inj.code, rel, ln, col, inj.message, excerpt(inj.text)))
    cred_hits = []
    if any(
        t in low
        for t in (
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
    ):
        cred_hits = [m for m in CRED_READ.finditer(text)]
    cred_hits += [m for m in (KEYCHAIN.finditer(text) if "security" in low or "secret-tool" in low else ())]
    bangs = list(BANG.finditer(text)) if rel == SKILL_MD and "!`" in text else []
    for m in cred_hits:
        if any(b.start() <= m.start() < b.end() for b in bangs):
            continue  # reported as WS-BANG (critical)
        ln, col = pos(m.start())
        out.append(
            Risk(WARNING, "WS-CRED-READ", rel, ln, col, "reads a credential file", excerpt(m.group(0)))
        )
    for b in bangs:
        ln, col = pos(b.start())
        cmd = b.group(1)
        if CRED_READ.search(cmd) or KEYCHAIN.search(cmd):
            out.append(
                Risk(
                    CRITICAL,
                    "WS-BANG",
                    rel,
                    ln,
                    col,
                    "!`command` reads credentials into the model's context when the skill loads "
                    "(Claude Code runs it)",
                    excerpt(b.group(0)),
                )
            )
        else:
            out.append(
                Risk(
                    WARNING,
                    "WS-BANG",
                    rel,
                    ln,
                    col,
                    "!`command`: Claude Code runs this shell command when the skill loads, without asking",
                    excerpt(b.group(0)),
                )
            )
    for sm in find_secrets(text):
        tok = text[sm.start : sm.end]
        ln, col = pos(sm.start)
        if sm.what == "private key" and sm.placeholder:
            out.append(
                Risk(WARNING, "WS-SECRET", rel, ln, col, "private key header (content elided)", excerpt(tok))
            )
        elif sm.placeholder:
            out.append(
                Risk(
                    INFO,
                    "WS-SECRET",
                    rel,
                    ln,
                    col,
                    f"looks like a {sm.what}, but a placeholder/example one",
                    excerpt(tok),
                )
            )
        else:
            out.append(
                Risk(
                    CRITICAL,
                    "WS-SECRET",
                    rel,
                    ln,
                    col,
                    f"looks like a real {sm.what}; never ship secrets in a skill",
                    excerpt(tok[:12] + "…" if len(tok) > 16 else tok),
                )
            )
    for m in (
        SECRET_ASSIGN.finditer(text) if any(t in low for t in ("key", "secret", "token", "passw")) else ()
    ):
        val = m.group(1)
        if PLACEHOLDER.search(val) or len(set(val)) < 10:
            continue
        ln, col = pos(m.start())
        out.append(
            Risk(
                WARNING,
                "WS-SECRET-ASSIGN",
                rel,
                ln,
                col,
                "a credential-like value is assigned in the text",
                excerpt(m.group(0)[:40]),
            )
        )
    seen: set[tuple[int, int]] = set()  # (line, kind): ``_collapse`` keeps only a line's first
    for m in HIDDEN_RE.finditer(text):
        ch = m.group(0)
        o = ord(ch)
        ln, col = pos(m.start())
        kind = 0 if ch in BIDI_CHARS else 1 if is_tag(ch) else 2
        if (ln, kind) in seen:
            continue
        if kind < 2:  # (an invisible one may be skipped below: it marks its line when reported)
            seen.add((ln, kind))
        # the 40 characters around it on its line (not the whole line: a 1 MB line per character)
        lo = max(starts[ln - 1], m.start() - 19)
        ctx = excerpt(text[lo : m.start() + 21].split("\n", 1)[0].rstrip("\r"))
        if kind == 0:
            out.append(
                Risk(
                    CRITICAL,
                    "WS-BIDI",
                    rel,
                    ln,
                    col,
                    f"bidirectional control character U+{o:04X} ({unicodedata.name(ch, '?')}): "
                    "text may read differently than it runs",
                    ctx,
                )
            )
        elif kind == 1:
            out.append(
                Risk(
                    CRITICAL,
                    "WS-TAGS",
                    rel,
                    ln,
                    col,
                    f"Unicode tag character U+{o:05X}: invisible text a model can read",
                    ctx,
                )
            )
        else:
            if o == 0xFEFF and m.start() == 0:
                continue  # a BOM (skillfile reports it separately)
            i = m.start()
            if o == 0x200D and 0 < i < len(text) - 1 and _is_emoji(text[i - 1]) and _is_emoji(text[i + 1]):
                continue  # emoji ZWJ sequence
            seen.add((ln, kind))
            out.append(
                Risk(
                    WARNING,
                    "WS-INVISIBLE",
                    rel,
                    ln,
                    col,
                    f"invisible character U+{o:04X} ({unicodedata.name(ch, '?')})",
                    ctx,
                )
            )
    out.sort(key=lambda f: (f.line, f.column))
    return _collapse(out)


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
