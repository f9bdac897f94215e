"""Benchmarks run only when asked: ``pytest -m bench tests/bench -s`` (they print their figures)."""

import pytest


def pytest_collection_modifyitems(config, items):
    if "bench" in (config.getoption("-m") or ""):
        return
    skip = pytest.mark.skip(reason="benchmark: run with -m bench")
    for item in items:
        if "bench" in item.keywords:
            item.add_marker(skip)
