"""The Training workspace's two stacked charts: pass rate, and one chosen metric, over the steps.

Each algorithm is a mean line over seeds; a translucent band from the seeds' min to max shades
every algorithm's while few run, and only the focus algorithm's when many do (the snapshot says
which; this view only draws). Colour never works alone: every algorithm also
has its own line style, shown in the legend beside its name.

A view (DESIGN §2): renders a ``TrainingSnapshot`` and emits ``step_requested`` when a step is
clicked (or, with the focus here, chosen with ← → Home End), and ``groups_requested`` on Enter,
which lists the step's groups as a click does and asks for the focus to go to them. It is redrawn
up to 60 times a second while a run plays, so every graphics item is created once (one slot per
algorithm, DESIGN §3: PySide6 crashed on repeated scene removals) and updated in place, and a
slot whose numbers did not change is not touched at all.
"""

from __future__ import annotations

import math
import time
from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QEvent, QObject, QPointF, QSize, Qt, Signal
from PySide6.QtGui import (
    QColor,
    QFontMetricsF,
    QKeyEvent,
    QPainter,
    QPaintEvent,
    QPen,
    QResizeEvent,
)
from PySide6.QtWidgets import QGridLayout, QLabel, QSizePolicy, QVBoxLayout, QWidget

from grpo_desktop.core.common.theme import LIGHT, Theme
from grpo_desktop.core.files.describe import training_charts_text
from grpo_desktop.core.training.run import ALGORITHM_INFO, ALGORITHMS, METRICS
from grpo_desktop.core.training.training_snapshot import MetricBand, TrainingSnapshot
from grpo_desktop.views.common import accessible_events
from grpo_desktop.views.common.advantage_plot import SignedAxis
from grpo_desktop.views.common.fonts import scaled_font
from grpo_desktop.views.common.plot_steps import plot_widget_in_steps
from grpo_desktop.views.common.pyqtgraph_internals import NumpyBand
from grpo_desktop.views.training.scene_activation import keep_scene_active

__all__ = ["PASS_RATE_TITLE", "SLOTS", "TrainingCharts", "line_style"]

PASS_RATE_TITLE = "Pass rate (exact)"
PASS_RATE_METRIC = "pass_rate"
SLOTS = 6  # one per algorithm in ALGORITHMS: its colour and line style follow its index
BAND_ALPHA = {"dark": 56}  # band opacity out of 255; light themes use the default
DEFAULT_BAND_ALPHA = 48
Y_PAD = 0.04  # the pass-rate chart shows [−0.04, 1.04] so lines at 0 or 1 stay visible
LEGEND_GAP_PX = 14  # between legend entries on a row
CLICK_SLOP_PX = 5  # a press moved this far before its release is a drag, not a click (pyqtgraph's)
DRAG_S = 0.5  # a press held this long that moved at all is a drag too (pyqtgraph's)
_MOUSE_EVENTS = frozenset(
    (
        QEvent.Type.MouseButtonPress,
        QEvent.Type.MouseButtonDblClick,
        QEvent.Type.MouseButtonRelease,
        QEvent.Type.MouseMove,
    )
)

# Solid, dash, dot, dash-dot, dash-dot-dot, long dash: a style per algorithm, so colour is never
# the only cue (Qt scales dash patterns by the pen width, so they stay distinct when thick).
_STYLES: tuple[tuple[Qt.PenStyle, tuple[float, ...]], ...] = (
    (Qt.PenStyle.SolidLine, ()),
    (Qt.PenStyle.DashLine, ()),
    (Qt.PenStyle.DotLine, ()),
    (Qt.PenStyle.DashDotLine, ()),
    (Qt.PenStyle.DashDotDotLine, ()),
    (Qt.PenStyle.CustomDashLine, (7.0, 2.0, 1.0, 2.0, 1.0, 2.0)),
)


def line_style(index: int) -> Qt.PenStyle:
    """The pen style of the algorithm at ``index`` in ALGORITHMS."""
    return _STYLES[index % len(_STYLES)][0]


