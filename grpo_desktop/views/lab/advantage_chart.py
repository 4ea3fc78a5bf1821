"""The advantage bar chart: one bar per card, coloured by which way GRPO pushes it.

Two views of the same group: "advantage" (height A_i, a zero line) and "reward" (height r_i, a
"par" line at the group mean). Switching between them can animate in the two phases GRPO computes
(subtract par, then divide by the std), each captioned inside the chart, or in reverse.

Built the way pyqtgraph builds ``PlotWidget``: this thin widget hosts a rich plot item and
forwards to it. The pieces, one job each:

- ``chart_values.ChartValues``: both views' numbers and labels, read off the snapshot once;
- ``advantage_plot.AdvantagePlot``: the ``PlotItem`` that draws bars, labels, ticks and the line;
- ``phase_caption.StepCaption``: the animation's caption, fitted to a band at the top;
- ``chart_animator.ChartAnimator``: the two-phase reward <-> advantage animation.

A view (DESIGN §2): it renders a ``LabSnapshot`` and never calls ``core``'s math.
"""

from __future__ import annotations

from collections.abc import Sequence

import pyqtgraph as pg
from PySide6.QtCore import QEvent, Signal
from PySide6.QtWidgets import QGraphicsView, QWidget

from grpo_desktop.core.common.theme import LIGHT, Theme
from grpo_desktop.core.files.describe import advantage_chart_text
from grpo_desktop.core.lab.lab_limits import check_view
from grpo_desktop.core.lab.lab_snapshot import LabSnapshot, Push
from grpo_desktop.views.common import accessible_events
from grpo_desktop.views.common.advantage_plot import AdvantagePlot, nice_ceiling
from grpo_desktop.views.lab.chart_animator import ChartAnimator
from grpo_desktop.views.lab.chart_values import (
    AXIS_TITLES,
    ChartValues,
    par_label,
    reverse_phase_labels,
)

__all__ = ["AdvantageChart", "nice_ceiling", "par_label", "reverse_phase_labels"]


#: What the chart's text alternative says while the class predicts the signs.
HIDDEN_TEXT = "Advantages hidden: predict which cards are pushed up or down, then reveal."


