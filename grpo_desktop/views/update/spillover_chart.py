"""Spill-over: how an update on the real model moved answers that were not in the batch.

Two groups of bars on one axis: the batch's own answers (their change Δ log p after the step,
one bar each, #1…#G) and the held-out prompts' right answers (one bar each), coloured by sign.
The caption says in one sentence what moved. While the model's step is still being taken (the
snapshot's spill-over is pending) the bars from before the change are drawn grey under a line
saying so, inside the plot: the caption keeps its height and the page does not re-lay out twice
per click. On a stand-in (a table of per-token logits) the
held-out bars would all be 0: only shared weights move answers the step never saw.

A view (DESIGN §2): renders a :class:`Spillover` and computes nothing but its layout. Every
graphics item is created once and updated in place, as in the push chart.
"""

from __future__ import annotations

import math
from collections import deque
from collections.abc import Iterator

import pyqtgraph as pg
from PySide6.QtCore import QEvent, Qt
from PySide6.QtGui import QBrush, QColor
from PySide6.QtWidgets import QLabel, QVBoxLayout, QWidget

from grpo_desktop.core.common.formatting import signed
from grpo_desktop.core.common.theme import LIGHT, Theme
from grpo_desktop.core.update.update_snapshot import Spillover
from grpo_desktop.views.common.advantage_plot import MIN_HALF_RANGE, SignedAxis, nice_ceiling
from grpo_desktop.views.common.fonts import scaled_font
from grpo_desktop.views.common.plot_steps import plot_widget_in_steps
from grpo_desktop.views.common.theme_palette import cosmetic_pen

__all__ = ["SpilloverChart"]

TITLE = "Spill-over: Δ log p after the step, in the batch and on held-out prompts"
BAR_WIDTH = 0.7
GAP = 2.0  # answer widths between the batch's bars and the held-out ones
HEADROOM = 1.1
#: Over the bars while the model's step is being taken (the bars are from before the change).
PENDING_TEXT = "Stepping the tiny model… these grey bars are from before the change"


