"""The Training workspace on the tiny language model: a real network trained by GRPO, live.

It lays out the views (the curves over steps, the chosen step's groups, the controls, the
frontier with the held-out prompts as dots) and wires them to :class:`LMTrainingState` (the
model owns the run, stepped in a worker process): settings go to the workbench as undoable edits
that restart the run, Play/Step/Reset and what to look at go to the state, and every snapshot
is rendered once by each view. Built the first time the workspace shows on the tiny model.
"""

from __future__ import annotations

import itertools
from typing import TYPE_CHECKING

from PySide6.QtCore import QSize, Qt
from PySide6.QtGui import QFontMetricsF, QResizeEvent
from PySide6.QtWidgets import QLabel, QSizePolicy, QSplitter, QVBoxLayout, QWidget

from grpo_desktop.core.common.theme import Theme
from grpo_desktop.core.tinylm.lm_run_snapshot import LMRunSnapshot
from grpo_desktop.model.lm_training_state import LMTrainingState
from grpo_desktop.views.common.fonts import scaled_font
from grpo_desktop.views.training.lm_frontier import LMFrontierPlot
from grpo_desktop.views.training.lm_run_charts import LMRunCharts
from grpo_desktop.views.training.lm_run_controls import LMRunControls
from grpo_desktop.views.training.lm_step_groups import LMStepGroups
from grpo_desktop.window.layout_helpers import (
    ColumnScroll,
    FillHolder,
    FittedColumn,
    column_height,
)

if TYPE_CHECKING:  # the export's figure loads when a chart is exported
    from grpo_desktop.core.files.chart_figure import Figure

# Plot heights in lines of the page's text, so they grow with the zoom, the projector's type and
# the screen (fixed pixels flattened the plots at 200 %, their tick labels piled up).
CHART_MIN_LINES = 7  # each chart over steps: lines and axes a room can follow
FRONTIER_MIN_LINES = 11
SIDE_SHARE = 0.4  # of the page's width, for the controls and the frontier


class _WrappedHolder(FillHolder):
    """The step's groups at the height their wrapped title and list need at the width they
    have, never more: a wrapped label's own minimum is its height at its narrowest, which left
    a blank band between the title and the list."""

    def __init__(self, view: QWidget, name: str) -> None:
        super().__init__(view, name)
        self.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Maximum)

    def minimumSizeHint(self) -> QSize:  # Qt override
        width = self.width() if self.width() > 0 else self.view.sizeHint().width()
        return QSize(self.view.minimumSizeHint().width(), column_height(self.view, width))

    def sizeHint(self) -> QSize:  # Qt override
        return self.minimumSizeHint()


