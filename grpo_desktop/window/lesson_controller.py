"""Lesson mode: a lecturer pages through a scripted lesson with a clicker (Page Down / Page Up).

The :class:`LessonController` adds a Lesson menu, a :class:`~grpo_desktop.views.common.lesson_bar.
LessonBar` above the workspaces and a :class:`~grpo_desktop.views.common.spotlight.Spotlight`. Each
step
goes through the workbench: it puts the step's group(s) and convention on screen (a fresh
history: a step is not an edit to undo), picks the chart's view, optionally hides the advantages
until the lecturer reveals them (predict, then reveal), and rings the part of the window the step
talks about. An update step shows the Update workspace with the step's settings (the window builds
that page the first time it is asked for it) and rings one of its parts: the token rows, the push
chart, the token's computation or the controls. A training step shows the Training workspace
(built on demand too) with the step's run restarted and computed to its ``training_steps``, the
step's metric on the second chart and its focus on the frontier's dots (``TrainingState.
show_step``: the lesson talks to the model, not to the page), and rings the charts, the frontier
or the controls (the window asks the workspaces for the part, and each keeps it in view). It asks
the window only what :class:`LessonWindow` lists.

Keys: Page Down / Page Up step through a lesson (Right/Down and Left/Up too, but only while a lesson
runs: outside one the arrows move between cards); R reveals; Escape leaves the lesson. Outside a
lesson a clicker still does something useful: Page Down shows advantages, Page Up rewards; in the
Training run Page Down takes one training step (Page Up does nothing there: the lab's view it
would change is not on screen). The Training run's own keys live here too, beside the clicker
they share Page Down with: P plays or pauses, S takes one step, Ctrl+R resets the run (the lab's
Ctrl+R is off while the Training run shows). Each is an action of the window, enabled only while
the Training run shows, so F1 lists it and no key is bound twice. With motion reduced (View ▸ Reduce
motion) P advances the run by the speed's steps at once instead of playing it.

A screen reader hears each step's title and text once as the step shows (a polite announcement,
``views.common.announce``). The spotlight's ring jumps to its part (it never slides), and the
chart's view change follows the motion preference (instant steps when motion is reduced).
"""

from __future__ import annotations

from typing import Protocol

from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QMenu, QMessageBox, QStatusBar, QWidget

from grpo_desktop.core.common.theme import Theme
from grpo_desktop.core.files.lessons import (
    Lesson,
    LessonError,
    LessonStep,
    get_lesson,
    load_lessons,
)
from grpo_desktop.model.workbench import TRAINING, Workbench
from grpo_desktop.model.workspaces import WorkspaceStates
from grpo_desktop.views.common.announce import announce
from grpo_desktop.views.common.lesson_bar import FINISH_TEXT, NEXT_TEXT, LessonBar, plain_text
from grpo_desktop.views.common.spotlight import Spotlight
from grpo_desktop.window.lesson_runs_ahead import LessonRunsAhead
from grpo_desktop.window.worksheet_dialog import add_worksheet_action

__all__ = ["FINISH_TEXT", "NEXT_TEXT", "LessonController", "LessonWindow"]


class LessonWindow(Protocol):
    """What a lesson asks of the window it runs in."""

    theme: Theme

    def add_top_bar(self, bar: QWidget) -> None: ...

    def insert_menu(self, menu: QMenu) -> None: ...

    def show_explanation(self, which: str) -> None: ...

    def highlight_target(self, name: str) -> QWidget | None: ...

    def centralWidget(self) -> QWidget: ...

    def statusBar(self) -> QStatusBar: ...

    def addAction(self, action: QAction) -> None: ...

    def step_chart(self, forward: bool) -> bool: ...


