"""One table of risk patterns shared by lint (SEC001-SEC003) and the Workshop's risk checks.

Pure Python (no Qt). Three families:

* **Secrets** (``secret_patterns()``, ``find_secrets``): provider credential formats. Where the
  maintained library ``detect-secrets`` (Yelp, PyPI ``detect-secrets``) has a plugin for a
  format, its own compiled regexes are used (imported from ``detect_secrets.plugins.<module>``;
  ``source`` names the plugin). Formats it lacks come from gitleaks' default config
  (``config/gitleaks.toml``, rule ids cited per row). Without detect-secrets installed the
  gitleaks rows and the project's fallback rows still run (``secret_patterns()[1]`` is None).
  Cost: ``has_secret_candidate`` is the cheap pre-check: one Aho-Corasick pass (ahocorasick-rs)
  for the literals every pattern needs (``SECRET_TRIGGERS``); the regexes run only on a hit,
  and detect-secrets is imported only for a text holding one of its literals.
* **Unicode** (``BIDI_CHARS``, ``BIDI_RE``, ``INVISIBLE_RE``, ``INVISIBLE_BMP``, ``HIDDEN_RE``,
  ``TAG_RANGE``, ``is_tag``):
  bidi controls (Trojan Source, validators.md J2) and invisible characters.
* **Injection** (``INJECTION_RULES``, ``find_injections``): "ignore previous instructions"-style
  override phrasing, matched on a *skeleton* of the text (``skeleton``): invisible/bidi/tag
  characters removed, homoglyphs (Cyrillic/Greek look-alikes, fullwidth and mathematical letters via
  NFKC) folded to ASCII, and words allowed to run across line breaks and Markdown emphasis. Offsets
  are mapped back to the original text, so findings stay positioned.

Example::

    >>> [m.what for m in find_secrets("key AKIAQWERTYUIOPASDFGH")]
    ['AWS access key id']
    >>> [m.code for m in find_injections("Ign\\u043ere the instruc\\ntions above.")]
    ['WS-INJECT']
"""

from __future__ import annotations

import bisect
import logging
import re
import unicodedata
from dataclasses import dataclass
from typing import Any

log = logging.getLogger(__name__)

# ---------------------------------------------------------------------------------------------
# secrets


@dataclass(frozen=True, slots=True)
class SecretPattern:
    """One credential format.

    Attributes:
        what: what it is, for messages ("GitHub token").
        triggers: case-sensitive literals; at least one occurs in every match (cheap pre-check).
        regex: the compiled pattern (group 0 is the token).
        source: where the pattern comes from (library plugin or gitleaks rule id).
    """

    what: str
    triggers: tuple[str, ...]
    regex: re.Pattern[str]
    source: str


@dataclass(frozen=True, slots=True)
class SecretMatch:
    """A credential-like token in a text: ``start``/``end`` are code-point offsets (end
    exclusive); ``placeholder`` is True for documentation values (EXAMPLE, xxxx, ``...``, an
    elided private key) that are shown but are not real secrets."""

    start: int
    end: int
    what: str
    placeholder: bool
    source: str


#: detect-secrets plugins used: (module, class, what, triggers, indexes of its denylist to use).
#: Plugins left out on purpose: keyword/entropy ones (too many false positives in prose), Discord,
#: Telegram and Twilio (no literal to pre-check on), JWT (example tokens are common in docs),
#: Artifactory (its ``AP...`` form is loose), Mailchimp's ``-us`` form, IBM/SoftLayer/Cloudant (keyword).
_DETECT_SECRETS: tuple[tuple[str, str, str, tuple[str, ...], tuple[int, ...] | None], ...] = (
    ("aws", "AWSKeyDetector", "AWS access key id", ("AKIA", "ASIA", "ABIA", "ACCA", "A3T"), (0,)),
    ("github_token", "GitHubTokenDetector", "GitHub token", ("ghp_", "gho_", "ghu_", "ghs_", "ghr_"), None),
    (
        "gitlab_token",
        "GitLabTokenDetector",
        "GitLab token",
        (
            "glpat-",
            "gldt-",
            "glft-",
            "glsoat-",
            "glrt-",
            "GR1348941",
            "glcbt-",
            "glimt-",
            "glptt-",
            "glagent-",
            "gloas-",
        ),
        None,
    ),
    ("slack", "SlackDetector", "Slack token or webhook", ("xox", "hooks.slack.com"), None),
    ("stripe", "StripeDetector", "Stripe live key", ("k_live_",), None),
    ("openai", "OpenAIDetector", "OpenAI API key", ("T3BlbkFJ",), None),
    ("sendgrid", "SendGridDetector", "SendGrid API key", ("SG.",), None),
    ("pypi_token", "PypiTokenDetector", "PyPI token", ("pypi-AgE",), None),
    ("npm", "NpmDetector", "npm token", ("_authToken",), None),
    ("square_oauth", "SquareOAuthDetector", "Square OAuth secret", ("sq0csp-",), None),
    ("azure_storage_key", "AzureStorageKeyDetector", "Azure storage account key", ("AccountKey=",), None),
)

