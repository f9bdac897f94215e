"""Stratified train/test split of a query set (agentskills.io "Optimizing skill descriptions";
skill-creator ``scripts/run_loop.py`` as described in validators.md section 3.1).

Algorithm (reproduced, own code): one ``random.Random(seed)`` (seed 42 by default); the
should-trigger queries and the should-not-trigger queries are each taken in file order and
shuffled (positives first, then negatives, with the same generator); from each class
``max(1, int(n * holdout))`` go to the test set (the first ones after shuffling), the rest to train.
``holdout == 0`` disables the split (everything is train). A class with a single query puts it in
the test set (as skill-creator does); the split records that as a warning.

The split is saved with the results (``Split.to_json``: indices into the query list, seed,
holdout) so an improvement run can be reproduced and audited.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any

from workbench.core.evals.queryset import Query

DEFAULT_SEED = 42
DEFAULT_HOLDOUT = 0.4


@dataclass
class Split:
    """Indices (into the query list) of the train and test parts, both ascending."""

    train: list[int]
    test: list[int]
    seed: int = DEFAULT_SEED
    holdout: float = DEFAULT_HOLDOUT
    warnings: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {
            "train": list(self.train),
            "test": list(self.test),
            "seed": self.seed,
            "holdout": self.holdout,
            "warnings": list(self.warnings),
        }


def split_queries(queries: list[Query], holdout: float = DEFAULT_HOLDOUT, seed: int = DEFAULT_SEED) -> Split:
    """Split ``queries`` (module docstring). Raises ValueError when ``holdout`` is outside [0, 1)."""
    if not 0.0 <= holdout < 1.0:
        raise ValueError(f"holdout must be in [0, 1) (got {holdout})")
    idx = list(range(len(queries)))
    if holdout == 0:
        return Split(idx, [], seed, holdout)
    rng = random.Random(seed)
    train: list[int] = []
    test: list[int] = []
    warnings: list[str] = []
    for label in (True, False):
        cls = [i for i in idx if queries[i].should_trigger == label]
        if not cls:
            continue
        rng.shuffle(cls)
        n_test = max(1, int(len(cls) * holdout))
        test += cls[:n_test]
        train += cls[n_test:]
        if len(cls) - n_test == 0:
            kind = "should-trigger" if label else "should-not-trigger"
            warnings.append(
                f"only {len(cls)} {kind} quer{'y' if len(cls) == 1 else 'ies'}: all held out, "
                "none left for training; add more"
            )
    return Split(sorted(train), sorted(test), seed, holdout, warnings)