NEXT_KEYS = (QKeySequence(Qt.Key.Key_PageDown),)
PREVIOUS_KEYS = (QKeySequence(Qt.Key.Key_PageUp),)
# Some clickers send arrows instead of Page Down / Page Up; only during a lesson, since outside
# one the arrows move keyboard focus between cards.
NEXT_LESSON_KEYS = (*NEXT_KEYS, QKeySequence(Qt.Key.Key_Right), QKeySequence(Qt.Key.Key_Down))
PREVIOUS_LESSON_KEYS = (*PREVIOUS_KEYS, QKeySequence(Qt.Key.Key_Left), QKeySequence(Qt.Key.Key_Up))
REVEAL_KEY = QKeySequence(Qt.Key.Key_R)
TRAINING_PLAY_KEY = QKeySequence(Qt.Key.Key_P)
TRAINING_STEP_KEY = QKeySequence(Qt.Key.Key_S)
TRAINING_RESET_KEY = QKeySequence("Ctrl+R")  # the lab's "Reset all", off while Training shows
EXIT_KEY = QKeySequence(Qt.Key.Key_Escape)


def key_names(sequences: list[QKeySequence] | tuple[QKeySequence, ...]) -> str:
    """``"PgDown, Right or Down"``: the keys as the platform writes them."""
    names = [seq.toString(QKeySequence.SequenceFormat.NativeText) for seq in sequences]
    names = [name for name in names if name]
    if len(names) <= 1:
        return "".join(names)
    return f"{', '.join(names[:-1])} or {names[-1]}"


