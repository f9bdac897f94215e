"""The Evals pane's controls: what to test (skill, model, competitors), how (runs, concurrency,
threshold, iterations) and the commands (Run, Cancel, Improve, batch, collection, export).

Three short rows: one long row made the pane, and so the window, 1,152 px wide at least. The pane
connects the buttons; batch and collection evals live in ``batch.py`` and ``matrix.py``.
"""

from __future__ import annotations

from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDoubleSpinBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from workbench.core.evals.runner import DEFAULT_EVAL_MODEL


class EvalControls(QWidget):
    """The rows of fields and buttons above the query set (module docstring)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.skill_combo = QComboBox(self)
        self.skill_combo.setMinimumWidth(160)

        self.model_edit = QLineEdit(DEFAULT_EVAL_MODEL, self)
        self.model_edit.setToolTip(
            "Model id used for the eval runs (default: a Haiku model; editable for local servers)"
        )
        self.runs_spin = QSpinBox(self)
        self.runs_spin.setRange(1, 100)
        self.runs_spin.setValue(3)
        self.conc_spin = QSpinBox(self)
        self.conc_spin.setRange(1, 64)
        self.conc_spin.setValue(8)
        self.thr_spin = QDoubleSpinBox(self)
        self.thr_spin.setRange(0.0, 1.0)
        self.thr_spin.setSingleStep(0.05)
        self.thr_spin.setValue(0.5)
        self.comp_check = QCheckBox("Competitors", self)
        self.comp_check.setChecked(True)
        self.comp_check.setToolTip("Keep the workspace's other listed skills in the listing")
        self.batch_check = QCheckBox("Run as batch", self)
        self.batch_check.setToolTip(
            "Send the first turns through the Message Batches API (half price, "
            "results usually within an hour); the cost estimate is shown first"
        )
        self.resume_btn = QPushButton("Resume batch…", self)
        self.collection_btn = QPushButton("Collection…", self)
        self.collection_btn.setToolTip("Every skill's query set against the whole listing: confusion matrix")
        self.run_btn = QPushButton("Run", self)
        self.cancel_btn = QPushButton("Cancel", self)
        self.improve_btn = QPushButton("Improve description…", self)
        self.improve_btn.setToolTip(
            "Split the queries (60/40, seed 42), let the model propose better "
            "descriptions from the training failures, keep the best on the "
            "held-out queries as a workshop proposal"
        )
        self.iter_spin = QSpinBox(self)
        self.iter_spin.setRange(1, 20)
        self.iter_spin.setValue(5)
        self.iter_spin.setToolTip("Improvement iterations (new candidates at most)")
        self.export_json_btn = QPushButton("Export JSON…", self)
        self.export_csv_btn = QPushButton("Export CSV…", self)

        bar = QHBoxLayout()
        bar.addWidget(QLabel("Skill", self))
        bar.addWidget(self.skill_combo, 2)
        bar.addWidget(QLabel("Model", self))
        bar.addWidget(self.model_edit, 1)
        bar.addWidget(self.comp_check)
        bar1 = QHBoxLayout()
        for lab, w in (
            ("Runs", self.runs_spin),
            ("Concurrency", self.conc_spin),
            ("Threshold", self.thr_spin),
            ("Iterations", self.iter_spin),
        ):
            bar1.addWidget(QLabel(lab, self))
            bar1.addWidget(w)
            bar1.addSpacing(8)
        bar1.addStretch(1)
        bar2 = QHBoxLayout()
        for btn in (self.run_btn, self.cancel_btn, self.improve_btn, self.batch_check):
            bar2.addWidget(btn)
        bar2.addStretch(1)
        bar3 = QHBoxLayout()  # batches, collections and exports (one row with the runs was too wide)
        bar3.addWidget(self.resume_btn)
        bar3.addWidget(self.collection_btn)
        bar3.addStretch(1)
        bar3.addWidget(self.export_json_btn)
        bar3.addWidget(self.export_csv_btn)

        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        for row in (bar, bar1, bar2, bar3):
            lay.addLayout(row)

    def set_running(self, on: bool, has_report: bool) -> None:
        """While a run goes on only Cancel is enabled; exports need a report."""
        for w in (
            self.run_btn,
            self.improve_btn,
            self.skill_combo,
            self.runs_spin,
            self.conc_spin,
            self.thr_spin,
            self.comp_check,
            self.batch_check,
            self.resume_btn,
        ):
            w.setEnabled(not on)
        self.cancel_btn.setEnabled(on)
        self.export_json_btn.setEnabled(has_report and not on)
        self.export_csv_btn.setEnabled(has_report and not on)
