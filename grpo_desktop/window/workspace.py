"""What a workspace is to the window, and the three built on first use: Update, Training, compare
(the first two usually earlier, in idle time after the window's first paint: ``build_steps``).

The window keeps menus, actions and the page stack, and loops over its workspaces; everything a
workspace decides for itself is here, in one place per workspace: its page, its status-bar hint,
its part of the title, whether the lab's group controls act while it shows, the chart File ▸
Export draws, the parts a lesson rings, and what to do when it shows, hides, re-themes or the
window closes. Its state belongs to the model (:class:`~grpo_desktop.model.workspaces.
WorkspaceStates`); the page only renders it. The Lab workspace is in ``lab_page.py``.
Adding a workspace means a class here, a line in the window's list, and its action's words.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from importlib import import_module
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

__all__ = [
    "CompareWorkspace",
    "TrainingWorkspace",
    "UpdateWorkspace",
    "Workspace",
    "hold_bar_height",
    "ring",
]

#: What the Update page loads, a module per step when it is built in idle time (each is
#: loaded by ``update_page`` anyway: here they only spread over turns of the event loop).
UPDATE_MODULES = (
    # update_step's own imports first, a step each: the whole chain in one took 20-34 ms
    "grpo_desktop.core.update.update_settings",
    "grpo_desktop.core.formulas.clipped_loss",
    "grpo_desktop.core.update.update_snapshot",
    "grpo_desktop.core.update.standin_policy",
    "grpo_desktop.core.update.update_step",
    "grpo_desktop.model.update_state",
    "grpo_desktop.views.update.token_layout",
    "grpo_desktop.views.update.token_colours",
    "grpo_desktop.views.update.token_painter",
    "grpo_desktop.views.update.accessible_tokens",
    "grpo_desktop.views.update.token_rows",
    "grpo_desktop.views.update.push_chart",
    "grpo_desktop.views.update.token_detail",
    "grpo_desktop.views.update.update_controls",
    "grpo_desktop.views.update.spillover_chart",
    "grpo_desktop.window.update_page",
)
#: The same for the toy run's Training page.
TRAINING_MODULES = (
    "grpo_desktop.core.training.run",
    "grpo_desktop.core.training.training_snapshot",
    "grpo_desktop.model.training_state",
    "grpo_desktop.views.training.training_charts",
    "grpo_desktop.views.training.frontier_plot",
    "grpo_desktop.views.training.training_controls",
    "grpo_desktop.views.training.step_groups",
    "grpo_desktop.window.training_page",
)


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


def hold_bar_height(bar: QWidget, lab_controls: bool) -> None:
    """The tool bar keeps its height while a workspace without ``lab_controls`` hides them (the
    G box is a pixel taller than the rest): a pixel less would resize the page stack, and so lay
    out and repaint every chart of the page leaving and of the page shown (~30 ms a switch)."""
    bar.setMinimumHeight(0 if lab_controls else bar.sizeHint().height())


def ring(workspaces: Iterable[Workspace], name: str) -> QWidget | None:
    """The part a lesson step names, asked of ``workspaces`` (None if none has it); each built
    one then keeps it in view if it is one of its parts (a ringed part must not sit scrolled out
    of view)."""
    workspaces = tuple(workspaces)
    target = next(filter(None, (ws.highlight_target(name) for ws in workspaces)), None)
    for workspace in workspaces:
        if workspace.built:
            workspace.reveal(target)
    return target


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
    idle_prebuild = False  # whether the window builds its page in idle time before it is asked

    def __init__(self, add_page: Callable[[QWidget], None]) -> None:
        self._add_page = add_page
        self._page: QWidget | None = None
        self._theme: Theme | None = None
        self._steps: Iterator[str] | None = None  # a build begun in idle time, not yet done

    @property
    def built(self) -> bool:
        return self._page is not None

    @property
    def page(self) -> QWidget:
        if self._page is None:
            deque(self.build_steps(), maxlen=0)  # all of it now, or the rest of a begun build
        assert self._page is not None
        return self._page

    def build_steps(self) -> Iterator[str]:
        """Builds the page a part at a time: each step is about a frame's work at most and
        yields its name (the window's idle prebuild runs one per turn of the event loop, and
        stops between any two). Asking for ``page`` meanwhile finishes the build at once. The
        page is in the window's stack, hidden, after the last step; nothing else changes."""
        if self._page is None and self._steps is None:
            self._steps = self._page_steps()
        while self._steps is not None:
            try:
                step = next(self._steps)
            except StopIteration:
                self._steps = None
                return
            yield step

    def _page_steps(self) -> Iterator[str]:
        """The build's steps; by default the whole page in one."""
        self._adopt(self._build())
        yield "page"

    def _adopt(self, page: QWidget) -> None:
        self._page = page
        self._add_page(page)

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

    def _import_steps(self, modules: Sequence[str]) -> Iterator[str]:
        for module in modules:
            import_module(module)
            yield module

    def _adopt_built(self, page: QWidget, theme: Theme) -> None:
        """The page built in steps with ``theme`` goes in the stack (in the theme now shown)."""
        self._adopt(page)
        if self._current_theme() is not theme:  # the theme changed while it was being built
            page.set_theme(self._current_theme())  # type: ignore[attr-defined]


class UpdateWorkspace(_StatePageWorkspace):
    """Each token's push under a real loss (``update_page.py``)."""

    name = UPDATE
    hint = (
        "Click a token to see its whole computation; Length bias and Clip-higher set up the "
        "classic demonstrations."
    )

    idle_prebuild = True

    def _build(self) -> UpdatePage:
        from grpo_desktop.window.update_page import UpdatePage  # loaded on first use

        return UpdatePage(self.workbench, self.states.update, self._current_theme())

    def _page_steps(self) -> Iterator[str]:
        theme = self._current_theme()
        yield from self._import_steps(UPDATE_MODULES)
        state = self.states.update
        yield "update state"
        state.snapshot  # noqa: B018 - what the page's first render asks for (not emitted)
        yield "update snapshot"
        from grpo_desktop.window.update_page import UpdatePage

        page = UpdatePage(self.workbench, state, theme, stepwise=True)
        yield from page.steps
        self._adopt_built(page, theme)
        yield "update page in the stack"

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
    idle_prebuild = True

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
            deque(super().build_steps(), maxlen=0)  # all of it now, or the rest of a begun build
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

    def build_steps(self) -> Iterator[str]:
        """The chosen policy's page in steps: the toy run's a part at a time; the tiny model's
        in two (its page makes its state, which starts no worker while the workspace is
        hidden)."""
        if not self.workbench.policy.is_model:
            yield from super().build_steps()
        elif self._lm_page is None:
            import_module("grpo_desktop.window.lm_training_page")
            yield "grpo_desktop.window.lm_training_page"
            self.lm_page  # noqa: B018 - builds it
            yield "tiny model's training page"

    def _page_steps(self) -> Iterator[str]:
        from grpo_desktop.core.training.run import library_steps

        theme = self._current_theme()
        yield from self._import_steps(TRAINING_MODULES)
        # The run's library, graded a few problems a step (36 ms whole) and kept for the run.
        yield from library_steps(tuple(self.workbench.training_config.problem_ids))
        state = self.states.training
        yield "training state"
        state.snapshot  # noqa: B018 - what the page's first render asks for (not emitted)
        yield "training snapshot"
        from grpo_desktop.window.training_page import TrainingPage

        page = TrainingPage(self.workbench, state, theme, stepwise=True)
        yield from page.steps
        self._adopt_built(page, theme)
        yield "training page in the stack"

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