#: Formats detect-secrets lacks (gitleaks default config rule ids), and fallbacks for the
#: most common ones when detect-secrets or that plugin cannot be imported (``fallback`` True).
_OWN: tuple[tuple[str, tuple[str, ...], str, str, bool], ...] = (
    # what, triggers, pattern, source, fallback-only
    (
        "Anthropic API key",
        ("sk-ant-",),
        r"\bsk-ant-(?:api|admin)\d\d-[A-Za-z0-9_\-]{20,}",
        "gitleaks anthropic-api-key",
        False,
    ),
    (
        "OpenAI API key",
        ("sk-proj-", "sk-svcacct-", "sk-admin-"),
        r"\bsk-(?:proj|svcacct|admin)-[A-Za-z0-9_\-]{40,}",
        "gitleaks openai-api-key",
        False,
    ),
    (
        "GitHub fine-grained token",
        ("github_pat_",),
        r"\bgithub_pat_[A-Za-z0-9_]{40,}",
        "gitleaks github-fine-grained-pat",
        False,
    ),
    ("Google API key", ("AIza",), r"\bAIza[0-9A-Za-z_\-]{35}\b", "gitleaks gcp-api-key", False),
    (
        "Google OAuth client secret",
        ("GOCSPX-",),
        r"\bGOCSPX-[A-Za-z0-9_\-]{28}\b",
        "gitleaks gcp-oauth-secret",
        False,
    ),
    ("Hugging Face token", ("hf_",), r"\bhf_[A-Za-z]{34}\b", "gitleaks huggingface-access-token", False),
    (
        "Shopify token",
        ("shpat_", "shpss_", "shpca_", "shppa_"),
        r"\bshp(?:at|ss|ca|pa)_[a-fA-F0-9]{32}\b",
        "gitleaks shopify-access-token",
        False,
    ),
    (
        "DigitalOcean token",
        ("dop_v1_", "doo_v1_"),
        r"\bdo[po]_v1_[a-f0-9]{64}\b",
        "gitleaks digitalocean-pat",
        False,
    ),
    (
        "age secret key",
        ("AGE-SECRET-KEY-1",),
        r"\bAGE-SECRET-KEY-1[QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]{58}\b",
        "gitleaks age-secret-key",
        False,
    ),
    (
        "Slack app token",
        ("xapp-",),
        r"\bxapp-\d-[A-Z0-9]+-\d+-[a-z0-9]+\b",
        "gitleaks slack-app-token",
        False,
    ),
    (
        "private key",
        ("PRIVATE KEY", "PuTTY-User-Key-File"),
        (
            r"-----BEGIN (?:RSA |EC |DSA |OPENSSH |PGP |ENCRYPTED |SSH2 ENCRYPTED )?"
            r"PRIVATE KEY(?: BLOCK)?-----|PuTTY-User-Key-File-\d"
        ),
        "gitleaks private-key",
        False,
    ),
    # fallbacks (detect-secrets missing)
    (
        "AWS access key id",
        ("AKIA", "ASIA"),
        r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b",
        "gitleaks aws-access-token",
        True,
    ),
    (
        "GitHub token",
        ("ghp_", "gho_", "ghu_", "ghs_", "ghr_"),
        r"\bgh[pousr]_[A-Za-z0-9]{36,}\b",
        "gitleaks github-pat",
        True,
    ),
    ("GitLab token", ("glpat-",), r"\bglpat-[A-Za-z0-9_\-]{20,}\b", "gitleaks gitlab-pat", True),
    (
        "Slack token or webhook",
        ("xox",),
        r"\bxox[abposr]-[A-Za-z0-9-]{10,}\b",
        "gitleaks slack-bot-token",
        True,
    ),
    (
        "Stripe live key",
        ("k_live_",),
        r"\b[rs]k_live_[0-9a-zA-Z]{24,}\b",
        "gitleaks stripe-access-token",
        True,
    ),
)


