"""Plain lexical overlap between skill descriptions (for "which listed skills compete with mine?").

This is deliberately simple and labelled as such everywhere it is shown: **Jaccard similarity over
word sets**, lower-cased, stop words removed, words of one character dropped, a crude plural strip
("tests" -> "test"). It says nothing about meaning; two descriptions that use different words for
the same job score 0. The stop-word list is our own short English list.

Example::

    >>> round(jaccard("Fill PDF forms and extract text", "Extract text from PDF files"), 2)
    0.5
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

LABEL = "lexical similarity (Jaccard over description word sets, stop words removed; not semantic)"

_WORD = re.compile(r"[^\W_]+", re.UNICODE)

#: Our own list of English function words and skill-description boilerplate.
STOP_WORDS = frozenset(
    """
a an and are as at be been being but by can could do does for from has have how i if in into is it
its itself may me more most must my no not of on or our should so some such than that the their them
then there these they this those through to too use used uses using very was we were what when where
which while who will with would you your yours also any all each other only own same both few just
about against between during before after above below up down out off over under again further once
here why s t don now skill skills user users claude agent task tasks e g eg etc via like need needs
want wants asks asked ask help helps whenever including include includes
""".split()
)


def words(text: str) -> frozenset[str]:
    """The comparable word set of ``text`` (see module docstring)."""
    out: set[str] = set()
    for w in _WORD.findall(text.casefold()):
        if len(w) < 2 or w in STOP_WORDS:
            continue
        if len(w) > 3 and w.endswith("s") and not w.endswith("ss"):
            w = w[:-1]
        out.add(w)
    return frozenset(out)


def jaccard(a: str | frozenset[str], b: str | frozenset[str]) -> float:
    """|A ∩ B| / |A ∪ B| over ``words``; 0.0 when both are empty."""
    wa = a if isinstance(a, frozenset) else words(a)
    wb = b if isinstance(b, frozenset) else words(b)
    if not wa or not wb:
        return 0.0
    return len(wa & wb) / len(wa | wb)


@dataclass
class Overlap:
    """One competing skill: key (usually its path), name, score in [0, 1], shared words."""

    key: str
    name: str
    score: float
    shared: list[str]

    def to_json(self) -> dict[str, Any]:
        """The JSON shape: ``{path, name, score (3 decimals), shared_words}``."""
        return {
            "path": self.key,
            "name": self.name,
            "score": round(self.score, 3),
            "shared_words": self.shared,
        }


def top_overlaps(
    text: str, candidates: Iterable[tuple[str, str, str]], k: int = 3, min_score: float = 0.0
) -> list[Overlap]:
    """The ``k`` candidates (key, name, text) whose text overlaps most with ``text``.

    Ties are broken by name. Candidates scoring <= ``min_score`` are left out.
    """
    mine = words(text)
    scored: list[Overlap] = []
    for key, name, other in candidates:
        ow = words(other)
        s = jaccard(mine, ow)
        if s > min_score:
            scored.append(Overlap(key, name, s, sorted(mine & ow)))
    scored.sort(key=lambda o: (-o.score, o.name))
    return scored[:k]
