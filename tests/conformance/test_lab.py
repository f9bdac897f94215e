"""The conformance lab as a pytest run (marked ``lab``).

Skipped unless ``WB_LAB=1`` and the pinned clients are installed, so the README's test command
stays fast and needs no client. ``WB_LAB=1 pytest -m lab tests/conformance`` runs every scenario
x installed client (slow: use ``python -m tests.conformance`` for the parallel run).
"""

from __future__ import annotations

import os

import pytest

from tests.conformance.__main__ import installed_clients
from tests.conformance.lab import run_case
from tests.conformance.scenarios import SCENARIOS

pytestmark = pytest.mark.lab

ENABLED = os.environ.get("WB_LAB") == "1"
CLIENTS = installed_clients() if ENABLED else []
CASES = [(s, c) for c in CLIENTS for s in SCENARIOS if s.applies_to(c)]


@pytest.mark.skipif(
    not ENABLED or not CASES,
    reason="set WB_LAB=1 with the clients installed (python -m tests.conformance.install)",
)
@pytest.mark.parametrize(
    "scenario,client", CASES or [(None, None)], ids=[f"{s.id}-{c}" for s, c in CASES] or ["lab"]
)
def test_lab(scenario, client) -> None:
    cmp = run_case(scenario, client)
    assert cmp.error is None, cmp.error
    assert cmp.agree, "\n".join(cmp.diffs + cmp.detail)