class AdvantageChart(pg.PlotWidget):
    """One bar per card at x = 1..G, height = its advantage (or reward), with a reference line.

    The y range is a "nice" ±R that depends on the snapshot only (the same group always gets the
    same axis, whatever came before) and covers every phase of the reward <-> advantage
    animation (r, r − mean and A), so R never changes when the view switches. The reward view,
    having nothing below 0, starts just below 0 instead; the animation slides that bottom edge.

    A new snapshot or a new ``set_view`` cuts a running animation short at the final state of
    the view it was heading to. ``getPlotItem()`` is the ``AdvantagePlot`` (exporters use it).
    """

    view_changed = Signal(str)  # "reward" or "advantage", as soon as set_view changes the view
    phase_changed = Signal(int)  # 1 or 2 as a phase starts (heights exact at its start), 0 at end
    animation_finished = Signal()  # a running animation ended: completed or cut short

    def __init__(self, theme: Theme = LIGHT, parent: QWidget | None = None) -> None:
        plot = AdvantagePlot(AXIS_TITLES["advantage"])
        super().__init__(parent=parent, background=theme.surface, plotItem=plot)
        self.advantage_plot = plot
        self.setObjectName("advantageChart")
        self.setAccessibleName("Advantage chart")
        # The background is one solid colour: filled where the bars repaint, not blitted from a
        # cached pixmap (pyqtgraph's default), whose blit Qt splits across threads and waits
        # for; at 200 % that wait was 9 % of a click's frame on this 2-core machine.
        self.setCacheMode(QGraphicsView.CacheModeFlag.CacheNone)
        self._theme = theme
        self._mode = "advantage"
        self._advantages_hidden = False  # predict, then reveal
        self._values: ChartValues | None = None
        self._snapshot: LabSnapshot | None = None  # for the text alternative of the view shown
        self._range_key: tuple[int, str, str] | None = None
        # The text alternative is written when read (see accessibleDescription): the text
        # last handed to Qt, whether the chart has changed since, and, for the snapshot shown,
        # its text worked out ahead as (view, hidden, text).
        self._description = ""
        self._description_stale = False
        self._described_ahead: tuple[str, bool, str] | None = None
        # Read ahead (idle time) off snapshots a toggle may bring, by identity: the snapshot,
        # its values and, while a screen reader listens, the text alternative of the view and
        # hiding then shown.
        self._ahead: dict[int, tuple[LabSnapshot, ChartValues, tuple[str, bool, str] | None]] = {}
        self._ahead_stale = False  # read for a snapshot shown before: the next read drops them
        self._applying_theme = False
        self.animator = ChartAnimator(plot, land=self._render_view, parent=self)
        self.animator.phase_changed.connect(self.phase_changed)
        self.animator.animation_finished.connect(self.animation_finished)
        self.set_theme(theme)

    # ----------------------------------------------------------------------------- public API

    def show_snapshot(self, snapshot: LabSnapshot) -> None:
        """Render the snapshot in the current view, without animation.

        Advantage view: heights A_i, labels signed A, a line at 0. Reward view: heights r_i,
        labels r_i, a line at the group mean ("par"). Colours are the push in both. A running
        animation stops at this snapshot's final state.
        """
        ahead = self._ahead.get(id(snapshot))
        # The snapshots read ahead for the toggles not taken go at the next read ahead (idle
        # time): dropping them here freed each of them in the click's frame (0.5 ms at G = 64).
        # Until then they stay true: each entry holds its snapshot, so no other has its id.
        self._ahead_stale = True
        if ahead is not None and ahead[0] is snapshot:
            values, described = ahead[1], ahead[2]
        else:
            values, described = ChartValues.from_snapshot(snapshot), None
        plot = self.advantage_plot
        self._range_key = values.range_key
        self._values = values
        self._snapshot = snapshot
        self._describe(described)
        plot.reserve(values.extent, values.label_chars, values.par_text)
        plot.set_captions(values.captions)
        if not self.animator.finish():  # finishing draws the final state itself
            self._render_view()

    def prepare(self, snapshot: LabSnapshot) -> None:
        """Read ahead (idle time) what :meth:`show_snapshot` would read off ``snapshot``: both
        views' values, the band its captions need and, while a screen reader listens (it then
        reads the text on the click), the text alternative of the view shown. Kept until the
        next snapshot shows and the next one is read ahead; used if that is this very snapshot
        (a toggle built ahead)."""
        if self._ahead_stale or len(self._ahead) >= 16:
            self._ahead.clear()
            self._ahead_stale = False
        described = None
        if accessible_events.wanted():
            described = (self._mode, self._advantages_hidden, self._text_for(snapshot))
        values = ChartValues.from_snapshot(snapshot)
        self._ahead[id(snapshot)] = (snapshot, values, described)
        self.advantage_plot.measure_captions_ahead(values.captions)

    def set_view(self, view: str, animate: bool = True, stepped: bool = False) -> None:
        """Show rewards (``"reward"``) or advantages (``"advantage"``).

        Animated in two captioned phases when ``animate`` and animation is enabled; otherwise
        instant. ``stepped`` stops after the first phase, at r − mean, until ``step``. A running
        animation towards another view first jumps to its end, except one waiting at r − mean:
        that one goes back from there (the first phase is already on screen). Asking for the view
        already being animated to lets it run on, or, with ``animate=False``, finishes it.
        """
        check_view(view)
        if view == self._mode:
            if not animate:
                self.animator.finish()
            return
        values = self._values
        moving = animate and self.animator.can_animate() and not self._advantages_hidden
        middle = moving and self.animator.waiting()
        if not middle:
            self.animator.finish()
        previous, self._mode = self._mode, view
        self._describe()
        if moving and values is not None and values.rewards:
            forward = previous == "reward"
            self.animator.start(values, forward=forward, stepped=stepped, from_middle=middle)
        else:
            self._render_view()
        self.view_changed.emit(view)

    def step(self) -> bool:
        """One step of the animation on screen: play step 2 from where it waits at r − mean, or
        stop the first step there instead of going on. False when there is no step to take."""
        animator = self.animator
        return animator.resume() or (animator.is_running() and animator.hold())

    def waiting(self) -> bool:
        """Stopped at r − mean after the first step, until ``step`` (or a view) goes on."""
        return self.animator.waiting()

    def view(self) -> str:
        """The view shown, or being animated to: ``"reward"`` or ``"advantage"``."""
        return self._mode

    def set_animation_enabled(self, enabled: bool) -> None:
        """Turn view-switch animation on or off; turning it off ends a running one at once."""
        self.advantage_plot.set_caption_room(enabled)  # no animation, no caption to make room for
        self.animator.set_enabled(enabled)

    def animation_enabled(self) -> bool:
        return self.animator.enabled()

    @property
    def animation_ms(self) -> int:
        """How long a view switch animates, both phases together (0 or less: instant); each
        captioned phase takes half."""
        return self.animator.animation_ms

    @animation_ms.setter
    def animation_ms(self, ms: int) -> None:
        self.animator.animation_ms = ms

    def is_animating(self) -> bool:
        return self.animator.is_running()

    def phase(self) -> int:
        """The animation stage running: 1 or 2, 0 when not animating."""
        return self.animator.phase()

    def caption_text(self) -> str:
        """The phase caption shown now ("" when hidden)."""
        return self.advantage_plot.caption.shown_text()

    def set_advantages_hidden(self, hidden: bool) -> None:
        """Hide every advantage (and the push colours) until the lecturer reveals them."""
        if hidden == self._advantages_hidden:
            return
        self._advantages_hidden = hidden
        self._describe()
        if not self.animator.finish():
            self._render_view()

    def accessibleDescription(self) -> str:  # Qt override (Python callers, DescribedChart)
        """Every bar in words (card, value, sign): the view the chart shows or is animating to;
        hidden advantages stay hidden here too."""
        return self._current_description()

    def _describe(self, described: tuple[str, bool, str] | None = None) -> None:
        """The chart changed what it describes. ``described``: (view, hidden, text) worked out
        ahead, used if the view and hiding are still those when the text is written.

        Written now only while someone listens, so the change goes out as an event; otherwise
        when read (describing 64 bars was 60-70 µs of every click at G = 64)."""
        self._described_ahead = described
        self._description_stale = True
        if accessible_events.wanted():
            self._current_description()

    def _current_description(self) -> str:
        """The text alternative of what the chart shows now, written (and handed to Qt) on the
        first read after a change."""
        snapshot = self._snapshot
        if not self._description_stale or snapshot is None:
            return self._description
        described = self._described_ahead
        if described is not None and described[:2] == (self._mode, self._advantages_hidden):
            text = described[2]
        else:
            text = self._text_for(snapshot)
        self._description_stale = False
        self._described_ahead = None
        if text != self._description:  # compared here: asking Qt costs a call
            self._description = text
            self.setAccessibleDescription(text)
        return text

    def _text_for(self, snapshot: LabSnapshot) -> str:
        if self._advantages_hidden and self._mode == "advantage":
            return HIDDEN_TEXT
        return advantage_chart_text(snapshot, self._mode)

    def advantages_hidden(self) -> bool:
        return self._advantages_hidden

    def set_theme(self, theme: Theme) -> None:
        """Restyle every item for ``theme`` (colours, stroke widths, font sizes) and redraw."""
        self._theme = theme
        self._applying_theme = True
        try:
            self.setBackground(theme.surface)
            self.advantage_plot.set_theme(theme, self.font())
        finally:
            self._applying_theme = False
        # Mid-animation the title names what the phase in progress shows.
        self.advantage_plot.set_value_title(self.animator.title() or AXIS_TITLES[self._mode])

    # -------------------------------------------------------------- drawing, forwarded to the plot

    def render_bars(
        self, heights: Sequence[float], pushes: Sequence[Push], labels: Sequence[str]
    ) -> None:
        """Draw bars of these heights (see ``AdvantagePlot.render_bars``)."""
        self.advantage_plot.render_bars(heights, pushes, labels)

    def set_reference_line(self, y: float, label: str) -> None:
        """Move the single horizontal reference line (0 for advantages, "par" for rewards)."""
        self.advantage_plot.set_reference_line(y, label)

    def bar_heights(self) -> list[float]:
        """The heights the bar item is drawing now."""
        return self.advantage_plot.bar_heights()

    def bar_colours(self) -> list[str]:
        """The fill colour of each bar as ``#rrggbb``."""
        return self.advantage_plot.bar_colours()

    def label_texts(self) -> list[str]:
        """The value labels visible now, left to right (none when hidden for lack of room)."""
        return self.advantage_plot.label_texts()

    def y_range(self) -> tuple[float, float]:
        """The visible y range: (−R, R), or from just below 0 in the reward view."""
        return self.advantage_plot.y_range()

    def y_ticks(self) -> list[float]:
        """The values written on the value axis."""
        return self.advantage_plot.y_ticks()

    def x_ticks(self) -> list[int]:
        """The card numbers written under the x axis (thinned when they would overlap)."""
        return self.advantage_plot.x_ticks()

    def reference_line(self) -> tuple[float, str]:
        """Where the reference line is and what its label says."""
        return self.advantage_plot.reference_line()

    def labels_visible(self) -> bool:
        """Whether value labels fit at the current width and group size."""
        return self.advantage_plot.labels_visible()

    # ------------------------------------------------------------------------------ internals

    def changeEvent(self, event: QEvent) -> None:
        """Follow application font changes: all text is sized from the widget font."""
        super().changeEvent(event)
        if event.type() == QEvent.Type.FontChange and not self._applying_theme:
            self.set_theme(self._theme)

    def _floor(self, view: str) -> float:
        """1 when ``view`` has nothing below 0 (rewards), so the chart drops the empty half."""
        values = self._values
        hug = view == "reward" and values is not None and values.rewards_nonnegative
        return 1.0 if hug else 0.0

    def _render_view(self) -> None:
        """Draw the current view's final state (no animation)."""
        plot = self.advantage_plot
        plot.set_value_title(AXIS_TITLES[self._mode])
        if self._values is None:
            return
        state = self._values.state(self._mode, self._advantages_hidden)
        plot.set_floor(self._floor(self._mode), self._values.reward_extent)
        plot.set_reference_line(state.line, state.line_text)
        plot.render_bars(state.heights, state.pushes, state.texts)


accessible_events.register(AdvantageChart, accessible_events.described_chart_interface)
