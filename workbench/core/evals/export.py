"""Export an eval report: JSON (``EvalReport.to_json``) or CSV (one row per query).

CSV columns: ``index, query, should_trigger, runs, triggers, errors, trigger_rate, ci_low,
ci_high, pass, status, also_loaded`` (``also_loaded`` as ``name:count;name:count``). Rates are
0..1 with 4 decimals; empty cells for "no value". Written with ``atomic_write``.
"""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path
from typing import Any

from workbench.core.safefile import atomic_write

CSV_COLUMNS = (
    "index",
    "query",
    "should_trigger",
    "runs",
    "triggers",
    "errors",
    "trigger_rate",
    "ci_low",
    "ci_high",
    "pass",
    "status",
    "also_loaded",
)


def report_csv(report: Any) -> str:
    """The CSV text of ``report`` (an ``EvalReport``)."""
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(CSV_COLUMNS)
    for r in report.results:
        d = r.to_json()
        iv = d["interval"] or ["", ""]
        w.writerow(
            [
                r.index + 1,
                r.query,
                str(r.should_trigger).lower(),
                d["runs"],
                d["triggers"],
                d["errors"],
                "" if d["trigger_rate"] is None else d["trigger_rate"],
                iv[0],
                iv[1],
                "" if d["pass"] is None else str(d["pass"]).lower(),
                d["status"],
                ";".join(f"{k}:{v}" for k, v in d["also_loaded"].items()),
            ]
        )
    return buf.getvalue()


def export_report(report: Any, path: str | Path) -> Path:
    """Write ``report`` to ``path`` as CSV when it ends in ``.csv``, else JSON (with run details).
    Returns the path. Raises OSError."""
    p = Path(path)
    if p.suffix.lower() == ".csv":
        data = report_csv(report)
    else:
        data = json.dumps(report.to_json(details=True), indent=2, ensure_ascii=False) + "\n"
    atomic_write(p, data.encode("utf-8"))
    return p
