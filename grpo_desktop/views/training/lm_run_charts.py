"""The tiny model's run over the steps: the held-out pass rates, and one more metric chosen.

A view (DESIGN §2): it draws an ``LMRunSnapshot`` and asks for a step or a metric; nothing is
computed here. The first chart shows the held-out exact pass rate and greedy accuracy (measured
at each evaluation); the second shows any of the seven metrics, chosen in its combo box. Every
item is made once and updated in place: snapshots arrive with each step while the run plays.

Keyboard: the charts take the focus; ← → choose the step whose groups are listed, Home and End
the first and the last; a click on either chart chooses the step under the pointer.
"""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QColor, QFontMetrics, QKeyEvent, QPen
from PySide6.QtWidgets import QComboBox, QHBoxLayout, QLabel, QVBoxLayout, QWidget

from grpo_desktop.core.common.theme import LIGHT, Theme
from grpo_desktop.core.tinylm.lm_run_snapshot import LM_METRICS, LMRunSnapshot, rate_text
from grpo_desktop.views.common.fonts import scaled_font
from grpo_desktop.views.training.scene_activation import keep_scene_active

__all__ = ["LMRunCharts", "legend_text"]

TITLE = "Held-out prompts over the steps"
METRIC_TIP = "What the second chart shows over the steps (all seven metrics of the run)"
PASS_COLOUR, GREEDY_COLOUR, METRIC_COLOUR = 2, 4, 0  # indices into the theme's series colours


def legend_text(snapshot: LMRunSnapshot) -> str:
    """The first chart's legend, with the latest values (plain text)."""
    curves = snapshot.curves
    passed, greedy = curves["pass_rate"], curves["greedy_accuracy"]
    if len(passed.values) == 0:
        return "● exact pass rate   ▲ greedy accuracy (dashed)"
    return (
        f"● exact pass rate {rate_text(passed.values[-1])}   "
        f"▲ greedy accuracy (dashed) {rate_text(greedy.values[-1])}   "
        f"(step {int(passed.steps[-1])})"
    )


def _plot(accessible: str) -> pg.PlotWidget:
    widget = pg.PlotWidget()
    keep_scene_active(widget)  # a page shown paints once
    widget.setAccessibleName(accessible)
    widget.setFocusPolicy(Qt.FocusPolicy.NoFocus)  # the charts widget takes the keys
    plot = widget.getPlotItem()
    plot.setMouseEnabled(x=False, y=False)  # nothing to drag or zoom away on stage
    plot.hideButtons()
    plot.setMenuEnabled(False)
    plot.showGrid(x=False, y=True, alpha=0.2)
    return widget


