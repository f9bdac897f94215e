"""Issue 14: the cheap pre-checks of SEC001, SEC002, SEC003 and SEC006 (one automaton pass over
the UTF-8 bytes; ``odd_bytes``) find exactly what the old ones found, on generated text
(hypothesis) and on every SKILL.md of the corpus."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from workbench.core import riskpatterns
from workbench.core.lint.rules import sec002_bidi, sec003_invisible, sec006_control_char
from workbench.core.riskpatterns import (
    BIDI_CHARS,
    INVISIBLE_BMP,
    SECRET_TRIGGERS,
    SecretMatch,
    find_secrets,
    has_secret_candidate,
    match_patterns,
    secret_patterns,
)

_CORPUS = Path(os.environ.get("WB_SHARED", "/nonexistent")) / "corpus"


def _old_find_secrets(text: str) -> list[SecretMatch]:
    """``find_secrets`` before the fast path: one ``in`` per literal, the whole table (the
    pattern loop itself, ``match_patterns``, is unchanged)."""
    if not any(t in text for t in SECRET_TRIGGERS):
        return []
    table = secret_patterns()[0]
    return match_patterns(text, [p for p in table if any(t in text for t in p.triggers)])


_OLD_CONTROL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")


def _old_gates(text: str) -> tuple[bool, bool, bool]:
    """The pre-checks of SEC002, SEC003 and SEC006 before the fast path (on the str)."""
    ascii_ = text.isascii()
    bidi = not ascii_ and any(c in text for c in BIDI_CHARS)
    utf8 = text.encode("utf-8", "surrogatepass")
    invisible = not ascii_ and (any(c in text for c in INVISIBLE_BMP) or b"\xf3\xa0" in utf8)
    control = _OLD_CONTROL.search(text) is not None or (
        "\r" in text and text.count("\r") != text.count("\r\n")
    )
    return bidi, invisible, control


class _Ctx:
    """The parts of LintContext the pre-checks read."""

    def __init__(self, text: str):
        self.text = text
        self.is_ascii = text.isascii()
        self.utf8 = text.encode("utf-8", "surrogatepass")
        self.odd = sec002_bidi.odd_bytes(self.utf8)


def _new_gates(text: str) -> tuple[bool, bool, bool]:
    ctx = _Ctx(text)
    odd = sec002_bidi.odd_bytes(ctx.utf8)
    bidi = not ctx.is_ascii and sec002_bidi.has_bidi(odd)
    invisible = not ctx.is_ascii and sec003_invisible.has_invisible(odd)
    assert bidi == (not ctx.is_ascii and any(c in odd for c in sec002_bidi.BIDI_UTF8))
    assert invisible == (not ctx.is_ascii and any(c in odd for c in sec003_invisible._UTF8))
    control = sec006_control_char._has_control(ctx)  # type: ignore[arg-type]
    return bidi, invisible, control


#: Pieces of text: the secret literals and tails that complete them, hidden and control
#: characters, CR/LF, C1 controls, multi-byte characters whose UTF-8 bytes resemble the targets.
_PIECES = st.sampled_from(
    [
        *SECRET_TRIGGERS,
        "Zq3v9LkP2mN8xR4tY7wB1cD5eF6gH0jK3lM9",
        "EXAMPLE",
        "api03-",
        "v1_" + "a" * 64,
        "-----BEGIN RSA ",
        " ",
        "\n",
        "\r\n",
        "\r",
        "\t",
        "\x1b[31m",
        "\x00",
        "\x7f",
        "\x85",
        "\x9b",
        "\xa0",
        "\xad",
        "é",
        "€",
        "—",
        "\u2028",
        "\u2066",
        "\u202e",
        "\u200b",
        "\u200d",
        "\ufeff",
        "\U000e0041",
        "\U0001f600",
        "日本",
        "\u061c",
    ]
)
_TEXTS = st.lists(st.one_of(_PIECES, st.text(max_size=8)), max_size=40).map("".join)


@settings(max_examples=400, deadline=None)
@given(_TEXTS)
def test_fast_secret_path_finds_what_the_old_one_found(text):
    assert find_secrets(text) == _old_find_secrets(text)
    want = any(t in text for t in SECRET_TRIGGERS)
    assert has_secret_candidate(text) is want
    assert has_secret_candidate(text.encode("utf-8", "surrogatepass")) is want
    assert riskpatterns.secret_triggers_in(text) == {t for t in SECRET_TRIGGERS if t in text}


@settings(max_examples=400, deadline=None)
@given(_TEXTS)
def test_unicode_and_control_prechecks_agree_with_the_old_ones(text):
    assert _new_gates(text) == _old_gates(text)


def test_odd_bytes_keeps_only_what_the_rules_look_for():
    data = "a\tb\r\nc é\x1b\u202e".encode()
    assert sec002_bidi.odd_bytes(data) == "é\x1b\u202e".encode()
    assert sec002_bidi.odd_bytes(b"plain\n") == b""


@pytest.mark.skipif(not _CORPUS.is_dir(), reason="needs the shared corpus (WB_SHARED)")
def test_fast_paths_agree_with_the_old_ones_on_the_corpus():
    files = sorted(_CORPUS.rglob("SKILL.md"))
    assert len(files) > 1000
    for f in files:
        text = f.read_bytes().decode("utf-8", "replace")
        assert find_secrets(text) == _old_find_secrets(text), f
        assert has_secret_candidate(text.encode("utf-8", "surrogatepass")) == has_secret_candidate(text), f
        assert _new_gates(text) == _old_gates(text), f


def test_own_formats_do_not_import_detect_secrets():
    """A text holding only literals of the gitleaks rows (here a Hugging Face token) is checked
    without importing detect-secrets (~0.1-0.2 s); an AWS key id imports it."""
    code = (
        "import sys\n"
        "from workbench.core.riskpatterns import find_secrets\n"
        "a = [m.what for m in find_secrets('x 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 y')]\n"
        "b = 'detect_secrets' in sys.modules\n"
        "c = [m.what for m in find_secrets('key AKIAQWERTYUIOPASDFGH')]\n"
        "print(a, b, c, 'detect_secrets' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "['Hugging Face token'] False ['AWS access key id'] True"


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=80), st.booleans())
def test_context_utf8_is_the_text_s_utf8(data: bytes, bom: bool) -> None:
    """``LintContext.utf8`` is the file's own bytes when they are valid UTF-8 (no encoding of the
    text): always ``text.encode("utf-8", "surrogatepass")``, whatever the bytes."""
    from workbench.core.lint.context import LintContext
    from workbench.core.lint.profiles import lint_profile
    from workbench.core.skillfile import parse_skill_bytes, parse_skill_text

    raw = (b"\xef\xbb\xbf" if bom else b"") + b"---\nname: a\n---\n" + data
    prof = lint_profile("agentskills")
    for sf in (parse_skill_bytes(raw), parse_skill_text(raw.decode("utf-8", "surrogateescape"))):
        ctx = LintContext(sf, prof)
        assert ctx.utf8 == ctx.text.encode("utf-8", "surrogatepass")


def test_bytes_precheck_finds_every_trigger_and_no_truncated_one():
    """The bytes automaton is leftmost-first (its SIMD prefilter): whether it finds a match must
    not depend on the match kind, wherever the literal sits and whatever surrounds it."""
    for t in SECRET_TRIGGERS:
        for text in (t, f"x {t}", f"{t} y", "é" * 40 + t + "z" * 40, t[:-1] + " " + t[1:]):
            want = any(s in text for s in SECRET_TRIGGERS)
            assert has_secret_candidate(text.encode()) is want, text
            assert has_secret_candidate(text) is want, text
        assert has_secret_candidate(t[:-1].encode()) is any(s in t[:-1] for s in SECRET_TRIGGERS)
