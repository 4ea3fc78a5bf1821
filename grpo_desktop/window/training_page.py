"""The Training workspace: a toy run over the problem library, algorithms side by side.

It lays out the views (the charts over steps, the learning frontier, the controls, the groups of
a chosen step) and wires them to the model: configuration changes go to the workbench (undoable,
and they restart the run), playing and what to look at go to :class:`TrainingState` (the model
owns it), and every snapshot it emits is rendered once by each view. Built in idle time after
the window's first paint, a part per step (``idle_prebuild.py``), or when first needed.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterator

from PySide6.QtCore import QCoreApplication, QEvent, QSize, Qt, QTimer
from PySide6.QtGui import QResizeEvent
from PySide6.QtWidgets import QLabel, QSplitter, QVBoxLayout, QWidget

from grpo_desktop.core.common.theme import Theme
from grpo_desktop.core.lab.lab_rewards import RewardWeights
from grpo_desktop.core.training.run import TrainingConfig
from grpo_desktop.core.training.training_snapshot import STANDIN_NOTE, TrainingSnapshot
from grpo_desktop.model.training_state import TrainingState
from grpo_desktop.model.workbench import Workbench
from grpo_desktop.views.common.fonts import scaled_font
from grpo_desktop.views.common.label_slot import LabelSlot
from grpo_desktop.views.common.motion import motion_preference, reduced_motion
from grpo_desktop.views.training.frontier_plot import FrontierPlot
from grpo_desktop.views.training.step_groups import StepGroups
from grpo_desktop.views.training.training_charts import TrainingCharts
from grpo_desktop.views.training.training_controls import TrainingControls
from grpo_desktop.window.layout_helpers import ColumnScroll, FillHolder, column_height

# A playing run's render goes on a part per turn, posted below Qt's repaints (as the run's
# steps are, model/training_state.py): the part's repaint, and a click waiting, go first.
_AFTER_PAINTS = Qt.EventPriority.LowEventPriority.value - 1
_RENDER_PART = QEvent.Type(QEvent.registerEventType())
CHART_PLOT_MIN_HEIGHT = 120  # each chart over steps: lines and axes a room can follow
FRONTIER_PLOT_MIN_HEIGHT = 180  # the frontier's curves, labels and dots: below it they pile up
SIDE_SHARE = 0.4  # of the page's width, for the controls and the frontier
GROUP_LINES = (2, 8)  # the groups list shows this many lines at least and at most
GROUP_SHARE = 0.12  # of the page's height, for the groups list
REWARD_TIP = (
    "The reward of each sampled answer: the Lab's reward weights (its Rewards tab), summed as "
    "TRL does. Changing them there restarts the run. The pass rate still counts what the "
    "checker calls right."
)


def reward_text(weights: RewardWeights) -> str:
    """``Reward: r = 1 × accuracy + 0.5 × format``, or "" for the plain 0/1 reward (nothing to
    say: the run rewards what the checker says, as the status and charts already assume)."""
    return "" if weights.plain else f"Reward: {weights.formula}"


def advance(state: TrainingState, steps: int) -> None:
    """Motion reduced: what Play (and P) does instead of playing. The run takes ``steps`` steps
    at once and stays paused (one snapshot for them all), so the charts change once per press
    and nothing moves by itself; a finished run stays as it is."""
    state.set_playing(False)
    state.run.run(max(0, steps - 1))
    state.step_once()  # the last step, paused: one snapshot for the whole advance


def play_or_advance(state: TrainingState) -> None:
    """Play or pause the run; with motion reduced, advance it by the speed's steps instead."""
    if reduced_motion() and not state.playing:
        advance(state, state.speed)
    else:
        state.set_playing(not state.playing)


def _steps_taken_since(shown: TrainingSnapshot | None, snapshot: TrainingSnapshot) -> bool:
    """Whether ``snapshot`` is a playing run's next frame after ``shown``: more steps, and
    nothing the user asked for (what they changed is shown at once, in one go)."""
    return (
        shown is not None
        and snapshot.playing
        and shown.playing
        and snapshot.steps_done > shown.steps_done
        and snapshot.config == shown.config
        and snapshot.metric == shown.metric
        and snapshot.focus == shown.focus
        and snapshot.selected_step == shown.selected_step
        and snapshot.refusal == shown.refusal
        and snapshot.reward_weights == shown.reward_weights
    )


