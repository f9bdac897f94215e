"""The Evals pane's results: the per-query table, the trigger chart and the summary line, kept in
step with the eval's progress events; and the history tree (runs grouped per description)."""

from __future__ import annotations

import html
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QFont
from PySide6.QtWidgets import (
    QAbstractItemView,
    QGroupBox,
    QHeaderView,
    QLabel,
    QTableWidget,
    QTableWidgetItem,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from workbench.app.evals.chart import (
    ERROR_COLOR,
    FAIL_COLOR,
    PASS_COLOR,
    SHOULD_COLOR,
    SHOULD_NOT_COLOR,
    TriggerChart,
)
from workbench.core.evals.metrics import pct
from workbench.core.evals.queryset import Query
from workbench.core.text import plural

RESULT_COLUMNS = ("#", "Query", "Expect", "k/n", "Rate", "95 % CI", "Errors", "Also loaded", "Result")


class RunResults:
    """The results table (``table``), chart (``chart``) and summary (``summary``) of one run,
    created with ``parent`` as their parent widget (the pane lays them out)."""

    def __init__(self, parent: QWidget) -> None:
        self.table = QTableWidget(0, len(RESULT_COLUMNS), parent)
        self.table.setHorizontalHeaderLabels(list(RESULT_COLUMNS))
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.verticalHeader().setVisible(False)
        self.table.verticalHeader().setDefaultSectionSize(20)
        hh = self.table.horizontalHeader()
        for c in range(len(RESULT_COLUMNS)):
            hh.setSectionResizeMode(c, QHeaderView.ResizeMode.ResizeToContents)
        hh.setSectionResizeMode(1, QHeaderView.ResizeMode.Stretch)
        self.chart = TriggerChart(parent)
        self.summary = QLabel("No run yet.", parent)
        self.summary.setWordWrap(True)
        self.summary.setTextFormat(Qt.TextFormat.RichText)
        self._chart_rows: list[dict] = []

    def reset(self, qs: list[Query], runs: int, threshold: float) -> None:
        """One row per query, nothing run yet."""
        self.table.setRowCount(0)
        for i, q in enumerate(qs):
            self.table.insertRow(i)
            vals = [str(i + 1), q.query, "trigger" if q.should_trigger else "no", f"0/{runs}"]
            vals += ["", "", "", "", "…"]
            for c, v in enumerate(vals):
                it = QTableWidgetItem(v)
                if c == 2:
                    it.setForeground(SHOULD_COLOR if q.should_trigger else SHOULD_NOT_COLOR)
                self.table.setItem(i, c, it)
        self._chart_rows = [
            {
                "label": str(i + 1),
                "should_trigger": q.should_trigger,
                "rate": None,
                "interval": None,
                "status": "not-run",
            }
            for i, q in enumerate(qs)
        ]
        self.chart.set_rows(self._chart_rows)
        self.chart.set_threshold(threshold)

    def update_row(self, i: int, d: dict) -> None:
        """Show query ``i``'s result so far (``QueryResult.to_json()``)."""
        if i >= self.table.rowCount():
            return
        rate = d.get("trigger_rate")
        iv = d.get("interval")
        status: str = d.get("status") or ""
        vals = {
            3: f"{d['triggers']}/{d['runs']}"
            + (f" of {d['requested']}" if d['runs'] != d['requested'] else ""),
            4: "n/a" if rate is None else f"{rate * 100:.0f} %",
            5: "" if iv is None else f"{iv[0] * 100:.0f}–{iv[1] * 100:.0f} %",
            6: str(d["errors"]) if d["errors"] else "",
            7: ", ".join(f"{k}×{v}" for k, v in d.get("also_loaded", {}).items()),
            8: {"passed": "PASS", "failed": "FAIL", "errored": "ERROR", "not-run": "…"}.get(status, status),
        }
        for c, v in vals.items():
            it = self.table.item(i, c)
            if it is None:
                it = QTableWidgetItem()
                self.table.setItem(i, c, it)
            it.setText(v)
            if c == 8:
                it.setForeground(
                    {"PASS": PASS_COLOR, "FAIL": FAIL_COLOR, "ERROR": ERROR_COLOR}.get(v, QColor("#24292f"))
                )
                f = QFont(it.font())
                f.setBold(v in ("PASS", "FAIL", "ERROR"))
                it.setFont(f)
        if i < len(self._chart_rows):
            self._chart_rows[i].update({"rate": rate, "interval": iv, "status": status})
            self.chart.set_rows(self._chart_rows)

    def show_report(self, rep: Any) -> None:
        """Show a finished report (table, chart, summary)."""
        for r in rep.results:
            self.update_row(r.index, r.to_json())
        s = rep.summary
        j = s.to_json()
        c = rep.cost()
        cost = (
            f"≈ ${c['usd']:.4f} <i>(est.)</i>" if c["usd"] is not None else "cost n/a (unknown model price)"
        )
        u = rep.usage
        warn = "".join(
            f"<br><span style='color:#9a6700'>⚠ {html.escape(w)}</span>" for w in rep.to_json()["warnings"]
        )
        state = " <b>(cancelled: partial)</b>" if rep.cancelled else ""
        self.summary.setText(
            f"<b>{s.passed}/{s.total} passed</b>, {s.failed} failed, {s.errored} errored{state} · over runs: "
            f"precision {pct(j['precision'])}, recall {pct(j['recall'])}, F1 {pct(j['f1'])}, accuracy "
            f"{pct(j['accuracy'])} · over queries: precision {pct(j['by_query']['precision'])}, recall "
            f"{pct(j['by_query']['recall'])} · tokens in {u['input_tokens']:,} / out {u['output_tokens']:,} · "
            f"{cost} · {rep.seconds:.1f} s{warn}"
        )
        self.summary.setToolTip(c["assumption"])


def progress_line(ev: dict) -> str:
    """The status line for a ``run`` or ``throttle`` progress event of the eval runner."""
    if ev.get("type") == "throttle":
        return (
            f"Rate limited ({ev['kind']}): all runs wait {ev['wait']:.1f} s; concurrency "
            f"now {ev['concurrency']}"
        )
    it = ev.get("iteration")
    pre = f"Iteration {it}: " if it is not None else ""
    return (
        f"{pre}{ev['done']}/{ev['total']} runs · {ev.get('in_flight', 0)} in flight · "
        f"concurrency {ev.get('concurrency')}"
    )


class HistoryBox(QGroupBox):
    """ "History (per description)": a tree of the skill's runs grouped by description."""

    EMPTY = "No runs of this skill yet: each run and each improved description is kept here."

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__("History (per description)", parent)
        self.tree = QTreeWidget(self)
        self.tree.setHeaderLabels(["Description / run", "Passed", "Precision", "Recall", "Model", "Kind"])
        hh = self.tree.header()
        hh.setStretchLastSection(False)
        for c in range(1, 6):
            hh.setSectionResizeMode(c, QHeaderView.ResizeMode.ResizeToContents)
        hh.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(4, 4, 4, 4)
        lay.addWidget(self.tree)


def fill_history(tree: QTreeWidget, groups: list[dict]) -> None:
    """One top-level row per description (``HistoryStore.by_description``), its runs below; the
    newest description expanded."""
    tree.clear()
    for g in groups:
        top = QTreeWidgetItem(
            [g["description"][:160] or "(empty)", plural(len(g["entries"]), "run"), "", "", "", ""]
        )
        top.setToolTip(0, g["description"])
        for e in g["entries"]:
            s = e.summary
            ch = QTreeWidgetItem(
                [
                    e.saved_at.replace("T", " ").replace("+00:00", " UTC"),
                    f"{s.get('passed', 0)}/{s.get('total', 0)}",
                    pct(s.get("precision")),
                    pct(s.get("recall")),
                    e.model,
                    e.kind,
                ]
            )
            top.addChild(ch)
        tree.addTopLevelItem(top)
    first = tree.topLevelItem(0)
    if first is not None:
        first.setExpanded(True)
