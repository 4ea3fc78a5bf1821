"""One complete lab — a state and the views that render it — wired to a shared undo stack.

The main window shows one; the easy-vs-hard comparison shows two side by side. Each pane turns its
views' ``*_requested`` signals into undoable commands and renders every snapshot its state emits.
How the views are laid out is up to the window that hosts the pane.
"""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import QObject, Signal
from PySide6.QtGui import QUndoStack

from grpo_desktop.core.problems import Problem
from grpo_desktop.core.snapshot import LabSnapshot
from grpo_desktop.core.theme import Theme
from grpo_desktop.model import commands
from grpo_desktop.model.lab_state import LabState
from grpo_desktop.views.advantage_chart import AdvantageChart
from grpo_desktop.views.degenerate_banner import DegenerateBanner
from grpo_desktop.views.problem_panel import ProblemPanel
from grpo_desktop.views.stats_panel import StatsPanel
from grpo_desktop.views.trace_grid import TraceGrid


class LabPresenter(QObject):
    """A LabState plus its problem panel, stat tiles, trace grid, chart and banner."""

    activated = Signal(object)  # this pane; emitted when the user acts on it (keys 1–9 follow)

    def __init__(
        self,
        state: LabState,
        undo_stack: QUndoStack,
        problems: Sequence[Problem],
        theme: Theme,
        name: str = "",
        object_prefix: str = "",
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self.state = state
        self.undo_stack = undo_stack
        self._problems = {problem.id: problem for problem in problems}
        self._label = f"{name}: " if name else ""
        self.highlight_loudest = False
        self.advantages_hidden = False

        self.problem_panel = ProblemPanel(problems, theme)
        self.stats_panel = StatsPanel(theme)
        self.trace_grid = TraceGrid(theme)
        self.chart = AdvantageChart(theme)
        self.banner = DegenerateBanner(theme)
        if object_prefix:
            # The automation names (statPar, traceCard0, …) belong to the main lab; a second
            # pane's widgets are told apart by a prefix such as "easy.".
            self.trace_grid.card_name_prefix = object_prefix
            for view in self.views:
                for named in (view, *view.findChildren(QObject)):
                    if named.objectName():
                        named.setObjectName(object_prefix + named.objectName())

        state.snapshot_changed.connect(self.render)
        state.problem_changed.connect(self.problem_panel.show_problem)
        self.trace_grid.toggle_requested.connect(self.request_toggle)
        self.problem_panel.problem_requested.connect(self.request_problem)
        self.problem_panel.show_problem(state.problem)
        self.render(state.snapshot)

    @property
    def views(self) -> tuple:
        return (self.problem_panel, self.stats_panel, self.trace_grid, self.chart, self.banner)

    # --- requests: each becomes one undoable command ----------------------------------------

    def request_toggle(self, index: int) -> None:
        if 0 <= index < self.state.group_size:
            self.activated.emit(self)
            self.undo_stack.push(commands.toggle_trace(self.state, index, self._label))

    def request_problem(self, problem_id: str) -> None:
        if problem_id != self.state.problem.id and problem_id in self._problems:
            self.activated.emit(self)
            title = self._label + self._problems[problem_id].title
            self.undo_stack.push(commands.set_problem(self.state, problem_id, title))

    # --- rendering --------------------------------------------------------------------------

    def render(self, snapshot: LabSnapshot) -> None:
        self.stats_panel.show_snapshot(snapshot)
        self.trace_grid.show_snapshot(snapshot)
        self.chart.show_snapshot(snapshot)
        self.banner.show_snapshot(snapshot)
        self._present(snapshot)

    def set_highlight_loudest(self, on: bool) -> None:
        """Star the rare answers whose advantage is loudest (the easy-vs-hard comparison)."""
        self.highlight_loudest = on
        self._present(self.state.snapshot)

    def set_advantages_hidden(self, hidden: bool) -> None:
        """Predict, then reveal: hide every advantage (cards, counts, chart) until revealed."""
        self.advantages_hidden = hidden
        self.stats_panel.set_advantages_hidden(hidden)
        self.chart.set_advantages_hidden(hidden)
        self._present(self.state.snapshot)

    def _present(self, snapshot: LabSnapshot) -> None:
        loudest = snapshot.worked_math.loudest if self.highlight_loudest else ()
        self.trace_grid.set_presentation(loudest, self.advantages_hidden)

    def set_theme(self, theme: Theme) -> None:
        for view in self.views:
            view.set_theme(theme)
