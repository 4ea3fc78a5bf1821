"""The lab window: builds the views, owns the actions, menus and undo stack, and wires signals.

One click end to end (DESIGN §2): a card emits ``toggle_requested(i)``; the window pushes a command
on the undo stack; the command changes ``LabState``; the state emits one snapshot; every view
renders it.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QKeySequence, QShortcut, QUndoStack
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QMainWindow,
    QSpinBox,
    QSplitter,
    QToolBar,
    QVBoxLayout,
    QWidget,
)

from grpo_desktop import commands
from grpo_desktop.problems import MAX_GROUP_SIZE, MIN_GROUP_SIZE, load_problems
from grpo_desktop.snapshot import LabSnapshot
from grpo_desktop.state import PRESETS, LabState
from grpo_desktop.theme import LIGHT, Theme
from grpo_desktop.widgets.advantage_chart import AdvantageChart
from grpo_desktop.widgets.degenerate_banner import DegenerateBanner
from grpo_desktop.widgets.problem_panel import ProblemPanel
from grpo_desktop.widgets.stats_panel import StatsPanel
from grpo_desktop.widgets.trace_grid import TraceGrid

APP_NAME = "GRPO Desktop"
PRESET_SHORTCUTS = ("Ctrl+1", "Ctrl+2", "Ctrl+3", "Ctrl+4", "Ctrl+5")


class MainWindow(QMainWindow):
    """The lab: problem, stat tiles, trace cards, advantage chart and degenerate banner."""

    def __init__(self, state: LabState | None = None, theme: Theme = LIGHT) -> None:
        super().__init__()
        self.setObjectName("mainWindow")
        self.state = state or LabState(parent=self)
        self.theme = theme
        self.undo_stack = QUndoStack(self)
        self.next_sample_seed = 1

        self.problem_panel = ProblemPanel(load_problems(), theme)
        self.stats_panel = StatsPanel(theme)
        self.trace_grid = TraceGrid(theme)
        self.chart = AdvantageChart(theme)
        self.banner = DegenerateBanner(theme)
        self.group_size_spin = self._make_group_size_spin()
        self._build_layout()
        self._build_actions()
        self._build_menus_and_toolbar()
        self._connect()
        self.statusBar().showMessage(
            "Click a card, or press its number 1–9, to mark it right or wrong."
        )
        self.apply_theme(theme)
        self._on_problem_changed(self.state.problem)
        self._on_snapshot_changed(self.state.snapshot)
        self.resize(1280, 800)

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

    def _build_layout(self) -> None:
        left = QWidget(objectName="groupColumn")
        left_column = QVBoxLayout(left)
        left_column.setContentsMargins(0, 0, 0, 0)
        left_column.setSpacing(8)
        left_column.addWidget(self.stats_panel)
        left_column.addWidget(self.trace_grid, 1)

        splitter = QSplitter(Qt.Orientation.Horizontal, objectName="labSplitter")
        splitter.addWidget(left)
        splitter.addWidget(self.chart)
        splitter.setStretchFactor(0, 3)
        splitter.setStretchFactor(1, 2)
        splitter.setChildrenCollapsible(False)
        self.chart.setMinimumWidth(280)
        left.setMinimumWidth(420)

        central = QWidget(objectName="central")
        column = QVBoxLayout(central)
        column.setContentsMargins(10, 10, 10, 10)
        column.setSpacing(8)
        column.addWidget(self.problem_panel)
        column.addWidget(splitter, 1)
        column.addWidget(self.banner)
        self.setCentralWidget(central)

    def _build_actions(self) -> None:
        self.undo_action = self.undo_stack.createUndoAction(self, "&Undo")
        self.undo_action.setShortcut(QKeySequence.StandardKey.Undo)
        self.redo_action = self.undo_stack.createRedoAction(self, "&Redo")
        self.redo_action.setShortcuts(
            [QKeySequence(QKeySequence.StandardKey.Redo), QKeySequence("Ctrl+Shift+Z")]
        )
        self.preset_actions: dict[str, QAction] = {}
        for preset, shortcut in zip(PRESETS, PRESET_SHORTCUTS):
            action = QAction(preset.label, self, objectName=f"preset_{preset.key}")
            action.setShortcut(QKeySequence(shortcut))
            action.setToolTip(f"{preset.tooltip} ({shortcut})")
            action.setStatusTip(preset.tooltip)
            action.triggered.connect(lambda _=False, p=preset: self.request_preset(p.key))
            self.preset_actions[preset.key] = action
        self.sample_action = QAction("Sample a group", self, objectName="sampleAction")
        self.sample_action.setShortcut(QKeySequence("Ctrl+D"))
        self.sample_action.setToolTip(
            "Draw every answer right or wrong at the problem's pass rate, with a visible seed "
            "(Ctrl+D)"
        )
        self.sample_action.triggered.connect(self.request_sample)
        self.reset_action = QAction("Reset all", self, objectName="resetAction")
        self.reset_action.setShortcut(QKeySequence("Ctrl+R"))
        self.reset_action.setToolTip("Back to this problem's own group (Ctrl+R)")
        self.reset_action.triggered.connect(
            lambda: self.undo_stack.push(commands.reset_all(self.state))
        )
        self.grow_action = QAction("Larger group", self, shortcut=QKeySequence("]"))
        self.grow_action.triggered.connect(lambda: self.group_size_spin.stepBy(1))
        self.shrink_action = QAction("Smaller group", self, shortcut=QKeySequence("["))
        self.shrink_action.triggered.connect(lambda: self.group_size_spin.stepBy(-1))
        self.quit_action = QAction("&Quit", self, shortcut=QKeySequence.StandardKey.Quit)
        self.quit_action.triggered.connect(self.close)
        self.about_action = QAction(f"&About {APP_NAME}", self)
        self.about_action.triggered.connect(self._show_about)

        self.card_shortcuts = []
        for number in range(1, 10):
            shortcut = QShortcut(QKeySequence(str(number)), self)
            shortcut.activated.connect(lambda n=number: self.request_toggle(n - 1))
            self.card_shortcuts.append(shortcut)

    def _build_menus_and_toolbar(self) -> None:
        menu_bar = self.menuBar()
        file_menu = menu_bar.addMenu("&File")
        file_menu.addAction(self.quit_action)
        edit_menu = menu_bar.addMenu("&Edit")
        edit_menu.addAction(self.undo_action)
        edit_menu.addAction(self.redo_action)
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
        help_menu = menu_bar.addMenu("&Help")
        help_menu.addAction(self.about_action)

        toolbar = QToolBar("Presets", self, objectName="presetsToolbar")
        toolbar.setMovable(False)
        toolbar.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextOnly)
        for action in self.preset_actions.values():
            toolbar.addAction(action)
        toolbar.addAction(self.sample_action)
        toolbar.addSeparator()
        group_box = QWidget()
        group_row = QHBoxLayout(group_box)
        group_row.setContentsMargins(8, 0, 8, 0)
        group_label = QLabel("Group size G")
        group_label.setBuddy(self.group_size_spin)
        group_row.addWidget(group_label)
        group_row.addWidget(self.group_size_spin)
        toolbar.addWidget(group_box)
        self.addToolBar(Qt.ToolBarArea.TopToolBarArea, toolbar)
        self.toolbar = toolbar

    def _connect(self) -> None:
        self.state.snapshot_changed.connect(self._on_snapshot_changed)
        self.state.problem_changed.connect(self._on_problem_changed)
        self.trace_grid.toggle_requested.connect(self.request_toggle)
        self.group_size_spin.valueChanged.connect(self.request_group_size)
        self.problem_panel.problem_requested.connect(self.request_problem)

    # --- requests from the views: each becomes one undoable command -------------------------

    def request_toggle(self, index: int) -> None:
        if 0 <= index < self.state.group_size:
            self.undo_stack.push(commands.toggle_trace(self.state, index))

    def request_group_size(self, group_size: int) -> None:
        if group_size != self.state.group_size:
            self.undo_stack.push(commands.set_group_size(self.state, group_size))

    def request_preset(self, key: str) -> None:
        label = self.preset_actions[key].text()
        self.undo_stack.push(commands.apply_preset(self.state, key, label))

    def request_sample(self) -> None:
        seed = self.next_sample_seed
        self.next_sample_seed += 1
        self.undo_stack.push(commands.sample_group(self.state, seed))

    def request_problem(self, problem_id: str) -> None:
        if problem_id != self.state.problem.id:
            title = next(p.title for p in load_problems() if p.id == problem_id)
            self.undo_stack.push(commands.set_problem(self.state, problem_id, title))

    # --- rendering --------------------------------------------------------------------------

    def _on_problem_changed(self, problem) -> None:
        self.problem_panel.show_problem(problem)
        self.setWindowTitle(f"{problem.title} — {APP_NAME}")

    def _on_snapshot_changed(self, snapshot: LabSnapshot) -> None:
        if self.group_size_spin.value() != snapshot.group_size:
            self.group_size_spin.blockSignals(True)
            self.group_size_spin.setValue(snapshot.group_size)
            self.group_size_spin.blockSignals(False)
        self.stats_panel.show_snapshot(snapshot)
        self.trace_grid.show_snapshot(snapshot)
        self.chart.show_snapshot(snapshot)
        self.banner.show_snapshot(snapshot)
        if snapshot.sample_seed is not None:
            self.statusBar().showMessage(
                f"Sampled with seed {snapshot.sample_seed}: each answer right with probability "
                f"{snapshot.problem.pass_rate:.0%} (replay it with --sample {snapshot.sample_seed})"
            )

    def apply_theme(self, theme: Theme) -> None:
        self.theme = theme
        self.setStyleSheet(
            f"QMainWindow, #central {{ background: {theme.window}; }}"
            f"#central QLabel {{ color: {theme.text}; }}"
        )
        for view in (
            self.problem_panel,
            self.stats_panel,
            self.trace_grid,
            self.chart,
            self.banner,
        ):
            view.set_theme(theme)

    def _show_about(self) -> None:
        from PySide6.QtWidgets import QMessageBox

        from grpo_desktop import __version__

        QMessageBox.about(
            self,
            f"About {APP_NAME}",
            f"<h3>{APP_NAME} {__version__}</h3>"
            "<p>A live lab for how GRPO scores a group of sampled answers: "
            "A<sub>i</sub> = (r<sub>i</sub> − mean) / std of the group's rewards.</p>"
            "<p>Conventions follow the textbook (population std) and the published code of TRL, "
            "verl and OpenRLHF. Works offline; never opens a network connection.</p>",
        )
