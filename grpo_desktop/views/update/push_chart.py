"""Each answer's total push under two loss presets, side by side: the length bias is seen, not told.

"Push" is −∂loss/∂logp summed over an answer's tokens (the snapshot computes it): a bar above 0
means the update raises that answer's likelihood. Two bars per answer, the main preset solid and
the comparison preset hatched, coloured by sign. A caption under the title gives each preset's
net push in words.

A view (DESIGN §2): renders an ``UpdateSnapshot`` and computes nothing. Like ``AdvantagePlot``
every graphics item is created once and updated in place (DESIGN §3: PySide6 crashed on repeated
scene removals), so G going from 2 to 64 and back only changes item options.
"""

from __future__ import annotations

import math
from collections import deque
from collections.abc import Iterator

import pyqtgraph as pg
from PySide6.QtCore import QEvent, QSize, Qt
from PySide6.QtGui import (
    QBrush,
    QColor,
    QFont,
    QFontMetricsF,
    QPainter,
    QPaintEvent,
    QPen,
    QResizeEvent,
)
from PySide6.QtWidgets import (
    QGraphicsView,
    QGridLayout,
    QLabel,
    QSizePolicy,
    QVBoxLayout,
    QWidget,
)

from grpo_desktop.core.common.formatting import signed
from grpo_desktop.core.common.theme import LIGHT, Theme
from grpo_desktop.core.files.describe import push_chart_text
from grpo_desktop.core.update.update_snapshot import UpdateSnapshot
from grpo_desktop.views.common import accessible_events
from grpo_desktop.views.common.advantage_plot import MIN_HALF_RANGE, SignedAxis, nice_ceiling
from grpo_desktop.views.common.fonts import scaled_font
from grpo_desktop.views.common.label_slot import LabelSlot
from grpo_desktop.views.common.plot_steps import plot_widget_in_steps
from grpo_desktop.views.common.pyqtgraph_internals import GroupedBars, RememberingAxis
from grpo_desktop.views.common.value_labels import ValueLabels

__all__ = ["PushChart", "net_push_words"]

TITLE = "Total push per answer (−∂loss/∂logp summed over its tokens)"
BAR_WIDTH = 0.38  # in answer units: two bars and a gap per answer
BAR_OFFSET = 0.2  # main bar left of the answer's x, comparison bar right of it
X_MARGIN = 0.6  # x range is [1 − 0.6, G + 0.6]
LABEL_GAP_PX = 3.0  # between a bar's end and its value label
LABEL_MARGIN_PX = 1.0  # QTextDocument margin around a value label
HEADROOM_LABELS = 1.3  # y range over max|push| when value labels are drawn
HEADROOM_PLAIN = 1.08  # no labels: just keep bars off the frame
MIN_LABEL_POINT_SIZE = 7.0  # smaller labels are unreadable: hide them instead
HATCH = Qt.BrushStyle.BDiagPattern  # the comparison preset's fill


def net_push_words(net: float, first: bool = True) -> str:
    """What a net push means for the batch: > 0 raises its likelihood overall."""
    if net > 0:
        return "the batch's likelihood goes up" if first else "goes up"
    if net < 0:
        return "the batch's likelihood goes down" if first else "goes down"
    return "no net change"


def _decimals(largest: float) -> int:
    """Three decimals for small pushes, fewer as they grow: labels stay short."""
    if largest < 1:
        return 3
    if largest < 10:
        return 2
    return 1


def _pen(colour: str, width: float) -> QPen:
    pen = QPen(QColor(colour))
    pen.setWidthF(width)
    pen.setCosmetic(True)  # width in pixels whatever the data scale
    pen.setJoinStyle(Qt.PenJoinStyle.MiterJoin)
    return pen


def _same_items(shown: list | None, wanted: list) -> bool:
    """Whether the bars already draw with these very pens or brushes (one per bar)."""
    return (
        shown is not None
        and len(shown) == len(wanted)
        and all(a is b for a, b in zip(shown, wanted, strict=True))
    )


