"""``rules._util.PhraseSearch`` (issue 14: DESC004/005/010 over every description) finds exactly
what ``re.search("(?i)" + pattern)`` finds: same match, same groups, on ASCII and other text."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from workbench.core.lint.rules._util import PhraseSearch
from workbench.core.lint.rules.desc004_no_when import _WHEN
from workbench.core.lint.rules.desc005_person import _ANY
from workbench.core.lint.rules.desc010_placeholder import _PH
from workbench.core.skillfile import read_skill_file
from workbench.core.skillwalk import find_skill_files

SEARCHES = {"DESC004": _WHEN, "DESC005": _ANY, "DESC010": _PH}


def _regs(m: object) -> object:
    return None if m is None else m.regs  # type: ignore[attr-defined]


def _agree(ps: PhraseSearch, text: str) -> None:
    assert _regs(ps.search(text)) == _regs(ps.ci.search(text)), text


_WORDS = [w for ps in SEARCHES.values() for w in ps.literals]
_WORDS += ["When", "WHENEVER", "Use this", "used when", "I can", "We'll", "You should", "TODO", "Lorem Ipsum"]
_WORDS += [
    "[Insert name]",
    "[description]",
    "replace me with a description",
    "a",
    "x",
    "user",
    "askew",
    "ſ",
    "İ",
]


@settings(max_examples=500, deadline=None)
@given(st.lists(st.sampled_from(_WORDS + [" ", "-", "'", "_", ".", "\n", "é"]), max_size=12))
def test_generated_text_agrees(parts: list[str]) -> None:
    text = "".join(parts)
    for ps in SEARCHES.values():
        _agree(ps, text)


@pytest.mark.parametrize("code", sorted(SEARCHES))
def test_corpus_descriptions_and_body_lines_agree(code: str, corpus) -> None:
    ps = SEARCHES[code]
    n = 0
    for p in find_skill_files(corpus):
        sf = read_skill_file(p)
        d = sf.get("description") if sf.ok else None
        if isinstance(d, str):
            _agree(ps, d)
            n += 1
        for line in sf.body.splitlines()[:40]:
            _agree(ps, line)
    assert n > 1000


def test_message_keeps_the_original_case():
    from workbench.core.lint import lint_text

    diags = lint_text("---\nname: a\ndescription: Here We'll help. TODO later\n---\n")
    msgs = {d.code: d.message for d in diags}
    assert "('We'll')" in msgs["DESC005"].replace('"', "'")
    assert "'TODO'" in msgs["DESC010"]
