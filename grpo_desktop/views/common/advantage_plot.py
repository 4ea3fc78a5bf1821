"""The advantage chart's plot: bars, value labels, card ticks, a reference line and the y range.

A ``pg.PlotItem``, hosted by ``AdvantageChart`` the way pyqtgraph's ``PlotWidget`` hosts one, so
exporters and ``getPlotItem()`` see it as any plot. It draws the heights, colours and labels it
is given and knows no snapshot (the chart picks the values, DESIGN §2). Every graphics item is
created once and then updated in place (DESIGN §3: PySide6 6.12.0 crashed on repeated scene
removals, and ``BarGraphItem.setOpts`` is far cheaper than rebuilding), so a click repaints within
one 60 Hz frame even at G = 64, and an animation frame costs no more than a click.
"""

from __future__ import annotations

import bisect
import functools
import math
from collections.abc import Sequence

import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtGui import (
    QBrush,
    QColor,
    QFont,
    QFontMetricsF,
    QPen,
)

from grpo_desktop.core.common.formatting import MINUS
from grpo_desktop.core.common.theme import LIGHT, Theme
from grpo_desktop.core.lab.lab_snapshot import Push
from grpo_desktop.views.common.pyqtgraph_internals import GroupedBars, RememberingAxis
from grpo_desktop.views.common.step_caption import StepCaption
from grpo_desktop.views.common.value_labels import ValueLabels

__all__ = ["AdvantagePlot", "GroupedBars", "SignedAxis", "nice_ceiling"]

BAR_WIDTH = 0.6  # in card units: leaves a visible gap between neighbouring bars
X_MARGIN_LEFT = 0.4  # x range is [0.4, G + 0.6]
X_MARGIN_RIGHT = 0.6
LABEL_MARGIN_PX = 1.0  # free pixels around each value label's text
LABEL_GAP_PX = 3.0  # between a bar's end and its value label
LABEL_MIN_SPACING_PX = 4.0  # free space required between neighbouring labels
MIN_LABEL_POINT_SIZE = 7.0  # below this a label is unreadable: hide labels instead
LABEL_GROWTH_PX = 420.0  # a plot this tall draws labels at their plain size; taller grows them
MAX_LABEL_GROWTH = 2.5
MARKER_PX = 9.0  # the "no signal" dot drawn on a zero-height bar (before type_scale)
DEFAULT_HEADROOM = 1.25  # range factor over max|A| before the plot has a real size
HIDDEN_LABEL_HEADROOM = 1.08  # no labels to fit: just keep bars off the frame
ZERO_FLOOR = 0.08  # a view with no negative values: the range starts this fraction of R below 0
#: The smallest ±R the chart zooms to. Rewards and advantages below it draw as flat bars (their
#: labels still give the value); a range of 1e-307 would scale past double precision in Qt's
#: transforms and crash the paint (found by the soak, issue 24).
MIN_HALF_RANGE = 1e-12
MAX_Y_TICKS = 9  # value ticks: 5 to 9 of them, at a nice step, never closer than ~2 lines
REF_TEMPLATE = "par = 0.08888"  # widest par for G <= 64 (e.g. 0.09091): the margin reserves it

_NICE_MANTISSAS = (1.0, 1.25, 1.5, 2.0, 2.5, 3.0, 4.0, 5.0, 6.0, 8.0)


@functools.cache
def _nice_decades(exponent: int) -> tuple[float, ...]:
    """The nice numbers of the decades 10^exponent and 10^(exponent + 1), ascending, each written
    exactly (``float("1.5e-1")``: 1.5 * 0.1 is 0.15000000000000002). Kept: a click asks for a
    few ceilings, always in the same few decades."""
    return tuple(
        float(f"{mantissa}e{power}")
        for power in (exponent, exponent + 1)
        for mantissa in _NICE_MANTISSAS
    )


def nice_ceiling(value: float) -> float:
    """The smallest "nice" number (1, 1.25, 1.5, 2, 2.5, 3, 4, 5, 6, 8 × 10^k) >= ``value``
    (within a relative 1e-12, so a value a rounding error above a nice number takes it).

    Axis limits a class can read at a glance; 1.0 for zero, negative or non-finite input.
    """
    if not (value > 0 and math.isfinite(value)):
        return 1.0
    exponent = math.floor(math.log10(value))
    nice = _nice_decades(exponent)
    index = bisect.bisect_left(nice, value * (1 - 1e-12))
    return nice[index] if index < len(nice) else float(f"1e{exponent + 2}")  # (10^(e+1) > value)