class LMRunCharts(QWidget):
    """Two charts over the steps (objectName ``lmRunCharts``)."""

    step_requested = Signal(int)
    metric_requested = Signal(str)

    def __init__(self, theme: Theme = LIGHT, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("lmRunCharts")
        self.setAccessibleName("Training charts: held-out pass rates and a chosen metric")
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self._theme = theme
        self._snapshot: LMRunSnapshot | None = None
        self.title = QLabel(TITLE, objectName="lmChartsTitle")
        self.legend = QLabel(objectName="lmChartsLegend")
        for label in (self.title, self.legend):
            label.setTextFormat(Qt.TextFormat.PlainText)
            label.setWordWrap(True)
        self.pass_plot = _plot("Held-out exact pass rate and greedy accuracy chart")
        # Measured every few steps: each measurement is a dot, joined by lines.
        self.pass_curve = self.pass_plot.plot([], [], symbol="o")
        self.greedy_curve = self.pass_plot.plot([], [], symbol="t1")
        # Room past 0 and 1 for their tick labels, which pyqtgraph drops when large type (the
        # projector's) would cross the plot's edge.
        self.pass_plot.getPlotItem().setYRange(-0.1, 1.1, padding=0)
        self.metric_label = QLabel("Second c&hart:", objectName="lmMetricLabel")
        self.metric_combo = QComboBox(objectName="lmMetricCombo")
        self.metric_combo.setAccessibleName("Second chart's metric")
        self.metric_combo.setToolTip(METRIC_TIP)
        for key, label in LM_METRICS:
            self.metric_combo.addItem(label, key)
        self.metric_label.setBuddy(self.metric_combo)
        self.metric_combo.activated.connect(self._choose_metric)
        self.metric_plot = _plot("Chosen metric chart")
        self.metric_curve = self.metric_plot.plot([], [])
        self.markers = [pg.InfiniteLine(angle=90, movable=False) for _ in range(2)]
        for widget, marker in zip((self.pass_plot, self.metric_plot), self.markers):
            widget.addItem(marker, ignoreBounds=True)
            marker.hide()
            widget.scene().sigMouseClicked.connect(
                lambda event, plot=widget: self._clicked(plot, event)
            )
        chooser = QHBoxLayout()
        chooser.setContentsMargins(0, 0, 0, 0)
        chooser.addWidget(self.metric_label)
        chooser.addWidget(self.metric_combo, 1)
        column = QVBoxLayout(self)
        column.setContentsMargins(0, 0, 0, 0)
        column.setSpacing(4)
        column.addWidget(self.title)
        column.addWidget(self.legend)
        column.addWidget(self.pass_plot, 1)
        column.addLayout(chooser)
        column.addWidget(self.metric_plot, 1)
        self.set_theme(theme)

    def plots(self) -> tuple[pg.PlotWidget, pg.PlotWidget]:
        return self.pass_plot, self.metric_plot

    # --- rendering --------------------------------------------------------------------------

    def show_snapshot(self, snapshot: LMRunSnapshot) -> None:
        self._snapshot = snapshot
        curves = snapshot.curves
        self.pass_curve.setData(curves["pass_rate"].steps, curves["pass_rate"].values)
        self.greedy_curve.setData(curves["greedy_accuracy"].steps, curves["greedy_accuracy"].values)
        chosen = curves[snapshot.metric]
        self.metric_curve.setData(chosen.steps, chosen.values)
        index = self.metric_combo.findData(snapshot.metric)
        if index != self.metric_combo.currentIndex():
            self.metric_combo.setCurrentIndex(index)
        self.metric_plot.setAccessibleName(f"{chosen.label} chart")
        last = max(1, snapshot.total_steps)
        for widget in self.plots():
            widget.getPlotItem().setXRange(0, last, padding=0.02)
        self.metric_plot.getPlotItem().enableAutoRange(axis="y")
        legend = legend_text(snapshot)
        if legend != self.legend.text():
            self.legend.setText(legend)
            self.legend.setAccessibleName(legend)
        for marker in self.markers:
            if snapshot.selected_step is None:
                marker.hide()
            else:
                marker.setValue(snapshot.selected_step)
                marker.show()

    def set_theme(self, theme: Theme) -> None:
        self._theme = theme
        scale = theme.type_scale
        self.title.setFont(scaled_font(1.05 * scale, bold=True))
        for label in (self.legend, self.metric_label):
            label.setFont(scaled_font(0.95 * scale))
        self.metric_combo.setFont(scaled_font(0.95 * scale))
        self.setStyleSheet(
            f"#lmChartsTitle, #lmChartsLegend, #lmMetricLabel {{ color: {theme.text}; }}"
        )
        width = 2.0 * theme.stroke_width
        series = theme.series
        symbol = 7.0 * scale
        for curve, colour, style in (
            (self.pass_curve, series[PASS_COLOUR], Qt.PenStyle.SolidLine),
            (self.greedy_curve, series[GREEDY_COLOUR], Qt.PenStyle.DashLine),
        ):
            curve.setPen(pg.mkPen(colour, width=width, style=style))
            curve.setSymbolBrush(pg.mkBrush(colour))
            curve.setSymbolPen(pg.mkPen(colour))
            curve.setSymbolSize(symbol)
        self.metric_curve.setPen(pg.mkPen(series[METRIC_COLOUR], width=width))
        tick_font = scaled_font(0.9 * scale)
        axis_pen = QPen(QColor(theme.muted))
        axis_pen.setWidthF(max(1.0, theme.stroke_width * 0.75))
        # One left-axis width for both charts, so a step sits at the same x in each.
        axis_width = QFontMetrics(tick_font).horizontalAdvance("−0.000") + 12
        for widget in self.plots():
            widget.setBackground(theme.surface)
            plot = widget.getPlotItem()
            plot.getAxis("left").setWidth(axis_width)
            for name in ("left", "bottom"):
                axis = plot.getAxis(name)
                axis.setPen(axis_pen)
                axis.setTextPen(theme.text)
                axis.setTickFont(tick_font)
            plot.setLabel(
                "bottom", "step", color=theme.muted, **{"font-size": f"{tick_font.pointSizeF()}pt"}
            )
        marker_pen = pg.mkPen(theme.focus, width=theme.stroke_width, style=Qt.PenStyle.DotLine)
        for marker in self.markers:
            marker.setPen(marker_pen)

    # --- requests ---------------------------------------------------------------------------

    def _choose_metric(self, index: int) -> None:
        self.metric_requested.emit(self.metric_combo.itemData(index))

    def _clicked(self, widget: pg.PlotWidget, event) -> None:
        snapshot = self._snapshot
        if snapshot is None or snapshot.step == 0:
            return
        point = widget.getPlotItem().vb.mapSceneToView(event.scenePos())
        self.step_requested.emit(int(np.clip(round(point.x()), 1, snapshot.step)))

    def keyPressEvent(self, event: QKeyEvent) -> None:  # Qt override
        snapshot = self._snapshot
        key = event.key()
        moves = (Qt.Key.Key_Left, Qt.Key.Key_Right, Qt.Key.Key_Home, Qt.Key.Key_End)
        if snapshot is None or snapshot.step == 0 or key not in moves:
            super().keyPressEvent(event)
            return
        current = snapshot.selected_step or snapshot.step
        target = {
            Qt.Key.Key_Left: current - 1,
            Qt.Key.Key_Right: current + 1,
            Qt.Key.Key_Home: 1,
            Qt.Key.Key_End: snapshot.step,
        }[key]
        self.step_requested.emit(int(np.clip(target, 1, snapshot.step)))
        event.accept()
