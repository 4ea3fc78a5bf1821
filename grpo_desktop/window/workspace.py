"""What a workspace is to the window, and the three built on first use: Update, Training, compare.

The window keeps menus, actions and the page stack, and loops over its workspaces; everything a
workspace decides for itself is here, in one place per workspace: its page, its status-bar hint,
its part of the title, whether the lab's group controls act while it shows, the chart File ▸
Export draws, the parts a lesson rings, and what to do when it shows, hides, re-themes or the
window closes. Its state belongs to the model (:class:`~grpo_desktop.model.workspaces.
WorkspaceStates`); the page only renders it. The Lab workspace is in ``lab_page.py``.
Adding a workspace means a class here, a line in the window's list, and its action's words.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Protocol

from PySide6.QtWidgets import QFrame, QScrollArea, QStackedWidget, QWidget

from grpo_desktop.core.common.theme import Theme
from grpo_desktop.core.lab.problems import Problem
from grpo_desktop.model.workbench import COMPARE, TRAINING, UPDATE, Workbench
from grpo_desktop.model.workspaces import WorkspaceStates
from grpo_desktop.views.lab.advantage_chart import AdvantageChart
from grpo_desktop.window.lab_presenter import LabPresenter

if TYPE_CHECKING:  # the pages load the first time their workspace is needed
    from grpo_desktop.core.files.chart_figure import Figure
    from grpo_desktop.window.compare_page import CompareView
    from grpo_desktop.window.lm_training_page import LMTrainingPage
    from grpo_desktop.window.training_page import TrainingPage
    from grpo_desktop.window.update_page import UpdatePage

__all__ = ["CompareWorkspace", "TrainingWorkspace", "UpdateWorkspace", "Workspace"]


class Workspace(Protocol):
    """One workspace: a page in the window's stack, and what the window asks of it."""

    name: str  # the workbench's name for it: lab, update, training or compare
    hint: str  # the status bar's one line on what to do
    lab_controls: bool  # the tool bar's group controls and keys 1–9 act while it shows

    @property
    def built(self) -> bool:
        """Whether its page exists (a page is built the first time it is needed)."""
        ...

    @property
    def page(self) -> QWidget:
        """Its page in the window's stack, built now if need be."""
        ...

    @property
    def panes(self) -> tuple[LabPresenter, ...]:
        """The labs it shows as cards and charts (built ones only)."""
        ...

    def title(self, problem: str) -> str:
        """The window title's subject while it shows (``problem`` is the main lab's)."""
        ...

    def activate(self) -> None:
        """It has just been put on screen."""
        ...

    def deactivate(self) -> None:
        """Another workspace has just been put on screen."""
        ...

    def set_theme(self, theme: Theme) -> None: ...

    def export_figure(self, theme: Theme) -> Figure:
        """The chart File ▸ Export draws while it shows, as a figure for a slide."""
        ...

    def highlight_target(self, name: str) -> QWidget | None:
        """The part a lesson step names (None if the name is not one of its parts)."""
        ...

    def reveal(self, target: QWidget | None) -> None:
        """A lesson rings ``target`` (maybe another workspace's): keep it in view."""
        ...

    def set_narrated(self, narrated: bool) -> None:
        """A lesson's bar tells the story (its own sentences may make room)."""
        ...

    def stop(self) -> None:
        """The window is closing."""
        ...


def lab_figure(workbench: Workbench, panes: Sequence[LabPresenter], theme: Theme) -> Figure:
    """The active lab's chart as a figure, in the view (and hiding) its chart on screen shows."""
    from grpo_desktop.core.files.chart_figure import advantage_figure

    active = workbench.active_lab
    chart = next((pane.chart for pane in panes if pane.state is active), panes[0].chart)
    return advantage_figure(
        active.snapshot, theme, view=chart.view(), hidden=chart.advantages_hidden()
    )