def _series_pen(theme: Theme, index: int, width: float) -> QPen:
    colour = theme.series[index % len(theme.series)]
    pen = QPen(QColor(colour))
    pen.setWidthF(width)
    pen.setCosmetic(True)  # pixels, whatever the data scale
    style, pattern = _STYLES[index % len(_STYLES)]
    if pattern:
        pen.setDashPattern(list(pattern))
    else:
        pen.setStyle(style)
    pen.setCapStyle(Qt.PenCapStyle.FlatCap)
    return pen


def _plain_pen(colour: str, width: float) -> QPen:
    pen = QPen(QColor(colour))
    pen.setWidthF(width)
    pen.setCosmetic(True)
    return pen


class _LineSwatch(QWidget):
    """A legend sample: a short stretch of the algorithm's line, in its colour and style."""

    def __init__(self) -> None:
        super().__init__()
        self._pen = QPen()
        self.setSizePolicy(QSizePolicy.Policy.Fixed, QSizePolicy.Policy.Fixed)

    def set_pen(self, pen: QPen, size: QSize) -> None:
        self._pen = QPen(pen)
        self.setFixedSize(size)
        self.update()

    def pen(self) -> QPen:
        return QPen(self._pen)

    def paintEvent(self, event: QPaintEvent) -> None:  # Qt override
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        painter.setPen(self._pen)
        middle = self.height() / 2
        painter.drawLine(QPointF(1, middle), QPointF(self.width() - 1, middle))


@dataclass
class _Slot:
    """One algorithm's items in one plot: the mean line, the band and its two hidden edges."""

    line: pg.PlotCurveItem
    low: pg.PlotCurveItem
    high: pg.PlotCurveItem
    band: pg.FillBetweenItem
    shown: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None  # (mean, low, high) drawn
    source: MetricBand | None = None  # the snapshot's band ``shown`` was copied from
    edges: bool = False  # the band's edges hold ``shown`` (an unshaded band's are not updated)


class _BandPlot:
    """One of the two plots: six slots, a selected-step marker and its title label. Built a
    part at a time (:meth:`build_steps`): pyqtgraph makes a plot in one go, about 35 ms, so
    its view box and axes, its plot item, its view and its items are made each in a step."""

    widget: pg.PlotWidget
    plot: pg.PlotItem
    viewbox: pg.ViewBox
    marker: pg.InfiniteLine

    def __init__(self) -> None:
        self.slots: list[_Slot] = []
        self.y_range: tuple[float, float] | None = None
        self.x_range: tuple[float, float] | None = None

    def build_steps(self, name: str, accessible: str) -> Iterator[str]:
        """Make the plot, yielding after each part (about 5 ms each)."""
        self.widget = yield from plot_widget_in_steps(SignedAxis)  # its left axis marks 0
        keep_scene_active(self.widget)  # a page shown paints once
        plot = self.widget.getPlotItem()
        self.widget.setObjectName(name)
        self.widget.setAccessibleName(accessible)
        self.widget.setFocusPolicy(Qt.FocusPolicy.NoFocus)  # the charts widget takes the keys
        self.plot = plot
        plot.setMouseEnabled(x=False, y=False)  # nothing to drag or zoom away on stage
        plot.hideButtons()
        plot.setMenuEnabled(False)
        self.viewbox = plot.getViewBox()
        self.viewbox.disableAutoRange()
        plot.getAxis("left").enableAutoSIPrefix(False)
        plot.getAxis("bottom").enableAutoSIPrefix(False)
        plot.getAxis("bottom").setStyle(hideOverlappingLabels=24)  # the last step's label shows
        yield "view"
        for index in range(SLOTS):
            if index == SLOTS // 2:  # half the lines and bands a step (each half 5-7 ms)
                yield f"lines and bands 1–{index}"
            line = pg.PlotCurveItem(connect="finite")
            low = pg.PlotCurveItem()  # never added to the scene: only the band reads them
            high = pg.PlotCurveItem()
            band = NumpyBand(low, high)
            band.setZValue(-10)
            line.setZValue(1)
            plot.addItem(band)
            plot.addItem(line)
            band.setVisible(False)
            line.setVisible(False)
            self.slots.append(_Slot(line, low, high, band))
        self.marker = pg.InfiniteLine(pos=0.0, angle=90, movable=False)
        self.marker.setZValue(20)
        self.marker.setVisible(False)
        plot.addItem(self.marker, ignoreBounds=True)
        yield f"lines and bands {SLOTS // 2 + 1}–{SLOTS} and the marker"

    def set_x(self, low: float, high: float) -> None:
        if self.x_range != (low, high):
            self.x_range = (low, high)
            self.viewbox.setXRange(low, high, padding=0)

    def set_y(self, low: float, high: float) -> None:
        if self.y_range != (low, high):
            self.y_range = (low, high)
            self.viewbox.setYRange(low, high, padding=0)