def _tick_step(value: float) -> float:
    """The smallest 1, 2, 2.5 or 5 × 10^k >= ``value``: steps a class counts in at a glance."""
    if not (value > 0 and math.isfinite(value)):
        return 1.0
    exponent = math.floor(math.log10(value))
    for power in (exponent, exponent + 1):
        for mantissa in (1.0, 2.0, 2.5, 5.0):
            step = float(f"{mantissa}e{power}")
            if step >= value * (1 - 1e-12):
                return step
    return float(f"1e{exponent + 2}")


def _nice_value_ticks(
    low: float, high: float, height_px: float, font: QFont, around_zero: bool
) -> list[tuple[float, str]]:
    """Ticks from ``low`` to ``high`` at a nice step: at most MAX_Y_TICKS, each about two lines
    of ``font`` apart or more. ``around_zero``: the range is ±R (a very short plot then writes
    its ends and 0), else it starts just below 0 (0 and the top)."""
    spacing_px = 2.0 * QFontMetricsF(font).height()
    fit = int(height_px / spacing_px) + 1 if height_px > 0 else MAX_Y_TICKS
    most = max(2, min(MAX_Y_TICKS, fit))
    span = high - low
    step = _tick_step(span / (most - 1))
    while math.floor(high / step + 1e-9) - math.ceil(low / step - 1e-9) + 1 > most:
        step = _tick_step(step * 1.01)
    first = math.ceil(low / step - 1e-9)
    last = math.floor(high / step + 1e-9)
    ticks = []
    for k in range(first, last + 1):
        value = float(f"{k * step:.12g}")  # 0.30000000000000004 → 0.3, at any scale
        text = f"{value:g}".replace("-", MINUS)
        ticks.append((value, text))
    if len(ticks) < 3:  # a very short plot: its ends and 0 (no nice step fits between)
        ends = (low, 0.0, high) if around_zero else (0.0, high)
        ticks = [(v, f"{v:g}".replace("-", MINUS)) for v in ends]
    return ticks


class SignedAxis(RememberingAxis):
    """A value axis that writes negative ticks with the real minus sign, as the seeds do."""

    def tickStrings(self, values: list[float], scale: float, spacing: float) -> list[str]:
        strings = super().tickStrings(values, scale, spacing)
        return [text.replace("-", MINUS) for text in strings]


def _cosmetic_pen(colour: str, width: float) -> QPen:
    pen = QPen(QColor(colour))
    pen.setWidthF(width)
    pen.setCosmetic(True)  # width in pixels, whatever the data scale
    pen.setJoinStyle(Qt.PenJoinStyle.MiterJoin)
    return pen


def _scaled_font(base: QFont, relative_size: float, type_scale: float, bold: bool) -> QFont:
    """``base``'s family at ``relative_size`` × its size × the theme's type scale."""
    font = QFont(base)
    size = font.pointSizeF()
    if size <= 0:  # a pixel-sized font: convert at 96 dpi
        size = font.pixelSize() * 0.75 if font.pixelSize() > 0 else 9.0
    font.setPointSizeF(max(size, 9.0) * relative_size * type_scale)
    font.setBold(bold)
    return font