class _Swatch(QWidget):
    """A legend sample: a small bar in the preset's style (solid or hatched), in neutral grey."""

    def __init__(self, hatched: bool) -> None:
        super().__init__()
        self._hatched = hatched
        self._colour = QColor(LIGHT.neutral)
        self._stroke = LIGHT.stroke_width
        self.setSizePolicy(QSizePolicy.Policy.Fixed, QSizePolicy.Policy.Fixed)

    def set_style(self, colour: str, stroke: float, size: int) -> None:
        self._colour = QColor(colour)
        self._stroke = stroke
        self.setFixedSize(QSize(int(size * 1.4), size))
        self.update()

    def paintEvent(self, event: QPaintEvent) -> None:  # Qt override
        painter = QPainter(self)
        pen = QPen(self._colour)
        pen.setWidthF(self._stroke)
        painter.setPen(pen)
        style = HATCH if self._hatched else Qt.BrushStyle.SolidPattern
        painter.setBrush(QBrush(self._colour, style))
        inset = math.ceil(self._stroke / 2)
        painter.drawRect(self.rect().adjusted(inset, inset, -inset, -inset))


class PushChart(QWidget):
    """Two bars per answer (main preset solid, comparison hatched), a zero line and a caption.

    Bars are coloured by sign (pushed up / pushed down / no push). The y range is a "nice" ±R
    covering both presets' totals with room for the value labels, which hide when they no
    longer fit one bar's width (large G). Nothing is re-created per snapshot.
    """

    def __init__(
        self, theme: Theme = LIGHT, parent: QWidget | None = None, stepwise: bool = False
    ) -> None:
        """The chart, built whole; or with ``stepwise`` only begun: iterating :attr:`steps`
        then builds it a part per step (its plot in three), as the Update page's idle prebuild
        does, a step per turn of the event loop."""
        super().__init__(parent)
        self.setObjectName("pushChart")
        self.setAccessibleName("Push per answer chart")
        self._theme = theme
        self._applying_theme = False
        self._built = False  # every step taken: its parts exist
        self._main: list[float] = []
        self._shown: tuple | None = None  # what show_snapshot last drew
        self._compare: list[float] = []
        self._correct: list[bool | None] = []
        self._texts: tuple[list[str], list[str]] = ([], [])
        self._labels_shown = False
        self._label_font = QFont()
        self._applied_font = QFont()
        self._x_ticks: list[tuple[float, str]] = []
        self._ticks_set = False
        # Each colour's bar brush and pen (solid and hatched), made once per theme.
        self._bar_looks: dict[tuple[str, bool], tuple[QBrush, QPen]] = {}
        self._label_height_px = 0.0
        self._half_range = 1.0
        # Measured per theme (set_theme forgets them): the legend's width per pair of texts,
        # the tick step per (answers, px per answer), the labels' fit per (widest, room).
        self._legend_widths: dict[tuple[str, str], int] = {}
        self._tick_steps: dict[tuple[int, float], int] = {}
        self._label_fits: dict[tuple[str, float], tuple[QFont, float] | None] = {}
        self.steps: Iterator[str] = self._build_steps(theme)
        if not stepwise:
            deque(self.steps, maxlen=0)

    def _build_steps(self, theme: Theme) -> Iterator[str]:
        """The plot in three parts (pyqtgraph makes one in a single go of 15–30 ms), then the
        texts, items and layout, then the theme; each step's name is yielded after it."""
        # The answers' axis remembers its drawings too: a card toggled and toggled back brings
        # its ✓ or ✗ back, and the ticks seen before.
        plot_widget = yield from plot_widget_in_steps(SignedAxis, RememberingAxis)
        self.title = QLabel(TITLE, objectName="pushChartTitle")
        self.title.setWordWrap(True)
        self.caption = QLabel("", objectName="pushChartCaption")
        self.caption.setTextFormat(Qt.TextFormat.PlainText)  # preset labels are data, not markup
        self.caption.setWordWrap(True)
        # In a slot: a toggle's new nets re-lay out nothing unless they need another height.
        self.caption_slot = LabelSlot(self.caption)

        self.main_swatch = _Swatch(hatched=False)
        self.compare_swatch = _Swatch(hatched=True)
        self.main_legend = QLabel("", objectName="pushChartMainLegend")
        self.compare_legend = QLabel("", objectName="pushChartCompareLegend")
        for label in (self.main_legend, self.compare_legend):
            label.setTextFormat(Qt.TextFormat.PlainText)
        # One row when both entries fit, else one entry per row (see _arrange_legend).
        self._legend = QGridLayout()
        self._legend.setContentsMargins(0, 0, 0, 0)
        self._legend.setHorizontalSpacing(6)
        self._legend.setVerticalSpacing(2)
        self._legend_rows = 0
        self._arrange_legend(1)

        self.plot_widget = plot_widget
        plot_widget.setBackground(theme.surface)
        plot_widget.setObjectName("pushChartPlot")
        # The background is one solid colour: filled where the bars repaint, not blitted from
        # a cached pixmap (pyqtgraph's default), whose blit Qt splits across threads and then
        # waits for; on a busy 2-core machine that wait was a third of the chart's repaint.
        plot_widget.setCacheMode(QGraphicsView.CacheModeFlag.CacheNone)
        plot_widget.setAccessibleName("Push per answer bars")
        plot = plot_widget.getPlotItem()
        self.plot = plot
        plot.setMouseEnabled(x=False, y=False)  # nothing to drag or zoom away on stage
        plot.hideButtons()
        plot.setMenuEnabled(False)
        self._viewbox = plot.getViewBox()
        self._viewbox.disableAutoRange()
        # No axis scales its labels (the hidden right and top ones included: with the prefix
        # on, pyqtgraph typesets a hidden axis's label as HTML again at each new range, about
        # 1 ms of a click whose bars need a new y range).
        for name in ("left", "bottom", "right", "top"):
            plot.getAxis(name).enableAutoSIPrefix(False)
        plot.getAxis("left").setStyle(maxTickLevel=0)  # labelled ticks only
        # Our own thinning keeps answer labels apart; let #1 and #G spill into the margins.
        plot.getAxis("bottom").setStyle(hideOverlappingLabels=40)

        # Every item is created here, once; show_snapshot only changes their options. Bars
        # of one look are drawn in one call (GroupedBars), not recorded bar by bar.
        self.main_bars, self.compare_bars = (
            GroupedBars(
                outline_as_fill=False, x=[], height=[], width=BAR_WIDTH, pen=None, brush=None
            )
            for _ in range(2)
        )
        plot.addItem(self.main_bars)
        plot.addItem(self.compare_bars)
        self.zero_line = pg.InfiniteLine(pos=0.0, angle=0, movable=False)
        self.zero_line.setZValue(5)
        plot.addItem(self.zero_line, ignoreBounds=True)
        self.value_labels = ValueLabels(plot.getViewBox(), LABEL_MARGIN_PX)  # both presets'
        self.value_labels.setZValue(20)

        column = QVBoxLayout(self)
        column.setContentsMargins(8, 6, 8, 6)
        column.setSpacing(4)
        column.addWidget(self.title)
        column.addWidget(self.caption_slot)
        column.addLayout(self._legend)
        column.addWidget(plot_widget, 1)

        self._viewbox.sigResized.connect(self._on_resized)
        self._apply_x(0)
        yield "texts, items and layout"
        self.set_theme(theme)
        self._built = True
        yield "theme"

    # ----------------------------------------------------------------------------- public API

    def show_snapshot(self, snapshot: UpdateSnapshot) -> None:
        """Draw both presets' total push per answer and state each preset's net push."""
        rows = snapshot.rows
        main_push = [self._finite(row.total_push) for row in rows]
        compare_push = [self._finite(row.compare_total_push) for row in rows]
        correct = [row.correct for row in rows]
        labels = snapshot.side_labels  # with each side's clip range when they differ
        if (main_push, compare_push, correct, labels) == self._shown:
            return  # a token selected, or a change that moved no total: nothing to redraw
        self._shown = (main_push, compare_push, correct, labels)
        self._main, self._compare, self._correct = main_push, compare_push, correct
        largest = max((abs(v) for v in self._main + self._compare), default=0.0)
        places = _decimals(largest)
        self._texts = (
            [signed(v, places) for v in self._main],
            [signed(v, places) for v in self._compare],
        )
        main, compare = labels
        self.main_legend.setText(f"{main} (solid)")
        self.compare_legend.setText(f"{compare} (hatched)")
        self._fit_legend()
        # Words for the net as printed: a float-noise 1e-17 shown as 0.000 is "no net change".
        net = round(snapshot.net_push, places)
        compare_net = round(snapshot.compare_net_push, places)
        self.caption_slot.set_text(
            # One preset per line: the labels themselves contain " · ".
            f"{main}: net {signed(net, places)} ({net_push_words(net)})\n"
            f"{compare}: net {signed(compare_net, places)} "
            f"({net_push_words(compare_net, first=False)})"
        )
        # The text alternative: the nets, then every answer's two bars.
        self.setAccessibleDescription(f"{self.caption.text()}\n{push_chart_text(snapshot, places)}")
        self._apply_x(len(rows))
        self._redraw()

    def set_theme(self, theme: Theme) -> None:
        """Restyle text, axes, bars and labels for ``theme`` (colours, strokes, sizes)."""
        self._theme = theme
        self._bar_looks = {}
        self._legend_widths, self._tick_steps, self._label_fits = {}, {}, {}
        self._applying_theme = True
        try:
            scale = theme.type_scale
            self.title.setFont(scaled_font(1.15 * scale, bold=True))
            self.caption.setFont(scaled_font(1.0 * scale))
            legend_font = scaled_font(0.95 * scale)
            for label in (self.main_legend, self.compare_legend):
                label.setFont(legend_font)
            self.setStyleSheet(
                f"#pushChart {{ background: {theme.surface}; }}"
                f" #pushChartTitle, #pushChartMainLegend, #pushChartCompareLegend"
                f" {{ color: {theme.text}; }}"
                f" #pushChartCaption {{ color: {theme.text}; }}"
            )
            self.setAttribute(Qt.WidgetAttribute.WA_StyledBackground, True)
            swatch_px = round(QFontMetricsF(legend_font).height() * 0.8)
            for swatch in (self.main_swatch, self.compare_swatch):
                swatch.set_style(theme.neutral, theme.stroke_width, swatch_px)
            self._fit_legend()

            self.plot_widget.setBackground(theme.surface)
            tick_font = scaled_font(1.0 * scale)
            axis_pen = _pen(theme.muted, float(max(1, round(theme.stroke_width * 0.75))))
            for name in ("left", "bottom"):
                axis = self.plot.getAxis(name)
                axis.setPen(axis_pen)
                axis.setTextPen(theme.text)
                axis.setTickFont(tick_font)
            self.plot.setLabel(
                "left",
                "total push",
                color=theme.muted,
                **{"font-size": f"{tick_font.pointSizeF():.1f}pt"},
            )
            # Half a tick label of room above and below, so the ±R labels are not cut off.
            pad = math.ceil(QFontMetricsF(tick_font).height() / 2) + 2
            self.plot.setContentsMargins(2, pad, 2, 2)
            self.zero_line.setPen(_pen(theme.text, theme.stroke_width))
            self._label_font = scaled_font(0.95 * scale, bold=True)
            self.value_labels.set_colour(theme.text)
        finally:
            self._applying_theme = False
        self._apply_x(len(self._main))
        self._redraw()

    # ------------------------------------------------------------------------------ reading

    def bar_heights(self) -> tuple[list[float], list[float]]:
        """The heights drawn now: (main preset, comparison preset), answer by answer."""
        return self._heights_of(self.main_bars), self._heights_of(self.compare_bars)

    def bar_colours(self) -> tuple[list[str], list[str]]:
        """Each bar's colour as ``#rrggbb``: (main preset, comparison preset)."""
        return self._colours_of(self.main_bars), self._colours_of(self.compare_bars)

    def caption_text(self) -> str:
        return self.caption.text()

    def legend_texts(self) -> tuple[str, str]:
        return self.main_legend.text(), self.compare_legend.text()

    def x_tick_labels(self) -> list[str]:
        """The answer labels written under the axis ("#1 ✓", …; thinned at large G)."""
        return [text for _, text in self._x_ticks]

    def label_texts(self) -> list[str]:
        """The visible value labels: the main preset's left to right, then the comparison's."""
        return self.value_labels.texts()

    def labels_visible(self) -> bool:
        return self._labels_shown

    def y_range(self) -> tuple[float, float]:
        low, high = self._viewbox.viewRange()[1]
        return float(low), float(high)

    # ------------------------------------------------------------------------------ internals

    def changeEvent(self, event: QEvent) -> None:  # Qt override
        """Follow application font changes (zoom): every size derives from the app font."""
        super().changeEvent(event)
        if event.type() == QEvent.Type.FontChange and self._built and not self._applying_theme:
            self.set_theme(self._theme)

    def resizeEvent(self, event: QResizeEvent) -> None:  # Qt override
        super().resizeEvent(event)
        if self._built:
            self._fit_legend()

    def _legend_row_width(self) -> int:
        """The width both legend entries need side by side, unwrapped."""
        widths = [
            self.main_swatch.width(),
            self.compare_swatch.width(),
            self.main_legend.fontMetrics().horizontalAdvance(self.main_legend.text()),
            self.compare_legend.fontMetrics().horizontalAdvance(self.compare_legend.text()),
        ]
        margins = self.layout().contentsMargins()
        return sum(widths) + 3 * 6 + 20 + margins.left() + margins.right() + 4

    def _fit_legend(self) -> None:
        texts = (self.main_legend.text(), self.compare_legend.text())
        known = self._legend_widths.get(texts)
        if known is None:  # measured once per pair of legends and theme (every click asks)
            if len(self._legend_widths) >= 64:
                self._legend_widths.clear()
            known = self._legend_widths[texts] = self._legend_row_width()
        self._arrange_legend(1 if self.width() >= known else 2)

    def _arrange_legend(self, rows: int) -> None:
        """Both entries on one row, or one per row with the labels free to wrap."""
        if rows == self._legend_rows:
            return
        self._legend_rows = rows
        grid = self._legend
        for label in (self.main_legend, self.compare_legend):
            label.setWordWrap(rows > 1)  # a wrapping label in a row squeezes itself needlessly
            label.setMinimumWidth(1)  # the row never sets the chart's minimum: it stacks instead
        for widget in (
            self.main_swatch,
            self.main_legend,
            self.compare_swatch,
            self.compare_legend,
        ):
            grid.removeWidget(widget)
        if rows == 1:
            grid.addWidget(self.main_swatch, 0, 0)
            grid.addWidget(self.main_legend, 0, 1)
            grid.addWidget(self.compare_swatch, 0, 3)
            grid.addWidget(self.compare_legend, 0, 4)
            grid.setColumnMinimumWidth(2, 14)
            stretches = (0, 0, 0, 0, 0, 1)
        else:
            grid.addWidget(self.main_swatch, 0, 0)
            grid.addWidget(self.main_legend, 0, 1, 1, 5)
            grid.addWidget(self.compare_swatch, 1, 0)
            grid.addWidget(self.compare_legend, 1, 1, 1, 5)
            grid.setColumnMinimumWidth(2, 0)
            stretches = (0, 1, 0, 0, 0, 0)
        for column, stretch in enumerate(stretches):
            grid.setColumnStretch(column, stretch)

    @staticmethod
    def _finite(value: float) -> float:
        return float(value) if math.isfinite(value) else 0.0

    @staticmethod
    def _heights_of(bars: pg.BarGraphItem) -> list[float]:
        heights = bars.opts.get("height")
        return [] if heights is None else [float(h) for h in heights]

    @staticmethod
    def _colours_of(bars: pg.BarGraphItem) -> list[str]:
        pens = bars.opts.get("pens")
        return [] if pens is None else [QPen(p).color().name() for p in pens]

    def _colour(self, value: float) -> str:
        return self._theme.push_colour(value)

    def _px_per_answer(self) -> float:
        count = max(len(self._main), 1)
        return self._viewbox.width() / (count - 1 + 2 * X_MARGIN)

    def _apply_x(self, count: int) -> None:
        """The x range and the answer labels under it, thinned when they would overlap (the
        axis is given its ticks only when they change: new ticks redraw it)."""
        low, high = 1 - X_MARGIN, max(count, 1) + X_MARGIN
        if self._viewbox.viewRange()[0] != [low, high]:
            self._viewbox.setXRange(low, high, padding=0)
        ticks: list[tuple[float, str]] = []
        if count:
            px = self._px_per_answer()
            step = self._tick_steps.get((count, px))
            if step is None:
                axis = self.plot.getAxis("bottom")
                metrics = QFontMetricsF(axis.style["tickFont"] or self.font())
                needed = metrics.horizontalAdvance(f"#{count} ✓") + 10.0
                step = max(1, math.ceil(needed / px)) if px > 0 else 1
                if step > 1:
                    step = next((s for s in (2, 4, 5, 8, 10, 16, 20, 32) if s >= step), 64)
                if len(self._tick_steps) >= 64:
                    self._tick_steps.clear()
                self._tick_steps[(count, px)] = step
            for index in range(0, count, step):
                correct = self._correct[index]
                mark = "" if correct is None else "✓" if correct else "✗"
                ticks.append((float(index + 1), f"#{index + 1} {mark}".rstrip()))
        if ticks != self._x_ticks or not self._ticks_set:
            self._x_ticks, self._ticks_set = ticks, True
            self.plot.getAxis("bottom").setTicks([ticks])

    def _on_resized(self, *_: object) -> None:
        self._apply_x(len(self._main))
        self._redraw()

    def _fit_labels(self) -> None:
        """Labels in the largest font (down to a floor) that fits one bar's width, or none."""
        texts = self._texts[0] + self._texts[1]
        self._labels_shown = False
        if not texts:
            return
        room = self._px_per_answer() * (BAR_WIDTH + 2 * (BAR_OFFSET - BAR_WIDTH / 2)) - 2
        widest = max(texts, key=len)
        if (widest, room) not in self._label_fits:
            if len(self._label_fits) >= 256:
                self._label_fits.clear()
            self._label_fits[(widest, room)] = self._label_fit(widest, room)
        fit = self._label_fits[(widest, room)]
        if fit is not None:
            self._labels_shown = True
            self._applied_font, self._label_height_px = QFont(fit[0]), fit[1]

    def _label_fit(self, widest: str, room: float) -> tuple[QFont, float] | None:
        """The largest label font (down to a floor) in which ``widest`` fits ``room`` px, with
        a label's height in it; None when none does."""
        font = QFont(self._label_font)
        floor = MIN_LABEL_POINT_SIZE * self._theme.type_scale
        size = font.pointSizeF()
        while size >= floor:
            font.setPointSizeF(size)
            width = QFontMetricsF(font).horizontalAdvance(widest) + 2 * LABEL_MARGIN_PX
            if width <= room:
                return font, QFontMetricsF(font).height() + 2 * LABEL_MARGIN_PX
            size -= 0.5
        return None

    def _fit_y(self) -> None:
        """±R over both presets' totals, with room for a label beyond the longest bar."""
        largest = max((abs(v) for v in self._main + self._compare), default=0.0)
        half_px = self._viewbox.height() / 2
        factor = HEADROOM_LABELS if self._labels_shown else HEADROOM_PLAIN
        if self._labels_shown and half_px > 40:
            room = self._label_height_px + LABEL_GAP_PX
            factor = max(HEADROOM_PLAIN, 1.0 / (1.0 - min(room / half_px, 0.6)))
        half = max(nice_ceiling(largest * factor), MIN_HALF_RANGE) if largest > 0 else 1.0
        self._half_range = half
        if self._viewbox.viewRange()[1] != [-half, half]:  # an equal range redraws nothing
            self._viewbox.setYRange(-half, half, padding=0)

    def _bar_style(self, values: list[float], hatched: bool) -> tuple[list[QBrush], list[QPen]]:
        looks = self._bar_looks
        pairs = []
        for value in values:
            key = (self._colour(value), hatched)
            look = looks.get(key)
            if look is None:
                style = HATCH if hatched else Qt.BrushStyle.SolidPattern
                look = looks[key] = (
                    QBrush(QColor(key[0]), style),
                    _pen(key[0], self._theme.stroke_width),
                )
            pairs.append(look)
        return [brush for brush, _ in pairs], [pen for _, pen in pairs]

    def _redraw(self) -> None:
        count = len(self._main)
        self._fit_labels()
        self._fit_y()
        for bars, values, offset, hatched in (
            (self.main_bars, self._main, -BAR_OFFSET, False),
            (self.compare_bars, self._compare, BAR_OFFSET, True),
        ):
            if count == 0:  # empty per-bar lists trip BarGraphItem's pen-width code
                bars.setOpts(x=[], height=[], width=BAR_WIDTH, pens=None, brushes=None)
                continue
            brushes, pens = self._bar_style(values, hatched)
            x = [i + 1 + offset for i in range(count)]
            shown = bars.opts
            if shown.get("x") != x or shown.get("width") != BAR_WIDTH:
                bars.setOpts(x=x, height=list(values), width=BAR_WIDTH, brushes=brushes, pens=pens)
            elif _same_items(shown.get("pens"), pens) and _same_items(
                shown.get("brushes"), brushes
            ):
                # The same bars with new heights only: GroupedBars moves their ends (the x
                # and looks stay worked out, ~0.1 ms a preset at the slow machine's pace).
                bars.setOpts(height=list(values))
            else:
                bars.setOpts(height=list(values), brushes=brushes, pens=pens)
        self._draw_labels()

    def _draw_labels(self) -> None:
        if not self._labels_shown:
            self.value_labels.set_labels(())
            return
        height = self._label_height_px
        above = (0.5, 1.0 + LABEL_GAP_PX / height)
        below = (0.5, -LABEL_GAP_PX / height)
        self.value_labels.set_style(self._applied_font, {1: above, -1: below})
        self.value_labels.set_labels(
            [
                (index + 1 + offset, value, text, 1 if value >= 0 else -1)
                for values, texts, offset in (
                    (self._main, self._texts[0], -BAR_OFFSET),
                    (self._compare, self._texts[1], BAR_OFFSET),
                )
                for index, (value, text) in enumerate(zip(values, texts))
            ]
        )


accessible_events.register(PushChart, accessible_events.chart_interface)