class LessonController(QObject):
    """Runs one lesson at a time in ``window``: steps, reveal, highlight, menu and keys."""

    step_changed = Signal(int)  # the step index shown (0-based)
    active_changed = Signal(bool)

    def __init__(self, window: LessonWindow, workbench: Workbench, states: WorkspaceStates) -> None:
        super().__init__(window)
        self.setObjectName("lessonController")
        self.window = window
        self.workbench = workbench
        self.states = states
        self._lesson: Lesson | None = None
        self._index = 0
        self.runs_ahead = LessonRunsAhead(self)
        try:
            self.lessons: tuple[Lesson, ...] = load_lessons()
            self.load_error = ""
        except LessonError as exc:  # a broken install: the lab still works, the menu says why
            self.lessons = ()
            self.load_error = str(exc)

        self.bar = LessonBar(window.theme)
        self.bar.hide()
        window.add_top_bar(self.bar)
        self.spotlight = Spotlight(window.centralWidget(), window.theme)

        self._build_actions()
        self._build_menu()
        self.bar.previous_requested.connect(self.previous)
        self.bar.next_requested.connect(self.next)
        self.bar.reveal_requested.connect(self.reveal)
        self.bar.exit_requested.connect(self.exit)
        self._set_tooltips()
        self._sync_enabled()

    # --- construction -----------------------------------------------------------------------

    def _action(self, text: str, name: str, keys: tuple[QKeySequence, ...], tip: str) -> QAction:
        action = QAction(text, self.window, objectName=name)
        action.setShortcuts(list(keys))
        action.setStatusTip(tip)
        self.window.addAction(action)  # the keys work with the menu closed
        return action

    def _build_actions(self) -> None:
        self.next_action = self._action(
            "&Next step", "lessonNextAction", NEXT_KEYS, "Go to the lesson's next step"
        )
        self.next_action.triggered.connect(self.next)
        self.previous_action = self._action(
            "&Previous step",
            "lessonPreviousAction",
            PREVIOUS_KEYS,
            "Go back to the lesson's previous step",
        )
        self.previous_action.triggered.connect(self.previous)
        self.reveal_action = self._action(
            "&Reveal advantages",
            "lessonRevealAction",
            (REVEAL_KEY,),
            "Show the advantages the class has just predicted",
        )
        self.reveal_action.triggered.connect(self.reveal)
        self.exit_action = self._action(
            "E&xit lesson",
            "lessonExitAction",
            (EXIT_KEY,),
            "Leave the lesson; the lab keeps the current step's group",
        )
        self.exit_action.triggered.connect(self.exit)

        # Outside a lesson a clicker's buttons still do what a lecturer expects. Actions (not
        # bare shortcuts) so the keyboard-shortcuts overlay lists them too.
        # Each press is one captioned step of the reward → advantage animation (the window's).
        self.clicker_advantage = self._action(
            "Next animation step: towards the advantages (clicker, outside a lesson)",
            "clickerAdvantageAction",
            NEXT_KEYS,
            "Outside a lesson, Page Down takes the chart one step towards the advantages",
        )
        self.clicker_advantage.triggered.connect(lambda: self.window.step_chart(True))
        self.clicker_reward = self._action(
            "Previous animation step: back to the rewards (clicker, outside a lesson)",
            "clickerRewardAction",
            PREVIOUS_KEYS,
            "Outside a lesson, Page Up takes the chart one step back to the rewards",
        )
        self.clicker_reward.triggered.connect(lambda: self.window.step_chart(False))

        # The Training run: play, step and reset from the keyboard, and a clicker's Page Down
        # steps it (outside a lesson), as it shows the advantages in the lab.
        self.training_play_action = self._action(
            "Play / pause the training run",
            "trainingPlayAction",
            (TRAINING_PLAY_KEY,),
            "Play the Training run at the chosen speed, or pause it",
        )
        self.training_play_action.triggered.connect(self._play_training)
        self.training_step_action = self._action(
            "One training step",
            "trainingStepAction",
            (TRAINING_STEP_KEY,),
            "Take one step of every algorithm and seed, paused",
        )
        self.training_step_action.triggered.connect(lambda: self._training_run().step_once())
        self.clicker_training_step = self._action(
            "One training step (clicker, outside a lesson)",
            "clickerTrainingStepAction",
            NEXT_KEYS,
            "Outside a lesson, Page Down takes one step of the Training run",
        )
        self.clicker_training_step.triggered.connect(lambda: self._training_run().step_once())
        self.training_reset_action = self._action(
            "Reset the training run",
            "trainingResetAction",
            (TRAINING_RESET_KEY,),
            "Start the Training run again from step 0 (same settings and seeds)",
        )
        self.training_reset_action.triggered.connect(lambda: self._training_run().reset())
        for action in (
            self.training_play_action,
            self.training_step_action,
            self.clicker_training_step,
            self.training_reset_action,
        ):
            key = action.shortcut().toString(QKeySequence.SequenceFormat.NativeText)
            action.setToolTip(f"{action.statusTip()} ({key})")
        self.workbench.workspace_changed.connect(lambda _workspace: self._sync_enabled())

    def _training_run(self):
        """The run the Training workspace shows: the tiny model's or the toy's."""
        if self.workbench.policy.is_model:
            return self.states.lm_training
        return self.states.training

    def _play_training(self) -> None:
        """P: play or pause the run; with motion reduced, advance the toy run by the speed's
        steps (the tiny model's run plays on its worker either way)."""
        if self.workbench.policy.is_model:
            self.states.lm_training.toggle_playing()
            return
        from grpo_desktop.window.training_page import play_or_advance  # the page's module

        play_or_advance(self.states.training)

    def _build_menu(self) -> None:
        menu = QMenu("&Lesson", self.window)
        menu.setObjectName("lessonMenu")
        self.start_actions: dict[str, QAction] = {}
        for lesson in self.lessons:
            action = menu.addAction(f"Start: {lesson.title.replace('&', '&&')}")
            action.setObjectName(f"startLesson_{lesson.id}")
            action.setStatusTip(lesson.summary)
            action.setToolTip(lesson.summary)
            action.triggered.connect(lambda _=False, i=lesson.id: self.start_from_menu(i))
            self.start_actions[lesson.id] = action
        if self.load_error:
            broken = menu.addAction("Lessons could not be loaded")
            broken.setEnabled(False)
            broken.setStatusTip(self.load_error)
        menu.setToolTipsVisible(True)
        menu.addSeparator()
        for action in (self.next_action, self.previous_action, self.reveal_action):
            menu.addAction(action)
        menu.addSeparator()
        menu.addAction(self.exit_action)
        menu.addSeparator()
        self.worksheet_action = add_worksheet_action(
            self.window, menu, lambda: self._lesson.id if self._lesson is not None else None
        )
        self.window.insert_menu(menu)
        self.menu = menu

    # --- reading ----------------------------------------------------------------------------

    @property
    def active(self) -> bool:
        return self._lesson is not None

    @property
    def lesson(self) -> Lesson | None:
        return self._lesson

    @property
    def step_index(self) -> int:
        """The step shown (0-based); -1 outside a lesson."""
        return self._index if self._lesson is not None else -1

    @property
    def step(self) -> LessonStep | None:
        return self._lesson.steps[self._index] if self._lesson is not None else None

    @property
    def advantages_hidden(self) -> bool:
        """True while the step's advantages wait for the reveal."""
        return self.workbench.advantages_hidden

    @property
    def can_reveal(self) -> bool:
        """A predict step (hidden advantages in the advantage view) offers the reveal; a step
        that only shows the rewards keeps A hidden without inviting a reveal before the
        class has been asked to predict."""
        step = self.step
        return step is not None and self.advantages_hidden and step.view == "advantage"

    # --- driving ----------------------------------------------------------------------------

    def start(self, lesson_id: str) -> None:
        """Start (or restart) the lesson ``lesson_id`` at its first step.

        Raises :class:`~grpo_desktop.core.files.lessons.LessonError` (``UnknownLessonError`` for an
        unknown id) before anything on screen changes.
        """
        lesson = get_lesson(lesson_id)
        was_active = self.active
        self._lesson, self._index = lesson, 0
        # The bar keeps one height through this lesson (paging never moves the lab below), the
        # height of its own tallest step: one lesson's long steps take no room from another's.
        self.bar.set_reserved_texts(
            tuple(step.title for step in lesson.steps), tuple(step.text for step in lesson.steps)
        )
        self.next_action.setShortcuts(list(NEXT_LESSON_KEYS))
        self.previous_action.setShortcuts(list(PREVIOUS_LESSON_KEYS))
        self.bar.show()
        self._apply_step()
        self.runs_ahead.start(lesson)  # its training steps' runs, in idle time
        if not was_active:
            self.active_changed.emit(True)

    def start_from_menu(self, lesson_id: str) -> bool:
        """The menu's way in: a bad lesson becomes a warning dialog, the lab stays as it was."""
        try:
            self.start(lesson_id)
        except LessonError as exc:
            QMessageBox.warning(self.window, "Cannot start the lesson", str(exc))
            return False
        return True

    def go_to(self, index: int) -> None:
        """Show step ``index`` (0-based) of the running lesson."""
        if self._lesson is None:
            return
        if not 0 <= index < len(self._lesson.steps):
            raise IndexError(f"step {index + 1} does not exist; the lesson has {self.step_count}")
        self._index = index
        self._apply_step()

    @property
    def step_count(self) -> int:
        return len(self._lesson.steps) if self._lesson is not None else 0

    def next(self) -> None:
        """The next step; on the last step, finish the lesson (like the bar's Finish button)."""
        if self._lesson is None:
            return
        if self._index + 1 < len(self._lesson.steps):
            self.go_to(self._index + 1)
        else:
            self.exit(finished=True)

    def previous(self) -> None:
        if self._lesson is not None and self._index > 0:
            self.go_to(self._index - 1)

    def reveal(self) -> None:
        """Show the hidden advantages, animating the chart from rewards to advantages."""
        if not self.can_reveal:
            return
        # Predict, then reveal: the class watches r turn into r − mean and then into A.
        self.workbench.set_view("reward", animate=False)
        self._set_hidden(False)
        self.workbench.set_view("advantage", animate=True)
        self.window.statusBar().showMessage(f"Revealed. {self._progress_message()}")

    def exit(self, finished: bool = False) -> None:
        """Leave the lesson; the lab keeps the last step's group."""
        if self._lesson is None:
            return
        lesson, index = self._lesson, self._index
        self._lesson = None
        self.runs_ahead.stop()
        self._set_hidden(False)
        self.spotlight.set_target(None)
        self.bar.hide()
        self.next_action.setShortcuts(list(NEXT_KEYS))
        self.previous_action.setShortcuts(list(PREVIOUS_KEYS))
        self.next_action.setText("&Next step")
        self._sync_enabled()
        what = "Finished" if finished else "Left"
        if lesson.steps[index].is_training:
            keeps = (
                f"The Training run keeps step {index + 1}'s run: play it on, or change its "
                "settings."
            )
        elif lesson.steps[index].is_update:
            keeps = (
                f"The Update step keeps step {index + 1}'s group and settings: click a token "
                "to see its computation."
            )
        else:
            keeps = f"The lab keeps step {index + 1}'s group: click the cards to explore it."
        self.window.statusBar().showMessage(f"{what} the lesson “{lesson.title}”. {keeps}")
        self.active_changed.emit(False)

    def set_theme(self, theme: Theme) -> None:
        self.bar.set_theme(theme)
        self.spotlight.set_theme(theme)

    # --- applying a step --------------------------------------------------------------------

    def _apply_step(self) -> None:
        assert self._lesson is not None
        step = self._lesson.steps[self._index]
        if step.is_training:
            # Back to step 0 first: putting the step's config in force would otherwise catch an
            # added algorithm up to the shown run's step (DAPO: 150 steps), to be replaced below.
            self.states.training.reset()
        self.workbench.show_lesson_step(step)
        if step.is_training:
            # The step's run from step 0 (the config the workbench just put in force), computed
            # to its steps, paused: the same picture whichever way the lecturer paged.
            assert step.metric is not None and step.focus is not None  # LessonStep fills them
            self.states.training.show_step(step.training_steps, step.focus, step.metric)
        self._set_hidden(step.hide_advantages)  # before the view: hidden bars do not animate
        self.workbench.set_view(step.view, animate=True)
        self.window.show_explanation("ppo" if step.highlight == "ppo" else "math")
        self.spotlight.set_target(self.window.highlight_target(step.highlight))
        self.bar.show_step(self._lesson, self._index, self.can_reveal)
        last = self._index == len(self._lesson.steps) - 1
        self.next_action.setText("&Finish lesson" if last else "&Next step")
        self._sync_enabled()
        self.window.statusBar().showMessage(self._progress_message())
        announce(self.bar, self.step_announcement())
        self.step_changed.emit(self._index)

    def step_announcement(self) -> str:
        """What a screen reader hears as a step shows: "Step 2 of 6: <title>. <text>" (once per
        step shown; "" outside a lesson)."""
        step = self.step
        if step is None:
            return ""
        title = plain_text(step.title).strip()
        if title and title[-1] not in ".!?:":
            title += "."
        text = plain_text(step.text).strip()
        return f"Step {self._index + 1} of {self.step_count}: {title} {text}".strip()

    def _set_hidden(self, hidden: bool) -> None:
        self.workbench.set_advantages_hidden(hidden)
        self.bar.set_reveal_visible(self.can_reveal)
        self._sync_enabled()

    def _progress_message(self) -> str:
        assert self._lesson is not None
        return (
            f"Lesson: {self._lesson.title} — step {self._index + 1} of "
            f"{len(self._lesson.steps)} (Page Down: next, Page Up: previous)"
        )

    def _sync_enabled(self) -> None:
        active = self.active
        self.next_action.setEnabled(active)
        self.previous_action.setEnabled(active)  # a no-op on step 1; the arrows stay the lesson's
        self.reveal_action.setEnabled(self.can_reveal)
        self.exit_action.setEnabled(active)
        training = self.workbench.workspace == TRAINING
        self.clicker_advantage.setEnabled(not active and not training)
        self.clicker_reward.setEnabled(not active and not training)
        self.clicker_training_step.setEnabled(not active and training)
        for action in (
            self.training_play_action,
            self.training_step_action,
            self.training_reset_action,
        ):
            action.setEnabled(training)

    def _set_tooltips(self) -> None:
        """Name every key a lesson listens to, arrows included (a menu shows only the first)."""
        keys = {
            self.previous_action: PREVIOUS_LESSON_KEYS,
            self.next_action: NEXT_LESSON_KEYS,
            self.reveal_action: (REVEAL_KEY,),
            self.exit_action: (EXIT_KEY,),
        }
        self.bar.set_tooltips(*(key_names(sequences) for sequences in keys.values()))
        for action, sequences in keys.items():
            action.setToolTip(f"{action.statusTip()} ({key_names(sequences)})")
