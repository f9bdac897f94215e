"""Issue 15: an ``EvalRunner`` closes only the SDK client it made from ``api_key``; ``run_eval`` and
``improve_description`` close theirs before returning."""

from __future__ import annotations

from workbench.core.chat import backend
from workbench.core.evals.improve import improve_description
from workbench.core.evals.queryset import Query
from workbench.core.evals.runner import EvalOptions, EvalRunner, run_eval


def _made(monkeypatch) -> list[object]:
    """Every client ``backend.make_client`` makes."""
    made: list[object] = []
    real = backend.make_client

    def make(*a, **kw):
        made.append(real(*a, **kw))
        return made[-1]

    monkeypatch.setattr(backend, "make_client", make)
    return made


def test_runner_closes_only_its_own_client(fake, catalog, settings, monkeypatch):
    made = _made(monkeypatch)
    qs = [Query("q1 merge", True)]
    with EvalRunner(catalog, "pdf", qs, settings=settings, api_key="sk-test") as runner:
        runner.run()
    assert len(made) == 1 and made[0].is_closed()
    mine = fake.client()
    with EvalRunner(catalog, "pdf", qs, settings=settings, client=mine) as runner:
        runner.run()
    assert len(made) == 1 and not mine.is_closed()


def test_run_eval_and_improve_close_the_clients_they_made(fake, catalog, settings, monkeypatch):
    made = _made(monkeypatch)
    qs = [Query("q1 merge", True), Query("q2 other", False)]
    run_eval(catalog, "pdf", qs, settings=settings, api_key="sk-test", options=EvalOptions(runs=1))
    improve_description(catalog, "pdf", qs, settings=settings, api_key="sk-test", iterations=0, propose=False)
    assert len(made) == 2 and all(c.is_closed() for c in made)
