"""The Lab workspace: the group's cards and stats beside its chart and the worked math.

:class:`LabPage` lays out the main lab's views (a :class:`LabPresenter`) and the explanation
tabs: the worked math, then "one model, not four", Rewards and One step (each of these three
built the first time its tab shows). The presenter and the worked math render only while the
model's lab gate is open (the Update and Training workspaces show the group their own way
meanwhile); the Rewards tab follows the lab only while it is the tab shown, through a gate of its
own. :class:`LabWorkspace` is what the window asks of it (see ``workspace.py``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt
from PySide6.QtGui import QResizeEvent
from PySide6.QtWidgets import QFrame, QScrollArea, QSplitter, QVBoxLayout, QWidget

from grpo_desktop.core.common.theme import Theme
from grpo_desktop.core.lab.lab_snapshot import LabSnapshot
from grpo_desktop.model.shown_gate import ShownGate
from grpo_desktop.model.workbench import LAB, Workbench
from grpo_desktop.views.common.render_cache import CachedTabWidget
from grpo_desktop.views.lab.math_panel import MathPanel
from grpo_desktop.window.lab_presenter import LabPresenter
from grpo_desktop.window.layout_helpers import AfterResize
from grpo_desktop.window.workspace import lab_figure

if TYPE_CHECKING:  # loaded when its tab first shows: the first screen does not need it
    from grpo_desktop.core.files.chart_figure import Figure
    from grpo_desktop.model.one_step_state import OneStepState
    from grpo_desktop.views.lab.one_step_panel import OneStepPanel
    from grpo_desktop.views.lab.ppo_panel import PpoPanel
    from grpo_desktop.views.lab.reward_panel import RewardPanel

__all__ = ["EXPLANATION_TABS", "LAB_HINT", "LabPage", "LabWorkspace"]

#: worked math, "one model, not four", rewards, and one step's before and after
EXPLANATION_TABS = ("math", "ppo", "rewards", "step")
MATH_FIRST_CHART_SHARE = 0.33  # the chart's least share while a lesson rings the worked math
LAB_HINT = "Click a card, or press its number 1–9, to mark it right or wrong."


class _SplitterBalancedFirst(QSplitter):
    """A splitter that calls ``balance`` once, right after its first resize: when it is first
    laid out, before its columns are shown (Qt delivers a hidden widget's resize when it shows).

    Balanced afterwards (on the window's show event), the cards, the chart and the worked math
    were laid out twice for the first screen, at the splitter's own shares and then at the
    balanced ones: 2-3 ms more before the first paint.
    """

    def __init__(self, orientation: Qt.Orientation, balance: Callable[[], None], **kwargs) -> None:
        super().__init__(orientation, **kwargs)
        self._balance: Callable[[], None] | None = balance

    def resizeEvent(self, event: QResizeEvent) -> None:  # Qt override
        super().resizeEvent(event)  # the children's shares at the new size
        balance, self._balance = self._balance, None
        if balance is not None:
            balance()


class LabPage(QWidget):
    """The Lab workspace's page (objectName ``labPage``)."""

    def __init__(
        self, presenter: LabPresenter, workbench: Workbench, theme: Theme, gate: ShownGate
    ) -> None:
        super().__init__(objectName="labPage")
        self.lab, self.workbench, self.theme = presenter, workbench, theme
        self.math_panel = MathPanel(theme)
        # The tabs behind the worked math are built the first time they show: the first screen
        # never shows them ("One model, not four" built with the page cost 4-5 ms before the
        # first paint: its import, and its size asked for by every layout pass).
        self.ppo_panel: PpoPanel | None = None
        self.reward_panel: RewardPanel | None = None
        self.one_step_panel: OneStepPanel | None = None  # likewise
        self._one_step: OneStepState | None = None
        self._lab_gate = gate
        self._math_ringed = False  # a lesson step rings the worked math: it gets its height
        self._emphasis: QWidget | None = None  # the presenter view's ringed part: more room
        # The column was balanced while worked-math lines waited as plain text: once they are
        # typeset (a turn or a few later) the text's height is known and it is balanced again.
        self._balance_when_typeset = False
        self.math_panel.typeset_arrived.connect(self._typeset_arrived)
        self._build()
        lab = workbench.lab
        # The worked math follows the lab while it is on screen; the Rewards tab while it is
        # the tab shown (a click costs it nothing otherwise; it is built the first time).
        self._rewards_gate = ShownGate(self._tab_shown("rewards"), self)
        self.explain_tabs.currentChanged.connect(
            lambda _tab: self._rewards_gate.set_shown(self._tab_shown("rewards"))
        )
        # One step's before and after: computed while its tab shows on the Lab's screen.
        self._step_gate = ShownGate(False, self)
        self.explain_tabs.currentChanged.connect(self._follow_step_tab)
        self.explain_tabs.currentChanged.connect(self._follow_ppo_tab)
        gate.shown_changed.connect(self._follow_step_tab)
        lab.snapshot_changed.connect(lambda snapshot: self._follow(gate, snapshot))
        self._rewards_gate.call("rewards", lambda: self._show_rewards(lab.snapshot))
        self.math_panel.show_snapshot(lab.snapshot)
        workbench.advantages_hidden_changed.connect(self.math_panel.set_advantages_hidden)

    def _build(self) -> None:
        left = QWidget(objectName="groupColumn")
        left_column = QVBoxLayout(left)
        left_column.setContentsMargins(0, 0, 0, 0)
        left_column.setSpacing(8)
        left_column.addWidget(self.lab.stats_panel)
        left_column.addWidget(self.lab.trace_grid, 1)

        self.explain_tabs = CachedTabWidget(objectName="explainTabs")
        # On the window's background: its frame is kept blended over the window's colour, and
        # what repaints inside it (the worked math, its scroll bar) paints nothing beneath it.
        self.explain_tabs.set_opaque(True)
        self.explain_tabs.addTab(self.math_panel, "Worked math")
        ppo_scroll = QScrollArea(objectName="ppoScroll")
        self.ppo_scroll = ppo_scroll
        ppo_scroll.setWidgetResizable(True)
        ppo_scroll.setFrameShape(QFrame.Shape.NoFrame)
        self.explain_tabs.addTab(ppo_scroll, "One model, not four")
        reward_scroll = QScrollArea(objectName="rewardScroll")
        self.reward_scroll = reward_scroll
        reward_scroll.setWidgetResizable(True)
        reward_scroll.setFrameShape(QFrame.Shape.NoFrame)
        self.explain_tabs.addTab(reward_scroll, "Rewards")
        self.explain_tabs.setTabToolTip(
            2, "Where each reward comes from: reward functions and their weights, or by hand"
        )
        step_scroll = QScrollArea(objectName="oneStepScroll")
        self.step_scroll = step_scroll
        step_scroll.setWidgetResizable(True)
        step_scroll.setFrameShape(QFrame.Shape.NoFrame)
        self.explain_tabs.addTab(step_scroll, "One step")
        self.explain_tabs.setTabToolTip(
            3, "Take one GRPO step: each answer's probability before and after (Ctrl+K)"
        )
        right = QSplitter(Qt.Orientation.Vertical, objectName="rightColumn")
        self.right_splitter = right
        # The drawing needs more height than the worked math: give its tab the larger share.
        self.explain_tabs.currentChanged.connect(self.balance_right_column)
        right.addWidget(self.lab.chart)
        right.addWidget(self.explain_tabs)
        right.setStretchFactor(0, 3)
        right.setStretchFactor(1, 2)
        right.setChildrenCollapsible(False)
        # A lesson bar or a new window size changes the column's height: re-share it, so the
        # worked math keeps the height it needs (the splitter alone would scale both parts).
        AfterResize(right, self.balance_right_column)

        splitter = _SplitterBalancedFirst(
            Qt.Orientation.Horizontal, self.balance_splitter, objectName="labSplitter"
        )
        self.lab_splitter = splitter
        splitter.addWidget(left)
        splitter.addWidget(right)
        splitter.setStretchFactor(0, 3)
        splitter.setStretchFactor(1, 2)
        splitter.setChildrenCollapsible(False)
        self.lab.chart.setMinimumSize(280, 200)
        left.setMinimumWidth(420)

        column = QVBoxLayout(self)
        column.setContentsMargins(0, 0, 0, 0)
        column.setSpacing(8)
        column.addWidget(self.lab.problem_panel)
        column.addWidget(splitter, 1)
        # The banner floats over the cards' bottom edge instead of reserving a blank band: the
        # cards leave it room when they grow to fill the column, and can scroll clear of it.
        grid, banner = self.lab.trace_grid, self.lab.banner
        banner.float_over(grid)
        grid.fill_reserve = banner.float_height
        banner.covering_changed.connect(grid.set_bottom_reserve)

    def _tab_shown(self, which: str) -> bool:
        return self.explain_tabs.currentIndex() == EXPLANATION_TABS.index(which)

    def _follow(self, gate: ShownGate, snapshot: LabSnapshot) -> None:
        # an unchanged computation costs the worked math nothing
        gate.call(self.math_panel, lambda: self.math_panel.show_snapshot(snapshot))
        self._rewards_gate.call("rewards", lambda: self._show_rewards(snapshot))

    def show_explanation(self, which: str) -> None:
        """Bring the worked math (``"math"``) or "One model, not four" (``"ppo"``) to the front."""
        self.explain_tabs.setCurrentIndex(EXPLANATION_TABS.index(which))

    def _show_rewards(self, snapshot: LabSnapshot) -> None:
        self.rewards_panel().show_snapshot(snapshot)

    def rewards_panel(self) -> RewardPanel:
        """The Rewards tab's panel, built the first time the tab shows (start-up skips it)."""
        if self.reward_panel is None:
            from grpo_desktop.views.lab.reward_panel import RewardPanel

            workbench = self.workbench
            panel = self.reward_panel = RewardPanel(self.theme)
            panel.weight_requested.connect(
                lambda name, weight: workbench.set_reward_weight(name, weight, workbench.lab)
            )
            panel.weights_requested.connect(
                lambda weights: workbench.set_reward_weights(weights, workbench.lab)
            )
            panel.by_hand_requested.connect(lambda on: workbench.set_by_hand(on, workbench.lab))
            self.reward_scroll.setWidget(panel)
        return self.reward_panel

    def _follow_ppo_tab(self, *_changed: object) -> None:
        if self._tab_shown("ppo"):
            self.ppo_drawing()  # built the first time its tab shows

    def ppo_drawing(self) -> PpoPanel:
        """The "One model, not four" tab's drawing, built the first time it is needed."""
        if self.ppo_panel is None:
            from grpo_desktop.views.lab.ppo_panel import PpoPanel

            self.ppo_panel = PpoPanel(self.theme)
            self.ppo_scroll.setWidget(self.ppo_panel)
        return self.ppo_panel

    def one_step_state(self) -> OneStepState:
        """The One step tab's state (made, with its panel, the first time it is needed)."""
        if self._one_step is None:
            from grpo_desktop.model.one_step_state import OneStepState
            from grpo_desktop.views.lab.one_step_panel import OneStepPanel

            state = self._one_step = OneStepState(self.workbench, self, self._step_gate)
            panel = self.one_step_panel = OneStepPanel(self.theme)
            panel.take_requested.connect(state.take)
            state.picture_changed.connect(panel.show_picture)
            self.step_scroll.setWidget(panel)
        return self._one_step

    def take_one_step(self) -> None:
        """Show the One step tab and take the step (one undo step)."""
        state = self.one_step_state()  # the tab's panel exists before it shows
        self.show_explanation("step")
        state.take()

    def _follow_step_tab(self, *_changed: object) -> None:
        shown = self._tab_shown("step") and self._lab_gate.shown
        if shown:
            self.one_step_state()  # built the first time its tab shows
        self._step_gate.set_shown(shown)

    def load_typesetting(self, in_background: bool = False) -> None:
        """The worked math is typeset from now on (after the first paint: the typesetter's
        import stays off the first screen, which shows the same lines as plain text), or with
        ``in_background`` once the typesetter is imported on another thread."""
        if in_background:
            self.math_panel.load_typesetting_in_background(self.load_typesetting)
        elif self.math_panel.load_typesetting():
            self.balance_right_column()

    def ring_math(self, ringed: bool) -> None:
        """A lesson rings the worked math (it gets its whole height) or no longer does."""
        if ringed or self._math_ringed:
            self._math_ringed = ringed
            self.balance_right_column()

    def set_theme(self, theme: Theme) -> None:
        self.theme = theme
        self.lab.set_theme(theme)
        self.balance_splitter()
        self.math_panel.set_theme(theme)
        if self.ppo_panel is not None:
            self.ppo_panel.set_theme(theme)
        if self.reward_panel is not None:
            self.reward_panel.set_theme(theme)
        if self.one_step_panel is not None:
            self.one_step_panel.set_theme(theme)

    def emphasize(self, target: QWidget | None) -> None:
        """The presenter view: the part a lesson step rings (the cards, the chart or the
        explanations) gets the larger share of the page for the room; None: the usual shares."""
        parts = (self.lab.trace_grid, self.lab.chart, self.explain_tabs)
        emphasis = target if target in parts else None
        if emphasis is not self._emphasis:
            self._emphasis = emphasis
            self.balance_splitter()
            self.balance_right_column()

    def balance_splitter(self) -> None:
        """Cards 60 %, chart and math 40 %: set when the splitter is first laid out and whenever
        the type size changes (a larger zoom would otherwise hand the cards everything and
        squeeze the chart); in the presenter view the ringed side gets 70 %."""
        total = sum(self.lab_splitter.sizes()) or self.lab_splitter.width()
        share = 0.6
        if self._emphasis is self.lab.trace_grid:
            share = 0.7
        elif self._emphasis is not None:
            share = 0.3
        if total > 0:
            self.lab_splitter.setSizes([round(total * share), total - round(total * share)])

    def balance_right_column(self, *_tab: int) -> None:
        """The worked math gets at least the height that shows all of it (its text grows into
        any more), the chart the rest but 50–60 % of the column (a small screen scrolls the
        math); the drawing tab gets 55 %. While a lesson rings the math it gets its whole height
        and the chart keeps a third: the class reads every line."""
        total = sum(self.right_splitter.sizes())
        if total <= 0:
            return
        if self._emphasis is self.lab.chart:  # the presenter view rings the chart
            chart = round(total * 0.7)
        elif self._emphasis is self.explain_tabs:
            chart = round(total * MATH_FIRST_CHART_SHARE)
        elif not self._tab_shown("math"):  # a drawing or the reward controls
            chart = round(total * 0.45)
        else:
            panel = self.math_panel
            self._balance_when_typeset = panel.typesetting_waiting()
            tab_chrome = self.explain_tabs.height() - panel.height()
            need = panel.needed_height(panel.width()) + max(0, tab_chrome)
            # The chart keeps 50–60 %; a large screen's spare height fills the math's text.
            least = round(total * (MATH_FIRST_CHART_SHARE if self._math_ringed else 0.5))
            chart = max(least, min(round(total * 0.6), total - need))
        self.right_splitter.setSizes([chart, total - chart])

    def _typeset_arrived(self) -> None:
        """Balanced with plain-text stand-ins, the column took whichever height those lines
        had when it was balanced (on start-up, a different split from run to run): now the
        math's own. A click never balances the column, so its new lines move nothing."""
        if self._balance_when_typeset:
            self._balance_when_typeset = False
            self.balance_right_column()


class LabWorkspace:
    """The Lab: one group, its cards, stats, chart and explanations."""

    name = LAB
    hint = LAB_HINT
    lab_controls = True
    built = True

    def __init__(self, page: LabPage) -> None:
        self.page = page

    @property
    def panes(self) -> tuple[LabPresenter, ...]:
        return (self.page.lab,)

    def title(self, problem: str) -> str:
        return problem

    def activate(self) -> None:
        pass

    def deactivate(self) -> None:
        pass

    def set_theme(self, theme: Theme) -> None:
        self.page.set_theme(theme)

    def export_figure(self, theme: Theme) -> Figure:
        return lab_figure(self.page.workbench, self.panes, theme)

    def highlight_target(self, name: str) -> QWidget | None:
        lab, tabs = self.page.lab, self.page.explain_tabs
        parts = {
            "cards": lab.trace_grid,
            "stats": lab.stats_panel,
            "chart": lab.chart,
            "banner": lab.banner,
            "math": tabs,
            "ppo": tabs,
        }
        return parts.get(name)

    def reveal(self, target: QWidget | None) -> None:
        """Ringed, every line of the worked math stays in view."""
        page = self.page
        page.ring_math(target is page.explain_tabs and page._tab_shown("math"))

    def set_narrated(self, narrated: bool) -> None:
        if not narrated:  # the lesson has left: the chart gets its share again
            self.page.ring_math(False)

    def stop(self) -> None:
        pass