class _PageWorkspace:
    """A workspace whose page is built the first time it is needed and then kept."""

    name = ""
    hint = ""
    lab_controls = True

    def __init__(self, add_page: Callable[[QWidget], None]) -> None:
        self._add_page = add_page
        self._page: QWidget | None = None
        self._theme: Theme | None = None

    @property
    def built(self) -> bool:
        return self._page is not None

    @property
    def page(self) -> QWidget:
        if self._page is None:
            self._page = self._build()
            self._add_page(self._page)
        return self._page

    @property
    def panes(self) -> tuple[LabPresenter, ...]:
        return ()

    def _build(self) -> QWidget:
        raise NotImplementedError

    def activate(self) -> None:
        pass

    def deactivate(self) -> None:
        pass

    def set_theme(self, theme: Theme) -> None:
        if self._page is not None:
            self._page.set_theme(theme)  # type: ignore[attr-defined]

    def highlight_target(self, name: str) -> QWidget | None:
        parts = self._parts()
        return parts[name]() if name in parts else None

    def _parts(self) -> dict[str, Callable[[], QWidget]]:
        return {}

    def reveal(self, target: QWidget | None) -> None:
        if self._page is not None:
            self._page.reveal(target)  # type: ignore[attr-defined]

    def set_narrated(self, narrated: bool) -> None:
        pass

    def stop(self) -> None:
        pass


class _StatePageWorkspace(_PageWorkspace):
    """A page that renders a state the model owns (``WorkspaceStates``)."""

    def __init__(
        self,
        workbench: Workbench,
        states: WorkspaceStates,
        theme: Callable[[], Theme],
        add_page: Callable[[QWidget], None],
    ) -> None:
        super().__init__(add_page)
        self.workbench, self.states, self._current_theme = workbench, states, theme


class UpdateWorkspace(_StatePageWorkspace):
    """Each token's push under a real loss (``update_page.py``)."""

    name = UPDATE
    hint = (
        "Click a token to see its whole computation; Length bias and Clip-higher set up the "
        "classic demonstrations."
    )

    def _build(self) -> UpdatePage:
        from grpo_desktop.window.update_page import UpdatePage  # loaded on first use

        return UpdatePage(self.workbench, self.states.update, self._current_theme())

    def title(self, problem: str) -> str:
        return f"Update step · {problem}"

    def export_figure(self, theme: Theme) -> Figure:
        from grpo_desktop.core.files.chart_figure import push_figure

        return push_figure(self.states.update.snapshot, theme)

    def _parts(self) -> dict[str, Callable[[], QWidget]]:
        page = lambda: self.page  # noqa: E731 - built only when a part is asked for
        return {
            "update": page,
            "tokens": lambda: page().rows,
            "push-chart": lambda: page().chart,
            "token-detail": lambda: page().detail,
            "update-controls": lambda: page().controls,
        }


class TrainingWorkspace(_StatePageWorkspace):
    """A training run: on the toy policy, a toy run over the problem library
    (``training_page.py``); on the tiny language model, GRPO on the network itself
    (``lm_training_page.py``). Each page is built the first time its policy needs it and put in
    the window's stack; a policy change while the workspace shows puts the other one on screen.
    The lab's controls rest."""

    name = TRAINING
    hint = (
        "Press Play (or Step); click a step on the charts to list its groups and open one in "
        "the Lab."
    )
    lab_controls = False  # they would change an unseen group; the run has its own G

    def __init__(
        self,
        workbench: Workbench,
        states: WorkspaceStates,
        theme: Callable[[], Theme],
        add_page: Callable[[QWidget], None],
    ) -> None:
        super().__init__(workbench, states, theme, add_page)
        self._lm_page: LMTrainingPage | None = None
        workbench.policy_changed.connect(self._policy_changed)

    @property
    def built(self) -> bool:
        return self._page is not None or self._lm_page is not None

    @property
    def page(self) -> QWidget:
        """The page of the policy chosen (the toy run's or the tiny model's), built if need be."""
        return self.lm_page if self.workbench.policy.is_model else self.toy_page

    @property
    def toy_page(self) -> TrainingPage:
        """The toy run's page, built now if need be."""
        if self._page is None:
            self._page = self._build()
            self._add_page(self._page)
        return self._page  # type: ignore[return-value]

    @property
    def lm_page(self) -> LMTrainingPage:
        """The tiny model's page, built now if need be."""
        if self._lm_page is None:
            from grpo_desktop.window.lm_training_page import LMTrainingPage  # on first use

            self._lm_page = LMTrainingPage(self.states.lm_training, self._current_theme())
            self._add_page(self._lm_page)
        return self._lm_page

    def _build(self) -> TrainingPage:
        from grpo_desktop.window.training_page import TrainingPage  # loaded on first use

        return TrainingPage(self.workbench, self.states.training, self._current_theme())

    def _policy_changed(self, *_policy: object) -> None:
        """While the workspace shows, the chosen policy's page goes on screen in its place."""
        if self.workbench.workspace != TRAINING or not self.built:
            return
        shown = self._lm_page if self._page is None else self._page
        stack = shown.parentWidget()
        page = self.page
        if isinstance(stack, QStackedWidget):
            stack.setCurrentWidget(page)

    def set_theme(self, theme: Theme) -> None:
        for page in (self._page, self._lm_page):
            if page is not None:
                page.set_theme(theme)  # type: ignore[attr-defined]

    def title(self, problem: str) -> str:
        return "Training run"

    def export_figure(self, theme: Theme) -> Figure:
        if self.workbench.policy.is_model:
            from grpo_desktop.window.lm_training_page import lm_training_figure

            return lm_training_figure(self.states.lm_training.snapshot, theme)
        from grpo_desktop.core.files.chart_figure import training_figure

        return training_figure(self.states.training.snapshot, theme)

    def _parts(self) -> dict[str, Callable[[], QWidget]]:
        if self.workbench.policy.is_model:  # a lesson's rings land on the tiny model's parts
            lm = lambda: self.lm_page  # noqa: E731 - built only when a part is asked for
            return {
                "training": lm,
                "training-charts": lambda: lm().charts,
                "frontier": lambda: lm().frontier,
                "training-controls": lambda: lm().controls,
            }
        page = lambda: self.toy_page  # noqa: E731 - built only when a part is asked for
        return {
            "training": page,
            "training-charts": lambda: page().charts,
            "frontier": lambda: page().frontier,
            "training-controls": lambda: page().controls,
        }

    def reveal(self, target: QWidget | None) -> None:
        for page in (self._page, self._lm_page):
            if page is not None:
                page.reveal(target)  # type: ignore[attr-defined]

    def stop(self) -> None:
        self.states.stop()  # a run playing when the window closes stops with it (and joins)