class LMTrainingPage(QWidget):
    """The Training workspace's page on the tiny model (objectName ``lmTrainingView``)."""

    def __init__(self, state: LMTrainingState, theme: Theme, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("lmTrainingView")
        self.state = state
        self.note = QLabel(objectName="lmTrainingNote")
        self.status = QLabel(objectName="lmTrainingStatus")
        for label in (self.note, self.status):
            label.setTextFormat(Qt.TextFormat.PlainText)
            label.setWordWrap(True)
        self.charts = LMRunCharts(theme)
        self.groups = LMStepGroups(theme)
        self.controls = LMRunControls(theme)
        self.frontier = LMFrontierPlot(theme)
        self._build_layout()
        controls = self.controls
        controls.play_requested.connect(state.set_playing)
        controls.step_requested.connect(state.step_once)
        controls.reset_requested.connect(state.reset)
        controls.config_requested.connect(state.request_config)
        self.charts.metric_requested.connect(state.set_metric)
        self.charts.step_requested.connect(state.select_step)
        self.groups.group_requested.connect(state.open_group)
        state.snapshot_changed.connect(self.render)
        self.set_theme(theme)
        self.render(state.snapshot)

    def _fit_plot_heights(self, theme: Theme) -> None:
        line = QFontMetricsF(scaled_font(theme.type_scale)).height()
        for plot in self.charts.plots():
            plot.setMinimumHeight(round(CHART_MIN_LINES * line))
        self.frontier.plot_widget.setMinimumHeight(round(FRONTIER_MIN_LINES * line))

    def _build_layout(self) -> None:
        left = FittedColumn(objectName="lmChartsColumn")
        left_column = QVBoxLayout(left)
        left_column.setContentsMargins(0, 0, 0, 0)
        left_column.setSpacing(6)
        left_column.addWidget(FillHolder(self.charts, "lmChartsHolder"), 1)
        left_column.addWidget(_WrappedHolder(self.groups, "lmGroupsHolder"))
        side = FittedColumn(objectName="lmSideColumn")
        side_column = QVBoxLayout(side)
        side_column.setContentsMargins(0, 0, 0, 0)
        side_column.setSpacing(8)
        side_column.addWidget(self.controls)
        side_column.addWidget(FillHolder(self.frontier, "lmFrontierHolder"), 1)
        # Each column scrolls rather than squeezes on a screen too short for it (1024×768 on a
        # projector, a 200 % zoom): squeezed, the charts and the frontier flattened to a few
        # pixels with their tick labels piled up.
        self.splitter = QSplitter(Qt.Orientation.Horizontal, objectName="lmTrainingSplitter")
        self.splitter.addWidget(ColumnScroll(left, "lmChartsScroll"))
        self.splitter.addWidget(ColumnScroll(side, "lmSideScroll"))
        self.splitter.setChildrenCollapsible(False)
        self.splitter.setStretchFactor(0, 3)
        self.splitter.setStretchFactor(1, 2)
        left.setMinimumWidth(380)
        side.setMinimumWidth(320)
        column = QVBoxLayout(self)
        column.setContentsMargins(0, 0, 0, 0)
        column.setSpacing(6)
        column.addWidget(self.note)
        column.addWidget(self.status)
        column.addWidget(self.splitter, 1)
        # Tab follows reading order: the charts, their groups, then the side column.
        chain = (self.charts, self.charts.metric_combo, self.groups.list)
        chain += (*self.controls.tab_chain(), self.frontier.plot_widget)
        for first, second in itertools.pairwise(chain):
            QWidget.setTabOrder(first, second)

    def resizeEvent(self, event: QResizeEvent) -> None:  # Qt override
        super().resizeEvent(event)
        if event.size().width() != event.oldSize().width():
            self._balance_splitter()

    def _balance_splitter(self) -> None:
        """The side column SIDE_SHARE of the width, or what the controls need whole (every
        label beside its field: a projector's larger type needs more on a 1024-px screen)."""
        total = self.width() - self.splitter.handleWidth()
        needed = self.controls.minimumSizeHint().width()
        side = max(self.splitter.widget(1).minimumWidth(), needed, round(total * SIDE_SHARE))
        side = min(side, total - self.splitter.widget(0).minimumWidth())
        self.splitter.setSizes([max(0, total - side), side])

    # --- the run's keys (the window's actions call these) ------------------------------------

    def toggle_playing(self) -> None:
        self.state.toggle_playing()

    def step_once(self) -> None:
        self.state.step_once()

    def reset(self) -> None:
        self.state.reset()

    def reveal(self, target: QWidget | None) -> None:
        """Everything on this page is in view at once: nothing to scroll."""

    # --- rendering --------------------------------------------------------------------------

    def render(self, snapshot: LMRunSnapshot) -> None:
        if snapshot.note != self.note.text():
            self.note.setText(snapshot.note)
        if snapshot.status != self.status.text():
            self.status.setText(snapshot.status)
            self.status.setAccessibleName(snapshot.status)
        self.charts.show_snapshot(snapshot)
        self.frontier.show_snapshot(snapshot)
        self.controls.show_snapshot(snapshot)
        self.groups.show_snapshot(snapshot)

    def set_theme(self, theme: Theme) -> None:
        for view in (self.charts, self.frontier, self.controls, self.groups):
            view.set_theme(theme)
        self.note.setFont(scaled_font(0.9 * theme.type_scale))
        self.note.setStyleSheet(f"color: {theme.muted};")
        self.status.setFont(scaled_font(1.1 * theme.type_scale, bold=True))
        self.status.setStyleSheet(f"color: {theme.text};")
        self._fit_plot_heights(theme)
        self._balance_splitter()  # the controls' type size changed


def lm_training_figure(snapshot: LMRunSnapshot, theme: Theme) -> Figure:
    """File ▸ Export on the tiny model: the held-out pass rates, the chosen metric over the
    steps, and the frontier with the held-out prompts as dots, as a figure for a slide."""
    from grpo_desktop.core.files.chart_figure import (
        Figure,
        LegendEntry,
        Mark,
        Panel,
        nice_ticks,
    )

    total = float(max(snapshot.total_steps, 1))
    x_ticks = nice_ticks(0.0, total, 5)
    marker = None if snapshot.selected_step is None else float(snapshot.selected_step)
    curves = snapshot.curves
    series = theme.series

    def line(key: str, colour: str, style: int = 0) -> Mark:
        curve = curves[key]
        return Mark(
            "line",
            tuple(float(v) for v in curve.steps),
            tuple(float(v) for v in curve.values),
            (colour,),
            style=style,
            width=1.4,
        )

    pass_panel = Panel(
        title="Held-out prompts",
        x_label="step",
        y_label="rate",
        x_range=(0.0, total),
        y_range=(-0.04, 1.04),
        x_ticks=x_ticks,
        y_ticks=nice_ticks(0.0, 1.0, 5),
        marks=(line("pass_rate", series[2]), line("greedy_accuracy", series[4], 1)),
        legend=(
            LegendEntry("exact pass rate", "line", series[2], width=1.4),
            LegendEntry("greedy accuracy", "line", series[4], style=1, width=1.4),
        ),
        marker_x=marker,
    )
    chosen = curves[snapshot.metric]
    values = [float(v) for v in chosen.values] or [0.0, 1.0]
    low, high = min(values), max(values)
    if high - low < 1e-9:
        low, high = low - 0.5, high + 0.5
    metric_panel = Panel(
        title=chosen.label,
        x_label="step",
        y_label=chosen.label.split(" (")[0],
        x_range=(0.0, total),
        y_range=(low, high),
        x_ticks=x_ticks,
        y_ticks=nice_ticks(low, high),
        marks=(line(snapshot.metric, series[0]),),
        marker_x=marker,
    )
    quarter = tuple((v / 4, f"{v / 4:g}") for v in range(5))
    frontier_marks = [
        Mark(
            "line",
            tuple(float(v) for v in snapshot.frontier_p),
            tuple(float(v) for v in snapshot.frontier_y),
            (theme.text,),
            width=1.7,
            tag=f"G = {snapshot.config.group_size}",
            tag_x=0.15,
        )
    ]
    if len(snapshot.dots_p):
        frontier_marks.append(
            Mark(
                "dots",
                tuple(float(v) for v in snapshot.dots_p),
                tuple(float(v) for v in snapshot.dots_y),
                (series[2],),
            )
        )
    frontier_panel = Panel(
        title="The learning frontier: held-out prompts",
        x_label="exact pass rate p",
        y_label="share of groups that teach",
        x_range=(-0.02, 1.02),
        y_range=(-0.03, 1.08),
        x_ticks=quarter,
        y_ticks=quarter,
        marks=tuple(frontier_marks),
        legend=(LegendEntry("a held-out prompt", "dot", series[2]),),
    )
    return Figure(
        title="GRPO on a tiny language model",
        subtitle=snapshot.status,
        panels=(pass_panel, metric_panel, frontier_panel),
        note=snapshot.note,
    )
