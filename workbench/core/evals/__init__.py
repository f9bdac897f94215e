"""Trigger evaluation: does a skill load for the requests it should, and only those?

* ``queryset`` — load/validate/save query sets (skill-creator JSON, YAML two-list forms).
* ``runner`` — ``run_eval`` / ``EvalRunner``: queries x runs through the real chat loop
  (``workbench.core.chat.engine``), in parallel with a shared rate-limit cool-down.
* ``metrics`` — Wilson intervals, pass/fail, precision/recall/F1/accuracy, cost estimate.
* ``split`` — stratified, seeded train/test split.
* ``improve`` — the description-improvement loop ending in a workshop proposal.
* ``history`` — JSON history of runs per skill and description (under the state dir).
* ``export`` — CSV/JSON export of a report.
"""

from workbench.core.evals.metrics import estimate_cost, summarize, wilson_interval
from workbench.core.evals.queryset import (
    Query,
    QuerySet,
    QuerySetError,
    load_queries,
    parse_queries,
    save_queries,
)
from workbench.core.evals.runner import (
    EvalOptions,
    EvalReport,
    EvalRunner,
    EvalSetupError,
    QueryResult,
    eval_catalog,
    run_eval,
)
from workbench.core.evals.split import Split, split_queries

__all__ = [
    "Query",
    "QuerySet",
    "QuerySetError",
    "load_queries",
    "parse_queries",
    "save_queries",
    "EvalOptions",
    "EvalReport",
    "EvalRunner",
    "EvalSetupError",
    "QueryResult",
    "eval_catalog",
    "run_eval",
    "Split",
    "split_queries",
    "estimate_cost",
    "summarize",
    "wilson_interval",
]