def _library_patterns() -> tuple[list[SecretPattern], str | None]:
    """The detect-secrets rows (``_DETECT_SECRETS``) as patterns, and "detect-secrets <version>"
    (both empty/None when it is not installed). Imports it: ~0.1-0.2 s."""
    out: list[SecretPattern] = []
    try:
        import importlib

        import detect_secrets
    except ImportError:
        return out, None
    library = f"detect-secrets {getattr(detect_secrets, '__version__', '')}".strip()
    for mod, cls, what, triggers, which in _DETECT_SECRETS:
        try:
            plugin = getattr(importlib.import_module(f"detect_secrets.plugins.{mod}"), cls)()
            rxs = list(plugin.denylist)
        except Exception:  # noqa: BLE001 - a renamed plugin must not break lint; the others still run
            log.warning("detect-secrets plugin %s.%s is unavailable", mod, cls, exc_info=True)
            continue
        for i, rx in enumerate(rxs):
            if which is None or i in which:
                out.append(SecretPattern(what, triggers, rx, f"detect-secrets plugins/{mod}.py"))
    return out, library


def _own_patterns(loaded: set[str]) -> list[SecretPattern]:
    """The ``_OWN`` rows as patterns; a fallback row only when ``loaded`` (what the library's
    patterns cover) lacks its ``what``."""
    return [
        SecretPattern(what, triggers, re.compile(pattern), source)
        for what, triggers, pattern, source, fallback in _OWN
        if not (fallback and what in loaded)
    ]


_LOADED: list[tuple[tuple[SecretPattern, ...], str | None]] = []
_OWN_ONLY: list[tuple[SecretPattern, ...]] = []


def secret_patterns() -> tuple[tuple[SecretPattern, ...], str | None]:
    """(the secret patterns, "detect-secrets <version>" or None when it is not installed): the
    library's patterns first, then ``_OWN``'s (the first pattern matching a span names it).

    Built on first use: importing detect-secrets costs ~0.1-0.2 s (its package imports its whole
    scanner), so a process pays it only when a text holds one of its literals (``find_secrets``)."""
    if not _LOADED:
        _LOADED.append(_build_secret_patterns())
    return _LOADED[0]


def _build_secret_patterns() -> tuple[tuple[SecretPattern, ...], str | None]:
    lib, library = _library_patterns()
    return tuple(lib) + tuple(_own_patterns({p.what for p in lib})), library


def _own_only_patterns() -> tuple[SecretPattern, ...]:
    """``secret_patterns()`` restricted to the rows whose literals no library row has: for a
    text holding none of ``LIBRARY_TRIGGERS`` it finds the same (the library's patterns and the
    fallback rows all need one of them), without importing detect-secrets."""
    if _LOADED:
        return _LOADED[0][0]
    if not _OWN_ONLY:
        _OWN_ONLY.append(tuple(_own_patterns({row[2] for row in _DETECT_SECRETS})))
    return _OWN_ONLY[0]


#: The literals of the detect-secrets rows (a text with none of them needs no library import).
LIBRARY_TRIGGERS: frozenset[str] = frozenset(t for row in _DETECT_SECRETS for t in row[3])
#: Every trigger literal (the pre-check), known without importing detect-secrets.
SECRET_TRIGGERS: tuple[str, ...] = tuple(sorted(LIBRARY_TRIGGERS | {t for row in _OWN for t in row[1]}))
PLACEHOLDER = re.compile(
    r"(?i)example|x{4,}|\.\.\.|your[_-]?|dummy|fake|placeholder|redacted|0{8,}|1234567|"
    r"abcdef|a1b2c3|<[a-z_-]+>"
)


