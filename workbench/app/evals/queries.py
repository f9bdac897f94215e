"""The Evals pane's query-set editor: a table of (should trigger?, query) rows with Add, Remove,
Load… and Save… (JSON or YAML files, ``core.evals.queryset``).

Signals:
    message(str, bool): a sentence for the pane's status line, and whether it is an error.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QFileDialog,
    QGroupBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from workbench.app.emptystate import EmptyState
from workbench.core.evals.queryset import Query, QuerySetError, load_queries, save_queries

log = logging.getLogger(__name__)


class QueryEditor(QGroupBox):
    """The "Query set" box (module docstring). ``workspace()`` gives the folder Load… opens in
    (its ``evals/`` when it exists)."""

    message = Signal(str, bool)

    def __init__(self, workspace: Callable[[], Path | None], parent: QWidget | None = None) -> None:
        super().__init__("Query set", parent)
        self.workspace = workspace
        self.table = QTableWidget(0, 2, self)
        self.table.setHorizontalHeaderLabels(["Trigger?", "Query"])
        self.table.horizontalHeader().setSectionResizeMode(0, QHeaderView.ResizeMode.ResizeToContents)
        self.table.horizontalHeader().setSectionResizeMode(1, QHeaderView.ResizeMode.Stretch)
        self.table.verticalHeader().setDefaultSectionSize(22)
        self.add_btn = QPushButton("Add", self)
        self.add_btn.clicked.connect(lambda: self.add_query("", True, edit=True))
        self.remove_btn = QPushButton("Remove", self)
        self.remove_btn.clicked.connect(self.remove_selected)
        self.load_btn = QPushButton("Load…", self)
        self.load_btn.clicked.connect(self.load_dialog)
        self.save_btn = QPushButton("Save…", self)
        self.save_btn.clicked.connect(self.save_dialog)
        qbtns = QHBoxLayout()
        for b in (self.add_btn, self.remove_btn, self.load_btn, self.save_btn):
            qbtns.addWidget(b)
        qbtns.addStretch(1)
        self.counts_label = QLabel("", self)
        # wrapped: unwrapped, its long advice line set the query box's minimum width, and in the
        # main window the results table and chart were squeezed to a sliver (test_flows.py flow 5)
        self.counts_label.setWordWrap(True)
        ql = QVBoxLayout(self)
        ql.addWidget(self.table, 1)
        ql.addLayout(qbtns)
        ql.addWidget(self.counts_label)
        self.empty_state = EmptyState(
            self.table,
            "No queries yet. Add prompts that should trigger the skill and "
            "near-misses that should not (aim for 8–10 of each), or load a query file.",
            [("Add query", lambda: self.add_query("", True, edit=True)), ("Load…", self.load_dialog)],
        )

    def add_query(self, text: str, should_trigger: bool, edit: bool = False) -> int:
        """Append a row; returns its index (``edit``: start editing its query cell)."""
        r = self.table.rowCount()
        self.table.insertRow(r)
        chk = QTableWidgetItem("")
        chk.setFlags(
            Qt.ItemFlag.ItemIsUserCheckable | Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable
        )
        chk.setCheckState(Qt.CheckState.Checked if should_trigger else Qt.CheckState.Unchecked)
        self.table.setItem(r, 0, chk)
        self.table.setItem(r, 1, QTableWidgetItem(text))
        self.update_counts()
        if edit:
            self.table.setCurrentCell(r, 1)
            item = self.table.item(r, 1)
            if item is not None:
                self.table.editItem(item)
        return r

    def set_queries(self, queries: list[Query]) -> None:
        self.table.setRowCount(0)
        for q in queries:
            self.add_query(q.query, q.should_trigger)
        self.update_counts()

    def queries(self) -> list[Query]:
        """The table as ``Query`` objects (rows with an empty query are skipped)."""
        out = []
        for r in range(self.table.rowCount()):
            it = self.table.item(r, 1)
            text = it.text() if it else ""
            if not text.strip():
                continue
            chk = self.table.item(r, 0)
            out.append(Query(text, chk is not None and chk.checkState() == Qt.CheckState.Checked))
        return out

    def remove_selected(self) -> None:
        rows = sorted({i.row() for i in self.table.selectedIndexes()}, reverse=True)
        for r in rows:
            self.table.removeRow(r)
        self.update_counts()

    def update_counts(self) -> None:
        qs = self.queries()
        pos = sum(q.should_trigger for q in qs)
        self.counts_label.setText(
            f"{len(qs)} queries: {pos} should trigger, {len(qs) - pos} should not "
            "(aim for 8-10 of each, negatives as near-misses)"
        )

    def load_file(self, path: str | Path) -> bool:
        """Load a query set (JSON or YAML) into the table; errors go to ``message``."""
        try:
            qs = load_queries(path)
        except QuerySetError as exc:
            self.message.emit(str(exc), True)
            return False
        self.set_queries(qs.queries)
        self.message.emit(
            f"Loaded {len(qs.queries)} queries from {path}"
            + (f" ({len(qs.warnings)} warnings: {qs.warnings[0]})" if qs.warnings else ""),
            False,
        )
        return True

    def save_file(self, path: str | Path) -> bool:
        """Save the table as a JSON query set; errors go to ``message``."""
        try:
            save_queries(path, self.queries())
        except OSError as exc:
            log.warning("query set not saved", exc_info=exc)
            self.message.emit(f"{path}: cannot save: {exc}", True)
            return False
        self.message.emit(f"Saved {len(self.queries())} queries to {path}", False)
        return True

    def load_dialog(self) -> None:
        ws = self.workspace()
        start = str(ws / "evals") if ws is not None and (ws / "evals").is_dir() else str(ws or "")
        path, _ = QFileDialog.getOpenFileName(
            self, "Load query set", start, "Query sets (*.json *.yaml *.yml);;All files (*)"
        )
        if path:
            self.load_file(path)

    def save_dialog(self) -> None:
        path, _ = QFileDialog.getSaveFileName(self, "Save query set", "eval_queries.json", "JSON (*.json)")
        if path:
            self.save_file(path)