class SpilloverChart(QWidget):
    """The batch's answers' Δ log p beside the held-out prompts' (objectName ``spilloverChart``)."""

    def __init__(
        self, theme: Theme = LIGHT, parent: QWidget | None = None, stepwise: bool = False
    ) -> None:
        """The chart, built whole; or with ``stepwise`` only begun: iterating :attr:`steps`
        then builds it a part per step (its plot in three), as the Update page's idle prebuild
        does, a step per turn of the event loop."""
        super().__init__(parent)
        self.setObjectName("spilloverChart")
        self.setAccessibleName("Spill-over chart")
        self._theme = theme
        self._applying_theme = False
        self._built = False  # every step taken: its parts exist
        self._batch: list[float] = []
        self._held_out: list[float] = []
        self._shown: Spillover | None = None
        self._ticks: list[tuple[float, str]] = []
        self.steps: Iterator[str] = self._build_steps(theme)
        if not stepwise:
            deque(self.steps, maxlen=0)

    def _build_steps(self, theme: Theme) -> Iterator[str]:
        """The plot in three parts (pyqtgraph makes one in a single go of 15–30 ms), then the
        texts, items and layout, then the theme; each step's name is yielded after it."""
        plot_widget = yield from plot_widget_in_steps(SignedAxis)
        self.title = QLabel(TITLE, objectName="spilloverTitle")
        self.title.setWordWrap(True)
        self.caption = QLabel("", objectName="spilloverCaption")
        self.caption.setTextFormat(Qt.TextFormat.PlainText)  # the prompt is data, not markup
        self.caption.setWordWrap(True)

        self.plot_widget = plot_widget
        plot_widget.setBackground(theme.surface)
        plot_widget.setObjectName("spilloverPlot")
        plot_widget.setAccessibleName("Spill-over bars")
        plot = plot_widget.getPlotItem()
        self.plot = plot
        plot.setMouseEnabled(x=False, y=False)
        plot.hideButtons()
        plot.setMenuEnabled(False)
        self._viewbox = plot.getViewBox()
        self._viewbox.disableAutoRange()
        plot.getAxis("left").enableAutoSIPrefix(False)
        plot.getAxis("left").setStyle(maxTickLevel=0)
        self.batch_bars = pg.BarGraphItem(x=[], height=[], width=BAR_WIDTH, pen=None, brush=None)
        self.held_out_bars = pg.BarGraphItem(x=[], height=[], width=BAR_WIDTH, pen=None, brush=None)
        plot.addItem(self.batch_bars)
        plot.addItem(self.held_out_bars)
        self.zero_line = pg.InfiniteLine(pos=0.0, angle=0, movable=False)
        self.zero_line.setZValue(5)
        plot.addItem(self.zero_line, ignoreBounds=True)
        self.divider = pg.InfiniteLine(pos=0.0, angle=90, movable=False)
        plot.addItem(self.divider, ignoreBounds=True)
        self.pending_label = pg.TextItem(PENDING_TEXT, anchor=(0.5, 0.0))
        self.pending_label.setZValue(10)
        self.pending_label.setVisible(False)
        plot.addItem(self.pending_label, ignoreBounds=True)

        column = QVBoxLayout(self)
        column.setContentsMargins(8, 6, 8, 6)
        column.setSpacing(4)
        column.addWidget(self.title)
        column.addWidget(self.caption)
        column.addWidget(plot_widget, 1)
        yield "texts, items and layout"
        self.set_theme(theme)
        self._built = True
        yield "theme"

    # ----------------------------------------------------------------------------- public API

    def show_spillover(self, spillover: Spillover | None) -> None:
        """Draw ``spillover`` (None: empty bars and no caption)."""
        if spillover is self._shown:
            return
        self._shown = spillover
        if spillover is None:
            self._batch, self._held_out = [], []
            self.caption.setText("")
            self.setAccessibleDescription("")
        else:
            self._batch = [self._finite(v) for v in spillover.batch_deltas]
            self._held_out = [self._finite(v) for v in spillover.held_out_deltas]
            self.caption.setText(spillover.caption)
            self.setAccessibleDescription(_text_alternative(spillover))
        self._redraw()

    def is_pending(self) -> bool:
        """Whether the shown bars wait for the model's step (grey, under :data:`PENDING_TEXT`)."""
        return self._shown is not None and self._shown.pending

    def set_theme(self, theme: Theme) -> None:
        self._theme = theme
        self._applying_theme = True
        try:
            scale = theme.type_scale
            self.title.setFont(scaled_font(1.15 * scale, bold=True))
            self.caption.setFont(scaled_font(1.0 * scale))
            self.setStyleSheet(
                f"#spilloverChart {{ background: {theme.surface}; }}"
                f" #spilloverTitle, #spilloverCaption {{ color: {theme.text}; }}"
            )
            self.setAttribute(Qt.WidgetAttribute.WA_StyledBackground, True)
            self.plot_widget.setBackground(theme.surface)
            tick_font = scaled_font(1.0 * scale)
            self.pending_label.setFont(tick_font)
            self.pending_label.setColor(theme.text)
            self.pending_label.fill = pg.mkBrush(theme.surface)  # legible over bars and lines
            axis_pen = cosmetic_pen(theme.muted, float(max(1, round(theme.stroke_width * 0.75))))
            for name in ("left", "bottom"):
                axis = self.plot.getAxis(name)
                axis.setPen(axis_pen)
                axis.setTextPen(theme.text)
                axis.setTickFont(tick_font)
            self.plot.setLabel(
                "left",
                "Δ log p",
                color=theme.muted,
                **{"font-size": f"{tick_font.pointSizeF():.1f}pt"},
            )
            pad = math.ceil(tick_font.pointSizeF()) + 4
            self.plot.setContentsMargins(2, pad, 2, 2)
            self.zero_line.setPen(cosmetic_pen(theme.text, theme.stroke_width))
            divider = cosmetic_pen(theme.muted, 1.0)
            divider.setStyle(Qt.PenStyle.DashLine)
            self.divider.setPen(divider)
        finally:
            self._applying_theme = False
        self._redraw()

    # ------------------------------------------------------------------------------ reading

    def caption_text(self) -> str:
        return self.caption.text()

    def bar_heights(self) -> tuple[list[float], list[float]]:
        """The heights drawn now: (the batch's answers, the held-out prompts')."""
        return self._heights_of(self.batch_bars), self._heights_of(self.held_out_bars)

    def group_labels(self) -> list[str]:
        """The labels under the axis: one per group of bars."""
        return [text for _, text in self._ticks]

    def y_range(self) -> tuple[float, float]:
        low, high = self._viewbox.viewRange()[1]
        return float(low), float(high)

    # ------------------------------------------------------------------------------ internals

    def changeEvent(self, event: QEvent) -> None:  # Qt override
        super().changeEvent(event)
        if event.type() == QEvent.Type.FontChange and self._built and not self._applying_theme:
            self.set_theme(self._theme)

    @staticmethod
    def _finite(value: float) -> float:
        return float(value) if math.isfinite(value) else 0.0

    @staticmethod
    def _heights_of(bars: pg.BarGraphItem) -> list[float]:
        heights = bars.opts.get("height")
        return [] if heights is None else [float(h) for h in heights]

    def _positions(self) -> tuple[list[float], list[float]]:
        batch = [float(i + 1) for i in range(len(self._batch))]
        first = len(self._batch) + GAP
        held_out = [first + i for i in range(len(self._held_out))]
        return batch, held_out

    def _redraw(self) -> None:
        batch_x, held_x = self._positions()
        theme = self._theme
        for bars, xs, values in (
            (self.batch_bars, batch_x, self._batch),
            (self.held_out_bars, held_x, self._held_out),
        ):
            if not values:  # empty per-bar lists trip BarGraphItem's pen-width code
                bars.setOpts(x=[], height=[], width=BAR_WIDTH, pens=None, brushes=None)
                continue
            stale = self.is_pending()
            colours = [theme.muted if stale else theme.push_colour(v) for v in values]
            bars.setOpts(
                x=xs,
                height=list(values),
                width=BAR_WIDTH,
                brushes=[QBrush(QColor(c)) for c in colours],
                pens=[cosmetic_pen(c, theme.stroke_width) for c in colours],
            )
        right = (held_x[-1] if held_x else (batch_x[-1] if batch_x else 1.0)) + 1.0
        self._viewbox.setXRange(0.0, right, padding=0)
        ticks = []
        if batch_x:
            ticks.append(((batch_x[0] + batch_x[-1]) / 2, f"batch ({len(batch_x)})"))
        if held_x:
            ticks.append(((held_x[0] + held_x[-1]) / 2, f"held-out ({len(held_x)})"))
        self._ticks = ticks
        self.plot.getAxis("bottom").setTicks([ticks])
        self.divider.setPos(len(self._batch) + GAP / 2)
        self.divider.setVisible(bool(batch_x and held_x))
        largest = max((abs(v) for v in self._batch + self._held_out), default=0.0)
        half = max(nice_ceiling(largest * HEADROOM), MIN_HALF_RANGE) if largest > 0 else 1.0
        self._viewbox.setYRange(-half, half, padding=0)
        pending = self.is_pending() and bool(batch_x or held_x)
        self.pending_label.setVisible(pending)
        if pending:
            self.pending_label.setPos(right / 2, half)


def _text_alternative(spillover: Spillover) -> str:
    """The caption, then every bar in words, for a screen reader."""
    lines = [spillover.caption, "The batch's answers:"]
    if spillover.pending:
        lines.insert(0, f"{PENDING_TEXT}.")
    lines += [
        f"#{index + 1} (A {signed(advantage)}): {signed(delta, 3)}"
        for index, (delta, advantage) in enumerate(
            zip(spillover.batch_deltas, spillover.batch_advantages, strict=True)
        )
    ]
    lines.append(f"Held-out {spillover.held_out_noun}, the right answer's change:")
    lines += [
        f"{prompt}{answer}: {signed(delta, 3)}"
        for prompt, answer, delta in zip(
            spillover.held_out_prompts,
            spillover.held_out_answers,
            spillover.held_out_deltas,
            strict=True,
        )
    ]
    return "\n".join(lines)
