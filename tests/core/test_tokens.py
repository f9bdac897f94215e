"""One token estimator (issue 15 item 3) and one meaning per ``get_profile`` (item 8)."""

from __future__ import annotations

import pytest

from workbench.core import listing, tokens
from workbench.core.lint import lint_text
from workbench.core.tokens import estimate_tokens


@pytest.mark.parametrize(
    ("chars", "expected"), [(-3, 0), (0, 0), (1, 1), (3, 1), (4, 1), (5, 2), (8, 2), (21_000, 5_250)]
)
def test_estimate_is_ceil_of_chars_over_four(chars: int, expected: int) -> None:
    assert tokens.CHARS_PER_TOKEN == 4
    assert estimate_tokens(chars) == expected


def test_every_user_of_an_estimate_shares_the_one_function() -> None:
    from workbench.core.capture import recorder
    from workbench.core.chat import engine
    from workbench.core.clients.agentskills import listing as agentskills_listing
    from workbench.core.lint.rules import body002_too_many_tokens as body002

    assert listing.estimate_tokens is estimate_tokens
    for mod in (engine, recorder, agentskills_listing, body002):
        assert mod.estimate_tokens is estimate_tokens, mod.__name__


def test_listing_figure_counts_code_points() -> None:
    # 5 chars → 2; "é" and "😀" are one character each (not UTF-8 bytes, not UTF-16 units)
    assert listing.ListingReport("agentskills", None, "abcde", "system").token_estimate == 2
    assert listing.ListingReport("agentskills", None, "é😀é😀", "system").token_estimate == 1


_HEAD = (
    "---\nname: pdf-tools\ndescription: Extracts text from PDF files. Use when asked to read a PDF.\n---\n"
)


def test_body002_findings_unchanged() -> None:
    at_limit = [d for d in lint_text(_HEAD + "x" * 19_999 + "\n") if d.code == "BODY002"]
    assert at_limit == []
    over = [d for d in lint_text(_HEAD + "x" * 20_999 + "\n") if d.code == "BODY002"]
    assert [d.message for d in over] == [
        "the body is ≈5,250 tokens (estimate: 21,000 chars / 4); keep it under 5,000 and move "
        "details into references/ files"
    ]
    assert over[0].line == 5


def test_get_profile_has_one_meaning() -> None:
    import workbench.core.lint as lint
    from workbench.core.clients import get_profile
    from workbench.core.clients.base import ClientProfile
    from workbench.core.lint.profiles import Profile, lint_profile

    assert isinstance(get_profile("codex"), ClientProfile)
    assert isinstance(lint_profile("codex"), Profile)
    assert lint.lint_profile is lint_profile
    assert not hasattr(lint, "get_profile")
    with pytest.raises(KeyError, match="unknown lint profile"):
        lint_profile("nope")
