"""One lab on screen: a LabState's views, fed its snapshots, their requests sent to the workbench.

The main window shows one; the easy-vs-hard comparison shows two side by side. A presenter holds
no state the model lacks: it turns ``*_requested`` signals into workbench calls and renders every
snapshot its lab emits, once. How the views are laid out is up to the page that hosts them.
"""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import QObject

from grpo_desktop.core.common.theme import Theme
from grpo_desktop.core.lab.lab_snapshot import LabSnapshot
from grpo_desktop.core.lab.problems import Problem
from grpo_desktop.model.lab_state import LabState
from grpo_desktop.model.shown_gate import ShownGate
from grpo_desktop.model.workbench import Workbench
from grpo_desktop.views.lab.advantage_chart import AdvantageChart
from grpo_desktop.views.lab.degenerate_banner import DegenerateBanner
from grpo_desktop.views.lab.problem_panel import ProblemPanel
from grpo_desktop.views.lab.stats_panel import StatsPanel
from grpo_desktop.views.lab.trace_grid import TraceGrid


class LabPresenter(QObject):
    """A LabState's problem panel, stat tiles, trace grid, chart and banner."""

    def __init__(
        self,
        state: LabState,
        workbench: Workbench,
        problems: Sequence[Problem],
        theme: Theme,
        object_prefix: str = "",
        parent: QObject | None = None,
        gate: ShownGate | None = None,
    ) -> None:
        super().__init__(parent)
        self.state = state
        self.workbench = workbench
        self.highlight_loudest = False
        # Off screen (another workspace shows the group its own way) a snapshot waits, and the
        # latest is rendered once on return; a lab with no gate is on screen whenever it exists.
        self._gate = gate if gate is not None else ShownGate(True, self)

        self.problem_panel = ProblemPanel(problems, theme)
        self.stats_panel = StatsPanel(theme)
        self.trace_grid = TraceGrid(theme)
        self.chart = AdvantageChart(theme)
        self.banner = DegenerateBanner(theme)
        if object_prefix:
            # The automation names (statPar, traceCard0, …) belong to the main lab; a second
            # lab's widgets are told apart by a prefix such as "easy.".
            self.trace_grid.card_name_prefix = object_prefix
            for view in self.views:
                for named in (view, *view.findChildren(QObject)):
                    if named.objectName():
                        named.setObjectName(object_prefix + named.objectName())

        state.snapshot_changed.connect(self._follow)
        state.problem_changed.connect(
            lambda problem: self.problem_panel.show_problem(problem, state.recorded)
        )
        workbench.advantages_hidden_changed.connect(self._show_advantages_hidden)
        self.trace_grid.toggle_requested.connect(self.request_toggle)
        self.trace_grid.score_requested.connect(self.request_score)
        self.problem_panel.problem_requested.connect(self.request_problem)
        self.problem_panel.show_problem(state.problem, state.recorded)
        if workbench.advantages_hidden:
            self._show_advantages_hidden(True)
        self.render(state.snapshot)

    @property
    def views(self) -> tuple:
        return (self.problem_panel, self.stats_panel, self.trace_grid, self.chart, self.banner)

    @property
    def advantages_hidden(self) -> bool:
        return self.workbench.advantages_hidden

    # --- requests: straight to the workbench ------------------------------------------------

    def request_toggle(self, index: int) -> None:
        self.workbench.toggle(index, self.state)

    def request_score(self, index: int, score: float, gesture: int) -> None:
        self.workbench.set_score(index, score, gesture, self.state)

    def request_problem(self, problem_id: str) -> None:
        self.workbench.set_problem(problem_id, self.state)

    # --- rendering --------------------------------------------------------------------------

    def _follow(self, snapshot: LabSnapshot) -> None:
        self._gate.call(self, lambda: self.render(snapshot))

    def render(self, snapshot: LabSnapshot) -> None:
        """Every view from one snapshot; the cards get their presentation in the same pass."""
        self.stats_panel.show_snapshot(snapshot)
        self.trace_grid.show_snapshot(snapshot, self._loudest(snapshot), self.advantages_hidden)
        self.chart.show_snapshot(snapshot)
        self.banner.show_snapshot(snapshot)

    def set_highlight_loudest(self, on: bool) -> None:
        """Star the rare answers whose advantage is loudest (the easy-vs-hard comparison)."""
        self.highlight_loudest = on
        self.trace_grid.set_presentation(self._loudest(self.state.snapshot), self.advantages_hidden)

    def _show_advantages_hidden(self, hidden: bool) -> None:
        """Predict, then reveal: hide every advantage (cards, counts, chart) until revealed."""
        self.stats_panel.set_advantages_hidden(hidden)
        self.chart.set_advantages_hidden(hidden)
        self.trace_grid.set_presentation(self._loudest(self.state.snapshot), hidden)

    def _loudest(self, snapshot: LabSnapshot) -> tuple[int, ...]:
        return snapshot.worked_math.loudest if self.highlight_loudest else ()

    def set_theme(self, theme: Theme) -> None:
        for view in self.views:
            view.set_theme(theme)
