"""Opt-in phase timings of one ``workbench lint`` run, for ``workbench bench`` (issue 14).

With ``WORKBENCH_PHASES=FILE`` in the environment, ``mark(name)`` charges the wall and CPU time
(this process's ``process_time``: pool workers are not counted) since the previous mark to
``name`` and ``dump()`` writes ``{name: [wall s, cpu s], ...}`` as JSON to FILE; the first
mark's CPU includes the interpreter start and the imports. Without it both are no-ops costing a
global look-up.
"""

from __future__ import annotations

import json
import os
import time

__all__ = ["enabled", "mark", "dump"]

_FILE = os.environ.get("WORKBENCH_PHASES") or None
_last = (time.perf_counter(), 0.0)
_phases: dict[str, list[float]] = {}


def enabled() -> bool:
    """Whether ``WORKBENCH_PHASES`` asked for the timings."""
    return _FILE is not None


def mark(name: str) -> None:
    """Charge the time since the previous ``mark`` (or this module's import; CPU: since the
    process started) to phase ``name`` (summed when marked again)."""
    global _last
    if _FILE is None:
        return
    now = (time.perf_counter(), time.process_time())
    got = _phases.setdefault(name, [0.0, 0.0])
    got[0] += now[0] - _last[0]
    got[1] += now[1] - _last[1]
    _last = now


def dump() -> None:
    """Write the phases to the ``WORKBENCH_PHASES`` file (rounded to 0.1 ms); an OSError is
    ignored (a benchmark aid, never a reason to fail a lint)."""
    if _FILE is None:
        return
    try:
        with open(_FILE, "w", encoding="utf-8") as fh:
            json.dump({k: [round(w, 4), round(c, 4)] for k, (w, c) in _phases.items()}, fh)
    except OSError:
        pass
