"""The main window: the page stack, the menus, tool bar and actions, and the workspaces' loop.

Behaviour lives in the :class:`~grpo_desktop.model.workbench.Workbench` it is built from, and
each workspace's state in the model's :class:`~grpo_desktop.model.workspaces.WorkspaceStates`.
One click end to end (DESIGN §2): a card emits ``toggle_requested(i)``; its ``LabPresenter`` asks
the workbench, which pushes one undo command; the command changes the ``LabState``; the state
emits one snapshot; every view of that lab renders it. The window follows the workbench's
``*_changed`` signals to keep its controls (G box, convention, view toggle, title) in step, and
asks the workspace on screen (``workspace.py``, ``lab_page.py``) for everything else: its page,
hint, title, whether the lab's controls act, the chart to export and the parts a lesson rings.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import Qt, QTimer
from PySide6.QtGui import QCloseEvent, QUndoStack
from PySide6.QtWidgets import (
    QMainWindow,
    QMenu,
    QStackedWidget,
    QToolBar,
    QVBoxLayout,
    QWidget,
)

from grpo_desktop.core.common.theme import LIGHT, Theme
from grpo_desktop.core.lab.problems import load_problems
from grpo_desktop.model.lab_state import LabState
from grpo_desktop.model.settings import AppSettings
from grpo_desktop.model.workbench import COMPARE, LAB, TRAINING, UPDATE, Workbench
from grpo_desktop.model.workspaces import WorkspaceStates
from grpo_desktop.views.lab.advantage_chart import AdvantageChart
from grpo_desktop.window.idle_prebuild import IdlePrebuild
from grpo_desktop.window.lab_controls import (
    LabControls,
    make_convention_combo,
    make_group_size_spin,
)
from grpo_desktop.window.lab_page import LabPage, LabWorkspace
from grpo_desktop.window.lab_presenter import LabPresenter
from grpo_desktop.window.memory_trim import MemoryTrim
from grpo_desktop.window.rollouts_controller import RolloutsController
from grpo_desktop.window.scenario_files import ScenarioFiles
from grpo_desktop.window.stage_controls import StageControls
from grpo_desktop.window.status_line import StatusLine
from grpo_desktop.window.window_actions import (
    APP_NAME,
    build_actions,
    build_menus_and_toolbar,
    place_export_actions,
)
from grpo_desktop.window.workspace import (
    CompareWorkspace,
    TrainingWorkspace,
    UpdateWorkspace,
    Workspace,
    hold_bar_height,
    ring,
)

WORKSPACE_HINTS = {  # the status bar's one line on what to do, per workspace
    workspace.name: workspace.hint
    for workspace in (LabWorkspace, UpdateWorkspace, TrainingWorkspace, CompareWorkspace)
}


class MainWindow(QMainWindow):
    """The lab: problem, stat tiles, trace cards, chart, worked math, and the other workspaces."""

    def __init__(
        self,
        state: LabState | None = None,
        theme: Theme = LIGHT,
        settings: AppSettings | None = None,
        workbench: Workbench | None = None,
    ) -> None:
        super().__init__()
        self.setObjectName("mainWindow")
        self.settings = settings or AppSettings()
        self.theme = theme
        self.workbench = workbench or Workbench(state, parent=self)
        self.states = WorkspaceStates(self.workbench)  # every workspace's state: the model's
        problems = load_problems()
        self.lab = LabPresenter(
            self.workbench.lab, self.workbench, problems, theme, "", self, self.states.lab_gate
        )
        self._shown_once = False
        self.setStatusBar(StatusLine(self))  # a long hint is cut with "…", never covered
        self.memory_trim = MemoryTrim(self)  # freed memory goes back to the system
        self.lessons = None  # installed right after the first paint: install_deferred_features
        self.export_actions = None
        # The deferred features' parts still to install: None until they begin, then the chain
        # under way; empty once installed, or once the window is closed.
        self._deferred_features: list[Callable[[], None]] | None = None
        self.group_size_spin = make_group_size_spin()
        self.convention_combo = make_convention_combo()
        self.pages = QStackedWidget(objectName="pages")
        lab_page = LabPage(self.lab, self.workbench, theme, self.states.lab_gate)
        self.pages.addWidget(lab_page)
        self.lab_page, self.explain_tabs = lab_page, lab_page.explain_tabs
        self.lab_splitter, self.right_splitter = lab_page.lab_splitter, lab_page.right_splitter
        self.math_panel = lab_page.math_panel
        current_theme, add = (lambda: self.theme), self.pages.addWidget
        self.workspaces: dict[str, Workspace] = {
            LAB: LabWorkspace(lab_page),
            UPDATE: UpdateWorkspace(self.workbench, self.states, current_theme, add),
            TRAINING: TrainingWorkspace(self.workbench, self.states, current_theme, add),
            COMPARE: CompareWorkspace(
                self.workbench,
                problems,
                current_theme,
                add,
                lambda chart: self.lab_controls.set_up_chart(chart),
                lambda: self.lessons is not None and self.lessons.active,
            ),
        }
        build_actions(self)
        self.presentation = StageControls(self, self.settings, built_in=theme)
        self.document = ScenarioFiles(self, self.workbench, self.settings)
        self.rollouts = RolloutsController(self, self.workbench)
        build_menus_and_toolbar(self)
        self.lab_controls = LabControls(self, self.workbench)  # G, convention, view, by hand
        self._connect()
        central = QWidget(objectName="central")
        self.central_column = QVBoxLayout(central)  # bars (e.g. the lesson bar) go above pages
        self.central_column.setContentsMargins(10, 6, 10, 6)
        self.central_column.addWidget(self.pages, 1)
        self.setCentralWidget(central)
        # Start with focus on the lab itself, not in the G box: keys 1–9 and V act at once and
        # no text cursor blinks in a screenshot.
        central.setFocusPolicy(Qt.FocusPolicy.ClickFocus)
        central.setFocus()
        # Lessons and exports install right after the first paint (or when something asks for
        # them), the other workspaces' pages in idle time after it (idle_prebuild.py).
        self.prebuild = IdlePrebuild(self, self.pages, self.workspaces.values())
        self.prebuild.after_first_paint.connect(self._install_deferred_features_in_turns)
        self.statusBar().showMessage(self.workspace.hint)
        if theme is not LIGHT:
            self.presentation.theme_name = theme.name
        self.presentation.apply()
        self.animate_action.setChecked(self.settings.animate)
        self.set_animation_step_ms(self.settings.animation_step_ms, remember=False)
        self.lab_controls.show_group_size(self.workbench.active_lab.snapshot)
        self.lab_controls.show_convention(self.workbench.convention)
        self._update_title()
        self.resize(1280, 800)
        geometry = self.settings.geometry
        if geometry is not None:
            self.restoreGeometry(geometry)

    def install_deferred_features(self) -> None:
        """Add the export actions and the Lesson menu (once), cache the chrome's looks and load
        the typesetter, all now (a screenshot, a lesson or the presenter view asks for them)."""
        self._deferred_features = []  # a chain under way: all done
        for part in self._deferred_feature_parts(in_background=False):
            part()

    def _install_deferred_features_in_turns(self, parts: list | None = None) -> None:
        """After the first paint: a part per turn of the event loop, the typesetter imported on
        another thread; all in one turn held a click landing then for 150-200 ms."""
        if parts is None:
            if self._deferred_features is not None:
                return  # installed already, or the window is closed
            parts = self._deferred_features = self._deferred_feature_parts(in_background=True)
        if parts and parts is self._deferred_features:
            parts.pop(0)()
            QTimer.singleShot(0, self, lambda: self._install_deferred_features_in_turns(parts))

    def _deferred_feature_parts(self, in_background: bool) -> list[Callable[[], None]]:
        """The deferred features' parts, in order; each installs its feature once."""

        def exports() -> None:  # 20-25 ms: its imports
            from grpo_desktop.window.export_controller import ExportController

            if self.export_actions is None:
                self.export_actions = ExportController(self, self.workbench)
                place_export_actions(self, self.export_actions)

        def lessons() -> None:
            from grpo_desktop.window.lesson_controller import LessonController

            if self.lessons is None:
                self.lessons = LessonController(self, self.workbench, self.states)
                # In a lesson the bar tells the story: a workspace's own sentences make room.
                self.lessons.active_changed.connect(
                    lambda active: [ws.set_narrated(active) for ws in self.workspaces.values()]
                )

        def chrome_paints() -> None:
            from grpo_desktop.views.common.render_cache import cache_paints

            # The lab's chrome (menu bar, tool bars, status line, the lab page's labels, buttons
            # and tabs) blits its looks from then on instead of drawing its text on every
            # repaint; other workspaces' labels are rewritten on every action and paint as usual.
            chrome = (self.menuBar(), *self.findChildren(QToolBar), self.statusBar(), self.lab_page)
            cache_paints(*(w for part in chrome for w in (part, *part.findChildren(QWidget))))

        def typesetting() -> None:  # the worked math, typeset from here on
            self.lab_page.load_typesetting(in_background)

        return [exports, lessons, chrome_paints, typesetting]

    def _connect(self) -> None:
        workbench = self.workbench
        workbench.lab.problem_changed.connect(self._update_title)
        workbench.workspace_changed.connect(self._show_workspace)
        workbench.document_changed.connect(self._update_title)
        self.group_size_spin.valueChanged.connect(self.request_group_size)
        self.convention_combo.activated.connect(
            lambda index: self.request_convention(self.convention_combo.itemData(index))
        )

    # --- the workbench's state and the workspaces, as the window and its controllers read it --

    @property
    def state(self) -> LabState:
        """The main lab's state."""
        return self.workbench.lab

    @property
    def undo_stack(self) -> QUndoStack:
        return self.workbench.undo_stack

    @property
    def view(self) -> str:
        return self.workbench.view

    @property
    def workspace(self) -> Workspace:
        """The workspace on screen."""
        return self.workspaces[self.workbench.workspace]

    @property
    def workspace_actions(self) -> tuple:
        """Lab, Update step, Training run, Easy vs hard: one checked, the one on screen."""
        return tuple(self.workspace_action.values())

    @property
    def built_pages(self) -> dict[str, QWidget]:
        """The workspaces' pages built so far (the lab's always), by workspace."""
        return {name: ws.page for name, ws in self.workspaces.items() if ws.built}

    _workspace_pages = built_pages  # the soak's name for it (benchmarks/soak.py)

    @property
    def update_page(self):
        """The Update workspace's page, built the first time it is needed."""
        return self.workspaces[UPDATE].page

    @property
    def training_page(self):
        """The Training workspace's page, built the first time it is needed."""
        return self.workspaces[TRAINING].page

    @property
    def compare_view(self):
        """The easy-vs-hard view, built the first time it is needed."""
        return self.workspaces[COMPARE].view

    @property
    def compare_page(self) -> QWidget:
        """The scrollable page that holds the comparison (what the window shows)."""
        return self.workspaces[COMPARE].page

    @property
    def easy(self) -> LabPresenter:
        return self.compare_view.panes[0]

    @property
    def hard(self) -> LabPresenter:
        return self.compare_view.panes[1]

    @property
    def reward_panel(self):
        return self.lab_page.reward_panel

    @property
    def panes(self) -> tuple[LabPresenter, ...]:
        """Every lab on screen: the main one, and the comparison's two once it was opened."""
        return tuple(pane for workspace in self.workspaces.values() for pane in workspace.panes)

    @property
    def charts(self) -> tuple[AdvantageChart, ...]:
        return tuple(pane.chart for pane in self.panes)

    def export_figure(self):
        """The chart File ▸ Export draws: the shown workspace's, as a figure for a slide."""
        return self.workspace.export_figure(self.theme)

    def training_run(self):
        """The Training workspace's run, or None if that workspace was never opened."""
        return self.states.training_run()

    # --- requests: each goes to the workbench -------------------------------------------------

    def request_toggle(self, index: int) -> None:
        self.workbench.toggle(index)

    def request_group_size(self, group_size: int) -> None:
        self.workbench.set_group_size(group_size)

    def request_reward_pattern(self, key: str) -> None:
        self.workbench.apply_reward_pattern(key)

    def request_problem(self, problem_id: str) -> None:
        self.workbench.set_problem(problem_id)

    def request_convention(self, name: str) -> None:
        self.workbench.set_convention(name)

    def set_view(self, view: str, animate: bool = True) -> None:
        """Rewards or advantages on every chart; the visible charts animate the change."""
        self.workbench.set_view(view, animate)

    def show_compare(self, on: bool) -> None:
        self.toggle_workspace(COMPARE, on)

    def toggle_workspace(self, name: str, on: bool) -> None:
        """A workspace's key shows it; its key again goes back to the lab, which stays on."""
        if on:
            self.workbench.set_workspace(name)
        elif self.workbench.workspace == name:
            self.workbench.set_workspace(LAB)
            self.workspace_action[name].setChecked(self.workbench.workspace == name)

    def set_animation_enabled(self, enabled: bool) -> None:
        self.lab_controls.set_animation_enabled(enabled)

    @property
    def animation_step_ms(self) -> int:
        """How long each captioned step of the reward → advantage animation lasts (View menu)."""
        return self.lab_controls.animation_step_ms

    def set_animation_step_ms(self, ms: int, remember: bool = True) -> None:
        self.lab_controls.set_animation_step_ms(ms, remember)

    def step_chart(self, forward: bool) -> bool:
        """One step of the reward → advantage animation, as a clicker's Page Down / Page Up take it.

        Forward from the rewards: step 1 (subtract par) plays and the chart waits at r − mean
        with its caption; forward again: step 2 (divide by the std) plays and lands on A.
        Backward undoes one step the same way. With animation off the view just switches.
        """
        target = "advantage" if forward else "reward"
        if self.workbench.view != target:
            self.lab_controls.stepping = True
            try:
                self.workbench.set_view(target)
            finally:
                self.lab_controls.stepping = False
            return True
        charts = (pane.chart for pane in self.workspace.panes if pane.chart.isVisible())
        return any([chart.step() for chart in charts])  # every visible chart takes its step

    # --- following the workbench ------------------------------------------------------------

    def _show_workspace(self, name: str) -> None:
        shown = self.workspaces[name]
        self.pages.setCurrentWidget(shown.page)
        for workspace in self.workspaces.values():
            if workspace is not shown and workspace.built:
                workspace.deactivate()
        shown.activate()
        self.statusBar().showMessage(shown.hint)
        hold_bar_height(self.group_size_tool.parent(), shown.lab_controls)
        self.lab_controls.enable(shown.lab_controls)
        for workspace, action in self.workspace_action.items():
            if action.isChecked() != (workspace == name):
                action.setChecked(workspace == name)  # its toggled signal asks again: a no-op
        self._update_title()

    def _update_title(self, *_args: object) -> None:
        subject = self.workspace.title(self.state.problem.title)
        if self.workbench.title:
            subject = f"{self.workbench.title} · {subject}"
        path = self.workbench.path
        name = path.name if path else "Untitled"
        self.setWindowTitle(f"{subject} — {name}[*] — {APP_NAME}")
        self.setWindowModified(self.workbench.modified)

    # --- what the lesson controller may ask of the window -----------------------------------

    def add_top_bar(self, bar: QWidget) -> None:
        """A bar above the workspaces (the lesson bar)."""
        self.central_column.insertWidget(0, bar)

    def insert_menu(self, menu: QMenu) -> None:
        """A menu before Help (the Lesson menu)."""
        self.menuBar().insertMenu(self.help_menu.menuAction(), menu)

    def show_explanation(self, which: str) -> None:
        """Bring the worked math, "One model, not four" or the Rewards tab to the front."""
        self.lab_page.show_explanation(which)

    def highlight_target(self, name: str) -> QWidget | None:
        """The part a lesson step rings (cards, stats, chart, math, tokens, frontier…), asked
        of the workspaces; each built one then keeps it in view (``workspace.ring``)."""
        return ring(self.workspaces.values(), name)

    # --- look -------------------------------------------------------------------------------

    def apply_theme(self, theme: Theme) -> None:
        # Window background and label colours come from the application palette (stage
        # controls); a window-wide stylesheet would push every child onto Qt's slower style.
        self.theme = theme
        for workspace in self.workspaces.values():
            workspace.set_theme(theme)
        self.rollouts.set_theme(theme)
        if self.lessons is not None:
            self.lessons.set_theme(theme)

    def resizeEvent(self, event) -> None:  # Qt override
        super().resizeEvent(event)
        self.presentation.window_resized()  # the screen scale follows the window's size

    def showEvent(self, event) -> None:  # Qt override
        self.presentation.released = False  # shown again after a close: the look is its own
        super().showEvent(event)
        if not self._shown_once:
            self._shown_once = True
            self.lab_page.balance_right_column()  # the lab splitter balanced itself, laid out

    def closeEvent(self, event: QCloseEvent) -> None:  # Qt override
        if not self.document.confirm_discard():
            event.ignore()
            return
        for workspace in self.workspaces.values():
            workspace.stop()
        # A closed window does no more idle work: its pages and features are not wanted now
        # (left going, they imported the typesetter after the window had gone).
        self.prebuild.stop()
        self._deferred_features = []
        self.settings.geometry = self.saveGeometry()
        self.settings.sync()
        self.presentation.release()  # the application's font as this window found it
        event.accept()