def _same(shown: tuple[np.ndarray, ...] | None, band: MetricBand) -> bool:
    if shown is None:
        return False
    return all(
        old.shape == new.shape and np.array_equal(old, new, equal_nan=True)
        for old, new in zip(shown, (band.mean, band.low, band.high))
    )


def _padded_range(low: float, high: float) -> tuple[float, float]:
    """A y range around [low, high] with a little room, never empty."""
    if not (math.isfinite(low) and math.isfinite(high)):
        return 0.0, 1.0
    span = high - low
    if span <= 1e-12:
        if low >= 0:  # a flat, non-negative metric (KL at step 0, a fixed count) sits above 0
            return 0.0, high * 1.25 if high > 0 else 1.0
        pad = max(abs(high) * 0.1, 1e-6)
        return low - pad, high + pad
    return low - 0.06 * span, high + 0.06 * span


class TrainingCharts(QWidget):
    """Pass rate over steps and one chosen metric, per algorithm, with seed bands and a legend.

    Click a plot (or press ←/→, Home, End while it has focus) to ask for a step: the Lab shows
    that step's groups. Nothing here is computed: the bands come from the snapshot.
    """

    step_requested = Signal(int)
    groups_requested = Signal()  # Enter: the chosen step's groups, to open one from the keyboard

    def __init__(
        self, theme: Theme = LIGHT, parent: QWidget | None = None, stepwise: bool = False
    ) -> None:
        """The charts, built whole; or with ``stepwise`` only begun: iterating :attr:`steps`
        then builds them a part per step (each plot in four), as the Training page's idle
        prebuild does, a step per turn of the event loop."""
        super().__init__(parent)
        self.setObjectName("trainingCharts")
        self.setAccessibleName("Training charts")
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.setToolTip(
            "Click a step to see its groups; ← and → move one step, Home and End to the first and "
            "last, Enter goes to the step's groups"
        )
        self._theme = theme
        self._applying_theme = False
        self._snapshot: TrainingSnapshot | None = None
        self._names: tuple[str, ...] | None = None
        self._metric: str | None = None
        self._selected: int | None = None
        self._steps_done = 0
        self._legend_columns = 0
        self._viewports: dict[QWidget, _BandPlot] = {}
        self._press: tuple[_BandPlot, QPointF, float] | None = None  # a left press, not a drag
        self._built = False  # every step taken: its parts exist
        self.pass_plot = _BandPlot()
        self.metric_plot = _BandPlot()
        self.steps: Iterator[str] = self._build_steps(theme)
        if not stepwise:
            deque(self.steps, maxlen=0)

    def _build_steps(self, theme: Theme) -> Iterator[str]:
        for part in self.pass_plot.build_steps("trainingPassPlot", "Pass rate chart"):
            yield f"pass rate plot: {part}"
        for part in self.metric_plot.build_steps("trainingMetricPlot", "Metric chart"):
            yield f"metric plot: {part}"
        self.metric_plot.plot.setXLink(self.pass_plot.plot)
        self.pass_plot.plot.getAxis("bottom").setStyle(showValues=False)

        # Which algorithm diverged and from which step: a line that ends early says why.
        self.divergence_note = QLabel(objectName="trainingDivergenceNote")
        self.divergence_note.setTextFormat(Qt.TextFormat.PlainText)
        self.divergence_note.setWordWrap(True)
        self.divergence_note.setVisible(False)
        self.pass_title = QLabel(PASS_RATE_TITLE, objectName="trainingPassTitle")
        self.metric_title = QLabel("", objectName="trainingMetricTitle")
        for label in (self.pass_title, self.metric_title):
            label.setTextFormat(Qt.TextFormat.PlainText)
            label.setWordWrap(True)

        self.swatches: list[_LineSwatch] = []
        self.legend_labels: list[QLabel] = []
        for index in range(SLOTS):
            # Parented now: the legend grid moves them around without hiding them.
            swatch = _LineSwatch()
            swatch.setParent(self)
            label = QLabel(self, objectName=f"trainingLegend_{ALGORITHMS[index]}")
            label.setTextFormat(Qt.TextFormat.PlainText)
            label.setContentsMargins(0, 0, LEGEND_GAP_PX, 0)
            swatch.setVisible(False)
            label.setVisible(False)
            self.swatches.append(swatch)
            self.legend_labels.append(label)
        self._legend = QGridLayout()
        self._legend.setContentsMargins(0, 0, 0, 0)
        self._legend.setHorizontalSpacing(4)
        self._legend.setVerticalSpacing(2)

        column = QVBoxLayout(self)
        column.setContentsMargins(8, 6, 8, 6)
        column.setSpacing(2)
        column.addLayout(self._legend)
        column.addWidget(self.divergence_note)
        column.addWidget(self.pass_title)
        column.addWidget(self.pass_plot.widget, 1)
        column.addWidget(self.metric_title)
        column.addWidget(self.metric_plot.widget, 1)

        # A click is read from the plots' viewports here, before pyqtgraph's scene: its click
        # and hover machinery (every item near the pointer, sorted, asked in turn) cost as much
        # as the step chosen and its redraw, and nothing in these plots takes a click.
        self._viewports = {
            band_plot.widget.viewport(): band_plot
            for band_plot in (self.pass_plot, self.metric_plot)
        }
        for viewport in self._viewports:
            viewport.installEventFilter(self)
        self.pass_plot.set_y(-Y_PAD, 1 + Y_PAD)
        self.metric_plot.set_y(0.0, 1.0)
        self._set_x(1)
        yield "titles, legend and layout"
        self.set_theme(theme)
        self._built = True
        yield "theme"

    # ----------------------------------------------------------------------------- public API

    def show_snapshot(self, snapshot: TrainingSnapshot) -> None:
        """Draw every algorithm's pass rate and chosen metric; touch only what changed. A
        snapshot with the very series drawn last (a step chosen: the model sends the same
        bands) moves the marker and nothing else."""
        deque(self.show_snapshot_parts(snapshot), maxlen=0)

    def moves_only_the_marker(self, snapshot: TrainingSnapshot) -> bool:
        """Whether ``snapshot`` shows the very series drawn last (a step or focus chosen), so
        showing it moves the marker and nothing else."""
        previous = self._snapshot
        return (
            previous is not None
            and snapshot.series is previous.series
            and snapshot.metric == previous.metric
            and snapshot.config == previous.config
            and snapshot.steps_done == previous.steps_done
            and snapshot.divergence_note == previous.divergence_note
        )

    def show_snapshot_parts(self, snapshot: TrainingSnapshot) -> Iterator[str]:
        """:meth:`show_snapshot` in two parts, the pass-rate plot then the metric plot (a
        playing run's frame draws each in a turn of its own: each plot's repaint follows its
        part, and a click waits behind one plot's, never both). Until the second part is
        done, the charts count as showing the snapshot drawn before."""
        if self.moves_only_the_marker(snapshot):
            self._snapshot = snapshot
            self._show_marker(snapshot.selected_step)
            return
        self._snapshot = None  # until both plots show it: a step chosen meanwhile draws all
        self._steps_done = snapshot.steps_done
        names = tuple(series.name for series in snapshot.series)
        if names != self._names:
            self._names = names
            self._show_legend(snapshot)
        if snapshot.metric != self._metric:
            self._metric = snapshot.metric
            unit = METRICS.get(snapshot.metric, ("", ""))[1]
            title = snapshot.metric_label[:1].upper() + snapshot.metric_label[1:]
            self.metric_title.setText(f"{title} ({unit})" if unit else title)
            self.metric_plot.widget.setAccessibleName(f"{title} chart")
            for slot in self.metric_plot.slots:
                slot.shown = None
                slot.source = None
        self._show_divergence(snapshot.divergence_note)
        self._set_x(snapshot.total_steps)
        used = {series.index for series in snapshot.series}
        for series in snapshot.series:
            slot = self.pass_plot.slots[series.index]
            self._draw(slot, series.bands[PASS_RATE_METRIC], series.band)
            self._shade(slot, series.band)
        self._hide_unused(self.pass_plot, used)
        yield "pass rate"
        lows: list[float] = []
        highs: list[float] = []
        for series in snapshot.series:
            slot = self.metric_plot.slots[series.index]
            band = series.bands.get(snapshot.metric)
            if band is None:
                self._hide(slot)
            else:
                self._draw(slot, band, series.band)
            self._shade(slot, series.band)
            if band is None:
                continue
            for values in (band.low, band.high, band.mean):
                finite = values[np.isfinite(values)]
                if finite.size:
                    lows.append(float(finite.min()))
                    highs.append(float(finite.max()))
        self._hide_unused(self.metric_plot, used)
        if lows:
            self.metric_plot.set_y(*_padded_range(min(lows), max(highs)))
        self._show_marker(snapshot.selected_step)
        # The text alternative: every algorithm's latest value and trend, per chart.
        self.setAccessibleDescription(training_charts_text(snapshot))
        self._snapshot = snapshot
        yield "metric"

    @staticmethod
    def _shade(slot: _Slot, shaded: bool) -> None:
        """A band under every line while few algorithms run; with many only the focus
        algorithm's (the snapshot says which): six overlapping bands are a blur."""
        shown = shaded and slot.line.isVisible()
        if slot.band.isVisible() != shown:
            slot.band.setVisible(shown)

    def _hide_unused(self, band_plot: _BandPlot, used: set[int]) -> None:
        for index, slot in enumerate(band_plot.slots):
            if index not in used:
                self._hide(slot)

    def set_theme(self, theme: Theme) -> None:
        """Restyle titles, axes, lines, bands, marker and legend for ``theme``."""
        self._theme = theme
        self._applying_theme = True
        try:
            scale = theme.type_scale
            title_font = scaled_font(1.05 * scale, bold=True)
            self.pass_title.setFont(title_font)
            self.metric_title.setFont(title_font)
            legend_font = scaled_font(0.95 * scale)
            for label in self.legend_labels:
                label.setFont(legend_font)
            self.divergence_note.setFont(scaled_font(scale, bold=True))
            self.setStyleSheet(
                f"#trainingCharts {{ background: {theme.surface}; }}"
                f" #trainingCharts QLabel {{ color: {theme.text}; }}"
                f" #trainingCharts QLabel#trainingDivergenceNote {{ background: "
                f"{theme.banner_fill}; color: {theme.banner_text}; padding: 4px 6px; }}"
            )
            self.setAttribute(Qt.WidgetAttribute.WA_StyledBackground, True)
            tick_font = scaled_font(0.95 * scale)
            axis_pen = _plain_pen(theme.muted, float(max(1, round(theme.stroke_width * 0.75))))
            for band_plot in (self.pass_plot, self.metric_plot):
                band_plot.widget.setBackground(theme.surface)
                # Room on the right for the last step's tick label, which pyqtgraph would hide.
                half_label = round(QFontMetricsF(tick_font).horizontalAdvance("0000") / 2)
                band_plot.plot.setContentsMargins(2, 4, half_label, 2)
                for name in ("left", "bottom"):
                    axis = band_plot.plot.getAxis(name)
                    axis.setPen(axis_pen)
                    axis.setTextPen(theme.text)
                    axis.setTickFont(tick_font)
                band_plot.marker.setPen(_plain_pen(theme.text, max(1.0, theme.stroke_width)))
                alpha = BAND_ALPHA.get(theme.name, DEFAULT_BAND_ALPHA)
                for index, slot in enumerate(band_plot.slots):
                    slot.line.setPen(_series_pen(theme, index, theme.stroke_width * 1.2))
                    fill = QColor(theme.series[index % len(theme.series)])
                    fill.setAlpha(alpha)
                    slot.band.setBrush(fill)
                    slot.band.setPen(None)
            self.metric_plot.plot.setLabel(
                "bottom",
                "step",
                color=theme.muted,
                **{"font-size": f"{tick_font.pointSizeF():.1f}pt"},
            )
            swatch_height = max(8, round(legend_font.pointSizeF() * 1.3))
            size = QSize(round(swatch_height * 2.6), swatch_height)
            for index, swatch in enumerate(self.swatches):
                swatch.set_pen(_series_pen(theme, index, theme.stroke_width * 1.2), size)
        finally:
            self._applying_theme = False
        self._legend_columns = 0
        self._arrange_legend()

    # ------------------------------------------------------------------------------ reading

    def curve_data(self, chart: int, algorithm: str) -> tuple[np.ndarray, np.ndarray]:
        """The mean line drawn for ``algorithm`` in chart 0 (pass rate) or 1 (metric): (x, y)."""
        slot = self._slot(chart, algorithm)
        x, y = slot.line.getData()
        return (np.array([]) if x is None else x), (np.array([]) if y is None else y)

    def band_data(self, chart: int, algorithm: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The band drawn for ``algorithm``: (x, low, high)."""
        slot = self._slot(chart, algorithm)
        x, low = slot.low.getData()
        _, high = slot.high.getData()
        empty = np.array([])
        return (
            empty if x is None else x,
            empty if low is None else low,
            empty if high is None else high,
        )

    def slot_items(self, chart: int, algorithm: str) -> tuple[pg.PlotCurveItem, pg.FillBetweenItem]:
        """The line and band items of ``algorithm`` in a chart (the same objects for ever)."""
        slot = self._slot(chart, algorithm)
        return slot.line, slot.band

    def slot_visible(self, chart: int, algorithm: str) -> bool:
        slot = self._slot(chart, algorithm)
        return slot.line.isVisible()

    def legend_texts(self) -> list[str]:
        """The algorithm names in the legend, in ALGORITHMS order."""
        return [label.text() for label in self.legend_labels if not label.isHidden()]

    def legend_pen(self, algorithm: str) -> QPen:
        """The pen the legend draws ``algorithm``'s sample with (colour and style)."""
        return self.swatches[ALGORITHMS.index(algorithm)].pen()

    def marker_step(self) -> int | None:
        """The step the marker stands on, or None when it is hidden."""
        marker = self.pass_plot.marker
        return round(marker.value()) if marker.isVisible() else None

    def plots(self) -> tuple[pg.PlotWidget, pg.PlotWidget]:
        return self.pass_plot.widget, self.metric_plot.widget

    def step_at(self, x: float) -> int | None:
        """The step nearest to ``x`` (1..steps done), or None before the first step."""
        if self._steps_done < 1 or not math.isfinite(x):
            return None
        return min(max(round(x), 1), self._steps_done)

    # ------------------------------------------------------------------------------ internals

    def _slot(self, chart: int, algorithm: str) -> _Slot:
        plot = (self.pass_plot, self.metric_plot)[chart]
        return plot.slots[ALGORITHMS.index(algorithm)]

    def _set_x(self, total: int) -> None:
        """The whole run's steps, so the lines grow rightwards and the axis never rescales."""
        self.pass_plot.set_x(0.0, float(max(total, 1)))

    @staticmethod
    def _draw(slot: _Slot, band: MetricBand, shaded: bool) -> None:
        """The mean line, and the band's edges when it is shaded (six algorithms shade only the
        focus one's: the others' edges are set when their band shows, not every frame)."""
        # The band drawn last (a step or focus chosen) is the same object: nothing to compare.
        same = (band is slot.source and slot.shown is not None) or _same(slot.shown, band)
        slot.source = band
        if same and (slot.edges or not shaded):
            return
        finite = np.isfinite(band.mean) & np.isfinite(band.low) & np.isfinite(band.high)
        x = np.flatnonzero(finite).astype(np.float64)
        if not same:
            slot.shown = (band.mean.copy(), band.low.copy(), band.high.copy())
            slot.edges = False
            if not finite.any():  # nothing measured (e.g. the critic's error for no critic)
                TrainingCharts._hide(slot)
                return
            slot.line.setData(x=x, y=band.mean[finite])
        if shaded:
            slot.low.blockSignals(True)  # the band redraws once, when its second edge is set
            try:
                slot.low.setData(x=x, y=band.low[finite])
            finally:
                slot.low.blockSignals(False)
            slot.high.setData(x=x, y=band.high[finite])
            slot.edges = True
        if not slot.line.isVisible():
            slot.line.setVisible(True)  # its band follows in show_snapshot

    @staticmethod
    def _hide(slot: _Slot) -> None:
        if slot.line.isVisible():
            slot.line.setVisible(False)
            slot.band.setVisible(False)
        slot.shown = None
        slot.source = None
        slot.edges = False

    def _show_divergence(self, note: str) -> None:
        """The snapshot's divergence sentences over the charts, shown only when there are any."""
        if note == self.divergence_note.text():
            return
        self.divergence_note.setText(note)
        self.divergence_note.setAccessibleName(note)
        self.divergence_note.setVisible(bool(note))
        self.updateGeometry()  # a wrapped note more or less over the plots

    def _show_marker(self, step: int | None) -> None:
        if step == self._selected:
            return
        self._selected = step
        for band_plot in (self.pass_plot, self.metric_plot):
            if step is None:
                band_plot.marker.setVisible(False)
            else:
                band_plot.marker.setValue(float(step))
                band_plot.marker.setVisible(True)

    def _show_legend(self, snapshot: TrainingSnapshot) -> None:
        used = {series.index: series for series in snapshot.series}
        for index in range(SLOTS):
            series = used.get(index)
            shown = series is not None
            if shown:
                self.legend_labels[index].setText(series.label)
                info = ALGORITHM_INFO.get(series.name)
                tip = f"{series.label}: {series.advantage}"
                if info is not None:
                    tip += f"\n{info.description}"
                self.legend_labels[index].setToolTip(tip)
                self.swatches[index].setToolTip(tip)
            self.legend_labels[index].setVisible(shown)
            self.swatches[index].setVisible(shown)
        self._legend_columns = 0
        self._arrange_legend()

    def _arrange_legend(self) -> None:
        """As many legend entries per row as fit the width (all six on one row when they do)."""
        shown = [i for i in range(SLOTS) if not self.legend_labels[i].isHidden()]
        if not shown:
            return
        entry = max(
            self.swatches[i].width()
            + self.legend_labels[i].fontMetrics().horizontalAdvance(self.legend_labels[i].text())
            + LEGEND_GAP_PX
            + 8
            for i in shown
        )
        margins = self.layout().contentsMargins()
        room = max(self.width() - margins.left() - margins.right(), 1)
        columns = max(1, min(len(shown), room // max(entry, 1)))
        if columns == self._legend_columns:
            return
        self._legend_columns = columns
        grid = self._legend
        for index in range(SLOTS):
            grid.removeWidget(self.swatches[index])
            grid.removeWidget(self.legend_labels[index])
        for position, index in enumerate(shown):
            row, col = divmod(position, columns)
            grid.addWidget(self.swatches[index], row, 2 * col, Qt.AlignmentFlag.AlignVCenter)
            grid.addWidget(self.legend_labels[index], row, 2 * col + 1)
        for col in range(2 * SLOTS + 1):
            grid.setColumnStretch(col, 0)
        grid.setColumnStretch(2 * columns, 1)  # entries pack to the left

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # Qt override
        """A left click on a plot asks for the step under it; a drag (the pointer moved
        CLICK_SLOP_PX or more, or held half a second and moved) asks for nothing, as with
        pyqtgraph's clicks. The left button's events stop here; the rest go on to the plot."""
        kind = event.type()
        if kind not in _MOUSE_EVENTS or watched not in self._viewports:
            return False
        if kind == QEvent.Type.MouseMove:
            if self._press is not None and self._press[0] is self._viewports[watched]:
                _, where, when = self._press
                offset = event.position() - where
                moved = math.hypot(offset.x(), offset.y())
                if moved >= CLICK_SLOP_PX or (moved > 0 and time.monotonic() - when >= DRAG_S):
                    self._press = None  # a drag: no step
            return False
        if event.button() != Qt.MouseButton.LeftButton:
            return False
        band_plot = self._viewports[watched]
        if kind == QEvent.Type.MouseButtonRelease:
            press, self._press = self._press, None
            if press is not None and press[0] is band_plot:
                self._click(band_plot, press[1])
        else:  # a press, or a double click's second press
            self._press = (band_plot, QPointF(event.position()), time.monotonic())
        return True

    def _click(self, band_plot: _BandPlot, where: QPointF) -> None:
        position = band_plot.widget.mapToScene(where.toPoint())
        if not band_plot.plot.sceneBoundingRect().contains(position):
            return
        step = self.step_at(band_plot.viewbox.mapSceneToView(position).x())
        if step is not None:
            self.setFocus(Qt.FocusReason.MouseFocusReason)
            self.step_requested.emit(step)

    def keyPressEvent(self, event: QKeyEvent) -> None:  # Qt override
        """← / → move the selected step, Home / End jump to the first / last step; Enter lists
        the chosen step's groups (the last step when none is chosen) and goes to them."""
        done = self._steps_done
        key = event.key()
        if key in (Qt.Key.Key_Return, Qt.Key.Key_Enter) and done >= 1:
            if self._selected is None:
                self.step_requested.emit(done)
            self.groups_requested.emit()
            return
        if done < 1 or key not in (
            Qt.Key.Key_Left,
            Qt.Key.Key_Right,
            Qt.Key.Key_Home,
            Qt.Key.Key_End,
        ):
            super().keyPressEvent(event)
            return
        current = self._selected if self._selected is not None else done
        target = {
            Qt.Key.Key_Left: current - 1,
            Qt.Key.Key_Right: current + 1,
            Qt.Key.Key_Home: 1,
            Qt.Key.Key_End: done,
        }[Qt.Key(key)]
        self.step_requested.emit(min(max(target, 1), done))

    def resizeEvent(self, event: QResizeEvent) -> None:  # Qt override
        super().resizeEvent(event)
        if self._built:
            self._arrange_legend()

    def changeEvent(self, event: QEvent) -> None:  # Qt override
        """Follow application font changes (zoom): every size derives from the app font (a
        build under way takes the font in force at its theme step)."""
        super().changeEvent(event)
        if event.type() == QEvent.Type.FontChange and not self._applying_theme and self._built:
            self.set_theme(self._theme)


accessible_events.register(TrainingCharts, accessible_events.chart_interface)
