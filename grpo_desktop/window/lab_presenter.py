"""One lab on screen: a LabState's views, fed its snapshots, their requests sent to the workbench.

The main window shows one; the easy-vs-hard comparison shows two side by side. A presenter holds
no state the model lacks: it turns ``*_requested`` signals into workbench calls and renders every
snapshot its lab emits, once. How the views are laid out is up to the page that hosts them.

After a render, once the lab has been quiet for ``PREPARE_DELAY_MS``, it draws ahead what the
next card toggle is likely to need, a piece per turn of the event loop: the lab works out the
snapshots a toggle of the cards in view (and of one right and one wrong card) would bring, the
grid and the stat tiles draw their numbers and advantage lines from them and the chart reads its
values off them. A toggle that brings a number never shown before then blits it instead of
drawing it in its frame (at 200 % zoom 0.5–1 ms each), and a toggle of a card in view (the cards
a user can click) shows the snapshot built ahead instead of building it.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from PySide6.QtCore import QObject, QTimer

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
from grpo_desktop.window.idle_collection import collect_while_idle

#: Quiet time after a render before the next toggle's drawings are made (a lecturer's clicks
#: come further apart; a burst of clicks never waits behind a piece of it).
PREPARE_DELAY_MS = 150


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
        self._preparing: Iterator[None] | None = None  # the pieces of the drawing ahead left
        self._prepare_timer = QTimer(self)
        self._prepare_timer.setSingleShot(True)
        self._prepare_timer.timeout.connect(self._prepare_next)

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
        self._preparing = None  # drawn ahead for the snapshot before: start again from this one
        self._prepare_timer.start(PREPARE_DELAY_MS)

    # --- drawing ahead in idle time ---------------------------------------------------------

    def preparing(self) -> bool:
        """Whether drawing ahead for the next toggle is due or under way."""
        return self._prepare_timer.isActive() or self._preparing is not None

    def finish_preparing(self) -> None:
        """Draw ahead for the next toggle now, all of it (what idle time does, a piece a turn)."""
        self._prepare_timer.stop()
        pieces = self._preparing if self._preparing is not None else self._preparation()
        self._preparing = None
        if self._gate.shown:
            for _piece in pieces:
                pass
            collect_while_idle()

    def _prepare_next(self) -> None:
        """One piece of the drawing ahead; the next one in the next turn of the event loop.
        Off screen (another workspace shows) the rest is dropped: the lab renders again on
        return, and draws ahead from there."""
        if not self._gate.shown:
            self._preparing = None
            return
        if self._preparing is None:
            self._preparing = self._preparation()
        try:
            next(self._preparing)
        except StopIteration:
            self._preparing = None
            collect_while_idle()  # what the click and the drawing ahead left: not in the next click
            return
        self._prepare_timer.start(0)

    def _preparation(self) -> Iterator[None]:
        """The pieces: each snapshot a likely toggle brings (the lab keeps it: that toggle
        then shows it as is), then the grid's and the tiles' drawings and the chart's values
        for it. First a toggle each way (one card right more, one wrong more: every other
        card's numbers and the tiles' are then drawn), then every other card in view (its own
        new look)."""
        snapshot = self.state.snapshot
        in_view = self.trace_grid.indices_in_view()
        first_each_way: list[int] = []
        for correct in (True, False):
            candidates = [i for i in in_view if snapshot.cards[i].correct is correct] or [
                card.index for card in snapshot.cards if card.correct is correct
            ]
            first_each_way += candidates[:1]
        for index in (*first_each_way, *(i for i in in_view if i not in first_each_way)):
            toggled = self.state.toggled_snapshot(index)
            if toggled is None:
                return
            yield
            self.trace_grid.prepare(toggled)
            yield
            self.stats_panel.prepare(toggled)
            self.chart.prepare(toggled)
            yield

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