class AdvantagePlot(pg.PlotItem):
    """One bar per card at x = 1..G with its value label, a reference line and a ±R y range.

    The y range is a "nice" ±R computed from the values drawn and ``reserve``d (every phase of an
    animation), so it depends on what is shown, never on history, and an animation never
    rescales it. ``set_floor`` raises its bottom to just below 0 for a view with nothing
    negative (rewards), and can slide it there during an animation. Value labels take the
    largest font that fits one card, or all hide when none does. The phase caption lives here
    too, in a band at the top the y range keeps free of bars.
    """

    def __init__(self, value_title: str) -> None:
        super().__init__(axisItems={"left": SignedAxis("left"), "right": RememberingAxis("right")})
        # A lecturer must not drag, zoom or right-click the chart away on stage.
        self.setMouseEnabled(x=False, y=False)
        self.hideButtons()
        self.setMenuEnabled(False)
        # Our own reference: PlotItem.close() drops self.vb, and the widget's close() may come
        # while an animation still has a frame to draw.
        self._viewbox = self.getViewBox()
        self._viewbox.disableAutoRange()
        self.getAxis("left").enableAutoSIPrefix(False)
        # No ruler-like third level of ticks. The tick labels' margin only grows (per theme, like
        # the reference label's): a click that turns "−2.5" into "−2" would otherwise narrow the
        # axis, re-lay out the plot and paint the whole chart a second time.
        self.getAxis("left").setStyle(maxTickLevel=1, autoReduceTextSpace=False)
        self.getAxis("bottom").enableAutoSIPrefix(False)
        # Card G's number sits 0.6 card from the plot's right edge; let it spill into the margin
        # rather than vanish (our own thinning already keeps tick labels apart).
        self.getAxis("bottom").setStyle(hideOverlappingLabels=24)
        # The reference line's label lives in the right margin, where no bar or value label can
        # cover it (inside the plot it would collide with the last bar at large G).
        self._ref_axis = self.getAxis("right")
        self._ref_axis.enableAutoSIPrefix(False)
        self._ref_axis.setStyle(tickLength=0)
        self.showAxis("right")

        # State of what is drawn, so updates touch only what changed.
        self._theme = LIGHT
        self._base_font = QFont()
        self._value_title = value_title
        self._title_style: dict[str, str] = {}
        self._heights: list[float] = []
        self._pushes: list[Push] = []
        self._texts: list[str] = []
        self._half_range: float | None = None  # R of the ±R y range; None = recompute
        self._floor_mix = 0.0  # 0: the range is ±R; 1: it starts just below 0 (no negatives)
        self._hug_extent = 0.0  # the largest value of the view with no negatives (rewards)
        self._hug_top: float | None = None  # that view's own top: nice, with label room
        self._y_applied: tuple[float, float, float] | None = None  # (low, high, plot height)
        self._y_tick_list: list[tuple[float, str]] = []
        # (low, high, plot height, from 0 up, the tick font's id) -> (that font, its ticks): a
        # class's clicks move among a few ranges (the font is held, so its id stays its own).
        self._value_ticks_kept: dict[tuple, tuple[QFont, list[tuple[float, str]]]] = {}
        self._reserve_extent = 0.0  # max |value| the y range must cover beyond the bars drawn
        self._label_reserve = 0  # longest label to come: the label font must fit it too
        self._caption_room = True  # keep the caption band free (while animation is enabled)
        self._card_title = True  # the x axis's "card" title (a cramped chart drops it)
        self._x_count = -1
        self._ticks: list[tuple[float, str]] | None = None
        self._zero_indices: tuple[tuple[int, ...], tuple[Push, ...]] | None = None
        self._bars_key: tuple[int, tuple[Push, ...]] | None = None  # the x and colours drawn
        self._labels_shown = False
        self._labels_suppressed = False  # hidden while bars move
        self._applied_label_font: QFont | None = None
        self._fit_key: tuple[float, str, str, float] | None = None
        self._fit_font: QFont | None = None
        self._label_height_px = 0.0
        self._label_font = QFont()
        self._ref_value = 0.0
        self._ref_text = "0"
        self._ref_applied: tuple[float, str] | None = None
        self._ref_width_text = REF_TEMPLATE  # the widest reference label the margin must fit
        self._ref_axis_font = QFont()
        self._ref_metrics = QFontMetricsF(self._ref_axis_font)
        self._ref_advances: dict[str, float] = {}  # reference label -> its width in that font
        self._push_brushes: dict[Push, QBrush] = {}
        self._push_pens: dict[Push, QPen] = {}
        # The bars' pushes -> their brushes and pens, per theme: a click recolours one bar, and
        # clicks back and forth come back to the same few groups.
        self._looks_kept: dict[tuple[Push, ...], tuple[list[QBrush], list[QPen]]] = {}
        self._marker_px = MARKER_PX

        # Every item is created once here; updates go through setOpts / setData / setText.
        self.bars = GroupedBars(
            x=[], height=[], width=BAR_WIDTH, pen=None, brush=None, repaint_changes_only=True
        )
        self.bars.setZValue(0)
        self.addItem(self.bars)
        self.ref_line = pg.InfiniteLine(pos=0.0, angle=0, movable=False)
        self.ref_line.setZValue(5)  # over the bars' bases: a crisp baseline
        self.addItem(self.ref_line, ignoreBounds=True)
        self.markers = pg.ScatterPlotItem(symbol="o", pxMode=True)
        self.markers.setZValue(10)
        self.addItem(self.markers, ignoreBounds=True)
        self.value_labels = ValueLabels(self._viewbox, LABEL_MARGIN_PX)  # one item, all bars
        self.value_labels.setZValue(20)  # over the bars, the reference line and the dots
        # Top centre of the plot, in the band the y range keeps free of bars (where the value
        # labels, hidden while bars move, otherwise sit).
        self.caption = StepCaption()
        self.addItem(self.caption, ignoreBounds=True)

        self._set_x_range(0)
        self._fit_y_range([], reset=True)
        self.set_reference_line(0.0, "0")  # replaces the right axis's automatic numeric ticks
        self._viewbox.sigResized.connect(self._on_view_resized)

    # --------------------------------------------------------------------------------- drawing

    def render_bars(
        self, heights: Sequence[float], pushes: Sequence[Push], labels: Sequence[str]
    ) -> None:
        """Draw bars of these heights (an animation may call this per frame with in-between values).

        The y range covers the reserved extent, so in-between frames never make the axis jump.
        """
        if not len(heights) == len(pushes) == len(labels):
            raise ValueError(
                f"render_bars needs one push and one label per bar; got {len(heights)} heights, "
                f"{len(pushes)} pushes and {len(labels)} labels"
            )
        safe = [float(h) if math.isfinite(h) else 0.0 for h in heights]
        count = len(safe)
        count_changed = count != len(self._heights)
        self._heights, self._pushes, self._texts = safe, list(pushes), list(labels)
        if count_changed:
            self._set_x_range(count)
        self._update_label_fit()
        self._fit_y_range(safe)
        self._draw_bars()
        self._draw_markers()
        self._draw_labels()

    def set_reference_line(self, y: float, label: str) -> None:
        """Move the single horizontal reference line (0 for advantages, "par" for rewards)."""
        wanted = (float(y), label)
        if wanted == self._ref_applied:
            return
        if self._ref_applied is None or wanted[0] != self._ref_applied[0]:
            self.ref_line.setValue(wanted[0])
        self._ref_value, self._ref_text = wanted
        self._ref_applied = wanted
        self._ref_axis.setTicks([[wanted]])

    def set_value_title(self, title: str) -> None:
        """The value axis title ("reward r" or "advantage A")."""
        self._value_title = title
        if self.getAxis("left").labelText != title:
            self.setLabel("left", title, **self._title_style)

    def set_card_title_shown(self, shown: bool) -> None:
        """Show the x axis's "card" title, or give its line to the bars (a cramped chart)."""
        self._card_title = bool(shown)
        self.getAxis("bottom").showLabel(self._card_title)

    def set_labels_suppressed(self, suppressed: bool) -> None:
        """Hide the value labels while bars move, or bring them back (from the next draw)."""
        self._labels_suppressed = suppressed

    # ------------------------------------------------------------------------------- y range

    def reserve(self, extent: float, label_chars: int, ref_text: str) -> None:
        """Values, labels and a reference label still to come, so drawing them moves nothing.

        The y range will cover ±``extent``, the label font will fit ``label_chars`` characters
        and the right margin will fit ``ref_text`` (grow-only per theme).
        """
        self._reserve_extent = extent
        self._label_reserve = label_chars
        self._reserve_ref_width(ref_text)

    def forget_y_range(self) -> None:
        """Fit the range from scratch at the next draw (it always is: kept for callers)."""
        self._half_range = None

    def set_floor(self, mix: float, extent: float | None = None) -> None:
        """0: the range is ±R; 1: it hugs a view with nothing negative (rewards up to
        ``extent``): from just below 0 to that view's own nice top, so neither an empty
        negative half nor a band sized for the other view; in between during an animation, so
        both edges slide instead of jumping."""
        self._floor_mix = min(max(float(mix), 0.0), 1.0)
        if extent is not None and float(extent) != self._hug_extent:
            self._hug_extent = float(extent)
            if self._heights:
                self._fit_y_range(self._heights)  # the hugging view's top follows its values
        self._apply_y_range()  # a no-op when neither edge moves

    def set_caption_room(self, reserved: bool) -> None:
        """Keep the caption band at the top free of bars, or not (no animation, no caption)."""
        self._caption_room = bool(reserved)
        if reserved:
            self.refit_y_range()

    def refit_y_range(self) -> None:
        """Grow the range to what the bars drawn and the reservations need now."""
        if self._heights:
            self._fit_y_range(self._heights)

    # ------------------------------------------------------------------------------- caption

    def set_captions(self, captions: tuple[str, ...]) -> None:
        """Every phase caption the coming animations may show: their band is reserved now."""
        self.caption.set_captions(captions)
        self.caption.fit(self._viewbox.width())

    def measure_captions_ahead(self, captions: tuple[str, ...]) -> None:
        """Measure (idle time) the band of captions a coming snapshot brings, so
        ``set_captions`` then finds it measured."""
        self.caption.measure_ahead(captions, self._viewbox.width())

    def show_caption(self, caption: str) -> None:
        self.caption.show_text(caption, self._viewbox.width())
        self._place_caption()

    def hide_caption(self) -> None:
        self.caption.hide_text()

    # ------------------------------------------------------------------------------- styling

    def set_theme(self, theme: Theme, font: QFont) -> None:
        """Restyle every item for ``theme``, text sized from ``font`` (the widget's), and redraw."""
        self._theme = theme
        self._base_font = font
        self._apply_theme()
        self._ticks = None
        if self._x_count >= 0:
            self._update_x_ticks()
        if self._heights:
            self._update_label_fit(force=True)
            self._fit_y_range(self._heights)
            self._draw_bars()
            self._zero_indices = None
            self._draw_markers()
            self._draw_labels()

    def _font(self, relative_size: float, bold: bool = False) -> QFont:
        return _scaled_font(self._base_font, relative_size, self._theme.type_scale, bold)

    def _apply_theme(self) -> None:
        theme = self._theme
        width = theme.stroke_width
        colours = {Push.UP: theme.up, Push.DOWN: theme.down, Push.NONE: theme.neutral}
        self._push_brushes = {push: QBrush(QColor(colour)) for push, colour in colours.items()}
        self._push_pens = {push: _cosmetic_pen(colour, width) for push, colour in colours.items()}
        self._looks_kept = {}
        self._bars_key = None  # new pens and brushes: the next draw sets them

        tick_font = self._font(1.1)
        # Whole pixels: the chart is not antialiased, and 1.125 px ticks render 1 or 2 px wide.
        axis_pen = _cosmetic_pen(theme.muted, float(max(1, round(width * 0.75))))
        for name in ("left", "bottom", "right"):
            axis = self.getAxis(name)
            axis.setPen(axis_pen)
            axis.setTextPen(theme.muted)
            axis.setTickFont(tick_font)
        self._ref_axis.setPen(QPen(Qt.PenStyle.NoPen))  # text only: no second vertical axis line
        self._ref_axis.setTextPen(theme.text)
        title_style = {
            "color": theme.muted,
            "font-size": f"{tick_font.pointSizeF():.1f}pt",
            "font-family": self._base_font.family(),
        }
        self._title_style = title_style
        self.setLabel("left", self._value_title, **title_style)
        self.setLabel("bottom", "card", **title_style)
        self.getAxis("bottom").showLabel(self._card_title)
        self._ref_axis_font = tick_font
        self._ref_metrics = QFontMetricsF(tick_font)
        self._ref_advances = {}
        self._reserve_ref_width(self._ref_width_text, reset=True)
        self.getAxis("left").textWidth = 0  # new tick font: the margin fits it afresh
        # Half a tick label of room above and below, so the ±R tick labels are not cut off.
        pad = math.ceil(QFontMetricsF(tick_font).height() / 2) + 2
        self.setContentsMargins(2, pad, 2, 2)

        self.ref_line.setPen(_cosmetic_pen(theme.muted, width))
        marker_size = MARKER_PX * theme.type_scale
        self.markers.setSize(marker_size)
        self.markers.setBrush(QBrush(QColor(theme.neutral)))
        self.markers.setPen(_cosmetic_pen(theme.surface, width))
        self._marker_px = marker_size

        self._label_font = self._font(1.25, bold=True)
        self._fit_key = None  # the fitting font depends on the theme's type scale
        self.value_labels.set_colour(theme.text)

        self.caption.set_style(theme, self._font(1.1, bold=True))
        self.caption.fit(self._viewbox.width())

    def _reserve_ref_width(self, text: str, reset: bool = False) -> None:
        """Fix the right margin to fit the widest reference label seen, so the plot never
        changes width when the line switches between "0" and "par = …" (grow-only per theme)."""
        if not reset:
            if self._ref_advance(text) <= self._ref_advance(self._ref_width_text):
                return
            self._ref_width_text = text
        offset = self._ref_axis.style["tickTextOffset"][0]
        width = math.ceil(self._ref_advance(self._ref_width_text)) + offset + 4
        self._ref_axis.setWidth(width)

    def _ref_advance(self, text: str) -> float:
        """The width of a reference label in the axis font, measured once per text and theme (a
        click asks for two, and the group's "par = …" labels come back click after click)."""
        advance = self._ref_advances.get(text)
        if advance is None:
            if len(self._ref_advances) >= 256:
                self._ref_advances.clear()
            advance = self._ref_advances[text] = self._ref_metrics.horizontalAdvance(text)
        return advance

    # ------------------------------------------------------------------------------ reading

    def bar_heights(self) -> list[float]:
        """The heights the bar item is drawing now (read back from its options)."""
        heights = self.bars.opts.get("height")
        return [] if heights is None else [float(h) for h in heights]

    def bar_colours(self) -> list[str]:
        """The fill colour of each bar as ``#rrggbb``."""
        brushes = self.bars.opts.get("brushes")
        return [] if brushes is None else [QBrush(b).color().name() for b in brushes]

    def label_texts(self) -> list[str]:
        """The value labels visible now, left to right (none when hidden for lack of room)."""
        return self.value_labels.texts()

    def y_range(self) -> tuple[float, float]:
        """The visible y range: (−R, R), or from just below 0 to R (see ``set_floor``)."""
        low, high = self._viewbox.viewRange()[1]
        return float(low), float(high)

    def y_ticks(self) -> list[float]:
        """The values written on the value axis."""
        return [value for value, _ in self._y_tick_list]

    def x_ticks(self) -> list[int]:
        """The card numbers written under the x axis (thinned when they would overlap)."""
        return [int(value) for value, _ in self._ticks or []]

    def reference_line(self) -> tuple[float, str]:
        """Where the reference line is and what its label says."""
        return self._ref_value, self._ref_text

    def labels_visible(self) -> bool:
        """Whether value labels fit at the current width and group size."""
        return self._labels_shown

    def px_per_card(self) -> float:
        """Screen pixels from one card's x to the next."""
        span = max(self._x_count, 1) + X_MARGIN_RIGHT - X_MARGIN_LEFT
        return self._viewbox.width() / span

    # ------------------------------------------------------------------------------ internals

    def _on_view_resized(self, *_: object) -> None:
        """A new plot size changes how many labels and ticks fit and the label headroom."""
        self._ticks = None
        self._update_x_ticks()
        self.caption.fit(self._viewbox.width())
        if self._heights:
            changed = self._update_label_fit()
            self._fit_y_range(self._heights)
            self._apply_y_range()  # the tick spacing depends on the plot's height
            if changed:
                self._draw_labels()

    def _place_caption(self) -> None:
        """Top centre of the plot: inside the band ``_fit_y_range`` keeps free of bars."""
        if self._y_applied is None:
            return
        centre = (X_MARGIN_LEFT + max(self._x_count, 1) + X_MARGIN_RIGHT) / 2
        self.caption.setPos(centre, self._y_applied[1])

    def _set_x_range(self, count: int) -> None:
        self._x_count = count
        self._viewbox.setXRange(X_MARGIN_LEFT, max(count, 1) + X_MARGIN_RIGHT, padding=0)
        self._place_caption()
        self._ticks = None
        self._update_x_ticks()

    def _update_x_ticks(self) -> None:
        """Card numbers 1..G: always 1 and G, with a regular step between when all would overlap."""
        count = self._x_count
        if count <= 0:
            ticks: list[tuple[float, str]] = []
        else:
            axis = self.getAxis("bottom")
            metrics = QFontMetricsF(axis.style["tickFont"] or self._base_font)
            needed = metrics.horizontalAdvance(str(count)) + 8.0
            px = self.px_per_card()
            least = max(1, math.ceil(needed / px - 1e-9)) if px > 0 else count
            # 1, 1 + s, …, G when a step that fits divides G − 1 (16 cards: 1, 4, 7, …, 16) …
            even = [s for s in range(least, math.floor(2.5 * least) + 1) if (count - 1) % s == 0]
            if even or count == 1:
                values = list(range(1, count + 1, even[0] if even else 1))
            else:  # … else every 2nd/5th/10th… card, a multiple too close to 1 or G giving way
                step = next((s for s in (1, 2, 5, 10, 20, 50) if s >= least), 100)
                inner = [v for v in range(step, count, step) if v > 1]
                inner = [v for v in inner if (v - 1) * px >= needed and (count - v) * px >= needed]
                values = sorted({1, *inner, count})
            ticks = [(float(v), str(v)) for v in values]
        if ticks != self._ticks:
            self._ticks = ticks
            self.getAxis("bottom").setTicks([ticks])

    def _label_template(self) -> str:
        """The widest label the current range can produce, so the font fit is stable per click."""
        widest = max(max((len(t) for t in self._texts), default=5), self._label_reserve)
        digits = max(widest - 4, 1)  # "+d.dd": sign, point and two decimals around the integer
        return MINUS + "8" * digits + ".88"

    def _fitting_label_font(self) -> QFont | None:
        """The largest label font whose widest possible label fits one card's width, or None.

        Measured, not guessed: the widest label the current texts can produce (plus margins and a
        gap) must fit in one card's pixels. Tries the bold label size, then smaller bold, then
        regular weight down to MIN_LABEL_POINT_SIZE. Cached: a click rarely changes the inputs.
        """
        px = self.px_per_card()
        template = self._label_template()
        # A tall plot (a large screen) reads from further away: its labels may grow, in steps
        # of a quarter so a small resize keeps them.
        grow = min(MAX_LABEL_GROWTH, max(1.0, self._viewbox.height() / LABEL_GROWTH_PX))
        grow = math.floor(grow * 4) / 4
        key = (round(px, 3), template, self._label_font.key(), grow)
        if key == self._fit_key:
            return self._fit_font
        self._fit_key = key
        self._fit_font = None
        if px <= 0:
            return None
        floor = MIN_LABEL_POINT_SIZE * max(self._theme.type_scale, 1.0)
        largest = self._label_font.pointSizeF() * grow
        sizes = [largest - 0.5 * step for step in range(int((largest - floor) / 0.5) + 1)]
        if not sizes or sizes[-1] > floor:
            sizes.append(floor)
        for bold in (True, False):
            for size in sizes:
                font = QFont(self._label_font)
                font.setPointSizeF(size)
                font.setBold(bold)
                width = QFontMetricsF(font).horizontalAdvance(template) + 2 * LABEL_MARGIN_PX
                if width + LABEL_MIN_SPACING_PX <= px:
                    self._fit_font = font
                    return font
        return None

    def _update_label_fit(self, force: bool = False) -> bool:
        """Show labels in the font that fits, or hide them all; True if anything changed."""
        font = self._fitting_label_font() if self._heights else None
        shown = font is not None
        changed = shown != self._labels_shown or (shown and font != self._applied_label_font)
        if not (changed or force):
            return False
        self._labels_shown = shown
        if font is None:
            self._label_height_px = 0.0
            return True
        self._applied_label_font = font
        height = QFontMetricsF(font).height() + 2 * LABEL_MARGIN_PX
        self._label_height_px = height
        above = 1.0 + LABEL_GAP_PX / height
        zero = 1.0 + (self._marker_px / 2 + LABEL_GAP_PX) / height
        below = -LABEL_GAP_PX / height
        self.value_labels.set_style(font, {1: (0.5, above), -1: (0.5, below), 0: (0.5, zero)})
        return True

    def _fit_y_range(self, heights: Sequence[float], reset: bool = True) -> None:
        """Make ±R cover every bar and its label: a function of what is drawn and reserved.

        Also covers the reserved extent (every phase of an animation) and keeps a band at the
        top free of bars for the phase caption, so an animation never changes the range.
        ``reset`` is accepted for old callers: the range never depends on earlier draws.
        """
        largest = max(max((abs(h) for h in heights), default=0.0), self._reserve_extent)
        half_px = self._viewbox.height() / 2
        if half_px < 40:  # not laid out yet; sigResized will fit again
            factor = DEFAULT_HEADROOM if self._labels_shown else HIDDEN_LABEL_HEADROOM
        else:
            room_px = self.caption.band_px() if self._caption_room else 0.0
            if self._labels_shown:
                label_px = self._label_height_px + LABEL_GAP_PX + self._marker_px / 2
                room_px = max(room_px, label_px)
            floor = 1.15 if self._labels_shown else HIDDEN_LABEL_HEADROOM
            factor = max(floor, 1.0 / (1.0 - min(room_px / half_px, 0.5)))
        needed = max(nice_ceiling(largest * factor), MIN_HALF_RANGE) if largest > 0 else 1.0
        # The hugging view spans about R, not 2R: its label room is half as many units.
        hug_factor = 1.0 + (factor - 1.0) / 2
        hug_top = nice_ceiling(self._hug_extent * hug_factor) if self._hug_extent > 0 else needed
        hug_top = min(max(hug_top, MIN_HALF_RANGE), needed)
        if needed != self._half_range or hug_top != self._hug_top:
            self._half_range = needed
            self._hug_top = hug_top
            self._apply_y_range()

    def _apply_y_range(self) -> None:
        """Set the view's y range from R and the floor, and its ticks for the plot's height."""
        full = self._half_range
        if full is None:
            return
        mix = self._floor_mix
        hug = self._hug_top if self._hug_top is not None else full
        high = full - mix * (full - hug)
        low = -full * (1.0 - mix) - hug * ZERO_FLOOR * mix
        height = round(self._viewbox.height())
        if (low, high, height) == self._y_applied:
            return
        self._y_applied = (low, high, height)
        self._viewbox.setYRange(low, high, padding=0)
        # Move the scene to the new range now, not when the paint starts: the value labels then
        # re-orient before the paint, which otherwise schedules a second paint of the chart.
        self._viewbox.updateMatrix()
        self._place_caption()
        self._y_tick_list = self._value_ticks(low, high, height)
        self.getAxis("left").setTicks([self._y_tick_list])

    def _value_ticks(self, low: float, high: float, height_px: float) -> list[tuple[float, str]]:
        """Ticks at a nice step: at most MAX_Y_TICKS, each about two text lines apart or more;
        worked out once per range, height and font."""
        font = self.getAxis("left").style["tickFont"] or self._base_font
        key = (low, high, height_px, self._floor_mix == 0, id(font))
        kept = self._value_ticks_kept.get(key)
        if kept is not None and kept[0] is font:
            return kept[1]
        ticks = _nice_value_ticks(low, high, height_px, font, self._floor_mix == 0)
        if len(self._value_ticks_kept) >= 64:
            self._value_ticks_kept.clear()
        self._value_ticks_kept[key] = (font, ticks)
        return ticks

    def _draw_bars(self) -> None:
        count = len(self._heights)
        if count == 0:
            self._bars_key = None
            self.bars.setOpts(x=[], height=[], width=BAR_WIDTH, pens=None, brushes=None)
            return
        key = (count, tuple(self._pushes))
        if key == self._bars_key:
            # Same bars and colours (every frame of an animation): only the heights move, and
            # the item keeps its x, width, pens and brushes.
            self.bars.setOpts(height=self._heights)
            return
        brushes, pens = self._looks_of(key[1])
        if self._bars_key is not None and self._bars_key[0] == count:
            # Same bars, some in a new colour (a click's card): the item keeps its x and width,
            # so it repaints only what changed.
            self._bars_key = key
            self.bars.setOpts(height=self._heights, brushes=brushes, pens=pens)
            return
        self._bars_key = key
        self.bars.setOpts(
            x=list(range(1, count + 1)),
            height=self._heights,
            width=BAR_WIDTH,
            brushes=brushes,
            pens=pens,
        )

    def _looks_of(self, pushes: tuple[Push, ...]) -> tuple[list[QBrush], list[QPen]]:
        """Each bar's brush and pen for its push, in this theme (kept per group of pushes)."""
        looks = self._looks_kept.get(pushes)
        if looks is None:
            if len(self._looks_kept) >= 64:
                self._looks_kept.clear()
            brushes = [self._push_brushes[push] for push in pushes]
            looks = self._looks_kept[pushes] = (brushes, [self._push_pens[p] for p in pushes])
        return looks

    def _draw_markers(self) -> None:
        """A dot on each zero-height bar, so it is seen, not just absent.

        In the push colour: grey "no signal" for A = 0, and in the reward view a wrong answer's
        r = 0 shows in advance that it will be pushed down.
        """
        pushes = self._pushes
        zeros = tuple(i for i, h in enumerate(self._heights) if h == 0.0)
        key = (zeros, tuple(pushes[i] for i in zeros))
        if key != self._zero_indices:
            self._zero_indices = key
            self.markers.setData(
                x=[i + 1 for i in zeros],
                y=[0.0] * len(zeros),
                brush=[self._push_brushes[pushes[i]] for i in zeros],
            )
            # No dots, no item to paint: an empty scatter still cost 0.2 ms of each chart paint.
            self.markers.setVisible(bool(zeros))

    def _draw_labels(self) -> None:
        if not self._labels_shown or self._labels_suppressed:
            self.value_labels.set_labels(())
            return
        self.value_labels.set_labels(
            [
                (index + 1, height, text, (height > 0) - (height < 0))
                for index, (height, text) in enumerate(zip(self._heights, self._texts))
            ]
        )