class CompareWorkspace(_PageWorkspace):
    """Easy vs hard, side by side (``compare_page.py``): two more labs, each fully interactive."""

    name = COMPARE
    hint = "Click a card on either side, or press its number 1–9, to mark it right or wrong."

    def __init__(
        self,
        workbench: Workbench,
        problems: Sequence[Problem],
        theme: Callable[[], Theme],
        add_page: Callable[[QWidget], None],
        new_chart: Callable[[AdvantageChart], None],
        narrated: Callable[[], bool],
    ) -> None:
        super().__init__(add_page)
        self.workbench, self._problems, self._current_theme = workbench, problems, theme
        self._new_chart, self._narrated = new_chart, narrated
        self._view: CompareView | None = None

    @property
    def view(self) -> CompareView:
        """The two labs' page inside its scroll area, built now if need be."""
        self.page  # noqa: B018 - builds the page and its view
        assert self._view is not None
        return self._view

    @property
    def panes(self) -> tuple[LabPresenter, ...]:
        return () if self._view is None else self._view.panes

    def _build(self) -> QWidget:
        from grpo_desktop.window.compare_page import CompareView  # loaded when first used

        theme = self._current_theme()
        presenters = []
        for lab, name in zip(self.workbench.comparison, ("easy", "hard")):
            presenter = LabPresenter(lab, self.workbench, self._problems, theme, f"{name}.")
            self._new_chart(presenter.chart)
            presenters.append(presenter)
        self._view = CompareView(presenters[0], presenters[1], theme)
        for presenter in presenters:
            presenter.setParent(self._view)
        self._view.set_narrated(self._narrated())
        # The page fits a laptop screen (cards at their full height, the charts in the height
        # left; nothing inside it scrolls). Only a screen too small for even that (a large type
        # size on a small screen) scrolls the whole page, rather than squeezing its text.
        scroller = QScrollArea(objectName="compareScroll")
        scroller.setWidget(self._view)
        scroller.setWidgetResizable(True)
        scroller.setFrameShape(QFrame.Shape.NoFrame)
        return scroller

    def title(self, problem: str) -> str:
        return "Easy vs hard"

    def set_theme(self, theme: Theme) -> None:
        if self._view is not None:
            self._view.set_theme(theme)

    def export_figure(self, theme: Theme) -> Figure:
        return lab_figure(self.workbench, self.panes, theme)

    def _parts(self) -> dict[str, Callable[[], QWidget]]:
        return {"compare": lambda: self.page}

    def reveal(self, target: QWidget | None) -> None:
        pass

    def set_narrated(self, narrated: bool) -> None:
        if self._view is not None:
            self._view.set_narrated(narrated)
