"""The lab window: builds the views, owns the actions, menus and undo stack, and wires signals.

One click end to end (DESIGN §2): a card emits ``toggle_requested(i)``; its ``LabPresenter``
pushes a command on the undo stack; the command changes the ``LabState``; the state emits one
snapshot; every view renders it.
"""

from __future__ import annotations

from PySide6.QtCore import Qt, QTimer
from PySide6.QtGui import (
    QAction,
    QActionGroup,
    QCloseEvent,
    QKeySequence,
    QShortcut,
    QUndoStack,
)
from PySide6.QtWidgets import (
    QComboBox,
    QFrame,
    QHBoxLayout,
    QLabel,
    QMainWindow,
    QMessageBox,
    QScrollArea,
    QSpinBox,
    QSplitter,
    QStackedWidget,
    QTabWidget,
    QToolBar,
    QVBoxLayout,
    QWidget,
)

from grpo_desktop import __version__, core
from grpo_desktop.core.problems import MAX_GROUP_SIZE, MIN_GROUP_SIZE, load_problems
from grpo_desktop.core.snapshot import LabSnapshot
from grpo_desktop.core.theme import LIGHT, Theme
from grpo_desktop.model import commands
from grpo_desktop.model.lab_state import EASY_PROBLEM_ID, HARD_PROBLEM_ID, PRESETS, LabState
from grpo_desktop.model.settings import AppSettings
from grpo_desktop.views.math_panel import MathPanel
from grpo_desktop.views.ppo_panel import PpoPanel
from grpo_desktop.views.shortcuts_dialog import ShortcutsDialog
from grpo_desktop.window.compare_page import EASY_REWARDS, HARD_REWARDS, CompareView
from grpo_desktop.window.lab_presenter import LabPresenter
from grpo_desktop.window.scenario_files import ScenarioFiles
from grpo_desktop.window.stage_controls import StageControls

APP_NAME = "GRPO Desktop"
PRESET_SHORTCUTS = ("Ctrl+1", "Ctrl+2", "Ctrl+3", "Ctrl+4", "Ctrl+5")
VIEWS = ("advantage", "reward")


