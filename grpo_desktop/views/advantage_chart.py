"""The advantage bar chart: one bar per card, coloured by which way GRPO pushes it.

Two views of the same group: "advantage" (height A_i, a zero line) and "reward" (height r_i, a
"par" line at the group mean). Switching between them can animate in the two stages GRPO computes
(subtract par, then divide by the std), each captioned inside the chart, or in reverse.

A view (DESIGN §2): it renders a ``LabSnapshot`` and never calls ``core``. Every graphics item is
created once and then updated in place (DESIGN §3: PySide6 6.12.0 crashed on repeated scene
removals, and ``BarGraphItem.setOpts`` is far cheaper than rebuilding), so a click repaints within
one 60 Hz frame even at G = 64, and an animation frame costs no more than a click.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence

import pyqtgraph as pg
from PySide6.QtCore import QAbstractAnimation, QEasingCurve, QEvent, Qt, QVariantAnimation, Signal
from PySide6.QtGui import QBrush, QColor, QFont, QFontMetricsF, QPen, QTextDocument, QTextOption
from PySide6.QtWidgets import QWidget

from grpo_desktop.core.formatting import MINUS, number, signed
from grpo_desktop.core.snapshot import LabSnapshot, Push
from grpo_desktop.core.theme import LIGHT, Theme

__all__ = ["VIEWS", "AdvantageChart", "nice_ceiling", "par_label", "reverse_stage_labels"]

VIEWS = ("reward", "advantage")
AXIS_TITLES = {"reward": "reward r", "advantage": "advantage A"}

BAR_WIDTH = 0.6  # in card units: leaves a visible gap between neighbouring bars
X_MARGIN_LEFT = 0.4  # x range is [0.4, G + 0.6]
X_MARGIN_RIGHT = 0.6
LABEL_MARGIN_PX = 1.0  # QTextDocument margin around each value label (Qt's default is 4)
LABEL_GAP_PX = 3.0  # between a bar's end and its value label
LABEL_MIN_SPACING_PX = 4.0  # free space required between neighbouring labels
MIN_LABEL_POINT_SIZE = 7.0  # below this a label is unreadable: hide labels instead
MARKER_PX = 9.0  # the "no signal" dot drawn on a zero-height bar (before type_scale)
DEFAULT_HEADROOM = 1.25  # range factor over max|A| before the plot has a real size
HIDDEN_LABEL_HEADROOM = 1.08  # no labels to fit: just keep bars off the frame
ANIMATION_MS = 500  # reward <-> advantage, both stages together
CAPTION_MARGIN_PX = 3.0  # QTextDocument margin inside the caption's fill
CAPTION_GAP_PX = 4.0  # between the caption band and the tallest bar
CAPTION_SIDE_PX = 6.0  # free space kept left and right of the caption
REF_TEMPLATE = "par = 0.08888"  # widest par for G <= 64 (e.g. 0.09091): the margin reserves it
CAPTION_ONE_LINE_SHRINK = 0.85  # shrink the caption this far to keep it on one line, then wrap

_NICE_MANTISSAS = (1.0, 1.25, 1.5, 2.0, 2.5, 3.0, 4.0, 5.0, 6.0, 8.0)


def nice_ceiling(value: float) -> float:
    """The smallest "nice" number (1, 1.25, 1.5, 2, 2.5, 3, 4, 5, 6, 8 × 10^k) >= ``value``.

    Axis limits a class can read at a glance; 1.0 for zero, negative or non-finite input.
    """
    if not (value > 0 and math.isfinite(value)):
        return 1.0
    exponent = math.floor(math.log10(value))
    for power in (exponent, exponent + 1):
        for mantissa in _NICE_MANTISSAS:
            nice = float(f"{mantissa}e{power}")  # exact: 1.5 * 0.1 is 0.15000000000000002
            if nice >= value * (1 - 1e-12):
                return nice
    return float(f"1e{exponent + 2}")  # unreachable: 10^(exponent+1) > value always


def _short(value: float) -> str:
    """A number as the worked math writes it (4 significant digits, real minus sign)."""
    return number(value, 4)


_NBSP = "\u00a0"
_BOUND = (" = ", " + ", f" {MINUS} ", " of ", " (reverse)", "par (", " (leave-one-out)")


def _unbreakable(caption: str) -> str:
    """The caption with no line break inside "mean = 0.5", "std + 1e-4", "Step 1 of 2" …"""
    for phrase in _BOUND:
        caption = caption.replace(phrase, phrase.replace(" ", _NBSP))
    return caption.replace("/(", "/\u2060(")  # a word joiner: no break inside "G/(G − 1)"


def par_label(mean: float) -> str:
    """The reward view's reference line label: ``par = 0.5``."""
    return f"par = {_short(mean)}"