def _automata() -> tuple[Any, Any]:
    """Aho-Corasick automata of ``SECRET_TRIGGERS`` (ahocorasick-rs, the Rust ``aho-corasick``
    crate, built as a DFA) for bytes and for str, or (None, None) without the package. The bytes
    one only answers "is there a match" (``has_secret_candidate``), so it is built leftmost-first:
    a match exists under that kind exactly when one exists under the standard kind, and only a
    leftmost kind lets the crate use its SIMD prefilter (Teddy) instead of stepping the DFA over
    every byte. The str one keeps the standard kind (``secret_triggers_in`` needs overlapping
    matches)."""
    try:
        import ahocorasick_rs as ac
    except ImportError:
        return None, None
    dfa = ac.Implementation.DFA
    return (
        ac.BytesAhoCorasick(
            [t.encode() for t in SECRET_TRIGGERS], matchkind=ac.MatchKind.LeftmostFirst, implementation=dfa
        ),
        ac.AhoCorasick(list(SECRET_TRIGGERS), implementation=dfa),
    )


#: The pre-check: one pass over the text for all ~50 literals. Measured on the bench's tree
#: (2,000 SKILL.md files, loaded 2-core VM) per file: ~10 µs on the UTF-8 bytes with a standard
#: DFA (2.3-2.6 µs leftmost-first, the prefilter; 2,000 files of the real 10k tree, min of 7)
#: against ~55-170 µs for pyahocorasick on str and ~140-280 µs for one ``in`` per literal.
_BYTES_AC, _STR_AC = _automata()


def has_secret_candidate(text: str | bytes) -> bool:
    """True when ``text`` (str, or its UTF-8 bytes: cheaper, lint passes ``ctx.utf8``) holds a
    literal some secret pattern needs (one automaton pass, or one ``in`` per literal without
    ahocorasick-rs)."""
    if isinstance(text, bytes):
        if _BYTES_AC is not None:
            return bool(_BYTES_AC.find_matches_as_indexes(text))
        return any(t.encode() in text for t in SECRET_TRIGGERS)
    if _STR_AC is not None:
        return bool(_STR_AC.find_matches_as_indexes(text))
    return any(t in text for t in SECRET_TRIGGERS)


def secret_triggers_in(text: str) -> set[str]:
    """The ``SECRET_TRIGGERS`` that occur in ``text`` (overlapping occurrences included)."""
    if _STR_AC is not None:
        return set(_STR_AC.find_matches_as_strings(text, overlapping=True))
    return {t for t in SECRET_TRIGGERS if t in text}


def find_secrets(text: str) -> list[SecretMatch]:
    """Credential-like tokens in ``text``, in order of position (one per span: the first
    pattern that matches a span wins). Placeholder values are returned with ``placeholder``
    True; a private-key header whose next 200 characters are elided or shorter than 40 is a
    placeholder too. Only patterns one of whose ``triggers`` occurs in ``text`` run;
    detect-secrets is imported only when one of ``LIBRARY_TRIGGERS`` occurs. Never raises."""
    hit = secret_triggers_in(text)
    if not hit:
        return []
    table = secret_patterns()[0] if hit & LIBRARY_TRIGGERS else _own_only_patterns()
    return match_patterns(text, [p for p in table if not hit.isdisjoint(p.triggers)])


def match_patterns(text: str, patterns: list[SecretPattern]) -> list[SecretMatch]:
    """Every pattern of ``patterns`` run on ``text`` (no pre-check), as ``find_secrets`` returns
    them: in order of position, one per span (the first pattern matching a span wins)."""
    out: list[SecretMatch] = []
    seen: set[tuple[int, int]] = set()
    for p in patterns:
        for m in p.regex.finditer(text):
            s, e = m.span()
            if (s, e) in seen or any(a <= s < b for a, b in seen):
                continue
            seen.add((s, e))
            token = m.group(0)
            if p.what == "private key":
                tail = text[e : e + 200]
                fake = bool(PLACEHOLDER.search(tail)) or len(tail.strip()) < 40
            else:
                fake = bool(PLACEHOLDER.search(token))
            out.append(SecretMatch(s, e, p.what, fake, p.source))
    out.sort(key=lambda x: x.start)
    return out


