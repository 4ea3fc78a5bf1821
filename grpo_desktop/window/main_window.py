"""The main window: lays out the workspaces, owns the menus, toolbar and actions, wires signals.

Behaviour lives in the :class:`~grpo_desktop.model.workbench.Workbench` it is built from. One
click end to end (DESIGN §2): a card emits ``toggle_requested(i)``; its ``LabPresenter`` asks the
workbench, which pushes one undo command; the command changes the ``LabState``; the state emits
one snapshot; every view of that lab renders it. The window follows the workbench's
``*_changed`` signals to keep its controls (G box, convention, view toggle, title) in step.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import Qt, QTimer
from PySide6.QtGui import QAction, QActionGroup, QCloseEvent, QKeySequence, QShortcut, QUndoStack
from PySide6.QtWidgets import (
    QComboBox,
    QFrame,
    QHBoxLayout,
    QLabel,
    QMainWindow,
    QMenu,
    QMessageBox,
    QScrollArea,
    QSpinBox,
    QSplitter,
    QStackedWidget,
    QToolBar,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from grpo_desktop import __version__
from grpo_desktop.core import advantages
from grpo_desktop.core.lab_limits import MAX_GROUP_SIZE, MIN_GROUP_SIZE
from grpo_desktop.core.presets import PRESETS
from grpo_desktop.core.problems import load_problems
from grpo_desktop.core.snapshot import LabSnapshot
from grpo_desktop.core.theme import LIGHT, Theme
from grpo_desktop.model.lab_state import LabState
from grpo_desktop.model.settings import ANIMATION_STEP_CHOICES_MS, AppSettings
from grpo_desktop.model.workbench import COMPARE, LAB, TRAINING, UPDATE, Workbench
from grpo_desktop.views.advantage_chart import AdvantageChart
from grpo_desktop.views.cached_look import CachedTabWidget, CachedToolBar
from grpo_desktop.views.math_panel import MathPanel
from grpo_desktop.views.ppo_panel import PpoPanel
from grpo_desktop.window.lab_presenter import LabPresenter
from grpo_desktop.window.layout_helpers import AfterResize
from grpo_desktop.window.memory_trim import MemoryTrim
from grpo_desktop.window.rollouts_controller import RolloutsController
from grpo_desktop.window.scenario_files import ScenarioFiles
from grpo_desktop.window.stage_controls import StageControls
from grpo_desktop.window.status_line import StatusLine

if TYPE_CHECKING:  # loaded on first use, as is the shortcuts dialog: the first screen shows neither
    from grpo_desktop.views.reward_panel import RewardPanel
    from grpo_desktop.window.compare_page import CompareView

APP_NAME = "GRPO Desktop"
PRESET_SHORTCUTS = ("Ctrl+1", "Ctrl+2", "Ctrl+3", "Ctrl+4", "Ctrl+5")
EXPLANATION_TABS = ("math", "ppo", "rewards")  # worked math, "one model, not four", rewards
MATH_FIRST_CHART_SHARE = 0.33  # the chart's least share while a lesson rings the worked math
LAB_HINT = "Click a card, or press its number 1–9, to mark it right or wrong."
WORKSPACE_HINTS = {  # the status bar's one line on what to do, per workspace
    LAB: LAB_HINT,
    UPDATE: "Click a token to see its whole computation; Length bias and Clip-higher set up the "
    "classic demonstrations.",
    TRAINING: "Press Play (or Step); click a step on the charts to list its groups and open one "
    "in the Lab.",
    COMPARE: "Click a card on either side, or press its number 1–9, to mark it right or wrong.",
}


class MainWindow(QMainWindow):
    """The lab: problem, stat tiles, trace cards, chart, worked math, and easy vs hard."""

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
        self._problems = load_problems()
        self.lab = LabPresenter(
            self.workbench.lab, self.workbench, self._problems, theme, parent=self
        )
        self._compare: CompareView | None = None  # built on first use: start-up stays quick
        # The Update and Training workspaces, each built the first time it is shown.
        self._workspace_pages: dict[str, QWidget] = {}
        self._shown_once = False
        self._math_ringed = False  # a lesson step rings the worked math: it gets its height
        self._stepping = False  # a view change asked for one animation step (step_chart)
        self.setStatusBar(StatusLine(self))  # a long hint is cut with "…", never covered
        self.memory_trim = MemoryTrim(self)  # freed memory goes back to the system
        self.lessons = None  # installed right after the first paint: install_deferred_features
        self.export_actions = None

        self.math_panel = MathPanel(theme)
        self.ppo_panel = PpoPanel(theme)
        self.reward_panel: RewardPanel | None = None  # built when its tab is first shown
        self.group_size_spin = self._make_group_size_spin()
        self.convention_combo = self._make_convention_combo()
        self.pages = QStackedWidget(objectName="pages")
        self._build_lab_page()
        self._build_actions()
        self.presentation = StageControls(self, self.settings, built_in=theme)
        self.document = ScenarioFiles(self, self.workbench, self.settings)
        self.rollouts = RolloutsController(self, self.workbench)
        self._build_menus_and_toolbar()
        self._connect()
        self.setCentralWidget(self._framed(self.pages))
        # Start with focus on the lab itself, not in the G box: keys 1–9 and V act at once and
        # no text cursor blinks in a screenshot.
        self.centralWidget().setFocusPolicy(Qt.FocusPolicy.ClickFocus)
        self.centralWidget().setFocus()
        # Lessons and exports are not needed for the first paint: they install right after it
        # (or at once, when something asks for them) so start-up stays near a bare window.
        QTimer.singleShot(150, self.install_deferred_features)
        self.statusBar().showMessage(LAB_HINT)
        if theme is not LIGHT:
            self.presentation.theme_name = theme.name
        self.presentation.apply()
        self.animate_action.setChecked(self.settings.animate)
        self.set_animation_step_ms(self.settings.animation_step_ms, remember=False)
        self._show_group_size(self.workbench.active_lab.snapshot)
        self._show_convention(self.workbench.convention)
        self._update_title()
        self.resize(1280, 800)
        geometry = self.settings.geometry
        if geometry is not None:
            self.restoreGeometry(geometry)

    # --- construction -----------------------------------------------------------------------

    def _make_group_size_spin(self) -> QSpinBox:
        spin = QSpinBox(objectName="groupSizeSpin")
        spin.setRange(MIN_GROUP_SIZE, MAX_GROUP_SIZE)
        spin.setAccessibleName("Group size G")
        spin.setToolTip(
            f"How many answers the model samples for this problem ({MIN_GROUP_SIZE}–"
            f"{MAX_GROUP_SIZE}); [ and ] change it"
        )
        spin.setKeyboardTracking(False)
        return spin

    def _make_convention_combo(self) -> QComboBox:
        combo = QComboBox(objectName="conventionCombo")
        combo.setAccessibleName("Convention")
        for convention in advantages.CONVENTIONS.values():
            combo.addItem(convention.label, convention.name)
            combo.setItemData(
                combo.count() - 1,
                f"{convention.formula}\n{convention.source}",
                Qt.ItemDataRole.ToolTipRole,
            )
        combo.setToolTip("How advantages are computed: the textbook or a real trainer's code")
        return combo

    def _build_lab_page(self) -> None:
        left = QWidget(objectName="groupColumn")
        left_column = QVBoxLayout(left)
        left_column.setContentsMargins(0, 0, 0, 0)
        left_column.setSpacing(8)
        left_column.addWidget(self.lab.stats_panel)
        left_column.addWidget(self.lab.trace_grid, 1)

        self.explain_tabs = CachedTabWidget(objectName="explainTabs")
        self.explain_tabs.addTab(self.math_panel, "Worked math")
        ppo_scroll = QScrollArea(objectName="ppoScroll")
        ppo_scroll.setWidget(self.ppo_panel)
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
        right = QSplitter(Qt.Orientation.Vertical, objectName="rightColumn")
        self.right_splitter = right
        # The drawing needs more height than the worked math: give its tab the larger share.
        self.explain_tabs.currentChanged.connect(self._balance_right_column)
        right.addWidget(self.lab.chart)
        right.addWidget(self.explain_tabs)
        right.setStretchFactor(0, 3)
        right.setStretchFactor(1, 2)
        right.setChildrenCollapsible(False)
        # A lesson bar or a new window size changes the column's height: re-share it, so the
        # worked math keeps the height it needs (the splitter alone would scale both parts).
        AfterResize(right, lambda: self._balance_right_column(self.explain_tabs.currentIndex()))

        splitter = QSplitter(Qt.Orientation.Horizontal, objectName="labSplitter")
        self.lab_splitter = splitter
        splitter.addWidget(left)
        splitter.addWidget(right)
        splitter.setStretchFactor(0, 3)
        splitter.setStretchFactor(1, 2)
        splitter.setChildrenCollapsible(False)
        self.lab.chart.setMinimumSize(280, 200)
        left.setMinimumWidth(420)

        page = QWidget(objectName="labPage")
        column = QVBoxLayout(page)
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
        self.lab_page = page
        self.pages.addWidget(page)

    def _framed(self, content: QWidget) -> QWidget:
        central = QWidget(objectName="central")
        self.central_column = QVBoxLayout(central)  # bars (e.g. the lesson bar) go above pages
        self.central_column.setContentsMargins(10, 6, 10, 6)
        self.central_column.addWidget(content, 1)
        return central

    def _action(self, text: str, name: str, shortcut: str | QKeySequence = "", tip: str = ""):
        action = QAction(text, self, objectName=name)
        if shortcut:
            action.setShortcut(QKeySequence(shortcut))
        if tip:
            key = action.shortcut().toString(QKeySequence.SequenceFormat.NativeText)
            action.setToolTip(f"{tip} ({key})" if key else tip)
            action.setStatusTip(tip)
        self.addAction(action)  # shortcuts work even where no menu or toolbar shows it
        return action

    def _build_actions(self) -> None:
        self.undo_action = self.undo_stack.createUndoAction(self, "&Undo")
        self.undo_action.setShortcut(QKeySequence.StandardKey.Undo)
        self.redo_action = self.undo_stack.createRedoAction(self, "&Redo")
        # Ctrl+Shift+Z and Ctrl+Y redo everywhere; the platform's own Redo is one of them on
        # Linux (xcb) and Windows, so each key is bound once: a key bound twice is an
        # "Ambiguous shortcut overload" and does nothing (DESIGN §3).
        redo_keys: list[QKeySequence] = []
        for key in (QKeySequence.StandardKey.Redo, "Ctrl+Shift+Z", "Ctrl+Y"):
            sequence = QKeySequence(key)
            if not sequence.isEmpty() and sequence not in redo_keys:
                redo_keys.append(sequence)
        self.redo_action.setShortcuts(redo_keys)
        self.preset_actions: dict[str, QAction] = {}
        for preset, shortcut in zip(PRESETS, PRESET_SHORTCUTS):
            action = self._action(preset.label, f"preset_{preset.key}", shortcut, preset.tooltip)
            action.triggered.connect(lambda _=False, p=preset: self.request_preset(p.key))
            self.preset_actions[preset.key] = action
        self.sample_action = self._action(
            "Sample a group",
            "sampleAction",
            "Ctrl+D",
            "Draw every answer right or wrong at the problem's pass rate, with a visible seed",
        )
        self.sample_action.triggered.connect(self.request_sample)
        self.reset_action = self._action(
            "Reset all", "resetAction", "Ctrl+R", "Back to this problem's own group"
        )
        self.reset_action.triggered.connect(self.request_reset)
        self.grow_action = self._action("Larger group", "growAction", "]", "One more answer")
        self.grow_action.triggered.connect(lambda: self.group_size_spin.stepBy(1))
        self.shrink_action = self._action("Smaller group", "shrinkAction", "[", "One answer fewer")
        self.shrink_action.triggered.connect(lambda: self.group_size_spin.stepBy(-1))

        self.by_hand_action = self._action(
            "Set rewards by hand (continuous)",
            "byHandAction",
            "Ctrl+Shift+R",
            "Drag each card's reward sideways (or press + / −) instead of computing it",
        )
        self.by_hand_action.setCheckable(True)
        self.by_hand_action.toggled.connect(
            lambda on: self.workbench.set_by_hand(on, self.workbench.active_lab)
        )

        self.view_toggle = self._action(
            "Show advantages",  # checked while the chart shows A, as the View menu ticks it
            "viewToggle",
            "V",
            "Switch the chart between rewards r and advantages A (animated in two steps; Page "
            "Down / Page Up take one step at a time)",
        )
        self.view_toggle.setIconText("Advantages A")  # the tool bar's button: pressed = A shown
        self.view_toggle.setCheckable(True)
        self.view_toggle.setChecked(True)
        self.view_toggle.toggled.connect(
            lambda checked: self.workbench.set_view("advantage" if checked else "reward")
        )
        self.animate_action = self._action(
            "Animate reward → advantage",
            "animateAction",
            tip="Animate the switch between rewards and advantages",
        )
        self.animate_action.setCheckable(True)
        self.animate_action.setChecked(True)
        self.animate_action.toggled.connect(self.set_animation_enabled)
        self.animation_step_actions = QActionGroup(self)
        for ms in ANIMATION_STEP_CHOICES_MS:
            action = QAction(f"{ms / 1000:g} s per step", self, checkable=True)
            action.setObjectName(f"animationStep{ms}")
            action.setData(ms)
            action.setStatusTip(
                f"Each captioned step of the reward → advantage animation lasts {ms / 1000:g} s"
            )
            self.animation_step_actions.addAction(action)
        self.animation_step_actions.triggered.connect(
            lambda action: self.set_animation_step_ms(int(action.data()))
        )
        self.compare_action = self._action(
            "Easy vs hard, side by side",
            "compareAction",
            "Ctrl+E",
            "Two groups side by side: the same formula, two very different signals",
        )
        self.compare_action.setCheckable(True)
        self.compare_action.toggled.connect(self.show_compare)
        self.lab_action = self._action(
            "Lab", "labWorkspaceAction", "Ctrl+L", "The group: its cards, par, std and advantages"
        )
        self.lab_action.setCheckable(True)
        self.lab_action.setChecked(True)
        self.lab_action.toggled.connect(self._lab_action_toggled)
        self.update_action = self._action(
            "Update step",
            "updateWorkspaceAction",
            "Ctrl+U",
            "Each token's push under verl's, TRL's or OpenRLHF's loss, and the length bias",
        )
        self.update_action.setCheckable(True)
        self.update_action.toggled.connect(self.show_update)
        self.training_action = self._action(
            "Training run",
            "trainingWorkspaceAction",
            "Ctrl+T",
            "A toy run over the problem library: algorithms side by side, and the learning "
            "frontier where groups stop teaching",
        )
        self.training_action.setCheckable(True)
        self.training_action.toggled.connect(self.show_training)

        self.edit_problem_action = self._action(
            "Edit &problem…",
            "editProblemAction",
            "Ctrl+Shift+E",
            "Write your own prompt, answer key and traces; the checker grades them live",
        )
        self.edit_problem_action.triggered.connect(self.request_edit_problem)
        self.shortcuts_action = self._action(
            "&Keyboard shortcuts", "shortcutsAction", "F1", "Every key and what it does"
        )
        self.shortcuts_action.setShortcuts([QKeySequence("F1"), QKeySequence("?")])
        self.shortcuts_action.triggered.connect(self.show_shortcuts)
        self.quit_action = self._action("&Quit", "quitAction", "Ctrl+Q")
        self.quit_action.triggered.connect(self.close)
        self.about_action = self._action(f"&About {APP_NAME}", "aboutAction")
        self.about_action.triggered.connect(self._show_about)

        self.card_shortcuts = []
        for number in range(1, 10):
            shortcut = QShortcut(QKeySequence(str(number)), self)
            shortcut.activated.connect(lambda n=number: self.workbench.toggle(n - 1))
            self.card_shortcuts.append(shortcut)

    def _build_menus_and_toolbar(self) -> None:
        menu_bar = self.menuBar()
        self.file_menu = menu_bar.addMenu("&File")
        self.document.add_to_menu(self.file_menu)
        self.file_menu.addSeparator()
        self.rollouts.add_to_menu(self.file_menu)
        self.file_menu.addSeparator()
        self.file_menu.addAction(self.quit_action)
        self.edit_menu = menu_bar.addMenu("&Edit")
        self.edit_menu.addAction(self.undo_action)
        self.edit_menu.addAction(self.redo_action)
        self.edit_menu.addSeparator()
        self.edit_menu.addAction(self.edit_problem_action)
        self.edit_menu.addAction(self.by_hand_action)
        self.view_menu = menu_bar.addMenu("&View")
        self.view_menu.addAction(self.view_toggle)
        self.view_menu.addAction(self.animate_action)
        step_menu = self.view_menu.addMenu("Animation step")
        step_menu.setObjectName("animationStepMenu")
        step_menu.setToolTipsVisible(True)
        for action in self.animation_step_actions.actions():
            step_menu.addAction(action)
        self.animation_step_menu = step_menu
        self.view_menu.addSeparator()
        for action in self.workspace_actions:
            self.view_menu.addAction(action)
        self.view_menu.addSeparator()
        self.presentation.add_to_menu(self.view_menu)
        self.view_menu.addSeparator()
        convention_menu = self.view_menu.addMenu("Convention")
        self.convention_actions = QActionGroup(self)
        for convention in advantages.CONVENTIONS.values():
            action = QAction(convention.label, self, checkable=True)
            action.setData(convention.name)
            action.setStatusTip(f"{convention.formula} — {convention.source}")
            self.convention_actions.addAction(action)
            convention_menu.addAction(action)
        self.convention_actions.triggered.connect(
            lambda action: self.request_convention(action.data())
        )
        presets_menu = menu_bar.addMenu("&Presets")
        presets_menu.setObjectName("presetsMenu")
        for action in self.preset_actions.values():
            presets_menu.addAction(action)
        presets_menu.addSeparator()
        presets_menu.addAction(self.sample_action)
        presets_menu.addSeparator()
        presets_menu.addAction(self.grow_action)
        presets_menu.addAction(self.shrink_action)
        presets_menu.addAction(self.reset_action)
        self.help_menu = menu_bar.addMenu("&Help")
        self.help_menu.addAction(self.shortcuts_action)
        self.help_menu.addAction(self.about_action)

        toolbar = CachedToolBar("Presets", self, objectName="presetsToolbar")
        toolbar.setMovable(False)
        toolbar.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextOnly)
        # Short toolbar labels (menus, tooltips and F1 keep the full names) so every action fits
        # a 1024-px-wide projector without hiding behind the toolbar's » overflow.
        for action, short in (
            (self.preset_actions["easy"], "Easy"),
            (self.preset_actions["hard"], "Hard"),
            (self.sample_action, "Sample"),
            (self.compare_action, "Easy vs hard"),
        ):
            action.setIconText(short)
        for action in self.preset_actions.values():
            toolbar.addAction(action)
        toolbar.addAction(self.sample_action)
        toolbar.addSeparator()
        # The lab's G: hidden while the Training run shows, which has its own G box.
        self.group_size_tool = toolbar.addWidget(self._labelled("G", self.group_size_spin))
        toolbar.addWidget(self._labelled("Convention", self.convention_combo))
        toolbar.addSeparator()
        toolbar.addAction(self.view_toggle)
        toolbar.addAction(self.compare_action)
        self.addToolBar(Qt.ToolBarArea.TopToolBarArea, toolbar)
        self.toolbar = toolbar
        self.statusBar().addPermanentWidget(self._workspace_bar())

    @property
    def workspace_actions(self) -> tuple[QAction, ...]:
        """Lab, Update step, Training run, Easy vs hard: one checked, the one on screen."""
        return (self.lab_action, self.update_action, self.training_action, self.compare_action)

    def _workspace_bar(self) -> QWidget:
        """Large labelled buttons for the workspaces, bottom right (PhET's screen bar)."""
        bar = QWidget(objectName="workspaceBar")
        row = QHBoxLayout(bar)
        row.setContentsMargins(0, 0, 4, 0)
        row.setSpacing(2)
        row.addWidget(QLabel("Workspace:"))
        for action in self.workspace_actions:
            button = QToolButton(bar)
            button.setDefaultAction(action)
            button.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextOnly)
            button.setAutoRaise(True)
            button.setObjectName(f"{action.objectName()}Button")
            row.addWidget(button)
        return bar

    @staticmethod
    def _labelled(text: str, field: QWidget) -> QWidget:
        box = QWidget()
        row = QHBoxLayout(box)
        row.setContentsMargins(6, 0, 6, 0)
        label = QLabel(text)
        label.setBuddy(field)
        row.addWidget(label)
        row.addWidget(field)
        return box

    def install_deferred_features(self) -> None:
        """Add the Lesson menu and the export actions (once), and cache the chrome's looks."""
        from grpo_desktop.views.paint_cache import cache_paints
        from grpo_desktop.window.export_controller import ExportController
        from grpo_desktop.window.lesson_controller import LessonController

        if self.export_actions is None:
            self.export_actions = ExportController(self, self.workbench)
            self._place_export_actions(self.export_actions)
        if self.lessons is None:
            self.lessons = LessonController(self, self.workbench)
            self.lessons.active_changed.connect(self._show_lesson_active)
        # The lab's chrome (menu bar, tool bars, status line, the lab page's labels, buttons
        # and tabs) blits its looks from then on, instead of drawing its text on every repaint
        # of the window. Their looks change rarely; other workspaces' labels are rewritten on
        # every action and paint as usual.
        chrome = (self.menuBar(), *self.findChildren(QToolBar), self.statusBar(), self.lab_page)
        cache_paints(*(w for part in chrome for w in (part, *part.findChildren(QWidget))))

    def _show_lesson_active(self, active: bool) -> None:
        """In a lesson the bar above tells the comparison's story: its own sentence makes room."""
        if self._compare is not None:
            self._compare.set_narrated(active)
        if not active and self._math_ringed:  # the lesson has left: the chart gets its share
            self._math_ringed = False
            self._balance_right_column(self.explain_tabs.currentIndex())

    def _place_export_actions(self, exports) -> None:
        """File ▸ Export (before Quit) and Edit ▸ Copy image."""
        menu = QMenu("&Export", self, objectName="exportMenu")
        for action in exports.file_actions:
            menu.addAction(action)
        self.file_menu.insertMenu(self.quit_action, menu)
        self.file_menu.insertSeparator(self.quit_action)
        exports.export_menu = menu
        self.edit_menu.addSeparator()
        self.edit_menu.addAction(exports.copy_action)

    def _connect(self) -> None:
        workbench = self.workbench
        self._connect_lab(self.lab)
        workbench.lab.snapshot_changed.connect(self._show_math)
        workbench.lab.snapshot_changed.connect(self._show_rewards)
        self.explain_tabs.currentChanged.connect(
            lambda _tab: self._show_rewards(workbench.lab.snapshot)
        )
        workbench.lab.problem_changed.connect(self._update_title)
        self.math_panel.show_snapshot(workbench.lab.snapshot)
        workbench.convention_changed.connect(self._show_convention)
        workbench.view_changed.connect(self._show_view)
        workbench.workspace_changed.connect(self._show_workspace)
        workbench.active_lab_changed.connect(lambda lab: self._show_group_size(lab.snapshot))
        workbench.comparison_created.connect(self._build_compare_page)
        workbench.advantages_hidden_changed.connect(self.math_panel.set_advantages_hidden)
        workbench.document_changed.connect(self._update_title)
        self.group_size_spin.valueChanged.connect(self.request_group_size)
        self.convention_combo.activated.connect(
            lambda index: self.request_convention(self.convention_combo.itemData(index))
        )

    def _connect_lab(self, presenter: LabPresenter) -> None:
        state = presenter.state
        state.snapshot_changed.connect(lambda snapshot: self._on_snapshot_changed(state, snapshot))

    # --- the workbench's state, as the window and its controllers read it -------------------

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
    def next_sample_seed(self) -> int:
        return self.workbench.next_sample_seed

    @next_sample_seed.setter
    def next_sample_seed(self, seed: int) -> None:
        self.workbench.next_sample_seed = seed

    @property
    def compare_view(self) -> CompareView:
        """The easy-vs-hard page, built the first time it is needed."""
        self.workbench.comparison  # noqa: B018 - creating the labs builds the page
        assert self._compare is not None
        return self._compare

    @property
    def compare_page(self) -> QWidget:
        """The scrollable page that holds the comparison (what the window shows)."""
        return self.compare_view.parentWidget().parentWidget()

    @property
    def easy(self) -> LabPresenter:
        return self.compare_view.panes[0]

    @property
    def hard(self) -> LabPresenter:
        return self.compare_view.panes[1]

    @property
    def panes(self) -> tuple[LabPresenter, ...]:
        """Every lab on screen: the main one, and the comparison's two once it was opened."""
        return (self.lab,) if self._compare is None else (self.lab, *self._compare.panes)

    @property
    def active_pane(self) -> LabPresenter:
        active = self.workbench.active_lab
        return next(pane for pane in self.panes if pane.state is active)

    @property
    def active_state(self) -> LabState:
        return self.workbench.active_lab

    @property
    def active_chart(self) -> AdvantageChart:
        return self.active_pane.chart

    @property
    def charts(self) -> tuple[AdvantageChart, ...]:
        return tuple(pane.chart for pane in self.panes)

    def export_plot_item(self):
        """The chart File ▸ Export draws: the shown workspace's main chart."""
        workspace = self.workbench.workspace
        if workspace == UPDATE:
            return self.update_page.chart.plot
        if workspace == TRAINING:
            return self.training_page.charts.plots()[0].getPlotItem()
        return self.active_chart.getPlotItem()

    def training_run(self):
        """The Training workspace's run, or None if that workspace was never opened."""
        page = self._workspace_pages.get(TRAINING)
        return None if page is None else page.state.run

    # --- requests: each goes to the workbench -------------------------------------------------

    def request_toggle(self, index: int) -> None:
        self.workbench.toggle(index)

    def request_group_size(self, group_size: int) -> None:
        self.workbench.set_group_size(group_size)

    def request_preset(self, key: str) -> None:
        self.workbench.apply_preset(key)

    def request_sample(self) -> None:
        self.workbench.sample()

    def request_reset(self) -> None:
        self.workbench.reset()

    def request_problem(self, problem_id: str) -> None:
        self.workbench.set_problem(problem_id)

    def request_edit_problem(self) -> None:
        """The lecturer writes a problem; the current lab switches to it as one undo step."""
        from grpo_desktop.views.problem_editor import edit_problem  # loaded when first used

        problem = edit_problem(self.workbench.active_lab.problem, self)
        if problem is not None:
            self.workbench.set_problem(problem)

    def request_convention(self, name: str) -> None:
        self.workbench.set_convention(name)

    def set_view(self, view: str, animate: bool = True) -> None:
        """Rewards or advantages on every chart; the visible charts animate the change."""
        self.workbench.set_view(view, animate)

    def show_compare(self, on: bool) -> None:
        if on or self.workbench.workspace == COMPARE:
            self.workbench.set_workspace(COMPARE if on else LAB)

    def show_update(self, on: bool) -> None:
        self._show_workspace_toggled(UPDATE, on)

    def show_training(self, on: bool) -> None:
        self._show_workspace_toggled(TRAINING, on)

    def _show_workspace_toggled(self, workspace: str, on: bool) -> None:
        """A workspace's key again goes back to the lab."""
        if on or self.workbench.workspace == workspace:
            self.workbench.set_workspace(workspace if on else LAB)

    def _lab_action_toggled(self, on: bool) -> None:
        if on:
            self.workbench.set_workspace(LAB)
        elif self.workbench.workspace == LAB:
            self.lab_action.setChecked(True)  # the lab cannot be switched off, only away from

    @property
    def update_page(self):
        """The Update workspace, built the first time it is needed."""
        return self._workspace_page(UPDATE)

    @property
    def training_page(self):
        """The Training workspace, built the first time it is needed."""
        return self._workspace_page(TRAINING)

    def _workspace_page(self, workspace: str):
        page = self._workspace_pages.get(workspace)
        if page is None:
            if workspace == UPDATE:  # loaded on first use: start-up does not pay for them
                from grpo_desktop.window.update_page import UpdatePage as Page
            else:
                from grpo_desktop.window.training_page import TrainingPage as Page
            page = self._workspace_pages[workspace] = Page(self.workbench, self.theme)
            self.pages.addWidget(page)
        return page

    def set_animation_enabled(self, enabled: bool) -> None:
        if self.animate_action.isChecked() != enabled:
            self.animate_action.setChecked(enabled)
            return
        self.settings.animate = enabled
        for chart in self.charts:
            chart.set_animation_enabled(enabled)

    @property
    def animation_step_ms(self) -> int:
        """How long each captioned step of the reward → advantage animation lasts (View menu)."""
        return self._animation_step_ms

    def set_animation_step_ms(self, ms: int, remember: bool = True) -> None:
        """Each captioned animation step lasts ``ms`` (one of the View menu's choices)."""
        if ms not in ANIMATION_STEP_CHOICES_MS:
            raise ValueError(f"an animation step lasts one of {ANIMATION_STEP_CHOICES_MS} ms")
        self._animation_step_ms = ms
        if remember:
            self.settings.animation_step_ms = ms
        for action in self.animation_step_actions.actions():
            action.setChecked(action.data() == ms)
        for chart in self.charts:
            chart.animation_ms = 2 * ms

    def step_chart(self, forward: bool) -> bool:
        """One step of the reward → advantage animation, as a clicker's Page Down / Page Up take it.

        Forward from the rewards: step 1 (subtract par) plays and the chart waits at r − mean
        with its caption; forward again: step 2 (divide by the std) plays and lands on A.
        Backward undoes one step the same way. With animation off the view just switches.
        """
        target = "advantage" if forward else "reward"
        if self.workbench.view != target:
            self._stepping = True
            try:
                self.workbench.set_view(target)
            finally:
                self._stepping = False
            return True
        if self.workbench.workspace not in (LAB, COMPARE):
            return False
        stepped = False
        for chart in self.charts:
            if chart.isVisible() and chart.step():
                stepped = True
        return stepped

    # --- following the workbench ------------------------------------------------------------

    def _build_compare_page(self, labs: tuple[LabState, LabState]) -> None:
        from grpo_desktop.window.compare_page import CompareView  # loaded when first used

        presenters = []
        for lab, name in zip(labs, ("easy", "hard")):
            presenter = LabPresenter(
                lab, self.workbench, self._problems, self.theme, f"{name}.", self
            )
            presenter.chart.set_animation_enabled(self.animate_action.isChecked())
            presenter.chart.animation_ms = 2 * self.animation_step_ms
            presenter.chart.set_view(self.view, animate=False)
            self._connect_lab(presenter)
            presenters.append(presenter)
        self._compare = CompareView(presenters[0], presenters[1], self.theme)
        self._compare.set_narrated(self.lessons is not None and self.lessons.active)
        # The page fits a laptop screen (cards at their full height, the charts in the height
        # left; nothing inside it scrolls). Only a screen too small for even that (a large type
        # size on a small screen) scrolls the whole page, rather than squeezing its text.
        scroller = QScrollArea(objectName="compareScroll")
        scroller.setWidget(self._compare)
        scroller.setWidgetResizable(True)
        scroller.setFrameShape(QFrame.Shape.NoFrame)
        self.pages.addWidget(scroller)

    def _show_workspace(self, workspace: str) -> None:
        if workspace == COMPARE:
            page = self.compare_page
        elif workspace in (UPDATE, TRAINING):
            page = self._workspace_page(workspace)
        else:
            page = self.lab_page
        self.pages.setCurrentWidget(page)
        for name, built in self._workspace_pages.items():
            built.set_active(workspace == name)
        # Off its page the lab's own views wait, and catch up once on return.
        self.lab.set_suspended(workspace in (UPDATE, TRAINING))
        self._show_math(self.workbench.lab.snapshot)
        self.statusBar().showMessage(WORKSPACE_HINTS[workspace])
        self._enable_lab_controls(workspace != TRAINING)
        for action, name in zip(self.workspace_actions, (LAB, UPDATE, TRAINING, COMPARE)):
            if action.isChecked() != (workspace == name):
                action.setChecked(workspace == name)  # its toggled signal asks again: a no-op
        self._update_title()

    def _enable_lab_controls(self, enabled: bool) -> None:
        """The toolbar's group controls (presets, sample, G, rewards/advantages) and keys 1–9
        act on the lab's group: off while the Training run shows, where they would change an
        unseen group (the run has its own G)."""
        for action in (
            *self.preset_actions.values(),
            self.sample_action,
            self.reset_action,
            self.grow_action,
            self.shrink_action,
            self.view_toggle,
        ):
            action.setEnabled(enabled)
        if not enabled:
            self._drop_unconfirmed_group_size(self.workbench.active_lab.group_size)
        self.group_size_spin.setEnabled(enabled)
        self.group_size_tool.setVisible(enabled)  # the Training run shows its own G box
        self.by_hand_action.setEnabled(enabled)
        for shortcut in self.card_shortcuts:
            shortcut.setEnabled(enabled)
        self._show_group_size(self.workbench.active_lab.snapshot)  # a run's group stays its size

    def _show_math(self, snapshot: LabSnapshot) -> None:
        """The worked math follows the lab, except while another workspace hides it."""
        if self.workbench.workspace not in (UPDATE, TRAINING):
            self.math_panel.show_snapshot(snapshot)  # an unchanged computation costs nothing

    def _show_rewards(self, snapshot: LabSnapshot) -> None:
        """The Rewards tab follows the lab while it is the tab shown (a click costs it nothing
        otherwise)."""
        if self.explain_tabs.currentIndex() == EXPLANATION_TABS.index("rewards"):
            self._reward_panel().show_snapshot(snapshot)

    def _reward_panel(self) -> RewardPanel:
        """The Rewards tab's panel, built the first time the tab shows (start-up skips it)."""
        if self.reward_panel is None:
            from grpo_desktop.views.reward_panel import RewardPanel

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

    def _show_view(self, view: str, animate: bool) -> None:
        checked = view == "advantage"  # "Show advantages" is ticked exactly while A shows
        if self.view_toggle.isChecked() != checked:
            self.view_toggle.setChecked(checked)  # its toggled signal asks again: a no-op
        stepped = self._stepping
        for chart in self.charts:
            chart.set_view(view, animate=animate and chart.isVisible(), stepped=stepped)
        if stepped and any(chart.waiting() or chart.is_animating() for chart in self.charts):
            self.statusBar().showMessage(
                "Step 1 of 2 — Page Down: the next step; Page Up: back"
                if view == "advantage"
                else "Step 1 of 2 (reverse) — Page Up: the next step; Page Down: back"
            )

    def _show_convention(self, name: str) -> None:
        self.convention_combo.setCurrentIndex(self.convention_combo.findData(name))
        for action in self.convention_actions.actions():
            action.setChecked(action.data() == name)

    def _on_snapshot_changed(self, lab: LabState, snapshot: LabSnapshot) -> None:
        if lab is self.workbench.active_lab:
            self._show_group_size(snapshot)
            if self.by_hand_action.isChecked() != snapshot.by_hand:
                self.by_hand_action.setChecked(snapshot.by_hand)
        if snapshot.sample_seed is not None:
            self.statusBar().showMessage(
                f"Sampled with seed {snapshot.sample_seed}: each answer right with probability "
                f"{snapshot.problem.pass_rate:.0%} (replay it with --sample {snapshot.sample_seed})"
            )

    def _drop_unconfirmed_group_size(self, group_size: int) -> None:
        """Show ``group_size`` in the G box, dropping a value typed but not confirmed: disabling
        a spin box commits its text, so a G typed before a run's group opened (or before the
        Training run showed) would be asked for after, of a group that cannot take it (found by
        the soak)."""
        spin = self.group_size_spin
        shown = spin.textFromValue(group_size)
        if spin.isEnabled() and spin.lineEdit().text() != shown:
            spin.blockSignals(True)
            spin.lineEdit().setText(shown)
            spin.blockSignals(False)

    def _show_group_size(self, snapshot: LabSnapshot) -> None:
        """The G box shows the active lab without asking for a change itself."""
        if self.group_size_spin.value() != snapshot.group_size:  # Qt repaints it even if same
            self.group_size_spin.blockSignals(True)
            self.group_size_spin.setValue(snapshot.group_size)
            self.group_size_spin.blockSignals(False)
        resizable = snapshot.recorded is None and self.workbench.workspace != TRAINING
        if not resizable:
            self._drop_unconfirmed_group_size(snapshot.group_size)
        for control in (self.group_size_spin, self.grow_action, self.shrink_action):
            control.setEnabled(resizable)  # a run's group has the size the run sampled

    def _update_title(self, *_args: object) -> None:
        workspace = self.workbench.workspace
        subject = "Easy vs hard" if workspace == COMPARE else self.state.problem.title
        if workspace == UPDATE:
            subject = f"Update step · {subject}"
        elif workspace == TRAINING:
            subject = "Training run"
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
        """Bring the worked math (``"math"``) or "One model, not four" (``"ppo"``) to the front."""
        self.explain_tabs.setCurrentIndex(EXPLANATION_TABS.index(which))

    def highlight_target(self, name: str) -> QWidget | None:
        """The widget a lesson step rings: cards, stats, chart, banner, math, ppo or compare."""
        targets = {
            "cards": lambda: self.lab.trace_grid,
            "stats": lambda: self.lab.stats_panel,
            "chart": lambda: self.lab.chart,
            "banner": lambda: self.lab.banner,
            "math": lambda: self.explain_tabs,
            "ppo": lambda: self.explain_tabs,
            "compare": lambda: self.compare_page,
            "update": lambda: self.update_page,
            "tokens": lambda: self.update_page.rows,
            "push-chart": lambda: self.update_page.chart,
            "token-detail": lambda: self.update_page.detail,
            "update-controls": lambda: self.update_page.controls,
            "training": lambda: self.training_page,
            "training-charts": lambda: self.training_page.charts,
            "frontier": lambda: self.training_page.frontier,
            "training-controls": lambda: self.training_page.controls,
        }
        target = targets.get(name, lambda: None)()
        ringed = name == "math"  # ringed, every line of the worked math stays in view
        if ringed or self._math_ringed:
            self._math_ringed = ringed
            self._balance_right_column(self.explain_tabs.currentIndex())
        page = self._workspace_pages.get(UPDATE)
        if page is not None:
            page.reveal(target)  # a ringed chart must not sit scrolled out of view
        return target

    # --- look -------------------------------------------------------------------------------

    def apply_theme(self, theme: Theme) -> None:
        # Window background and label colours come from the application palette (stage
        # controls); a window-wide stylesheet would push every child onto Qt's slower style.
        self.theme = theme
        self.lab.set_theme(theme)
        self._balance_splitter()
        if self._compare is not None:
            self._compare.set_theme(theme)
        for page in self._workspace_pages.values():
            page.set_theme(theme)
        self.math_panel.set_theme(theme)
        self.ppo_panel.set_theme(theme)
        if self.reward_panel is not None:
            self.reward_panel.set_theme(theme)
        self.rollouts.set_theme(theme)
        if self.lessons is not None:
            self.lessons.set_theme(theme)

    def _balance_splitter(self) -> None:
        """Cards 60 %, chart and math 40 %: set on first show and whenever the type size changes
        (a larger zoom would otherwise hand the cards everything and squeeze the chart)."""
        total = sum(self.lab_splitter.sizes()) or self.lab_splitter.width()
        if total > 0:
            self.lab_splitter.setSizes([round(total * 0.6), total - round(total * 0.6)])

    def _balance_right_column(self, tab: int) -> None:
        """The worked math gets at least the height that shows all of it (its text grows into
        any more), the chart the rest but 50–60 % of the column (a small screen scrolls the
        math); the drawing tab gets 55 %. While a lesson rings the math it gets its whole height
        and the chart keeps a third: the class reads every line."""
        total = sum(self.right_splitter.sizes())
        if total <= 0:
            return
        if tab != EXPLANATION_TABS.index("math"):  # a drawing or the reward controls
            chart = round(total * 0.45)
        else:
            panel = self.math_panel
            tab_chrome = self.explain_tabs.height() - panel.height()
            need = panel.needed_height(panel.width()) + max(0, tab_chrome)
            # The chart keeps 50–60 %; a large screen's spare height fills the math's text.
            least = round(total * (MATH_FIRST_CHART_SHARE if self._math_ringed else 0.5))
            chart = max(least, min(round(total * 0.6), total - need))
        self.right_splitter.setSizes([chart, total - chart])

    def resizeEvent(self, event) -> None:  # Qt override
        super().resizeEvent(event)
        self.presentation.window_resized()  # the screen scale follows the window's size

    def showEvent(self, event) -> None:  # Qt override
        self.presentation.released = False  # shown again after a close: the look is its own
        super().showEvent(event)
        if not self._shown_once:
            self._shown_once = True
            self._balance_splitter()
            self._balance_right_column(self.explain_tabs.currentIndex())

    def show_shortcuts(self) -> None:
        from grpo_desktop.views.shortcuts_dialog import ShortcutsDialog  # loaded when first used

        ShortcutsDialog(self).exec()

    def closeEvent(self, event: QCloseEvent) -> None:  # Qt override
        if not self.document.confirm_discard():
            event.ignore()
            return
        training = self._workspace_pages.get(TRAINING)
        if training is not None:
            training.stop()  # a run playing when the window closes stops with it
        self.settings.geometry = self.saveGeometry()
        self.settings.sync()
        self.presentation.release()  # the application's font as this window found it
        event.accept()

    def _show_about(self) -> None:
        QMessageBox.about(
            self,
            f"About {APP_NAME}",
            f"<h3>{APP_NAME} {__version__}</h3>"
            "<p>A live lab for how GRPO scores a group of sampled answers: "
            "A<sub>i</sub> = (r<sub>i</sub> − mean) / std of the group's rewards.</p>"
            "<p><b>Where the numbers come from.</b> Every advantage is computed by "
            "<code>grpo_desktop.core</code>: the textbook convention (population std, as in the "
            "seeds' worked examples; DeepSeekMath does not say which std it uses) and the "
            "published code of TRL "
            "(<code>scale_rewards</code>), verl (<code>compute_grpo_outcome_advantage</code>) and "
            "OpenRLHF (<code>group_norm</code>, <code>rloo</code>, <code>dr_grpo</code>); the "
            "test suite checks them against those formulas.</p>"
            "<p>License: MIT. Works offline; never opens a network connection.</p>",
        )
