"""The learning frontier: which problems still teach, as the run makes them easy.

x is a problem's pass rate p, y the share of its groups of G answers that are neither all right
nor all wrong, 1 − p^G − (1 − p)^G: only those groups carry a GRPO signal. One curve per G (the
run's own G drawn thick), and every problem as a dot where the focus algorithm has taken it.

A view (DESIGN §2): the curves and dots come from the ``TrainingSnapshot``; nothing is computed
here. Redrawn up to 60 times a second while a run plays, so every item is created once and
updated in place (DESIGN §3), and the dots' tooltips are built only when hovered.
"""

from __future__ import annotations

import html
from collections import deque
from collections.abc import Iterator

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QEvent, Qt
from PySide6.QtGui import QColor
from PySide6.QtWidgets import QLabel, QVBoxLayout, QWidget

from grpo_desktop.core.common.theme import LIGHT, Theme
from grpo_desktop.core.files.describe import frontier_text
from grpo_desktop.core.training.run import ALGORITHM_INFO, ALGORITHMS, FRONTIER_GROUP_SIZES
from grpo_desktop.core.training.training_snapshot import FrontierDot, TrainingSnapshot
from grpo_desktop.views.common import accessible_events
from grpo_desktop.views.common.fonts import scaled_font
from grpo_desktop.views.common.label_slot import LabelSlot
from grpo_desktop.views.common.plot_steps import plot_widget_in_steps
from grpo_desktop.views.common.pyqtgraph_internals import set_hover_size, set_text_box
from grpo_desktop.views.common.theme_palette import cosmetic_pen
from grpo_desktop.views.training.scene_activation import keep_scene_active

__all__ = ["TITLE", "FrontierPlot", "caption_text", "dot_tooltip"]

TITLE = "The learning frontier: groups that teach"
LABEL_P = 0.1  # curve labels sit on their curve here, where curves are apart and dots rarely are
DOT_PX = 9.0  # dot diameter before the theme's type scale
X_RANGE = (-0.02, 1.02)
Y_RANGE = (-0.03, 1.08)


def caption_text(
    focus_label: str,
    group_size: int,
    drawn: bool,
    started: bool = True,
    weighted: bool = False,
    chosen_step: int | None = None,
) -> str:
    """What the dots are, and (once the run has moved them) why easy problems stop teaching:
    before the first step the caption asks nothing away, so a class can predict first.
    ``weighted``: the run's reward is more than right/wrong, which the curves do not count.
    ``chosen_step``: the dots stand at the step clicked on the charts, not the last one."""
    if chosen_step is not None:
        focus_label = f"{focus_label} at step {chosen_step}"
    curve = (
        f"The thick curve is this run's G\u00a0=\u00a0{group_size}."  # never split at the end
        if drawn
        else f"This run's G\u00a0=\u00a0{group_size} lies between the curves drawn."
    )
    if not started:
        return f"Dots: each problem's pass rate under {focus_label}. {curve}"
    if weighted:
        why = "where only format or partial credit still tells their right answers apart"
    else:
        why = "their groups are all right and teach nothing"
    return (
        f"Dots: each problem's pass rate under {focus_label}; easy problems slide off the right "
        f"edge: {why}. {curve}"
    )


def dot_tooltip(dot: FrontierDot, group_size: int, focus_label: str) -> str:
    """Plain text for one hovered dot: the problem and its two numbers."""
    return (
        f"{dot.title}\n"
        f"pass rate under {focus_label}: {dot.pass_rate:.1%}\n"
        f"groups of G = {group_size} that teach: {dot.informative:.1%}"
    )


def _as_rich(text: str) -> str:
    """Plain text as tooltip markup that shows it verbatim ("<b>" stays three characters)."""
    return f"<p style='white-space:pre-wrap'>{html.escape(text)}</p>"