# ---------------------------------------------------------------------------------------------
# Unicode

#: Bidirectional controls (U+202A-U+202E, U+2066-U+2069, LRM, RLM, ALM).
BIDI_CHARS = "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f\u061c"
BIDI_RE = re.compile("[" + BIDI_CHARS + "]+")
#: Invisible characters in the BMP (zero-width space/joiners, word joiner, invisible operators,
#: BOM, soft hyphen, Mongolian vowel separator).
INVISIBLE_BMP = "\u200b\u200c\u200d\u2060\u2061\u2062\u2063\u2064\ufeff\u00ad\u180e"
#: Hangul fillers: render as blank space (the Workshop's checks only).
HANGUL_FILLERS = "\u115f\u1160\u3164\uffa0"
#: Unicode tag characters U+E0000-U+E007F (invisible ASCII a model can read), as a class range.
TAG_RANGE = "\U000e0000-\U000e007f"
INVISIBLE_RE = re.compile("[" + INVISIBLE_BMP + TAG_RANGE + "]+")
#: One hidden character of any kind: bidi, invisible, Hangul filler or tag (one per match).
HIDDEN_RE = re.compile("[" + BIDI_CHARS + INVISIBLE_BMP + HANGUL_FILLERS + TAG_RANGE + "]")


def is_tag(ch: str) -> bool:
    """A Unicode tag character (``TAG_RANGE``)."""
    return 0xE0000 <= ord(ch) <= 0xE007F


# ---------------------------------------------------------------------------------------------
# injection phrasing

#: Look-alike letters folded to ASCII (Cyrillic and Greek letters that render like Latin ones;
#: Unicode confusables.txt, the common subset). Fullwidth/mathematical letters go through NFKC.
_CONFUSABLES = {
    "а": "a",
    "е": "e",
    "о": "o",
    "р": "p",
    "с": "c",
    "у": "y",
    "х": "x",
    "і": "i",
    "ј": "j",
    "ѕ": "s",
    "ԁ": "d",
    "һ": "h",
    "ӏ": "l",
    "ԛ": "q",
    "ԝ": "w",
    "ɡ": "g",
    "ı": "i",
    "ɪ": "i",
    "ɴ": "n",
    "ʀ": "r",
    "А": "A",
    "В": "B",
    "Е": "E",
    "К": "K",
    "М": "M",
    "Н": "H",
    "О": "O",
    "Р": "P",
    "С": "C",
    "Т": "T",
    "Х": "X",
    "І": "I",
    "Ѕ": "S",
    "Ј": "J",
    "α": "a",
    "ο": "o",
    "ε": "e",
    "ι": "i",
    "κ": "k",
    "ν": "v",
    "ρ": "p",
    "τ": "t",
    "υ": "u",
    "χ": "x",
    "Α": "A",
    "Β": "B",
    "Ε": "E",
    "Ι": "I",
    "Κ": "K",
    "Μ": "M",
    "Ν": "N",
    "Ο": "O",
    "Ρ": "P",
    "Τ": "T",
    "Χ": "X",
    "Υ": "Y",
    "Ζ": "Z",
}


def skeleton(text: str) -> tuple[str, list[int]]:
    """``text`` with invisible/bidi/tag characters removed and look-alike letters folded to
    ASCII, plus ``removed``: the sorted original offsets of the removed characters. Map a
    skeleton offset back with ``original_offset``. ASCII text is returned as is."""
    if text.isascii():
        return text, []
    table: dict[int, str] = {}
    for ch in set(text):
        if ch in _CONFUSABLES:
            table[ord(ch)] = _CONFUSABLES[ch]
        elif ord(ch) > 0x7F and ch not in BIDI_CHARS:
            n = unicodedata.normalize("NFKC", ch)
            if len(n) == 1 and n.isascii() and n.isalpha():
                table[ord(ch)] = n
    folded = text.translate(table) if table else text
    removed = [m.start() for m in HIDDEN_RE.finditer(folded)]
    return (HIDDEN_RE.sub("", folded) if removed else folded), removed


