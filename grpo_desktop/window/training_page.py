"""The Training workspace: a toy run over the problem library, algorithms side by side.

It lays out the views (the charts over steps, the learning frontier, the controls, the groups of
a chosen step) and wires them to the model: configuration changes go to the workbench (undoable,
and they restart the run), playing and what to look at go to :class:`TrainingState`, and every
snapshot it emits is rendered once by each view. Built the first time it is shown.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QSplitter, QVBoxLayout, QWidget

from grpo_desktop.core.theme import Theme
from grpo_desktop.core.training import TrainingConfig
from grpo_desktop.core.training_snapshot import STANDIN_NOTE, TrainingSnapshot
from grpo_desktop.model.training_state import TrainingState
from grpo_desktop.model.workbench import Workbench
from grpo_desktop.views.fonts import scaled_font
from grpo_desktop.views.frontier_plot import FrontierPlot
from grpo_desktop.views.step_groups import StepGroups
from grpo_desktop.views.training_charts import TrainingCharts
from grpo_desktop.views.training_controls import TrainingControls


class TrainingPage(QWidget):
    """The Training workspace's page (objectName ``trainingView``)."""

    def __init__(self, workbench: Workbench, theme: Theme, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("trainingView")
        self.workbench = workbench
        self.state = TrainingState(workbench, self)
        self.charts = TrainingCharts(theme)
        self.frontier = FrontierPlot(theme)
        self.controls = TrainingControls(theme)
        self.groups = StepGroups(theme)
        self.note = QLabel(STANDIN_NOTE, objectName="trainingNote")
        self.status = QLabel(objectName="trainingStatus")
        for label in (self.note, self.status):
            label.setTextFormat(Qt.TextFormat.PlainText)
            label.setWordWrap(True)
        self._build_layout()
        controls = self.controls
        controls.play_requested.connect(self.state.set_playing)
        controls.step_requested.connect(self.state.step_once)
        controls.reset_requested.connect(self.state.reset)
        controls.speed_requested.connect(self.state.set_speed)
        controls.config_requested.connect(self.request_config)
        controls.metric_requested.connect(self.state.set_metric)
        controls.focus_requested.connect(self.state.set_focus)
        self.charts.step_requested.connect(self.state.select_step)
        self.groups.group_requested.connect(self.state.open_group)
        self.state.snapshot_changed.connect(self.render)
        self.set_theme(theme)
        self.render(self.state.snapshot)

    def _build_layout(self) -> None:
        left = QWidget(objectName="trainingChartsColumn")
        left_column = QVBoxLayout(left)
        left_column.setContentsMargins(0, 0, 0, 0)
        left_column.setSpacing(6)
        left_column.addWidget(self.status)
        left_column.addWidget(self.charts, 1)
        left_column.addWidget(self.groups)  # the clicked step's groups, under its charts

        side = QWidget(objectName="trainingSideColumn")
        side_column = QVBoxLayout(side)
        side_column.setContentsMargins(0, 0, 0, 0)
        side_column.setSpacing(8)
        side_column.addWidget(self.controls)
        side_column.addWidget(self.frontier, 1)
        self.frontier.setMinimumHeight(200)

        splitter = QSplitter(Qt.Orientation.Horizontal, objectName="trainingSplitter")
        splitter.addWidget(left)
        splitter.addWidget(side)
        splitter.setStretchFactor(0, 3)
        splitter.setStretchFactor(1, 2)
        splitter.setChildrenCollapsible(False)
        left.setMinimumWidth(400)
        side.setMinimumWidth(340)
        self.splitter = splitter

        column = QVBoxLayout(self)
        column.setContentsMargins(0, 0, 0, 0)
        column.setSpacing(6)
        column.addWidget(self.note)
        column.addWidget(splitter, 1)

    # --- requests ---------------------------------------------------------------------------

    def request_config(self, config: TrainingConfig) -> None:
        self.workbench.set_training_config(config)

    def set_active(self, active: bool) -> None:
        """Shown or hidden: a hidden run pauses, and only a shown one builds snapshots."""
        self.state.set_shown(active)

    def stop(self) -> None:
        """The window is closing: stop the run's timer."""
        self.state.stop()

    # --- rendering --------------------------------------------------------------------------

    def render(self, snapshot: TrainingSnapshot) -> None:
        self.status.setText(snapshot.status)
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
