"""``spans.Span`` hands out one object per value (issue 14, round 7: a kept ``Span`` costs a
third of the frozen dataclass's ``__init__``); it stays an immutable value in every other way."""

from __future__ import annotations

import copy
import dataclasses
import pickle

import pytest

from workbench.core import spans
from workbench.core.spans import Span, mkspan


def test_equal_spans_are_one_value_and_behave_as_before(monkeypatch):
    monkeypatch.setattr(spans, "_INTERNED", {})  # (other tests may have filled it)
    a, b = Span(1, 2, 3, 4), Span(line=1, column=2, end_line=3, end_column=4)
    assert a == b and hash(a) == hash(b) and a is b is mkspan(1, 2, 3, 4)
    assert repr(a) == "Span(line=1, column=2, end_line=3, end_column=4)"
    assert (a.line, a.column, a.end_line, a.end_column) == (1, 2, 3, 4)
    assert dataclasses.astuple(a) == (1, 2, 3, 4) and [f.name for f in dataclasses.fields(Span)] == [
        "line",
        "column",
        "end_line",
        "end_column",
    ]
    assert dataclasses.replace(a, line=9) == Span(9, 2, 3, 4)
    assert Span.point(3) == Span(3, 1, 3, 2) and Span(1, 2, 3, 4) != Span(1, 2, 3, 5)
    with pytest.raises(dataclasses.FrozenInstanceError):
        a.line = 5  # type: ignore[misc]
    with pytest.raises(TypeError):
        Span(1, 2, 3)  # type: ignore[call-arg]


def test_pickle_and_copy_keep_the_value():
    a = Span(7, 1, 8, 2)
    for b in (pickle.loads(pickle.dumps(a)), copy.copy(a), copy.deepcopy(a)):
        assert b == a and type(b) is Span


def test_the_kept_spans_are_bounded(monkeypatch):
    monkeypatch.setattr(spans, "_INTERNED", {})
    monkeypatch.setattr(spans, "_INTERN_MAX", 3)
    made = [mkspan(100 + i, 1, 100 + i, 2) for i in range(10)]
    assert len(spans._INTERNED) == 3
    assert [Span(100 + i, 1, 100 + i, 2) for i in range(10)] == made  # equal, kept or not
