"""The Evals pane's trigger-rate chart: one bar per query (QPainter).

Decision (spec silent): one bar per query in query-set order, numbered like the table rows;
should-trigger bars blue, should-not-trigger orange, errored queries as a grey "×", the Wilson
interval as a thin whisker and the threshold as a dashed red line.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QBrush, QColor, QPainter, QPen
from PySide6.QtWidgets import QSizePolicy, QWidget

SHOULD_COLOR = QColor("#2f6fdf")
SHOULD_NOT_COLOR = QColor("#d9822b")
ERROR_COLOR = QColor("#8c959f")
THRESHOLD_COLOR = QColor("#cf222e")
PASS_COLOR = QColor("#2e9d4a")
FAIL_COLOR = QColor("#cf222e")


class TriggerChart(QWidget):
    """Bar chart of the trigger rate per query (QPainter).

    ``set_rows([{"label","should_trigger","rate" (0..1 or None),"interval" ([lo, hi] or None),
    "status"}])`` and ``set_threshold(t)``; repaints on change.
    """

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.rows: list[dict] = []
        self.threshold = 0.5
        self.setMinimumHeight(170)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Expanding)

    def set_rows(self, rows: list[dict]) -> None:
        self.rows = list(rows)
        self.update()

    def set_threshold(self, t: float) -> None:
        self.threshold = float(t)
        self.update()

    def paintEvent(self, _ev: Any) -> None:  # noqa: N802 - Qt override
        p = QPainter(self)
        p.setRenderHint(QPainter.RenderHint.Antialiasing)
        p.fillRect(self.rect(), QColor("white"))
        fm = p.fontMetrics()
        left, right = fm.horizontalAdvance("100 %") + 10, 10
        # legend: entries flow onto more lines when the chart is narrow (never cut)
        entries = [
            (SHOULD_COLOR, "should trigger"),
            (SHOULD_NOT_COLOR, "should not trigger"),
            (ERROR_COLOR, "× errored / not run"),
            (None, f"threshold {self.threshold:.0%}"),
        ]
        x, y = left, 4
        for col, label in entries:
            wid = (14 if col is not None else 0) + fm.horizontalAdvance(label)
            if x > left and x + wid > self.width() - right:
                x, y = left, y + fm.height() + 2
            if col is not None:
                p.fillRect(QRectF(x, y, 10, 10), col)
            p.setPen(QColor("#24292f") if col is not None else THRESHOLD_COLOR)
            p.drawText(int(x + (14 if col is not None else 0)), y + fm.ascent() - 1, label)
            x += wid + 10
        top, bottom = y + fm.height() + 6, fm.height() + 8
        w = max(1, self.width() - left - right)
        h = max(1, self.height() - top - bottom)
        plot = QRectF(left, top, w, h)
        # grid
        p.setPen(QPen(QColor("#d0d7de"), 1))
        for frac in (0, 0.25, 0.5, 0.75, 1.0):
            gy = plot.bottom() - frac * h
            p.drawLine(int(plot.left()), int(gy), int(plot.right()), int(gy))
            p.setPen(QColor("#57606a"))
            lab = f"{frac * 100:.0f} %"
            p.drawText(int(plot.left() - fm.horizontalAdvance(lab) - 5), int(gy + fm.ascent() / 2 - 1), lab)
            p.setPen(QPen(QColor("#d0d7de"), 1))
        n = len(self.rows)
        if n:
            slot = w / n
            bw = max(2.0, slot * 0.7)
            for i, r in enumerate(self.rows):
                cx = plot.left() + slot * (i + 0.5)
                base = SHOULD_COLOR if r.get("should_trigger") else SHOULD_NOT_COLOR
                rate = r.get("rate")
                if rate is None:
                    p.setPen(QPen(ERROR_COLOR, 2))
                    s = min(bw, 10) / 2
                    my = plot.bottom() - 8
                    p.drawLine(int(cx - s), int(my - s), int(cx + s), int(my + s))
                    p.drawLine(int(cx - s), int(my + s), int(cx + s), int(my - s))
                else:
                    bh = max(1.5, rate * h)
                    rect = QRectF(cx - bw / 2, plot.bottom() - bh, bw, bh)
                    p.setPen(Qt.PenStyle.NoPen)
                    p.setBrush(QBrush(base))
                    p.drawRect(rect)
                    if r.get("status") == "failed":
                        p.setPen(QPen(FAIL_COLOR, 2))
                        p.setBrush(Qt.BrushStyle.NoBrush)
                        p.drawRect(rect.adjusted(-1, -1, 1, 1))
                iv = r.get("interval")
                if iv:
                    p.setPen(QPen(QColor("#24292f"), 1))
                    y0, y1 = plot.bottom() - iv[0] * h, plot.bottom() - iv[1] * h
                    p.drawLine(int(cx), int(y0), int(cx), int(y1))
                    p.drawLine(int(cx - 3), int(y0), int(cx + 3), int(y0))
                    p.drawLine(int(cx - 3), int(y1), int(cx + 3), int(y1))
                if slot >= fm.horizontalAdvance("00") + 2 or i % max(1, int(20 / max(slot, 1))) == 0:
                    p.setPen(FAIL_COLOR if r.get("status") == "failed" else QColor("#57606a"))
                    lab = str(r.get("label", i + 1))
                    p.drawText(
                        int(cx - fm.horizontalAdvance(lab) / 2), int(plot.bottom() + fm.ascent() + 3), lab
                    )
        # threshold line
        ty = plot.bottom() - self.threshold * h
        pen = QPen(THRESHOLD_COLOR, 1.5, Qt.PenStyle.DashLine)
        p.setPen(pen)
        p.drawLine(int(plot.left()), int(ty), int(plot.right()), int(ty))
        p.setPen(QPen(QColor("#57606a"), 1))
        p.drawLine(int(plot.left()), int(plot.top()), int(plot.left()), int(plot.bottom()))
        p.end()