def original_offset(removed: list[int], off: int) -> int:
    """The offset in the original text of skeleton offset ``off`` (see ``skeleton``)."""
    if not removed:
        return off
    # the k-th kept character is at original index off + (number of removed indexes <= it)
    lo, hi = off, off + len(removed)
    while lo < hi:
        mid = (lo + hi) // 2
        if mid - bisect.bisect_right(removed, mid) < off:
            lo = mid + 1
        else:
            hi = mid
    while lo in removed:  # pragma: no cover - defensive
        lo += 1
    return lo


@dataclass(frozen=True, slots=True)
class InjectionRule:
    """An injection phrasing: ``code`` and ``severity`` as in the table of ``workshop.risks``; ``regex`` runs on
    the skeleton (``\\s`` there may span line breaks); ``triggers`` are lowercase literals of
    which one must occur in the lowercased skeleton."""

    code: str
    severity: str
    regex: re.Pattern[str]
    message: str
    triggers: tuple[str, ...]


#: Between two words: spaces, line breaks, Markdown emphasis/quote markers.
_W = r"[\s*_`>~\"']+"
_VERB = r"(?:ignore|disregard|forget|override|bypass|skip|drop)"
_OBJ = (
    r"(?:instructions?|prompts?|rules|messages|directions|guidelines|guardrails|constraints|directives|"
    r"context|policies)"
)
_PRE = (
    r"(?:previous|prior|above|earlier|preceding|system|original|developer|safety|initial|existing|"
    r"all\s+(?:of\s+)?(?:the\s+|your\s+)?(?:previous\s+|prior\s+|above\s+)?)"
)
_POST = (
    r"(?:above|before|so\s+far|earlier|you\s+(?:were|have\s+been)\s+given|given\s+(?:to\s+you|above|earlier)|"
    r"from\s+(?:the\s+)?(?:system|developer|user|anthropic|openai)|in\s+(?:the\s+|your\s+)?system\s+prompt)"
)
_DET = (
    r"(?:(?:all|any|every)"
    + _W
    + r")?(?:of"
    + _W
    + r")?(?:the|your|these|those|my|its)?"
    + r"(?:"
    + _W
    + r")?"
)

INJECTION_RULES: tuple[InjectionRule, ...] = (
    InjectionRule(
        "WS-INJECT",
        "critical",
        re.compile(
            r"\b" + _VERB + _W + _DET + _PRE.replace(r"\s", _W) + r"(?:" + _W + r")?" + _OBJ + r"\b"
            r"|\b"
            + _VERB
            + _W
            + r"(?:all"
            + _W
            + r"|any"
            + _W
            + r")?(?:of"
            + _W
            + r")?(?:the|your)"
            + _W
            + _OBJ
            + _W
            + _POST.replace(r"\s", _W)
            + r"\b"
            r"|\b" + _VERB + _W + r"your" + _W + r"(?:" + _PRE.replace(r"\s", _W) + r")?" + _OBJ + r"\b"
            r"|\bnew" + _W + r"instructions?" + _W + r"(?:follow|supersede|override|replace)",
            re.IGNORECASE,
        ),
        "prompt-injection phrasing: tells the model to ignore its instructions",
        ("ignor", "disregard", "forget", "overrid", "bypass", "skip", "drop", "new"),
    ),
)


@dataclass(frozen=True, slots=True)
class InjectionMatch:
    """An injection phrase in the original text: ``start``/``end`` code-point offsets."""

    start: int
    end: int
    code: str
    severity: str
    message: str
    text: str


def find_injections(text: str) -> list[InjectionMatch]:
    """Injection phrasings in ``text`` (see ``INJECTION_RULES``), positioned in the original
    text even when the phrase hides behind homoglyphs, zero-width characters or line breaks."""
    skel, removed = skeleton(text)
    low = skel.lower()
    out: list[InjectionMatch] = []
    for rule in INJECTION_RULES:
        if not any(t in low for t in rule.triggers):
            continue
        for m in rule.regex.finditer(skel):
            s = original_offset(removed, m.start())
            e = original_offset(removed, m.end() - 1) + 1
            out.append(InjectionMatch(s, e, rule.code, rule.severity, rule.message, text[s:e]))
    return out
