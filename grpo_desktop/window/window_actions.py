"""The main window's actions, menus, tool bar and workspace bar, built from data.

Each action is a ``QAction`` on the window (its shortcut works where no menu shows it) named for
automation (``sampleAction``, ``viewToggle``, ``labWorkspaceAction``…); the window connects
them to the workbench. The workspaces' actions come from :data:`WORKSPACE_ACTIONS`, one line per
workspace, in the order the View menu and the workspace bar list them.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QActionGroup, QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QMainWindow,
    QMenu,
    QMessageBox,
    QToolButton,
    QWidget,
)

from grpo_desktop import __version__
from grpo_desktop.core.formulas import advantages
from grpo_desktop.core.lab.reward_patterns import REWARD_PATTERNS
from grpo_desktop.model.settings import ANIMATION_STEP_CHOICES_MS
from grpo_desktop.model.workbench import COMPARE, LAB, TRAINING, UPDATE
from grpo_desktop.views.common.render_cache import CachedToolBar
from grpo_desktop.window.policy_menu import PolicyMenu
from grpo_desktop.window.presenter_view import PresenterMode

#: The window these build on: a ``MainWindow`` (not imported: it imports this module).
MainWindow = Any

__all__ = ["APP_NAME", "WORKSPACE_ACTIONS", "build_actions", "build_menus_and_toolbar"]

APP_NAME = "GRPO Desktop"
REWARD_PATTERN_SHORTCUTS = ("Ctrl+1", "Ctrl+2", "Ctrl+3", "Ctrl+4", "Ctrl+5")
#: workspace → (text, objectName, shortcut, tip), in the View menu's and the bar's order
WORKSPACE_ACTIONS = {
    LAB: ("Lab", "labWorkspaceAction", "Ctrl+L", "The group: its cards, par, std and advantages"),
    UPDATE: (
        "Update step",
        "updateWorkspaceAction",
        "Ctrl+U",
        "Each token's push under verl's, TRL's or OpenRLHF's loss, and the length bias",
    ),
    TRAINING: (
        "Training run",
        "trainingWorkspaceAction",
        "Ctrl+T",
        "A toy run over the problem library: algorithms side by side, and the learning "
        "frontier where groups stop teaching",
    ),
    COMPARE: (
        "Easy vs hard, side by side",
        "compareAction",
        "Ctrl+E",
        "Two groups side by side: the same formula, two very different signals",
    ),
}


def action(
    window: QMainWindow, text: str, name: str, shortcut: str | QKeySequence = "", tip: str = ""
) -> QAction:
    made = QAction(text, window, objectName=name)
    if shortcut:
        made.setShortcut(QKeySequence(shortcut))
    if tip:
        key = made.shortcut().toString(QKeySequence.SequenceFormat.NativeText)
        made.setToolTip(f"{tip} ({key})" if key else tip)
        made.setStatusTip(tip)
    window.addAction(made)  # shortcuts work even where no menu or toolbar shows it
    return made


def build_actions(window: MainWindow) -> None:
    """Every action of the window, connected to the workbench (through the window)."""
    workbench = window.workbench
    window.undo_action = workbench.undo_stack.createUndoAction(window, "&Undo")
    window.undo_action.setShortcut(QKeySequence.StandardKey.Undo)
    window.redo_action = workbench.undo_stack.createRedoAction(window, "&Redo")
    # Ctrl+Shift+Z and Ctrl+Y redo everywhere; the platform's own Redo is one of them on
    # Linux (xcb) and Windows, so each key is bound once: a key bound twice is an
    # "Ambiguous shortcut overload" and does nothing (DESIGN §3).
    redo_keys: list[QKeySequence] = []
    for key in (QKeySequence.StandardKey.Redo, "Ctrl+Shift+Z", "Ctrl+Y"):
        sequence = QKeySequence(key)
        if not sequence.isEmpty() and sequence not in redo_keys:
            redo_keys.append(sequence)
    window.redo_action.setShortcuts(redo_keys)
    window.reward_pattern_actions = {}
    for pattern, shortcut in zip(REWARD_PATTERNS, REWARD_PATTERN_SHORTCUTS):
        made = action(window, pattern.label, f"preset_{pattern.key}", shortcut, pattern.tooltip)
        made.triggered.connect(lambda _=False, p=pattern: window.request_reward_pattern(p.key))
        window.reward_pattern_actions[pattern.key] = made
    window.sample_action = action(
        window,
        "Sample a group",
        "sampleAction",
        "Ctrl+D",
        "Draw every answer right or wrong at the problem's pass rate, with a visible seed",
    )
    window.sample_action.triggered.connect(workbench.sample)
    window.reset_action = action(
        window, "Reset all", "resetAction", "Ctrl+R", "Back to this problem's own group"
    )
    window.reset_action.triggered.connect(workbench.reset)
    window.grow_action = action(window, "Larger group", "growAction", "]", "One more answer")
    window.grow_action.triggered.connect(lambda: window.group_size_spin.stepBy(1))
    window.shrink_action = action(window, "Smaller group", "shrinkAction", "[", "One answer fewer")
    window.shrink_action.triggered.connect(lambda: window.group_size_spin.stepBy(-1))

    window.by_hand_action = action(
        window,
        "Set rewards by hand (continuous)",
        "byHandAction",
        "Ctrl+Shift+R",
        "Drag each card's reward sideways (or press + / −) instead of computing it",
    )
    window.by_hand_action.setCheckable(True)
    window.by_hand_action.toggled.connect(
        lambda on: workbench.set_by_hand(on, workbench.active_lab)
    )

    window.view_toggle = action(
        window,
        "Show advantages",  # checked while the chart shows A, as the View menu ticks it
        "viewToggle",
        "V",
        "Switch the chart between rewards r and advantages A (animated in two steps; Page "
        "Down / Page Up take one step at a time)",
    )
    window.view_toggle.setIconText("Advantages A")  # the tool bar's button: pressed = A shown
    window.view_toggle.setCheckable(True)
    window.view_toggle.setChecked(True)
    window.view_toggle.toggled.connect(
        lambda checked: workbench.set_view("advantage" if checked else "reward")
    )
    window.animate_action = action(
        window,
        "Animate reward → advantage",
        "animateAction",
        tip="Animate the switch between rewards and advantages",
    )
    window.animate_action.setCheckable(True)
    window.animate_action.setChecked(True)
    window.animate_action.toggled.connect(window.set_animation_enabled)
    window.animation_step_actions = QActionGroup(window)
    for ms in ANIMATION_STEP_CHOICES_MS:
        step = QAction(f"{ms / 1000:g} s per step", window, checkable=True)
        step.setObjectName(f"animationStep{ms}")
        step.setData(ms)
        step.setStatusTip(
            f"Each captioned step of the reward → advantage animation lasts {ms / 1000:g} s"
        )
        window.animation_step_actions.addAction(step)
    window.animation_step_actions.triggered.connect(
        lambda chosen: window.set_animation_step_ms(int(chosen.data()))
    )
    window.workspace_action = {}
    for name, (text, object_name, shortcut, tip) in WORKSPACE_ACTIONS.items():
        made = action(window, text, object_name, shortcut, tip)
        made.setCheckable(True)
        made.setChecked(name == workbench.workspace)
        made.toggled.connect(lambda on, chosen=name: window.toggle_workspace(chosen, on))
        window.workspace_action[name] = made
    window.lab_action = window.workspace_action[LAB]
    window.update_action = window.workspace_action[UPDATE]
    window.training_action = window.workspace_action[TRAINING]
    window.compare_action = window.workspace_action[COMPARE]

    window.edit_problem_action = action(
        window,
        "Edit &problem…",
        "editProblemAction",
        "Ctrl+Shift+E",
        "Write your own prompt, answer key and traces; the checker grades them live",
    )
    window.edit_problem_action.triggered.connect(lambda: edit_problem(window))
    window.shortcuts_action = action(
        window, "&Keyboard shortcuts", "shortcutsAction", "F1", "Every key and what it does"
    )
    window.shortcuts_action.setShortcuts([QKeySequence("F1"), QKeySequence("?")])
    window.shortcuts_action.triggered.connect(lambda: show_shortcuts(window))
    window.describe_action = action(
        window,
        "&Describe the group",
        "describeAction",
        "Ctrl+Shift+D",
        "The group in one paragraph: par, std, who is pushed up and down, and why "
        "(also read out by a screen reader)",
    )
    window.describe_action.triggered.connect(lambda: describe_group(window))
    workbench.card_toggled.connect(
        lambda lab, index, before: announce_toggle(window, lab, index, before)
    )
    window.quit_action = action(window, "&Quit", "quitAction", "Ctrl+Q")
    window.quit_action.triggered.connect(window.close)
    window.about_action = action(window, f"&About {APP_NAME}", "aboutAction")
    window.about_action.triggered.connect(lambda: show_about(window))

    window.card_shortcuts = []
    for number in range(1, 10):
        shortcut = QShortcut(QKeySequence(str(number)), window)
        shortcut.activated.connect(lambda n=number: workbench.toggle(n - 1))
        window.card_shortcuts.append(shortcut)


def take_one_step(window: MainWindow) -> None:
    """The Lab's One step tab, with the step taken (from any workspace: it is the Lab's group)."""
    window.workbench.set_workspace(LAB)
    window.lab_page.take_one_step()


def open_experiment_dialog(window: MainWindow) -> None:
    from grpo_desktop.window.experiment_dialog import open_experiment  # loads on first use

    open_experiment(window)


def build_menus_and_toolbar(window: MainWindow) -> None:
    """File, Edit, View, Presets and Help; the Presets tool bar; the workspace bar."""
    menu_bar = window.menuBar()
    window.file_menu = menu_bar.addMenu("&File")
    window.document.add_to_menu(window.file_menu)
    window.file_menu.addSeparator()
    window.rollouts.add_to_menu(window.file_menu)
    window.policy_menu = PolicyMenu(window)
    window.file_menu.addAction(window.policy_menu.open_model_action)
    window.file_menu.addSeparator()
    window.file_menu.addAction(window.quit_action)
    window.edit_menu = menu_bar.addMenu("&Edit")
    window.edit_menu.addAction(window.undo_action)
    window.edit_menu.addAction(window.redo_action)
    window.edit_menu.addSeparator()
    window.edit_menu.addAction(window.edit_problem_action)
    window.edit_menu.addAction(window.by_hand_action)
    window.view_menu = menu_bar.addMenu("&View")
    window.view_menu.addAction(window.view_toggle)
    window.view_menu.addAction(window.animate_action)
    step_menu = window.view_menu.addMenu("Animation step")
    step_menu.setObjectName("animationStepMenu")
    step_menu.setToolTipsVisible(True)
    for step in window.animation_step_actions.actions():
        step_menu.addAction(step)
    window.animation_step_menu = step_menu
    window.view_menu.addSeparator()
    for workspace in window.workspace_actions:
        window.view_menu.addAction(workspace)
    window.experiment_action = action(
        window,
        "Experiment…",
        "experimentAction",
        tip="Sweep one setting of the Training run (G, learning rate, β, algorithm, convention) "
        "over the seeds: a table, a chart and a CSV",
    )
    window.experiment_action.triggered.connect(lambda: open_experiment_dialog(window))
    window.view_menu.addAction(window.experiment_action)
    window.view_menu.addSeparator()
    window.presentation.add_to_menu(window.view_menu)
    window.presenter = PresenterMode(window)
    window.presenter_action = action(
        window,
        "Presenter view",
        "presenterAction",
        "F5",
        "The room sees the lab without menus (on the second screen when there is one); you see "
        "the lesson's notes, the next step and a timer",
    )
    window.presenter_action.setCheckable(True)
    window.presenter_action.triggered.connect(lambda _on=False: window.presenter.toggle())
    window.presenter.active_changed.connect(window.presenter_action.setChecked)
    window.view_menu.addAction(window.presenter_action)
    window.view_menu.addSeparator()
    window.policy_menu.add_to_menu(window.view_menu)
    convention_menu = window.view_menu.addMenu("Convention")
    window.convention_actions = QActionGroup(window)
    for convention in advantages.CONVENTIONS.values():
        choice = QAction(convention.label, window, checkable=True)
        choice.setData(convention.name)
        choice.setStatusTip(f"{convention.formula} — {convention.source}")
        window.convention_actions.addAction(choice)
        convention_menu.addAction(choice)
    window.convention_actions.triggered.connect(
        lambda chosen: window.request_convention(chosen.data())
    )
    presets_menu = menu_bar.addMenu("&Presets")
    presets_menu.setObjectName("presetsMenu")
    for pattern in window.reward_pattern_actions.values():
        presets_menu.addAction(pattern)
    presets_menu.addSeparator()
    presets_menu.addAction(window.sample_action)
    window.sample_model_action = action(
        window,
        "Sample from the tiny model…",
        "sampleModelAction",
        tip="G real answers to a prompt you type, written by the shipped 107,820-parameter model",
    )

    def sample_from_model() -> None:
        from grpo_desktop.window.model_sampling import open_model_sampling  # loads on first use

        open_model_sampling(window)

    window.sample_model_action.triggered.connect(sample_from_model)
    presets_menu.addAction(window.sample_model_action)
    window.take_step_action = action(
        window,
        "Take one step",
        "takeOneStepAction",
        "Ctrl+K",
        "One GRPO update on the Lab's group: each answer's probability before and after",
    )
    window.take_step_action.triggered.connect(lambda: take_one_step(window))
    presets_menu.addAction(window.take_step_action)
    presets_menu.addSeparator()
    presets_menu.addAction(window.grow_action)
    presets_menu.addAction(window.shrink_action)
    presets_menu.addAction(window.reset_action)
    window.help_menu = menu_bar.addMenu("&Help")
    window.help_menu.addAction(window.shortcuts_action)
    window.help_menu.addAction(window.describe_action)
    window.help_menu.addAction(window.about_action)

    toolbar = CachedToolBar("Presets", window, objectName="presetsToolbar")
    toolbar.setMovable(False)
    toolbar.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextOnly)
    # Short toolbar labels (menus, tooltips and F1 keep the full names) so every action fits
    # a 1024-px-wide projector without hiding behind the toolbar's » overflow.
    for shown, short in (
        (window.reward_pattern_actions["easy"], "Easy"),
        (window.reward_pattern_actions["hard"], "Hard"),
        (window.sample_action, "Sample"),
        (window.compare_action, "Easy vs hard"),
    ):
        shown.setIconText(short)
    for preset in window.reward_pattern_actions.values():
        toolbar.addAction(preset)
    toolbar.addAction(window.sample_action)
    toolbar.addSeparator()
    # The lab's G: hidden while the Training run shows, which has its own G box.
    window.group_size_tool = toolbar.addWidget(labelled("G", window.group_size_spin))
    toolbar.addWidget(labelled("Convention", window.convention_combo))
    toolbar.addSeparator()
    toolbar.addAction(window.view_toggle)
    toolbar.addAction(window.compare_action)
    window.addToolBar(Qt.ToolBarArea.TopToolBarArea, toolbar)
    window.toolbar = toolbar
    window.statusBar().addPermanentWidget(workspace_bar(window.workspace_actions))


def workspace_bar(actions: tuple[QAction, ...]) -> QWidget:
    """Large labelled buttons for the workspaces, bottom right (PhET's screen bar)."""
    bar = QWidget(objectName="workspaceBar")
    row = QHBoxLayout(bar)
    row.setContentsMargins(0, 0, 4, 0)
    row.setSpacing(2)
    row.addWidget(QLabel("Workspace:"))
    for workspace in actions:
        button = QToolButton(bar)
        button.setDefaultAction(workspace)
        button.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextOnly)
        button.setAutoRaise(True)
        button.setObjectName(f"{workspace.objectName()}Button")
        row.addWidget(button)
    return bar