class MainWindow(QMainWindow):
    """The lab: problem, stat tiles, trace cards, chart, worked math, and easy vs hard."""

    def __init__(
        self,
        state: LabState | None = None,
        theme: Theme = LIGHT,
        settings: AppSettings | None = None,
    ) -> None:
        super().__init__()
        self.setObjectName("mainWindow")
        self.settings = settings or AppSettings()
        self.theme = theme
        self.undo_stack = QUndoStack(self)
        self.next_sample_seed = 1
        problems = load_problems()

        self.state = state or LabState(parent=self)
        self.lab = LabPresenter(self.state, self.undo_stack, problems, theme, parent=self)
        self.active_pane = self.lab
        self._compare: CompareView | None = None  # built on first use: start-up stays quick
        self._view_animates = True
        self._shown_once = False
        self.lessons = None  # installed right after the first paint: install_deferred_features
        self.export_actions = None

        self.math_panel = MathPanel(theme)
        self.ppo_panel = PpoPanel(theme)
        self.group_size_spin = self._make_group_size_spin()
        self.convention_combo = self._make_convention_combo()
        self.pages = QStackedWidget(objectName="pages")
        self._build_lab_page()
        self._build_actions()
        self.presentation = StageControls(self, self.settings)
        self.document = ScenarioFiles(self, self.settings)
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
        self.statusBar().showMessage(
            "Click a card, or press its number 1–9, to mark it right or wrong."
        )
        if theme is not LIGHT:
            self.presentation.theme_name = theme.name
        self.presentation.apply()
        self.animate_action.setChecked(self.settings.animate)
        self._on_snapshot_changed(self.state.snapshot)
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
        for convention in core.CONVENTIONS.values():
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

        self.explain_tabs = QTabWidget(objectName="explainTabs")
        self.explain_tabs.addTab(self.math_panel, "Worked math")
        ppo_scroll = QScrollArea(objectName="ppoScroll")
        ppo_scroll.setWidget(self.ppo_panel)
        ppo_scroll.setWidgetResizable(True)
        ppo_scroll.setFrameShape(QFrame.Shape.NoFrame)
        self.explain_tabs.addTab(ppo_scroll, "One model, not four")
        right = QSplitter(Qt.Orientation.Vertical, objectName="rightColumn")
        self.right_splitter = right
        # The drawing needs more height than the worked math: give its tab the larger share.
        self.explain_tabs.currentChanged.connect(self._balance_right_column)
        right.addWidget(self.lab.chart)
        right.addWidget(self.explain_tabs)
        right.setStretchFactor(0, 3)
        right.setStretchFactor(1, 2)
        right.setChildrenCollapsible(False)

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
        column.addWidget(self.lab.banner)
        self.lab_page = page
        self.pages.addWidget(page)

    def _framed(self, content: QWidget) -> QWidget:
        central = QWidget(objectName="central")
        self.central_column = QVBoxLayout(central)  # bars (e.g. the lesson bar) go above pages
        self.central_column.setContentsMargins(10, 10, 10, 10)
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
        self.redo_action.setShortcuts(
            [QKeySequence(QKeySequence.StandardKey.Redo), QKeySequence("Ctrl+Shift+Z")]
        )
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

        self.view_toggle = self._action(
            "Show advantages",
            "viewToggle",
            "V",
            "Switch the chart between rewards r and advantages A (animated in two steps)",
        )
        self.view_toggle.setCheckable(True)
        self.view_toggle.setChecked(True)
        self.view_toggle.toggled.connect(self._on_view_toggled)
        self.animate_action = self._action(
            "Animate reward → advantage",
            "animateAction",
            tip="Animate the switch between rewards and advantages",
        )
        self.animate_action.setCheckable(True)
        self.animate_action.setChecked(True)
        self.animate_action.toggled.connect(self.set_animation_enabled)
        self.compare_action = self._action(
            "Easy vs hard, side by side",
            "compareAction",
            "Ctrl+E",
            "Two groups side by side: the same formula, two very different signals",
        )
        self.compare_action.setCheckable(True)
        self.compare_action.toggled.connect(self.show_compare)

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
            shortcut.activated.connect(lambda n=number: self.active_pane.request_toggle(n - 1))
            self.card_shortcuts.append(shortcut)

    def _build_menus_and_toolbar(self) -> None:
        menu_bar = self.menuBar()
        self.file_menu = menu_bar.addMenu("&File")
        self.document.add_to_menu(self.file_menu)
        self.file_menu.addSeparator()
        self.file_menu.addAction(self.quit_action)
        self.edit_menu = menu_bar.addMenu("&Edit")
        self.edit_menu.addAction(self.undo_action)
        self.edit_menu.addAction(self.redo_action)
        self.edit_menu.addSeparator()
        self.edit_menu.addAction(self.edit_problem_action)
        self.view_menu = menu_bar.addMenu("&View")
        self.view_menu.addAction(self.view_toggle)
        self.view_menu.addAction(self.animate_action)
        self.view_menu.addSeparator()
        self.view_menu.addAction(self.compare_action)
        self.view_menu.addSeparator()
        self.presentation.add_to_menu(self.view_menu)
        self.view_menu.addSeparator()
        convention_menu = self.view_menu.addMenu("Convention")
        self.convention_actions = QActionGroup(self)
        for convention in core.CONVENTIONS.values():
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

        toolbar = QToolBar("Presets", self, objectName="presetsToolbar")
        toolbar.setMovable(False)
        toolbar.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextOnly)
        for action in self.preset_actions.values():
            toolbar.addAction(action)
        toolbar.addAction(self.sample_action)
        toolbar.addSeparator()
        toolbar.addWidget(self._labelled("Group size G", self.group_size_spin))
        toolbar.addWidget(self._labelled("Convention", self.convention_combo))
        toolbar.addSeparator()
        toolbar.addAction(self.view_toggle)
        toolbar.addAction(self.compare_action)
        self.addToolBar(Qt.ToolBarArea.TopToolBarArea, toolbar)
        self.toolbar = toolbar

    @staticmethod
    def _labelled(text: str, field: QWidget) -> QWidget:
        box = QWidget()
        row = QHBoxLayout(box)
        row.setContentsMargins(8, 0, 8, 0)
        label = QLabel(text)
        label.setBuddy(field)
        row.addWidget(label)
        row.addWidget(field)
        return box

    def install_deferred_features(self) -> None:
        """Add the Lesson menu and the export actions (once)."""
        from grpo_desktop.window.export_controller import install_export_actions
        from grpo_desktop.window.lesson_controller import install_lesson_mode

        if self.export_actions is None:
            self.export_actions = install_export_actions(self)
        if self.lessons is None:
            self.lessons = install_lesson_mode(self)

    def _connect_pane(self, pane: LabPresenter) -> None:
        pane.state.snapshot_changed.connect(self._on_snapshot_changed)
        pane.state.problem_changed.connect(self._update_title)
        pane.activated.connect(self._set_active_pane)

    def _connect(self) -> None:
        self._connect_pane(self.lab)
        self.state.snapshot_changed.connect(self.math_panel.show_snapshot)
        self.math_panel.show_snapshot(self.state.snapshot)
        self.group_size_spin.valueChanged.connect(self.request_group_size)
        self.convention_combo.activated.connect(
            lambda index: self.request_convention(self.convention_combo.itemData(index))
        )
        self.undo_stack.cleanChanged.connect(self._update_title)
        self.document.path_changed.connect(self._update_title)

    # --- requests: each becomes one undoable command ----------------------------------------

    @property
    def compare_view(self) -> CompareView:
        """The easy-vs-hard page, built the first time it is needed."""
        if self._compare is None:
            problems = load_problems()
            panes = []
            for name, problem_id, rewards in (
                ("Easy", EASY_PROBLEM_ID, EASY_REWARDS),
                ("Hard", HARD_PROBLEM_ID, HARD_REWARDS),
            ):
                state = LabState(parent=self)
                state.set_problem(problem_id, rewards)
                state.set_convention(self.state.convention)
                pane = LabPresenter(
                    state, self.undo_stack, problems, self.theme, name, f"{name.lower()}.", self
                )
                pane.chart.set_animation_enabled(self.animate_action.isChecked())
                pane.chart.animation_ms = self.lab.chart.animation_ms
                pane.chart.set_view(self.view, animate=False)
                self._connect_pane(pane)
                panes.append(pane)
            self._compare = CompareView(panes[0], panes[1], self.theme)
            # Two labs need more room than one: on a small screen at a large type size the
            # page scrolls rather than squeezing its text or growing the window off the screen.
            scroller = QScrollArea(objectName="compareScroll")
            scroller.setWidget(self._compare)
            scroller.setWidgetResizable(True)
            scroller.setFrameShape(QFrame.Shape.NoFrame)
            self.pages.addWidget(scroller)
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
        """Every lab that exists: the main one, and the comparison's two once it was opened."""
        return (self.lab,) if self._compare is None else (self.lab, *self._compare.panes)

    @property
    def active_state(self) -> LabState:
        return self.active_pane.state

    def request_toggle(self, index: int) -> None:
        self.active_pane.request_toggle(index)

    def request_group_size(self, group_size: int) -> None:
        if group_size != self.active_state.group_size:
            self.undo_stack.push(commands.set_group_size(self.active_state, group_size))

    def request_preset(self, key: str) -> None:
        label = self.preset_actions[key].text()
        self.undo_stack.push(commands.apply_preset(self.active_state, key, label))

    def request_sample(self) -> None:
        seed = self.next_sample_seed
        self.next_sample_seed += 1
        self.undo_stack.push(commands.sample_group(self.active_state, seed))

    def request_reset(self) -> None:
        self.undo_stack.push(commands.reset_all(self.active_state))

    def request_problem(self, problem_id: str) -> None:
        self.active_pane.request_problem(problem_id)

    def request_edit_problem(self) -> None:
        """The lecturer writes a problem; the current lab switches to it as one undo step."""
        from grpo_desktop.views.problem_editor import edit_problem  # loaded when first used

        problem = edit_problem(self.active_state.problem, self)
        if problem is not None:
            title = f"Edit problem {problem.title}"
            self.undo_stack.push(commands.set_problem(self.active_state, problem, title))

    def request_convention(self, name: str) -> None:
        """One convention for every group on screen, as one undo step."""
        if all(pane.state.convention == name for pane in self.panes):
            return
        label = core.get_convention(name).label
        self.undo_stack.beginMacro(f"Convention {label}")
        for pane in self.panes:
            self.undo_stack.push(commands.set_convention(pane.state, name, label))
        self.undo_stack.endMacro()

    # --- views ------------------------------------------------------------------------------

    def set_view(self, view: str, animate: bool = True) -> None:
        """Rewards or advantages on every chart; the lab's own chart animates the change."""
        if view not in VIEWS:
            raise ValueError(f"unknown view {view!r}; choose one of: {', '.join(VIEWS)}")
        self._view_animates = animate
        try:
            if self.view_toggle.isChecked() != (view == "advantage"):
                self.view_toggle.setChecked(view == "advantage")  # renders via _on_view_toggled
            else:
                self._render_view()
        finally:
            self._view_animates = True

    @property
    def view(self) -> str:
        return "advantage" if self.view_toggle.isChecked() else "reward"

    def _on_view_toggled(self, checked: bool) -> None:
        self.view_toggle.setText("Show advantages" if checked else "Show rewards")
        self._render_view()

    def _render_view(self) -> None:
        for pane in self.panes:
            visible = pane.chart.isVisible()
            pane.chart.set_view(self.view, animate=self._view_animates and visible)

    def set_animation_enabled(self, enabled: bool) -> None:
        if self.animate_action.isChecked() != enabled:
            self.animate_action.setChecked(enabled)
            return
        self.settings.animate = enabled
        for pane in self.panes:
            pane.chart.set_animation_enabled(enabled)

    def show_compare(self, on: bool) -> None:
        if self.compare_action.isChecked() != on:
            self.compare_action.setChecked(on)
            return
        self.pages.setCurrentWidget(self.compare_page if on else self.lab_page)
        self._set_active_pane(self.easy if on else self.lab)

    def _set_active_pane(self, pane: LabPresenter) -> None:
        self.active_pane = pane
        self._sync_controls(pane.state.snapshot)
        self._update_title()

    # --- rendering --------------------------------------------------------------------------

    def _on_snapshot_changed(self, snapshot: LabSnapshot) -> None:
        if snapshot is self.active_state.snapshot:
            self._sync_controls(snapshot)
        if snapshot.sample_seed is not None:
            self.statusBar().showMessage(
                f"Sampled with seed {snapshot.sample_seed}: each answer right with probability "
                f"{snapshot.problem.pass_rate:.0%} (replay it with --sample {snapshot.sample_seed})"
            )

    def _sync_controls(self, snapshot: LabSnapshot) -> None:
        """Controls that show the active lab (G, convention) follow it without re-requesting."""
        for widget, setter, value in (
            (self.group_size_spin, self.group_size_spin.setValue, snapshot.group_size),
            (
                self.convention_combo,
                self.convention_combo.setCurrentIndex,
                self.convention_combo.findData(snapshot.convention.name),
            ),
        ):
            widget.blockSignals(True)
            setter(value)
            widget.blockSignals(False)
        for action in self.convention_actions.actions():
            action.setChecked(action.data() == snapshot.convention.name)

    def _update_title(self, *_args: object) -> None:
        subject = (
            "Easy vs hard"
            if self._compare is not None and self.pages.currentWidget() is not self.lab_page
            else self.state.problem.title
        )
        self.setWindowTitle(f"{subject} — {self.document.display_name}[*] — {APP_NAME}")
        self.setWindowModified(self.document.modified)

    def apply_theme(self, theme: Theme) -> None:
        # Window background and label colours come from the application palette (presentation.py);
        # a window-wide stylesheet would push every child onto Qt's slower stylesheet style.
        self.theme = theme
        self.lab.set_theme(theme)
        self._balance_splitter()
        if self._compare is not None:
            self._compare.set_theme(theme)
        self.math_panel.set_theme(theme)
        self.ppo_panel.set_theme(theme)
        if self.lessons is not None:
            self.lessons.set_theme(theme)

    def _balance_splitter(self) -> None:
        """Cards 60 %, chart and math 40 %: set on first show and whenever the type size changes
        (a larger zoom would otherwise hand the cards everything and squeeze the chart)."""
        total = sum(self.lab_splitter.sizes()) or self.lab_splitter.width()
        if total > 0:
            self.lab_splitter.setSizes([round(total * 0.6), total - round(total * 0.6)])

    def _balance_right_column(self, tab: int) -> None:
        total = sum(self.right_splitter.sizes())
        if total > 0:
            chart_share = 0.45 if tab == 1 else 0.6
            chart = round(total * chart_share)
            self.right_splitter.setSizes([chart, total - chart])

    def showEvent(self, event) -> None:  # Qt override
        super().showEvent(event)
        if not self._shown_once:
            self._shown_once = True
            self._balance_splitter()

    def show_shortcuts(self) -> None:
        ShortcutsDialog(self).exec()

    def closeEvent(self, event: QCloseEvent) -> None:  # Qt override
        if not self.document.confirm_discard():
            event.ignore()
            return
        self.settings.geometry = self.saveGeometry()
        self.settings.sync()
        event.accept()

    def _show_about(self) -> None:
        QMessageBox.about(
            self,
            f"About {APP_NAME}",
            f"<h3>{APP_NAME} {__version__}</h3>"
            "<p>A live lab for how GRPO scores a group of sampled answers: "
            "A<sub>i</sub> = (r<sub>i</sub> − mean) / std of the group's rewards.</p>"
            "<p><b>Where the numbers come from.</b> Every advantage is computed by "
            "<code>grpo_desktop.core</code>: the textbook convention (population std, as in "
            "DeepSeekMath and the book's worked examples) and the published code of TRL "
            "(<code>scale_rewards</code>), verl (<code>compute_grpo_outcome_advantage</code>) and "
            "OpenRLHF (<code>group_norm</code>, <code>rloo</code>, <code>dr_grpo</code>); the "
            "test suite checks them against those formulas.</p>"
            "<p>License: MIT. Works offline; never opens a network connection.</p>",
        )