class FrontierPlot(QWidget):
    """Informative-group share against pass rate: one curve per G and one dot per problem."""

    def __init__(
        self, theme: Theme = LIGHT, parent: QWidget | None = None, stepwise: bool = False
    ) -> None:
        """The view, built whole; or with ``stepwise`` only begun: iterating :attr:`steps`
        then builds it a part per step (its plot in three: pyqtgraph makes one in one go,
        about 35 ms), as the Training page's idle prebuild does."""
        super().__init__(parent)
        self.setObjectName("frontierPlot")
        self.setAccessibleName("Learning frontier")
        self._theme = theme
        self._applying_theme = False
        self._built = False  # every step taken: its parts exist
        self._sizes: tuple[int, ...] = ()
        self._run_size: int | None = None
        self._focus: str | None = None
        self._focus_label = ""
        self._started = True  # whether the run has taken a step (the caption explains then)
        self._caption_key: tuple[object, ...] | None = None  # what the caption was set for
        self._chosen_step: int | None = None  # the step the dots stand at, when clicked
        self._weighted = False  # the run's reward is more than the checker's right/wrong
        self._dots: tuple[FrontierDot, ...] = ()
        self._dot_xy: tuple[np.ndarray, np.ndarray] | None = None
        self._curves_key: tuple[int, ...] | None = None
        self._hovered: tuple[int, ...] = ()
        # Pools: a curve and a label per G, grown when a snapshot brings more, never removed.
        self.curves: list[pg.PlotCurveItem] = []
        self.curve_labels: list[pg.TextItem] = []
        self.steps: Iterator[str] = self._build_steps(theme)
        if not stepwise:
            deque(self.steps, maxlen=0)

    def _build_steps(self, theme: Theme) -> Iterator[str]:
        self.plot_widget = yield from plot_widget_in_steps()
        keep_scene_active(self.plot_widget)  # a page shown paints once
        plot = self.plot_widget.getPlotItem()
        self.plot_widget.setObjectName("frontierPlotArea")
        self.plot_widget.setAccessibleName("Learning frontier curves and problems")
        self.plot = plot
        plot.setMouseEnabled(x=False, y=False)
        plot.hideButtons()
        plot.setMenuEnabled(False)
        self._viewbox = plot.getViewBox()
        self._viewbox.disableAutoRange()
        self._viewbox.setXRange(*X_RANGE, padding=0)
        self._viewbox.setYRange(*Y_RANGE, padding=0)
        for name in ("left", "bottom"):
            plot.getAxis(name).enableAutoSIPrefix(False)
        plot.getAxis("bottom").setTicks([[(v / 4, f"{v / 4:g}") for v in range(5)]])
        plot.getAxis("left").setTicks([[(v / 4, f"{v / 4:g}") for v in range(5)]])
        yield "view"

        self.title = QLabel(TITLE, objectName="frontierTitle")
        self.title.setWordWrap(True)
        self.caption = QLabel("", objectName="frontierCaption")
        self.caption.setTextFormat(Qt.TextFormat.PlainText)  # the focus label is data
        self.caption.setWordWrap(True)
        self.caption_slot = LabelSlot(self.caption)  # a click's caption re-lays out nothing

        self.dots = pg.ScatterPlotItem(symbol="o", pxMode=True, hoverable=True, tip=None)
        self.dots.setZValue(30)
        plot.addItem(self.dots)
        self.dots.sigHovered.connect(self._on_hovered)

        column = QVBoxLayout(self)
        column.setContentsMargins(8, 6, 8, 6)
        column.setSpacing(3)
        column.addWidget(self.title)
        column.addWidget(self.plot_widget, 1)
        column.addWidget(self.caption_slot)
        yield "dots, title and caption"
        # The usual G's curves and the run's own (unless it is one of them): made ahead, drawn
        # by the first snapshot.
        for count in range(1, len(FRONTIER_GROUP_SIZES) + 2):  # a curve and its label a step
            self._grow_pool(count)
            yield f"curve {count}"
        self.set_theme(theme)
        self._built = True
        yield "theme"

    # ----------------------------------------------------------------------------- public API

    def show_snapshot(self, snapshot: TrainingSnapshot) -> None:
        """Draw the frontier curves (once per change of G) and move every problem's dot."""
        run_size = snapshot.config.group_size
        sizes = tuple(size for size, _ in snapshot.frontier_curves)
        key = (*sizes, run_size, len(snapshot.frontier_p))
        if key != self._curves_key:
            self._curves_key = key
            self._sizes = sizes
            self._run_size = run_size
            self._draw_curves(snapshot)
        started = snapshot.steps_done > 0
        weighted = not snapshot.reward_weights.plain
        if snapshot.focus != self._focus:  # the dots take the focus algorithm's colour
            self._focus = snapshot.focus
            info = ALGORITHM_INFO.get(snapshot.focus)
            self._focus_label = info.label if info is not None else snapshot.focus
            self._restyle_dots()
            self._caption_key = None
        caption_key = (self._focus, started, weighted, snapshot.selected_step)
        if caption_key != self._caption_key:  # a chosen step changes the caption, not the dots
            self._caption_key = caption_key
            self._started = started
            self._weighted = weighted
            self._chosen_step = snapshot.selected_step
            self._set_caption()
        if snapshot.dots != self._dots:
            self._dots = snapshot.dots
            self._describe()
        x = np.fromiter((dot.pass_rate for dot in snapshot.dots), float, len(snapshot.dots))
        y = np.fromiter((dot.informative for dot in snapshot.dots), float, len(snapshot.dots))
        old = self._dot_xy
        if old is None or not (np.array_equal(old[0], x) and np.array_equal(old[1], y)):
            self._dot_xy = (x, y)
            finite = np.isfinite(x) & np.isfinite(y)
            self.dots.setData(x=x[finite], y=y[finite], data=np.flatnonzero(finite))
            if self._hovered:
                self._set_tooltip(self._hovered)

    def set_theme(self, theme: Theme) -> None:
        """Restyle text, axes, curves and dots for ``theme``."""
        self._theme = theme
        self._applying_theme = True
        try:
            scale = theme.type_scale
            self.title.setFont(scaled_font(1.05 * scale, bold=True))
            self.caption.setFont(scaled_font(0.95 * scale))
            self.setStyleSheet(
                f"#frontierPlot {{ background: {theme.surface}; }}"
                f" #frontierTitle, #frontierCaption {{ color: {theme.text}; }}"
            )
            self.setAttribute(Qt.WidgetAttribute.WA_StyledBackground, True)
            self.plot_widget.setBackground(theme.surface)
            tick_font = scaled_font(0.95 * scale)
            axis_pen = cosmetic_pen(theme.muted, float(max(1, round(theme.stroke_width * 0.75))))
            style = {"font-size": f"{tick_font.pointSizeF():.1f}pt"}
            for name, text in (("bottom", "pass rate p"), ("left", "groups that teach")):
                axis = self.plot.getAxis(name)
                axis.setPen(axis_pen)
                axis.setTextPen(theme.text)
                axis.setTickFont(tick_font)
                self.plot.setLabel(name, text, color=theme.muted, **style)
        finally:
            self._applying_theme = False
        self._style_curves()
        self._restyle_dots()

    # ------------------------------------------------------------------------------ reading

    def curve_sizes(self) -> tuple[int, ...]:
        """The G of every curve drawn, in the snapshot's order."""
        return self._sizes

    def curve_data(self, group_size: int) -> tuple[np.ndarray, np.ndarray]:
        """The (p, informative share) drawn for ``group_size``."""
        item = self.curves[self._sizes.index(group_size)]
        x, y = item.getData()
        return x, y

    def curve_width(self, group_size: int) -> float:
        return self.curves[self._sizes.index(group_size)].opts["pen"].widthF()

    def curve_label_texts(self) -> list[str]:
        return [label.toPlainText() for label in self.curve_labels if label.isVisible()]

    def highlighted_size(self) -> int | None:
        """The run's own G if a curve for it is drawn (thick), else None."""
        return self._run_size if self._run_size in self._sizes else None

    def dot_positions(self) -> tuple[np.ndarray, np.ndarray]:
        x, y = self.dots.getData()
        return np.asarray(x), np.asarray(y)

    def dot_tooltip_for(self, index: int) -> str:
        """The plain text a hover over problem ``index``'s dot shows."""
        return dot_tooltip(self._dots[index], self._run_size or 0, self._focus_label)

    def caption_text(self) -> str:
        return self.caption.text()

    # ------------------------------------------------------------------------------ internals

    def _describe(self) -> None:
        """The caption, then each problem's pass rate and whether its groups still teach."""
        dots = frontier_text(self._dots, self._run_size or 0)
        text = f"{self.caption.text()}\n{dots}" if dots else self.caption.text()
        if text != self.accessibleDescription():
            self.setAccessibleDescription(text)

    def _set_caption(self) -> None:
        drawn = self._run_size in self._sizes
        text = caption_text(
            self._focus_label,
            self._run_size or 0,
            drawn,
            self._started,
            self._weighted,
            self._chosen_step,
        )
        self.caption_slot.set_text(text)
        self._describe()

    def _grow_pool(self, count: int) -> None:
        """At least ``count`` curves and labels in the pool (made hidden until drawn)."""
        while len(self.curves) < count:
            curve = pg.PlotCurveItem()
            curve.setZValue(5)
            self.plot.addItem(curve)
            label = pg.TextItem("", anchor=(0.5, 0.5))
            label.setZValue(10)
            self.plot.addItem(label, ignoreBounds=True)
            curve.setVisible(False)
            label.setVisible(False)
            self.curves.append(curve)
            self.curve_labels.append(label)

    def _draw_curves(self, snapshot: TrainingSnapshot) -> None:
        p = np.asarray(snapshot.frontier_p, dtype=np.float64)
        self._grow_pool(len(snapshot.frontier_curves))
        for index, (curve, label) in enumerate(zip(self.curves, self.curve_labels)):
            if index >= len(snapshot.frontier_curves):
                curve.setVisible(False)
                label.setVisible(False)
                continue
            size, values = snapshot.frontier_curves[index]
            values = np.asarray(values, dtype=np.float64)
            curve.setData(x=p, y=values)
            curve.setVisible(True)
            label.setText(f"G = {size}")
            if p.size:
                at = int(np.argmin(np.abs(p - LABEL_P)))
                label.setPos(float(p[at]), float(values[at]))
            label.setVisible(bool(p.size))
        self._style_curves()
        self._set_caption()

    def _style_curves(self) -> None:
        theme = self._theme
        for index, (curve, label) in enumerate(zip(self.curves, self.curve_labels)):
            own = index < len(self._sizes) and self._sizes[index] == self._run_size
            colour = theme.text if own else theme.muted
            width = theme.stroke_width * (1.7 if own else 0.7)
            curve.setPen(cosmetic_pen(colour, width))
            curve.setZValue(6 if own else 5)
            font = scaled_font(0.9 * theme.type_scale, bold=own)
            label.setFont(font)
            label.setColor(QColor(theme.text if own else theme.muted))
            fill = QColor(theme.surface)
            fill.setAlpha(225)
            set_text_box(label, pg.mkBrush(fill), pg.mkPen(None))

    def _restyle_dots(self) -> None:
        theme = self._theme
        focus = self._focus if self._focus in ALGORITHMS else None
        colour = theme.series[ALGORITHMS.index(focus) % len(theme.series)] if focus else theme.text
        size = DOT_PX * theme.type_scale * (1.25 if theme.stroke_width > 2 else 1.0)
        self.dots.setPen(cosmetic_pen(theme.surface, max(1.0, theme.stroke_width * 0.7)))
        self.dots.setBrush(QColor(colour))
        self.dots.setSize(size)
        set_hover_size(self.dots, size * 1.4)

    def _on_hovered(self, _item: object, points: object, _event: object) -> None:
        indices = tuple(int(point.data()) for point in points)  # type: ignore[attr-defined]
        if indices == self._hovered:
            return
        self._hovered = indices
        self._set_tooltip(indices)

    def _set_tooltip(self, indices: tuple[int, ...]) -> None:
        """Every hovered problem's text (up to four), verbatim; no tooltip off the dots."""
        texts = [self.dot_tooltip_for(i) for i in indices[:4] if 0 <= i < len(self._dots)]
        if len(indices) > 4:
            texts.append(f"and {len(indices) - 4} more")
        markup = _as_rich("\n\n".join(texts)) if texts else ""
        self._viewbox.setToolTip(markup)

    def hovered_tooltip(self) -> str:
        """The tooltip markup set on the plot now ("" when no dot is hovered)."""
        return self._viewbox.toolTip()

    def changeEvent(self, event: QEvent) -> None:  # Qt override
        """Follow application font changes (zoom): every size derives from the app font (a
        build under way takes the font in force at its theme step)."""
        super().changeEvent(event)
        if event.type() == QEvent.Type.FontChange and not self._applying_theme and self._built:
            self.set_theme(self._theme)


accessible_events.register(FrontierPlot, accessible_events.chart_interface)