def labelled(text: str, field: QWidget) -> QWidget:
    box = QWidget()
    row = QHBoxLayout(box)
    row.setContentsMargins(6, 0, 6, 0)
    label = QLabel(text)
    label.setBuddy(field)
    row.addWidget(label)
    row.addWidget(field)
    return box


def show_about(window: MainWindow) -> None:
    QMessageBox.about(
        window,
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


def describe_group(window: MainWindow) -> None:
    """Help ▸ Describe: the active group in one paragraph, shown and read out at once."""
    from grpo_desktop.core.files.describe import describe_lab
    from grpo_desktop.views.common.announce import announce

    text = describe_lab(window.workbench.active_lab.snapshot)
    announce(window, text, assertive=True)
    box = QMessageBox(QMessageBox.Icon.NoIcon, "Describe the group", text, parent=window)
    box.setObjectName("describeBox")
    box.setTextFormat(Qt.TextFormat.PlainText)  # a prompt from a file is shown as plain text
    box.exec()


def announce_toggle(window: MainWindow, lab, index: int, before) -> None:
    """A screen reader hears what one toggle changed ("Card 3 now right. Par 0.75, …"), once
    per toggle however it was made (a click, keys 1–9, the card's accessible action)."""
    from grpo_desktop.views.common import accessible_events

    if not accessible_events.wanted():  # no screen reader: nothing is written on the click
        return
    from grpo_desktop.core.files.describe import announce_toggle as sentence
    from grpo_desktop.views.common.announce import announce

    announce(window, sentence(before, lab.snapshot, index))


def edit_problem(window: MainWindow) -> None:
    """The lecturer writes a problem; the active lab switches to it as one undo step."""
    from grpo_desktop.views.lab.problem_editor import edit_problem as ask  # loaded when first used

    problem = ask(window.workbench.active_lab.problem, window)
    if problem is not None:
        window.workbench.set_problem(problem)


def place_export_actions(window: MainWindow, exports) -> None:
    """File ▸ Export (before Quit) and Edit ▸ Copy image."""
    menu = QMenu("&Export", window, objectName="exportMenu")
    for made in exports.file_actions:
        menu.addAction(made)
    window.file_menu.insertMenu(window.quit_action, menu)
    window.file_menu.insertSeparator(window.quit_action)
    exports.export_menu = menu
    window.edit_menu.addSeparator()
    window.edit_menu.addAction(exports.copy_action)


def show_shortcuts(window: MainWindow) -> None:
    from grpo_desktop.views.common.shortcuts_dialog import ShortcutsDialog  # loaded when first used

    ShortcutsDialog(window).exec()