def reverse_stage_labels(snapshot: LabSnapshot) -> tuple[str, str]:
    """Captions for advantage -> reward: undo stage 2 (the scaling), then stage 1 (the par)."""
    stats, convention = snapshot.stats, snapshot.convention
    if convention.name == "rloo":
        size = snapshot.group_size
        first = f"divide by G/(G {MINUS} 1) = {size}/{size - 1} (undo leave-one-out)"
    elif convention.ddof is None:
        first = f"nothing to undo: A already is r {MINUS} mean"
    elif stats.scale == 0:
        first = f"std is 0, so every r {MINUS} mean is 0 too"
    elif convention.eps:
        eps = f"{convention.eps:.0e}".replace("e-0", "e-")
        first = f"multiply back by std + {eps} = {_short(stats.scale)}"
    else:
        first = f"multiply back by std = {_short(stats.scale)}"
    second = f"add par back (mean = {_short(stats.mean)}): r"
    return f"Step 1 of 2 (reverse): {first}", f"Step 2 of 2 (reverse): {second}"


class _SignedAxis(pg.AxisItem):
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


class AdvantageChart(pg.PlotWidget):
    """One bar per card at x = 1..G, height = its advantage (or reward), with a reference line.

    The y range is a symmetric, "nice" ±R that only grows while the same group is being edited
    (so bars do not rescale under the lecturer's cursor) and is recomputed from scratch when the
    group size, the problem or the convention changes. It always covers every stage of the
    reward <-> advantage animation (r, r − mean and A), so switching views never rescales it.

    The animation is one ``QVariantAnimation`` on the event loop (never blocking it); a new
    snapshot or a new ``set_view`` cuts it short at the final state of the view it was heading to.
    """

    view_changed = Signal(str)  # "reward" or "advantage", as soon as set_view changes the view
    stage_changed = Signal(int)  # 1 or 2 as a stage starts (heights exact at its start), 0 at end
    animation_finished = Signal()  # a running animation ended: completed or cut short

    def __init__(self, theme: Theme = LIGHT, parent: QWidget | None = None) -> None:
        super().__init__(
            parent=parent,
            background=theme.surface,
            axisItems={"left": _SignedAxis("left"), "right": pg.AxisItem("right")},
        )
        self.setObjectName("advantageChart")
        self.setAccessibleName("Advantage chart")
        self._theme = theme

        plot = self.getPlotItem()
        # A lecturer must not drag, zoom or right-click the chart away on stage.
        plot.setMouseEnabled(x=False, y=False)
        plot.hideButtons()
        plot.setMenuEnabled(False)
        self._view = plot.getViewBox()
        self._view.disableAutoRange()
        plot.getAxis("left").enableAutoSIPrefix(False)
        plot.getAxis("left").setStyle(maxTickLevel=1)  # no ruler-like third level of ticks
        plot.getAxis("bottom").enableAutoSIPrefix(False)
        # Card G's number sits 0.6 card from the plot's right edge; let it spill into the margin
        # rather than vanish (our own thinning already keeps tick labels apart).
        plot.getAxis("bottom").setStyle(hideOverlappingLabels=24)
        # The reference line's label lives in the right margin, where no bar or value label can
        # cover it (inside the plot it would collide with the last bar at large G).
        self._ref_axis = plot.getAxis("right")
        self._ref_axis.enableAutoSIPrefix(False)
        self._ref_axis.setStyle(tickLength=0)
        plot.showAxis("right")

        # State of what is drawn, so updates touch only what changed.
        self._heights: list[float] = []
        self._pushes: list[Push] = []
        self._texts: list[str] = []
        self._half_range: float | None = None  # R of the ±R y range; None = recompute
        self._range_key: tuple[int, str, str] | None = None
        self._x_count = -1
        self._ticks: list[tuple[float, str]] | None = None
        self._zero_indices: tuple[tuple[int, ...], tuple[Push, ...]] | None = None
        self._labels_shown = False
        self._applied_label_font: QFont | None = None
        self._fit_key: tuple[float, str, str] | None = None
        self._fit_font: QFont | None = None
        self._label_height_px = 0.0
        self._ref_value = 0.0
        self._ref_text = "0"
        self._ref_applied: tuple[float, str] | None = None
        self._ref_width_text = REF_TEMPLATE  # the widest reference label the margin must fit
        self._ref_axis_font = QFont()

        # The two views and their animation. Per-snapshot values are computed once in
        # show_snapshot; a frame only interpolates between them.
        self.animation_ms = ANIMATION_MS
        self._mode = "advantage"
        self._advantages_hidden = False  # predict, then reveal
        self._animation_enabled = True
        self._snapshot: LabSnapshot | None = None
        self._rewards: list[float] = []
        self._centered: list[float] = []
        self._advantages: list[float] = []
        self._snap_pushes: list[Push] = []
        self._reward_texts: list[str] = []
        self._advantage_texts: list[str] = []
        self._mean = 0.0
        self._par_text = "par = 0"
        self._reserve_extent = 0.0  # max |value| over every stage: the y range always covers it
        self._label_reserve = 0  # longest label of either view: the label font fits both
        self._stage = 0
        self._keyframes: tuple[list[float], list[float], list[float]] = ([], [], [])
        self._line_keys = (0.0, 0.0, 0.0)
        self._line_moves = (False, False)  # per stage: whether the reference line slides
        self._frame_texts: list[str] = []
        self._captions = ("", "")
        self._labels_suppressed = False
        self._easing = QEasingCurve(QEasingCurve.Type.InOutCubic)
        self._animation = QVariantAnimation(self)
        self._animation.setStartValue(0.0)
        self._animation.setEndValue(1.0)  # linear clock; each stage eases itself (InOutCubic)
        self._animation.valueChanged.connect(self._on_frame)
        self._animation.finished.connect(self._end_animation)

        # Every item is created once here; updates go through setOpts / setData / setText.
        self._bars = pg.BarGraphItem(x=[], height=[], width=BAR_WIDTH, pen=None, brush=None)
        self._bars.setZValue(0)
        plot.addItem(self._bars)
        self._ref_line = pg.InfiniteLine(pos=0.0, angle=0, movable=False)
        self._ref_line.setZValue(5)  # over the bars' bases: a crisp baseline
        plot.addItem(self._ref_line, ignoreBounds=True)
        self._markers = pg.ScatterPlotItem(symbol="o", pxMode=True)
        self._markers.setZValue(10)
        plot.addItem(self._markers, ignoreBounds=True)
        self._labels: list[pg.TextItem] = []  # pool, grown lazily, never removed
        self._label_states: list[tuple[str, float, int] | None] = []  # (text, y, side) applied
        # The stage caption: top centre of the plot, in the band the y range keeps free of bars
        # (where the value labels, hidden while bars move, otherwise sit).
        self._caption = pg.TextItem(text="", anchor=(0.5, 0.0))
        document = self._caption.textItem.document()
        document.setDocumentMargin(CAPTION_MARGIN_PX)
        document.setDefaultTextOption(QTextOption(Qt.AlignmentFlag.AlignHCenter))
        self._caption.setZValue(30)
        self._caption.setVisible(False)
        plot.addItem(self._caption, ignoreBounds=True)
        self._caption_font = QFont()  # the theme's caption size; _layout_captions may shrink it
        self._caption_fonts: dict[str, tuple[QFont, bool]] = {}  # caption -> (font, wraps)
        self._caption_cache: dict[tuple[str, int, str, float], tuple[float, bool, float]] = {}
        self._caption_band_px = 0.0  # the top band kept free of bars for the caption
        self._caption_layout_key: tuple[tuple[str, ...], int, str] | None = None
        self._all_captions: tuple[str, ...] = ()  # as displayed (see _unbreakable)
        self._caption_source = ""  # the caption shown, as the snapshot wrote it
        self._scratch_document = QTextDocument()  # measures wrapped captions, reused
        self._scratch_document.setDocumentMargin(CAPTION_MARGIN_PX)
        self._title_style: dict[str, str] = {}

        self._brushes: dict[Push, QBrush] = {}
        self._pens: dict[Push, QPen] = {}
        self._label_font = QFont()
        self._label_anchors: dict[int, tuple[float, float]] = {}
        self._applying_theme = False
        self._marker_px = MARKER_PX
        self.set_theme(theme)
        self._view.sigResized.connect(self._on_view_resized)
        self._set_x_range(0)
        self._fit_y_range([], reset=True)
        self.set_reference_line(0.0, "0")  # replaces the right axis's automatic numeric ticks

    # ----------------------------------------------------------------------------- public API

    def show_snapshot(self, snapshot: LabSnapshot) -> None:
        """Render the snapshot in the current view, without animation.

        Advantage view: heights A_i, labels signed A, a line at 0. Reward view: heights r_i,
        labels r_i, a line at the group mean ("par"). Colours are the push in both. A running
        animation stops at this snapshot's final state.
        """
        key = (snapshot.group_size, snapshot.problem.id, snapshot.convention.name)
        if key != self._range_key:
            # A different group: its scale may differ a lot, so start the range afresh.
            self._range_key = key
            self._half_range = None
        cards = snapshot.cards
        self._snapshot = snapshot
        self._rewards = [float(card.reward) for card in cards]
        self._centered = [card.centered for card in cards]
        self._advantages = [card.advantage for card in cards]
        self._snap_pushes = [card.push for card in cards]
        self._reward_texts = [number(r) for r in self._rewards]
        self._advantage_texts = [signed(a, 2) for a in self._advantages]
        self._mean = float(snapshot.stats.mean)
        self._par_text = par_label(self._mean)
        values = itertools.chain(self._rewards, self._centered, self._advantages)
        self._reserve_extent = max((abs(v) for v in values if math.isfinite(v)), default=0.0)
        self._label_reserve = max(
            (len(t) for t in itertools.chain(self._reward_texts, self._advantage_texts)), default=0
        )
        self._reserve_ref_width(self._par_text)
        captions = (*snapshot.worked_math.stage_labels, *reverse_stage_labels(snapshot))
        self._all_captions = tuple(_unbreakable(text) for text in captions)
        self._layout_captions()
        if self.is_animating():
            self._animation.stop()  # no finished signal: _end_animation renders the final state
            self._end_animation()
        else:
            self._render_view()

    def set_view(self, view: str, animate: bool = True) -> None:
        """Show rewards (``"reward"``) or advantages (``"advantage"``).

        Animated in two captioned stages when ``animate`` and animation is enabled; otherwise
        instant. A running animation towards another view first jumps to its end. Asking for the
        view already being animated to lets it run on, or, with ``animate=False``, finishes it.
        """
        if view not in VIEWS:
            raise ValueError(f"unknown chart view {view!r}; choose one of: {', '.join(VIEWS)}")
        if view == self._mode:
            if not animate and self._stage:
                self._animation.stop()
                self._end_animation()
            return
        if self.is_animating():
            self._animation.stop()
            self._end_animation()
        previous, self._mode = self._mode, view
        cards = len(self._rewards)
        moving = animate and self._animation_enabled and self.animation_ms > 0 and cards
        if moving and not self._advantages_hidden:
            self._start_animation(forward=previous == "reward")
        else:
            self._render_view()
        self.view_changed.emit(view)

    def view(self) -> str:
        """The view shown, or being animated to: ``"reward"`` or ``"advantage"``."""
        return self._mode

    def set_animation_enabled(self, enabled: bool) -> None:
        """Turn view-switch animation on or off; turning it off ends a running one at once."""
        self._animation_enabled = bool(enabled)
        if not enabled and self.is_animating():
            self._animation.stop()
            self._end_animation()
        if enabled and self._heights:
            self._fit_y_range(self._heights, reset=False)  # make room for the caption band

    def animation_enabled(self) -> bool:
        return self._animation_enabled

    def is_animating(self) -> bool:
        return self._animation.state() == QAbstractAnimation.State.Running

    def stage(self) -> int:
        """The animation stage running: 1 or 2, 0 when not animating."""
        return self._stage

    def caption_text(self) -> str:
        """The stage caption shown now ("" when hidden)."""
        return self._caption_source if self._caption.isVisible() else ""

    def render_bars(
        self, heights: Sequence[float], pushes: Sequence[Push], labels: Sequence[str]
    ) -> None:
        """Draw bars of these heights (an animation may call this per frame with in-between values).

        The y range only grows here, so in-between frames never make the axis jump.
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
        self._fit_y_range(safe, reset=self._half_range is None)
        self._draw_bars()
        self._draw_markers()
        self._draw_labels()

    def set_reference_line(self, y: float, label: str) -> None:
        """Move the single horizontal reference line (0 for advantages, "par" for rewards)."""
        wanted = (float(y), label)
        if wanted == self._ref_applied:
            return
        if self._ref_applied is None or wanted[0] != self._ref_applied[0]:
            self._ref_line.setValue(wanted[0])
        self._ref_value, self._ref_text = wanted
        self._ref_applied = wanted
        self._ref_axis.setTicks([[wanted]])

    def set_theme(self, theme: Theme) -> None:
        """Restyle every item for ``theme`` (colours, stroke widths, font sizes) and redraw."""
        self._theme = theme
        self._applying_theme = True
        try:
            self._apply_theme()
        finally:
            self._applying_theme = False
        self._ticks = None
        if self._x_count >= 0:
            self._update_x_ticks()
        if self._heights:
            self._update_label_fit(force=True)
            self._fit_y_range(self._heights, reset=False)
            self._draw_bars()
            self._zero_indices = None
            self._draw_markers()
            self._draw_labels()

    def bar_heights(self) -> list[float]:
        """The heights the bar item is drawing now (read back from its options)."""
        heights = self._bars.opts.get("height")
        return [] if heights is None else [float(h) for h in heights]

    def bar_colours(self) -> list[str]:
        """The fill colour of each bar as ``#rrggbb``."""
        brushes = self._bars.opts.get("brushes")
        return [] if brushes is None else [QBrush(b).color().name() for b in brushes]

    def label_texts(self) -> list[str]:
        """The value labels visible now, left to right (none when hidden for lack of room)."""
        count = len(self._heights)
        return [item.toPlainText() for item in self._labels[:count] if item.isVisible()]

    def y_range(self) -> tuple[float, float]:
        """The visible y range, always symmetric: (−R, R)."""
        low, high = self._view.viewRange()[1]
        return float(low), float(high)

    def x_ticks(self) -> list[int]:
        """The card numbers written under the x axis (thinned when they would overlap)."""
        return [int(value) for value, _ in self._ticks or []]

    def reference_line(self) -> tuple[float, str]:
        """Where the reference line is and what its label says."""
        return self._ref_value, self._ref_text

    def labels_visible(self) -> bool:
        """Whether value labels fit at the current width and group size."""
        return self._labels_shown

    # ------------------------------------------------------------------------------ Qt events

    def changeEvent(self, event: QEvent) -> None:
        """Follow application font changes: all text is sized from the widget font."""
        super().changeEvent(event)
        if event.type() == QEvent.Type.FontChange and not self._applying_theme:
            self.set_theme(self._theme)

    def _on_view_resized(self, *_: object) -> None:
        """A new plot size changes how many labels and ticks fit and the label headroom."""
        self._ticks = None
        self._update_x_ticks()
        self._layout_captions()
        if self._heights:
            changed = self._update_label_fit()
            self._fit_y_range(self._heights, reset=False)
            if changed:
                self._draw_labels()

    # ------------------------------------------------------------------------------- styling

    def _font(self, relative_size: float, bold: bool = False) -> QFont:
        """The widget's own family at ``relative_size`` × its size × the theme's type scale."""
        font = QFont(self.font())
        base = font.pointSizeF()
        if base <= 0:  # a pixel-sized font: convert at 96 dpi
            base = font.pixelSize() * 0.75 if font.pixelSize() > 0 else 9.0
        font.setPointSizeF(max(base, 9.0) * relative_size * self._theme.type_scale)
        font.setBold(bold)
        return font

    def _apply_theme(self) -> None:
        theme = self._theme
        width = theme.stroke_width
        self.setBackground(theme.surface)
        colours = {Push.UP: theme.up, Push.DOWN: theme.down, Push.NONE: theme.neutral}
        self._brushes = {push: QBrush(QColor(colour)) for push, colour in colours.items()}
        self._pens = {push: _cosmetic_pen(colour, width) for push, colour in colours.items()}

        tick_font = self._font(1.1)
        # Whole pixels: the chart is not antialiased, and 1.125 px ticks render 1 or 2 px wide.
        axis_pen = _cosmetic_pen(theme.muted, float(max(1, round(width * 0.75))))
        plot = self.getPlotItem()
        for name in ("left", "bottom", "right"):
            axis = plot.getAxis(name)
            axis.setPen(axis_pen)
            axis.setTextPen(theme.muted)
            axis.setTickFont(tick_font)
        self._ref_axis.setPen(QPen(Qt.PenStyle.NoPen))  # text only: no second vertical axis line
        self._ref_axis.setTextPen(theme.text)
        title_style = {
            "color": theme.muted,
            "font-size": f"{tick_font.pointSizeF():.1f}pt",
            "font-family": self.font().family(),
        }
        self._title_style = title_style
        plot.setLabel("left", AXIS_TITLES[self._mode], **title_style)
        plot.setLabel("bottom", "card", **title_style)
        self._ref_axis_font = tick_font
        self._reserve_ref_width(self._ref_width_text, reset=True)
        # Half a tick label of room above and below, so the ±R tick labels are not cut off.
        pad = math.ceil(QFontMetricsF(tick_font).height() / 2) + 2
        plot.setContentsMargins(2, pad, 2, 2)

        self._ref_line.setPen(_cosmetic_pen(theme.muted, width))
        marker_size = MARKER_PX * theme.type_scale
        self._markers.setSize(marker_size)
        self._markers.setBrush(QBrush(QColor(theme.neutral)))
        self._markers.setPen(_cosmetic_pen(theme.surface, width))
        self._marker_px = marker_size

        self._label_font = self._font(1.25, bold=True)
        self._fit_key = None  # the fitting font depends on the theme's type scale
        for item in self._labels:
            item.setColor(theme.text)

        self._caption_font = self._font(1.1, bold=True)
        self._caption.setColor(theme.text)
        fill = QColor(theme.surface)
        fill.setAlpha(235)  # opaque enough to read over a grid or a bar that strays under it
        self._caption.fill = QBrush(fill)
        self._caption_layout_key = None
        self._layout_captions()

    # ------------------------------------------------------------------------- views, animation

    def _view_state(self, mode: str) -> tuple[list[float], list[str], float, str]:
        """Heights, labels and reference line (y, text) of ``mode`` for the current snapshot."""
        if mode == "reward":
            return self._rewards, self._reward_texts, self._mean, self._par_text
        return self._advantages, self._advantage_texts, 0.0, "0"

    def _render_view(self) -> None:
        """Draw the current view's final state (no animation)."""
        self._set_axis_title(self._mode)
        if self._snapshot is None:
            return
        heights, texts, line, line_text = self._view_state(self._mode)
        pushes = self._snap_pushes
        if self._advantages_hidden:
            # Predict, then reveal: colours would give the signs away, and so would the bars.
            pushes = [Push.NONE] * len(pushes)
            if self._mode == "advantage":
                heights, texts = [0.0] * len(heights), ["?"] * len(texts)
        self.set_reference_line(line, line_text)
        self.render_bars(heights, pushes, texts)

    def set_advantages_hidden(self, hidden: bool) -> None:
        """Hide every advantage (and the push colours) until the lecturer reveals them."""
        if hidden == self._advantages_hidden:
            return
        self._advantages_hidden = hidden
        if self.is_animating():
            self._animation.stop()
            self._end_animation()
        else:
            self._render_view()

    def advantages_hidden(self) -> bool:
        return self._advantages_hidden

    def _set_axis_title(self, mode: str) -> None:
        axis = self.getPlotItem().getAxis("left")
        if axis.labelText != AXIS_TITLES[mode]:
            self.getPlotItem().setLabel("left", AXIS_TITLES[mode], **self._title_style)

    def _start_animation(self, forward: bool) -> None:
        """reward -> advantage (``forward``) or back, in two stages of half the time each."""
        assert self._snapshot is not None
        if forward:
            self._keyframes = (self._rewards, self._centered, self._advantages)
            self._line_keys = (self._mean, 0.0, 0.0)
            self._line_moves = (True, False)
            self._captions = self._snapshot.worked_math.stage_labels
            self._frame_texts = self._advantage_texts
        else:
            self._keyframes = (self._advantages, self._centered, self._rewards)
            self._line_keys = (0.0, 0.0, self._mean)
            self._line_moves = (False, True)
            self._captions = reverse_stage_labels(self._snapshot)
            self._frame_texts = self._reward_texts
        # Up front, once: the range covers r, r − mean and A (show_snapshot reserved them), so
        # no frame can grow it.
        self._fit_y_range(self._heights, reset=False)
        self._labels_suppressed = True
        self._animation.setDuration(max(2, int(self.animation_ms)))
        self._stage = 0
        self._enter_stage(1)
        self._animation.start()

    def _enter_stage(self, stage: int) -> None:
        """Show stage ``stage``'s caption and its exact starting heights."""
        self._stage = stage
        self._caption_source = self._captions[stage - 1]
        self._caption.setText(_unbreakable(self._caption_source))
        self._apply_caption_layout()
        self._place_caption()
        if not self._caption.isVisible():
            self._caption.setVisible(True)
        self._render_frame(stage, 0.0)
        self.stage_changed.emit(stage)

    def _render_frame(self, stage: int, eased: float) -> None:
        start, end = self._keyframes[stage - 1], self._keyframes[stage]
        # At eased == 0 the start values themselves: the stage boundary is r − mean to the bit.
        heights = start if eased == 0.0 else [a + eased * (b - a) for a, b in zip(start, end)]
        line_from, line_to = self._line_keys[stage - 1], self._line_keys[stage]
        line = line_from if eased == 0.0 else line_from + eased * (line_to - line_from)
        moving = self._line_moves[stage - 1]
        self.set_reference_line(line, self._par_text if moving else "0")
        self.render_bars(heights, self._snap_pushes, self._frame_texts)

    def _on_frame(self, value: object) -> None:
        """One tick of the animation clock (about 60 per second, from Qt's animation timer)."""
        if self._stage == 0:
            return  # a last tick after the animation was ended
        progress = float(value)  # type: ignore[arg-type]
        stage = 1 if progress < 0.5 else 2
        if stage != self._stage:
            self._enter_stage(stage)
        local = progress * 2 if stage == 1 else progress * 2 - 1
        eased = self._easing.valueForProgress(min(max(local, 0.0), 1.0))
        if eased != 0.0:
            self._render_frame(stage, eased)

    def _end_animation(self) -> None:
        """Completed or cut short: hide the caption and draw the target view's exact state."""
        if self._stage == 0:
            return
        self._stage = 0
        self._caption.setVisible(False)
        self._labels_suppressed = False
        self._render_view()
        self.stage_changed.emit(0)
        self.animation_finished.emit()

    def _place_caption(self) -> None:
        """Top centre of the plot: inside the band ``_fit_y_range`` keeps free of bars."""
        if self._half_range is None:
            return
        centre = (X_MARGIN_LEFT + max(self._x_count, 1) + X_MARGIN_RIGHT) / 2
        self._caption.setPos(centre, self._half_range)

    def _layout_captions(self) -> bool:
        """Fonts for the snapshot's four stage captions and the band at the top they need.

        The band is one line of the caption font if every caption fits on one line (allowing a
        slight shrink), two lines otherwise; each caption then takes the largest font (down to a
        floor) whose layout fits the band. Two-line heights are measured with the same
        QTextDocument layout the caption uses, and ``_fit_y_range`` keeps the band above every
        bar. Runs on each click (the captions carry the group's numbers), so it is cached twice:
        per snapshot's captions and per caption text.
        """
        available = max(self._view.width() - 2 * CAPTION_SIDE_PX, 40.0)
        key = (self._all_captions, round(available), self._caption_font.key())
        if key == self._caption_layout_key:
            return False
        self._caption_layout_key = key
        largest = self._caption_font.pointSizeF()
        floor = min(MIN_LABEL_POINT_SIZE * max(self._theme.type_scale, 1.0), largest)
        sizes = [largest - 0.5 * i for i in range(int((largest - floor) / 0.5) + 1)] + [floor]
        one_line_floor = max(floor, largest * CAPTION_ONE_LINE_SHRINK)
        inner = available - 2 * CAPTION_MARGIN_PX - 2
        metrics = {size: QFontMetricsF(self._sized_caption_font(size)) for size in sizes}
        full = metrics[largest]
        one_line = full.height() + 2 * CAPTION_MARGIN_PX + 1
        fits_one_line = all(
            metrics[min(sizes, key=lambda z: abs(z - one_line_floor))].horizontalAdvance(text)
            <= inner
            for text in self._all_captions
        )
        band = one_line if fits_one_line else one_line + full.lineSpacing()
        self._caption_fonts = {}
        tallest = one_line
        for text in self._all_captions:
            size, wrap, height = self._caption_fit(text, sizes, metrics, available, inner, band)
            self._caption_fonts[text] = (self._sized_caption_font(size), wrap)
            tallest = max(tallest, height)
        self._caption_band_px = math.ceil(max(band, tallest)) + CAPTION_GAP_PX
        self._apply_caption_layout()
        return True

    def _sized_caption_font(self, size: float) -> QFont:
        font = QFont(self._caption_font)
        font.setPointSizeF(size)
        return font

    def _caption_fit(
        self,
        text: str,
        sizes: list[float],
        metrics: dict[float, QFontMetricsF],
        available: float,
        inner: float,
        band: float,
    ) -> tuple[float, bool, float]:
        """(point size, wraps, height in px) of the largest layout of ``text`` within ``band``."""
        key = (text, round(available), self._caption_font.key(), round(band, 2))
        cached = self._caption_cache.get(key)
        if cached is not None:
            return cached
        result = None
        for size in sizes:
            if metrics[size].horizontalAdvance(text) <= inner:  # one line: no layout needed
                result = (size, False, metrics[size].height() + 2 * CAPTION_MARGIN_PX)
                if result[2] <= band:
                    break
            else:
                document = self._scratch_document
                document.setTextWidth(available)
                document.setDefaultFont(self._sized_caption_font(size))
                document.setPlainText(text)
                result = (size, True, document.size().height())
                if result[2] <= band:
                    break
        assert result is not None
        if len(self._caption_cache) > 512:
            self._caption_cache.clear()
        self._caption_cache[key] = result
        return result

    def _apply_caption_layout(self) -> None:
        """Give the visible caption its font, and a wrap width when it needs two lines."""
        if self._stage == 0:
            return
        text = _unbreakable(self._caption_source)  # toPlainText() would turn NBSPs to spaces
        font, wrap = self._caption_fonts.get(text, (self._caption_font, False))
        self._caption.setFont(font)
        available = max(self._view.width() - 2 * CAPTION_SIDE_PX, 40.0)
        self._caption.setTextWidth(available if wrap else -1)
        self._caption.updateTextPos()

    def _reserve_ref_width(self, text: str, reset: bool = False) -> None:
        """Fix the right margin to fit the widest reference label seen, so the plot never
        changes width when the line switches between "0" and "par = …" (grow-only per theme)."""
        metrics = QFontMetricsF(self._ref_axis_font)
        if not reset:
            if metrics.horizontalAdvance(text) <= metrics.horizontalAdvance(self._ref_width_text):
                return
            self._ref_width_text = text
        offset = self._ref_axis.style["tickTextOffset"][0]
        width = math.ceil(metrics.horizontalAdvance(self._ref_width_text)) + offset + 4
        self._ref_axis.setWidth(width)

    # ------------------------------------------------------------------------------- drawing

    def _set_x_range(self, count: int) -> None:
        self._x_count = count
        self._view.setXRange(X_MARGIN_LEFT, max(count, 1) + X_MARGIN_RIGHT, padding=0)
        self._place_caption()
        self._ticks = None
        self._update_x_ticks()

    def _px_per_card(self) -> float:
        span = max(self._x_count, 1) + X_MARGIN_RIGHT - X_MARGIN_LEFT
        return self._view.width() / span

    def _update_x_ticks(self) -> None:
        """Card numbers 1..G, thinned to every 2nd/5th/10th… card when they would overlap."""
        count = self._x_count
        if count <= 0:
            ticks: list[tuple[float, str]] = []
        else:
            axis = self.getPlotItem().getAxis("bottom")
            metrics = QFontMetricsF(axis.style["tickFont"] or self.font())
            needed = metrics.horizontalAdvance(str(count)) + 8.0
            px = self._px_per_card()
            step = next((s for s in (1, 2, 5, 10, 20, 50) if s * px >= needed), 100)
            values = list(range(step, count + 1, step))
            if step > 1 and (step - 1) * px >= needed:
                values.insert(0, 1)
            if values and values[-1] != count and (count - values[-1]) * px >= needed:
                values.append(count)
            ticks = [(float(v), str(v)) for v in values]
        if ticks != self._ticks:
            self._ticks = ticks
            self.getPlotItem().getAxis("bottom").setTicks([ticks])

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
        px = self._px_per_card()
        template = self._label_template()
        key = (round(px, 3), template, self._label_font.key())
        if key == self._fit_key:
            return self._fit_font
        self._fit_key = key
        self._fit_font = None
        if px <= 0:
            return None
        floor = MIN_LABEL_POINT_SIZE * max(self._theme.type_scale, 1.0)
        largest = self._label_font.pointSizeF()
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
        for item in self._labels:
            item.setFont(font)
        self._label_states = [None] * len(self._labels)  # anchors depend on the font height
        height = QFontMetricsF(font).height() + 2 * LABEL_MARGIN_PX
        self._label_height_px = height
        above = 1.0 + LABEL_GAP_PX / height
        zero = 1.0 + (self._marker_px / 2 + LABEL_GAP_PX) / height
        below = -LABEL_GAP_PX / height
        self._label_anchors = {1: (0.5, above), -1: (0.5, below), 0: (0.5, zero)}
        return True

    def _fit_y_range(self, heights: Sequence[float], reset: bool) -> None:
        """Make ±R cover every bar and its label; grow-only unless ``reset``.

        Also covers every stage of the snapshot's animation (``_reserve_extent``) and keeps a band
        at the top free of bars for the stage caption, so an animation never changes the range.
        """
        largest = max(max((abs(h) for h in heights), default=0.0), self._reserve_extent)
        half_px = self._view.height() / 2
        if half_px < 40:  # not laid out yet; sigResized will fit again
            factor = DEFAULT_HEADROOM if self._labels_shown else HIDDEN_LABEL_HEADROOM
        else:
            room_px = self._caption_band_px if self._animation_enabled else 0.0
            if self._labels_shown:
                label_px = self._label_height_px + LABEL_GAP_PX + self._marker_px / 2
                room_px = max(room_px, label_px)
            floor = 1.15 if self._labels_shown else HIDDEN_LABEL_HEADROOM
            factor = max(floor, 1.0 / (1.0 - min(room_px / half_px, 0.5)))
        needed = nice_ceiling(largest * factor) if largest > 0 else 1.0
        grow = self._half_range is None or needed > self._half_range
        if (reset or grow) and needed != self._half_range:
            self._half_range = needed
            self._view.setYRange(-needed, needed, padding=0)
            self._place_caption()

    def _draw_bars(self) -> None:
        count = len(self._heights)
        if count == 0:
            self._bars.setOpts(x=[], height=[], width=BAR_WIDTH, pens=None, brushes=None)
            return
        self._bars.setOpts(
            x=list(range(1, count + 1)),
            height=self._heights,
            width=BAR_WIDTH,
            brushes=[self._brushes[p] for p in self._pushes],
            pens=[self._pens[p] for p in self._pushes],
        )

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
            self._markers.setData(
                x=[i + 1 for i in zeros],
                y=[0.0] * len(zeros),
                brush=[self._brushes[pushes[i]] for i in zeros],
            )

    def _label_item(self, index: int) -> pg.TextItem:
        """The pooled label for bar ``index``, created on first need and then reused forever."""
        while len(self._labels) <= index:
            item = pg.TextItem(text="", color=self._theme.text, anchor=(0.5, 1.0))
            item.textItem.document().setDocumentMargin(LABEL_MARGIN_PX)
            item.setFont(self._applied_label_font or self._label_font)
            item.setZValue(20)
            item.setVisible(False)
            self.getPlotItem().addItem(item, ignoreBounds=True)
            self._labels.append(item)
            self._label_states.append(None)
        return self._labels[index]

    def _draw_labels(self) -> None:
        count = len(self._heights)
        if not self._labels_shown or self._labels_suppressed:
            for item in self._labels:
                if item.isVisible():
                    item.setVisible(False)
            return
        for index in range(count):
            item = self._label_item(index)
            height = self._heights[index]
            side = (height > 0) - (height < 0)
            state = (self._texts[index], height, side)
            previous = self._label_states[index]
            if state != previous:
                self._label_states[index] = state
                if previous is None or previous[0] != state[0]:
                    item.setText(state[0])
                if previous is None or previous[2] != side:
                    item.setAnchor(self._label_anchors[side])
                item.setPos(index + 1, height)
            if not item.isVisible():
                item.setVisible(True)
        for item in self._labels[count:]:
            if item.isVisible():
                item.setVisible(False)
