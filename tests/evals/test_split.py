"""Stratified, seeded train/test split."""

from __future__ import annotations

import pytest

from workbench.core.evals.queryset import Query
from workbench.core.evals.split import split_queries


def qs(npos, nneg):
    return [Query(f"p{i}", True) for i in range(npos)] + [Query(f"n{i}", False) for i in range(nneg)]


def test_stratified_sizes_and_determinism():
    q = qs(10, 10)
    s = split_queries(q)
    assert len(s.test) == 8 and len(s.train) == 12
    assert sum(q[i].should_trigger for i in s.test) == 4
    assert sorted(s.train + s.test) == list(range(20)) and not set(s.train) & set(s.test)
    assert split_queries(q).test == s.test  # fixed seed 42
    assert split_queries(q, seed=7).test != s.test
    assert s.to_json()["seed"] == 42 and s.to_json()["holdout"] == 0.4


def test_at_least_one_per_class_and_no_split():
    s = split_queries(qs(2, 3), 0.1)
    assert len(s.test) == 2  # max(1, int(2*0.1)) + max(1, int(3*0.1))
    s0 = split_queries(qs(2, 3), 0.0)
    assert s0.test == [] and s0.train == list(range(5))
    s1 = split_queries(qs(1, 4))
    assert any("all held out" in w for w in s1.warnings)
    with pytest.raises(ValueError):
        split_queries(qs(2, 2), 1.0)