class _Column(QWidget):
    """A column of parts whose minimum height counts its wrapped text at its width."""

    def minimumSizeHint(self) -> QSize:  # Qt override
        least = super().minimumSizeHint()
        width = self.width() if self.width() > 0 else self.sizeHint().width()
        return QSize(least.width(), max(least.height(), column_height(self, width)))

    def resizeEvent(self, event: QResizeEvent) -> None:  # Qt override
        super().resizeEvent(event)
        if event.size().width() != event.oldSize().width():
            self.updateGeometry()


class TrainingPage(QWidget):
    """The Training workspace's page (objectName ``trainingView``)."""

    def __init__(
        self,
        workbench: Workbench,
        state: TrainingState,
        theme: Theme,
        parent: QWidget | None = None,
        stepwise: bool = False,
    ) -> None:
        """The page, built whole; or with ``stepwise`` only begun: iterating :attr:`steps` then
        builds it a part per step (the idle prebuild gives each its own turn of the event loop,
        ``idle_prebuild.py``), and the page is whole once they are done."""
        super().__init__(parent)
        self.setObjectName("trainingView")
        self.workbench = workbench
        self.state = state
        self._revealed: QWidget | None = None  # a part a lesson rings: kept in view
        self._rendering: TrainingSnapshot | None = None  # the snapshot rendered last
        self._parts: Iterator[str] | None = None  # what is left of a render in parts
        self._part_serial = 0  # counts renders: a part posted for an older one is dropped
        self._posted_parts: deque[int] = deque()  # the render each posted part belongs to
        self.steps: Iterator[str] = self._build_steps(theme)
        if not stepwise:
            deque(self.steps, maxlen=0)

    def _build_steps(self, theme: Theme) -> Iterator[str]:
        """Each view a part at a time (its plots in parts: pyqtgraph makes a plot in one go),
        then the layout and wiring, the theme view by view and the first render view by view:
        each a step of a few milliseconds (each step's name is yielded after it)."""
        self.charts = TrainingCharts(theme, stepwise=True)
        for part in self.charts.steps:
            yield f"charts: {part}"
        self.frontier = FrontierPlot(theme, stepwise=True)
        for part in self.frontier.steps:
            yield f"frontier: {part}"
        self.controls = TrainingControls(theme, stepwise=True)
        for part in self.controls.steps:
            yield f"controls: {part}"
        self.groups = StepGroups(theme)
        self.note = QLabel(STANDIN_NOTE, objectName="trainingNote")
        self.status = QLabel(objectName="trainingStatus")
        # Which reward the run uses (the Lab's weights) when not the plain 0/1: over the charts,
        # whose plots give up the line (the side column has no height to spare on a laptop).
        self.reward = QLabel(objectName="trainingReward")
        self.reward.setToolTip(REWARD_TIP)
        self.reward.hide()
        for label in (self.note, self.status, self.reward):
            label.setTextFormat(Qt.TextFormat.PlainText)
            label.setWordWrap(True)
        # Set every frame of a playing run: a new sentence re-lays out nothing (label_slot.py).
        self.status_slot = LabelSlot(self.status)
        yield "groups, note and status"
        left = self._build_charts_column()
        yield "layout: charts column"
        self.controls.detach_run_bar()  # the form measured again without Play, Step and Reset
        yield "layout: the controls' run bar"
        side = self._build_side_column()
        yield "layout: side column, the controls"
        self._add_frontier(side)
        yield "layout: side column, the frontier"
        self.side_column = ColumnScroll(side, "trainingSideScroll")
        yield "layout: side column's scroll area"
        side_holder = self._build_side_holder()
        yield "layout: side holder"
        self._build_layout(left, side_holder)
        controls = self.controls
        controls.play_requested.connect(self.state.set_playing)
        controls.advance_requested.connect(lambda steps: advance(self.state, steps))
        controls.step_requested.connect(self.state.step_once)
        controls.reset_requested.connect(self.state.reset)
        controls.speed_requested.connect(self.state.set_speed)
        controls.config_requested.connect(self.request_config)
        controls.metric_requested.connect(self.state.set_metric)
        controls.focus_requested.connect(self.state.set_focus)
        self.charts.step_requested.connect(self.state.select_step)
        self.charts.groups_requested.connect(self.groups.focus_list)  # Enter on the charts
        self.groups.group_requested.connect(self.state.open_group)
        self.state.snapshot_changed.connect(self.render)
        motion_preference().changed.connect(self._motion_changed)
        yield "layout"
        # The views took ``theme`` as their last build step: only the page's own parts here
        # (the views' again re-polished each one's style sheet, 20-30 ms of the build).
        self._theme_page(theme)
        yield "theme: groups and page"
        yield from self._render_steps()  # the state now, whatever changed during the steps

    def _build_charts_column(self) -> QWidget:
        """The charts over the chosen step's groups (and the reward's line over them)."""
        left = _Column(objectName="trainingChartsColumn")
        left_column = QVBoxLayout(left)
        left_column.setContentsMargins(0, 0, 0, 0)
        left_column.setSpacing(6)
        left_column.addWidget(self.reward)
        for plot in self.charts.plots():
            plot.setMinimumHeight(CHART_PLOT_MIN_HEIGHT)
        left_column.addWidget(FillHolder(self.charts, "trainingChartsHolder"), 1)
        left_column.addWidget(self.groups)  # the clicked step's groups, under its charts
        return left

    def _build_side_column(self) -> QWidget:
        """The side column with the controls; the frontier goes under them and the column in a
        scroll area next, each a step (10 ms in one)."""
        side = QWidget(objectName="trainingSideColumn")
        side_column = QVBoxLayout(side)
        side_column.setContentsMargins(0, 0, 0, 0)
        side_column.setSpacing(8)
        side_column.addWidget(self.controls)  # restyled in its new parent: a step of its own
        return side

    def _add_frontier(self, side: QWidget) -> None:
        """The frontier under the controls."""
        side.layout().addWidget(FillHolder(self.frontier, "frontierHolder"), 1)
        self.frontier.plot_widget.setMinimumHeight(FRONTIER_PLOT_MIN_HEIGHT)
        # The controls whole, the frontier's title and caption over a plot at least
        # FRONTIER_PLOT_MIN_HEIGHT tall: a screen too short for both (1024×768 on a projector,
        # a 200 % zoom) scrolls this column (a ColumnScroll) rather than squeezing the
        # controls' fields.

    def _build_side_holder(self) -> QWidget:
        """Play, Step and Reset over the side column's scroll area."""
        # Play, Step and Reset stay above the column: scrolled to a ringed frontier on a short
        # screen (1024×768), the column would otherwise take them out of view.
        side_holder = QWidget(objectName="trainingSideHolder")
        holder_column = QVBoxLayout(side_holder)
        holder_column.setContentsMargins(0, 0, 0, 0)
        holder_column.setSpacing(4)
        run_bar = self.controls.detach_run_bar()
        run_bar.setContentsMargins(4, 0, 4, 0)  # in line with the form's fields below
        holder_column.addWidget(run_bar)
        holder_column.addWidget(self.side_column, 1)
        return side_holder

    def _build_layout(self, left: QWidget, side_holder: QWidget) -> None:
        splitter = QSplitter(Qt.Orientation.Horizontal, objectName="trainingSplitter")
        splitter.addWidget(left)
        splitter.addWidget(side_holder)
        splitter.setStretchFactor(0, 3)  # as SIDE_SHARE: _balance_splitter re-shares on resize
        splitter.setStretchFactor(1, 2)
        splitter.setChildrenCollapsible(False)
        left.setMinimumWidth(400)
        side_holder.setMinimumWidth(340)
        self.splitter = splitter
        self._balanced_width = 0

        column = QVBoxLayout(self)
        column.setContentsMargins(0, 0, 0, 0)
        column.setSpacing(6)
        column.addWidget(self.note)
        column.addWidget(self.status_slot)  # the run's one sentence, the width of the page
        column.addWidget(splitter, 1)
        self._order_tabs()

    def _order_tabs(self) -> None:
        """Tab follows reading order: the charts, the chosen step's groups under them, then the
        side column top to bottom (Play, Step, Reset, the settings, the frontier). The side
        column's scroll area is no stop of its own: it scrolls to whatever gets the focus."""
        self.side_column.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        controls = self.controls
        QWidget.setTabOrder(self.charts, self.groups.list)
        QWidget.setTabOrder(self.groups.list, controls.play_button)
        QWidget.setTabOrder(controls.focus_combo, self.frontier.plot_widget)

    def minimumSizeHint(self) -> QSize:  # Qt override
        """The note wrapped at the page's width over the columns' minimum (the zoom that fits
        the screen is chosen from this)."""
        least = super().minimumSizeHint()
        width = self.width() if self.width() > 0 else self.sizeHint().width()
        return QSize(least.width(), max(least.height(), column_height(self, width)))

    # --- requests ---------------------------------------------------------------------------

    def request_config(self, config: TrainingConfig) -> None:
        """A settings edit, applied or refused by the run's state (the run's convention and
        reward weights are the workbench's, given to the run, never part of its config)."""
        self.state.request_config(config)

    # --- the run's keys (the window's actions call these) ------------------------------------

    def toggle_playing(self) -> None:
        """Play, or pause a playing run (a finished run stays paused); with motion reduced,
        advance the run by the speed's steps at once instead of playing it."""
        play_or_advance(self.state)

    def _motion_changed(self, reduced: bool) -> None:
        """Motion reduced while the run plays: it pauses (it advances on presses from now)."""
        if reduced and self.state.playing:
            self.state.set_playing(False)

    def step_once(self) -> None:
        """One step of every algorithm and seed, paused (nothing once the run is finished)."""
        self.state.step_once()

    def reset(self) -> None:
        """Back to step 0 with the same settings and seeds."""
        self.state.reset()

    def reveal(self, target: QWidget | None) -> None:
        """A lesson rings ``target``: on a short screen the side column scrolls, so bring the
        ringed part (the frontier under the controls) into view, or the column's top (the
        controls) when the ring is elsewhere on this page; now, once the page is laid out, and
        whenever it lays out again (a caption that grows with the run). A part of another
        workspace (the lecturer paged on) leaves the column as it is."""
        on_page = target is not None and (target is self or self.isAncestorOf(target))
        self._revealed = target if on_page else None
        if not on_page:
            return
        self._keep_revealed(target)
        QTimer.singleShot(0, self, lambda: self._keep_revealed(target))
        bar = self.side_column.verticalScrollBar()
        bar.rangeChanged.connect(self._follow_layout, Qt.ConnectionType.UniqueConnection)

    def _follow_layout(self, *_range: int) -> None:
        if self._revealed is not None:
            self._keep_revealed(self._revealed)

    def _keep_revealed(self, target: QWidget) -> None:
        if self._revealed is not target:
            return  # a later reveal replaced it
        column = self.side_column
        inside = column.widget()
        if inside is not None and inside.isAncestorOf(target):
            column.ensureWidgetVisible(target, 0, 0)
        else:
            column.verticalScrollBar().setValue(0)

    def resizeEvent(self, event: QResizeEvent) -> None:  # Qt override
        super().resizeEvent(event)
        if event.size().width() != event.oldSize().width():
            self.updateGeometry()  # the note wraps differently: a new minimum height
            self._balance_splitter()
        self._fit_group_lines()

    def _balance_splitter(self) -> None:
        """Charts 60 %, the side column 40 %, or up to half when that keeps each control's
        label beside its field: labels above their fields make the form ~300 px taller at a
        200 % zoom, which pushes the frontier out of view."""
        total = self.width() - self.splitter.handleWidth()
        if total <= 0 or total == self._balanced_width:
            return
        self._balanced_width = total
        bar = self.side_column.verticalScrollBar().sizeHint().width()
        compact = self.controls.beside_width() + bar
        side = max(round(total * SIDE_SHARE), min(compact, round(total * 0.5)))
        side = min(side, total - self.splitter.widget(0).minimumWidth())
        self.splitter.setSizes([total - side, side])

    def _fit_group_lines(self) -> None:
        """About GROUP_SHARE of the page's height for the groups list: three lines on a short
        screen (the charts keep their height), a whole batch on a large one."""
        spacing = self.groups.row_height()
        low, high = GROUP_LINES
        lines = max(low, min(high, int(self.height() * GROUP_SHARE / spacing)))
        if lines != self.groups.visible_lines:
            self.groups.set_visible_lines(lines)

    # --- rendering --------------------------------------------------------------------------

    def render(self, snapshot: TrainingSnapshot) -> None:
        """Show ``snapshot`` in every view. A playing run's new steps are drawn a part per
        turn of the event loop (the pass-rate plot, the metric plot, then the rest), each part
        repainted before the next: a click waits behind one plot's redraw, never the whole
        frame's. Anything else (a step or focus chosen, a paused run) is shown at once."""
        previous, self._rendering = self._rendering, snapshot  # a render in parts stops
        parts = self._render_parts(snapshot)
        self._parts = None
        self._part_serial += 1
        if _steps_taken_since(previous, snapshot):
            self._parts = parts
            self._render_part(self._part_serial)
        else:
            deque(parts, maxlen=0)

    def _render_parts(self, snapshot: TrainingSnapshot) -> Iterator[str]:
        self._render_sentences(snapshot)
        self.controls.show_snapshot(snapshot)  # the progress bar, with the status sentence
        yield from self.charts.show_snapshot_parts(snapshot)
        self.frontier.show_snapshot(snapshot)
        self.groups.show_snapshot(snapshot)
        yield "frontier, groups"

    def _render_part(self, serial: int) -> None:
        """The next part of the render under way, and the one after it posted below Qt's
        repaints (this part's repaint, and a click's, go first)."""
        if serial != self._part_serial or self._parts is None:
            return  # a newer render replaced it
        try:
            next(self._parts)
        except StopIteration:
            self._parts = None
            return
        self._posted_parts.append(serial)
        QCoreApplication.postEvent(self, QEvent(_RENDER_PART), _AFTER_PAINTS)

    def customEvent(self, event: QEvent) -> None:  # Qt override
        if event.type() == _RENDER_PART and self._posted_parts:
            self._render_part(self._posted_parts.popleft())
        else:
            super().customEvent(event)

    def _render_steps(self) -> Iterator[str]:
        """The first render, a view per step, of the state's snapshot now; a snapshot sent
        meanwhile is rendered whole at once, and what is left of this one is dropped."""
        snapshot = self.state.snapshot
        self._rendering = snapshot
        self._render_sentences(snapshot)
        for name, view in (
            ("charts", self.charts),
            ("frontier", self.frontier),
            ("controls", self.controls),
            ("groups", self.groups),
        ):
            if self._rendering is not snapshot:
                return
            view.show_snapshot(snapshot)
            yield f"render: {name}"

    def _render_sentences(self, snapshot: TrainingSnapshot) -> None:
        self.status_slot.set_text(snapshot.status)
        reward = reward_text(snapshot.reward_weights)
        if reward != self.reward.text():
            self.reward.setText(reward)
            self.reward.setAccessibleName(reward)
            self.reward.setVisible(bool(reward))
            self.updateGeometry()  # a line more or less over the charts

    def set_theme(self, theme: Theme) -> None:
        deque(self._theme_steps(theme), maxlen=0)

    def _theme_steps(self, theme: Theme) -> Iterator[str]:
        """The theme, a view per step."""
        for name, view in (
            ("charts", self.charts),
            ("frontier", self.frontier),
            ("controls", self.controls),
        ):
            view.set_theme(theme)
            yield f"theme: {name}"
        self._theme_page(theme)
        yield "theme: groups and page"

    def _theme_page(self, theme: Theme) -> None:
        """The theme of the groups, the sentences and the balance of the columns."""
        self.groups.set_theme(theme)
        self.note.setFont(scaled_font(0.9 * theme.type_scale))
        self.note.setStyleSheet(f"color: {theme.muted};")
        self.status.setFont(scaled_font(1.1 * theme.type_scale, bold=True))
        self.status.setStyleSheet(f"color: {theme.text};")
        self.reward.setFont(scaled_font(theme.type_scale))
        self.reward.setStyleSheet(f"color: {theme.text};")
        self._fit_group_lines()
        self._balanced_width = 0  # the controls' compact width changed with the type size
        self._balance_splitter()
