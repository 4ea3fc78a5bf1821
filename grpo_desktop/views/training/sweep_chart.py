"""An experiment's outcome, drawn: the final pass rate per value (the seeds' mean, with their
min–max as a whisker) beside the share of all-equal groups at the first step.

A view (DESIGN §2): it renders a :class:`~grpo_desktop.core.training.sweep.SweepResult` and
computes nothing. Both series live on 0–1, so one axis reads both: the frontier's point made
visible (a larger G leaves fewer groups without signal, and the pass rate follows).
"""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtGui import QColor
from PySide6.QtWidgets import QLabel, QVBoxLayout, QWidget

from grpo_desktop.core.common.theme import LIGHT, Theme
from grpo_desktop.core.training.sweep import SweepResult
from grpo_desktop.views.common.fonts import scaled_font
from grpo_desktop.views.common.theme_palette import cosmetic_pen

__all__ = ["SweepChart"]


class SweepChart(QWidget):
    """Final pass rate (dots, min–max whiskers) and degenerate share at step 1 (bars)."""

    def __init__(self, theme: Theme = LIGHT, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("sweepChart")
        self.setAccessibleName("Experiment chart")
        self._theme = theme
        self._result: SweepResult | None = None
        self.plot_widget = pg.PlotWidget()
        self.plot_widget.setObjectName("sweepPlotArea")
        self.plot_widget.setMinimumHeight(160)
        plot = self.plot = self.plot_widget.getPlotItem()
        plot.setMouseEnabled(x=False, y=False)
        plot.hideButtons()
        plot.setMenuEnabled(False)
        plot.getViewBox().setYRange(0, 1.05, padding=0)
        plot.getAxis("left").setTicks([[(v / 4, f"{v / 4:g}") for v in range(5)]])
        self.bars = pg.BarGraphItem(x=[], height=[], width=0.5)
        self.whiskers = pg.ErrorBarItem(x=np.zeros(0), y=np.zeros(0), beam=0.15)
        self.dots = pg.ScatterPlotItem(symbol="o", size=11, pxMode=True)
        for item in (self.bars, self.whiskers, self.dots):
            plot.addItem(item)
        self.legend = QLabel(objectName="sweepLegend")
        self.legend.setTextFormat(Qt.TextFormat.PlainText)
        self.legend.setWordWrap(True)
        column = QVBoxLayout(self)
        column.setContentsMargins(0, 0, 0, 0)
        column.setSpacing(4)
        column.addWidget(self.plot_widget, 1)
        column.addWidget(self.legend)
        self.set_theme(theme)

    def show_result(self, result: SweepResult | None) -> None:
        self._result = result
        if result is None or not result.results:
            self.bars.setOpts(x=[], height=[])
            self.whiskers.setData(x=np.zeros(0), y=np.zeros(0))
            self.dots.setData(x=[], y=[])
            self.legend.setText("")
            return
        rows = result.results
        x = np.arange(len(rows), dtype=float)
        mean = np.array([row.final_pass_rate_mean for row in rows])
        low = np.array([row.final_pass_rate_min for row in rows])
        high = np.array([row.final_pass_rate_max for row in rows])
        degenerate = np.array([row.degenerate_fraction_step1 for row in rows])
        finite = np.isfinite(mean)
        self.bars.setOpts(x=x, height=np.nan_to_num(degenerate), width=0.5)
        self.whiskers.setData(
            x=x[finite], y=mean[finite], top=(high - mean)[finite], bottom=(mean - low)[finite]
        )
        self.dots.setData(x=x[finite], y=mean[finite])
        self.plot.getAxis("bottom").setTicks(
            [[(float(i), f"{result.name} {row.value}") for i, row in enumerate(rows)]]
        )
        self.plot.getViewBox().setXRange(-0.6, len(rows) - 0.4, padding=0)
        self.legend.setText(
            f"● final pass rate after {result.steps} steps (mean of {result.seeds} seeds; "
            "the whisker spans their min–max)   ▮ share of step 1's groups with all-equal "
            "rewards (no signal)"
        )
        self.setAccessibleDescription(
            "; ".join(
                f"{result.name} {row.value}: final pass rate {row.final_pass_rate_mean:.3f}, "
                f"degenerate at step 1 {row.degenerate_fraction_step1:.3f}"
                for row in rows
            )
        )

    def set_theme(self, theme: Theme) -> None:
        self._theme = theme
        self.plot_widget.setBackground(QColor(theme.surface))
        for name in ("left", "bottom"):
            axis = self.plot.getAxis(name)
            axis.setPen(cosmetic_pen(theme.muted, 1.0))
            axis.setTextPen(cosmetic_pen(theme.text, 1.0))
            axis.setStyle(tickFont=scaled_font(0.85 * theme.type_scale))
        fill = QColor(theme.neutral)
        fill.setAlphaF(0.45)
        self.bars.setOpts(brush=fill, pen=cosmetic_pen(theme.neutral, 1.0))
        accent = theme.series[2] if len(theme.series) > 2 else theme.up
        self.whiskers.setData(pen=cosmetic_pen(theme.text, theme.stroke_width))
        self.dots.setBrush(QColor(accent))
        self.dots.setPen(cosmetic_pen(theme.text, 1.0))
        self.legend.setFont(scaled_font(0.9 * theme.type_scale))
        self.legend.setStyleSheet(f"color: {theme.text};")
        self.show_result(self._result)
