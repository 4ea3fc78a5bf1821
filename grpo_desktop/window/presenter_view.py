"""View ▸ Presenter view (``--presenter``): the room sees the lab, the lecturer sees the notes.

Two windows follow one workbench. The **audience window** is the main window without its chrome
(menus, tool bars, status bar hidden), full screen on the second screen when there is one,
with the panel a lesson step rings given the room's attention (the Lab hands it the larger share
of its column). The **presenter console** is a window of its own on the first screen: the
lesson's notes for this step (the room never sees them), the next step's title, a timer, and
Previous / Next / Reveal. Every key and clicker press works from either window: the console
carries the main window's actions and a twin of each of its shortcuts. Closing either window
ends the presenter view and puts the main window back as it was.
"""

from __future__ import annotations

import time
from typing import Any

from PySide6.QtCore import QEvent, QObject, Qt, QTimer, Signal
from PySide6.QtGui import QCloseEvent, QGuiApplication, QShortcut
from PySide6.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QToolBar,
    QVBoxLayout,
    QWidget,
)

from grpo_desktop.core.common.theme import Theme
from grpo_desktop.views.common.fonts import scaled_font

__all__ = ["KEYS_TEXT", "PresenterConsole", "PresenterMode", "elapsed_text"]

KEYS_TEXT = (
    "Keys work here as in the room's window: Page Down / Page Up (a clicker) step the lesson, "
    "R reveals, 1–9 mark cards, F5 ends the presenter view."
)

#: The window this hangs off: a ``MainWindow`` (not imported: it imports the window's actions).
MainWindow = Any


def elapsed_text(seconds: float) -> str:
    """``12:05``, or ``1:02:05`` past an hour: the lecture's clock."""
    whole = max(0, int(seconds))
    hours, rest = divmod(whole, 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes}:{secs:02d}"


class PresenterConsole(QWidget):
    """The lecturer's window: this step's notes, the next step, a timer and the controls."""

    previous_requested = Signal()
    next_requested = Signal()
    reveal_requested = Signal()
    start_requested = Signal(str)  # a lesson id
    end_requested = Signal()

    def __init__(self, theme: Theme, lessons: list[tuple[str, str]], parent=None) -> None:
        super().__init__(parent, Qt.WindowType.Window)
        self.setObjectName("presenterConsole")
        self.setWindowTitle("Presenter console — GRPO Desktop")
        self.step_label = QLabel(objectName="presenterStep")
        self.notes = QLabel(objectName="presenterNotes")
        self.next_label = QLabel(objectName="presenterNext")
        self.on_screen = QLabel(objectName="presenterOnScreen")  # what the room reads
        self.keys = QLabel(KEYS_TEXT, objectName="presenterKeys")
        self.clock = QLabel("0:00", objectName="presenterClock")
        self.clock.setAccessibleName("Time since the presenter view started")
        for label in (self.step_label, self.notes, self.next_label, self.on_screen, self.keys):
            label.setTextFormat(Qt.TextFormat.PlainText)  # a lesson's words, never markup
            label.setWordWrap(True)
        self.notes.setAccessibleName("Notes for this step")
        self.notes.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.previous_button = QPushButton("◀ Previous", objectName="presenterPrevious")
        self.next_button = QPushButton("Next ▶", objectName="presenterNext")
        self.reveal_button = QPushButton("Reveal", objectName="presenterReveal")
        self.restart_button = QPushButton("Restart timer", objectName="presenterRestartTimer")
        self.end_button = QPushButton("End presenter view", objectName="presenterEnd")
        self.lesson_combo = QComboBox(objectName="presenterLessonCombo")
        self.lesson_combo.setAccessibleName("Lesson to start")
        for lesson_id, title in lessons:
            self.lesson_combo.addItem(title, lesson_id)
        self.start_button = QPushButton("Start lesson", objectName="presenterStartLesson")
        for button in (self.previous_button, self.next_button, self.reveal_button):
            button.setFocusPolicy(Qt.FocusPolicy.TabFocus)  # a clicker's keys stay shortcuts
        self.previous_button.clicked.connect(self.previous_requested)
        self.next_button.clicked.connect(self.next_requested)
        self.reveal_button.clicked.connect(self.reveal_requested)
        self.end_button.clicked.connect(self.end_requested)
        self.start_button.clicked.connect(
            lambda: self.start_requested.emit(self.lesson_combo.currentData())
        )
        self._started = time.monotonic()
        self.restart_button.clicked.connect(self.restart_timer)
        self._ticker = QTimer(self)
        self._ticker.setInterval(1000)
        self._ticker.timeout.connect(self._tick)
        self._ticker.start()

        top = QHBoxLayout()
        top.addWidget(self.step_label, 1)
        top.addWidget(self.clock)
        top.addWidget(self.restart_button)
        lesson_row = QHBoxLayout()
        lesson_row.addWidget(self.lesson_combo, 1)
        lesson_row.addWidget(self.start_button)
        buttons = QHBoxLayout()
        for button in (self.previous_button, self.reveal_button, self.next_button):
            buttons.addWidget(button)
        buttons.addStretch(1)
        buttons.addWidget(self.end_button)
        column = QVBoxLayout(self)
        column.addLayout(top)
        column.addWidget(self.notes)
        column.addWidget(self.on_screen)
        column.addStretch(1)
        column.addWidget(self.next_label)
        column.addWidget(self.keys)
        column.addLayout(lesson_row)
        column.addLayout(buttons)
        self.set_theme(theme)
        self.resize(760, 520)

    def restart_timer(self) -> None:
        self._started = time.monotonic()
        self._tick()

    def _tick(self) -> None:
        self.clock.setText(elapsed_text(time.monotonic() - self._started))

    def set_theme(self, theme: Theme) -> None:
        scale = theme.type_scale
        self.step_label.setFont(scaled_font(1.2 * scale, bold=True))
        self.notes.setFont(scaled_font(1.35 * scale))
        self.next_label.setFont(scaled_font(1.05 * scale))
        self.clock.setFont(scaled_font(1.6 * scale, bold=True))
        self.notes.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
        self.on_screen.setFont(scaled_font(0.95 * scale))
        self.keys.setFont(scaled_font(0.85 * scale))
        for label in (self.next_label, self.on_screen, self.keys):
            label.setStyleSheet(f"color: {theme.muted};")

    def show_step(
        self,
        heading: str,
        notes: str,
        on_screen: str,
        next_title: str | None,
        can_reveal: bool,
        in_lesson: bool,
        first: bool,
        last: bool,
    ) -> None:
        """What the lecturer reads now; the buttons that apply."""
        self.step_label.setText(heading)
        self.notes.setText(notes)
        self.on_screen.setText(f"On screen: {on_screen}" if on_screen else "")
        self.on_screen.setVisible(bool(on_screen))
        self.next_label.setText(
            f"Next: {next_title}" if next_title else ("Last step." if in_lesson else "")
        )
        self.next_label.setVisible(bool(self.next_label.text()))
        self.previous_button.setEnabled(in_lesson and not first)
        self.next_button.setEnabled(in_lesson)
        self.next_button.setText("Finish ▶" if in_lesson and last else "Next ▶")
        self.reveal_button.setEnabled(can_reveal)
        for widget in (self.lesson_combo, self.start_button):
            widget.setVisible(not in_lesson)

    def closeEvent(self, event: QCloseEvent) -> None:  # Qt override
        self.end_requested.emit()
        super().closeEvent(event)


class PresenterMode(QObject):
    """Starts and ends the presenter view of ``window``; follows its lesson while on."""

    active_changed = Signal(bool)

    def __init__(self, window: MainWindow) -> None:
        super().__init__(window)
        self.window = window
        self.console: PresenterConsole | None = None
        self._hidden_chrome: list[QWidget] = []
        self._was_full_screen = False
        self._geometry = None
        self._twins: list[QShortcut] = []
        self._screen = 0  # the main window's screen (its index) before the view began

    @property
    def active(self) -> bool:
        return self.console is not None

    def toggle(self) -> None:
        if self.active:
            self.stop()
        else:
            self.start()

    def start(self) -> None:
        """The audience window and the console, on two screens when there are two."""
        if self.active:
            return
        window = self.window
        window.install_deferred_features()  # the lessons are installed after the first paint
        lessons = window.lessons
        from grpo_desktop.core.files.lessons import load_lessons

        console = PresenterConsole(
            window.theme, [(lesson.id, lesson.title) for lesson in load_lessons()], window
        )
        self.console = console
        console.previous_requested.connect(lessons.previous)
        console.next_requested.connect(lessons.next)
        console.reveal_requested.connect(lessons.reveal)
        console.start_requested.connect(lessons.start_from_menu)
        console.end_requested.connect(self.stop)
        lessons.step_changed.connect(self._follow)
        lessons.active_changed.connect(self._follow)
        console.addActions(window.actions())  # every action's keys, from the console too
        self._twins = [self._twin(shortcut) for shortcut in window.findChildren(QShortcut)]
        window.installEventFilter(self)
        self._audience()
        screens = QGuiApplication.screens()
        if len(screens) > 1:  # the lecturer's screen: where the main window was
            lecturer = screens[self._screen]
            console.setScreen(lecturer)
            console.setGeometry(lecturer.availableGeometry().adjusted(40, 40, -40, -40))
        console.show()
        console.activateWindow()  # the lecturer types on the console
        self._follow()
        self.active_changed.emit(True)

    def stop(self) -> None:
        """Back to one window, as it was."""
        console = self.console
        if console is None:
            return
        self.console = None
        window = self.window
        window.removeEventFilter(self)
        lessons = window.lessons
        lessons.step_changed.disconnect(self._follow)
        lessons.active_changed.disconnect(self._follow)
        for twin in self._twins:
            twin.setParent(None)
        self._twins = []
        console.blockSignals(True)  # its close must not end the view twice
        console.close()
        console.deleteLater()
        for widget in self._hidden_chrome:
            widget.show()
        self._hidden_chrome = []
        if not self._was_full_screen and window.isFullScreen():
            window.showNormal()
        screens = QGuiApplication.screens()
        if _screen_index(window) != self._screen and self._screen < len(screens):
            window.hide()  # a visible window keeps its screen: hidden, it moves when shown
            window.setScreen(screens[self._screen])
            window.show()
        if self._geometry is not None:
            window.restoreGeometry(self._geometry)
        window.lab_page.emphasize(None)
        self.active_changed.emit(False)

    # --- the two windows -----------------------------------------------------------------------

    def _audience(self) -> None:
        """The main window without chrome; full screen on the second screen if there is one."""
        window = self.window
        self._geometry = window.saveGeometry()
        self._was_full_screen = window.isFullScreen()
        chrome = [window.menuBar(), window.statusBar(), *window.findChildren(QToolBar)]
        self._hidden_chrome = [widget for widget in chrome if widget.isVisible()]
        for widget in self._hidden_chrome:
            widget.hide()
        screens = QGuiApplication.screens()
        self._screen = _screen_index(window)
        if len(screens) > 1:
            audience = screens[1 if self._screen == 0 else 0]
            window.setScreen(audience)
            window.setGeometry(audience.geometry())
            window.showFullScreen()

    def _twin(self, original: QShortcut) -> QShortcut:
        """The console's copy of one of the main window's shortcuts (cards 1–9, Space…)."""
        twin = QShortcut(original.key(), self.console)
        twin.setAutoRepeat(original.autoRepeat())
        twin.activated.connect(original.activated)
        return twin

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # Qt override
        if watched is self.window and event.type() == QEvent.Type.Close and self.active:
            QTimer.singleShot(0, self, self.stop)  # after the window has decided to close
        return False

    # --- following the lesson ----------------------------------------------------------------

    def _follow(self, *_changed: object) -> None:
        console = self.console
        if console is None:
            return
        lessons = self.window.lessons
        step = lessons.step
        if step is None:
            console.show_step(
                "No lesson is running",
                "Start a lesson here (or from the Lesson menu) to see its notes for each step. "
                "Every key works from this window as from the room's.",
                "",
                None,
                False,
                in_lesson=False,
                first=True,
                last=True,
            )
            self.window.lab_page.emphasize(None)
            return
        from grpo_desktop.views.common.lesson_bar import plain_text  # lessons: after first paint

        lesson, index = lessons.lesson, lessons.step_index
        last = index == len(lesson.steps) - 1
        next_title = None if last else lesson.steps[index + 1].title
        console.show_step(
            f"{lesson.title} · step {index + 1} of {len(lesson.steps)}: {step.title}",
            step.notes or plain_text(step.text),
            plain_text(step.text) if step.notes else "",
            next_title,
            lessons.can_reveal,
            in_lesson=True,
            first=index == 0,
            last=last,
        )
        self.window.lab_page.emphasize(self.window.highlight_target(step.highlight))


def _screen_index(widget: QWidget) -> int:
    """Which of the screens ``widget`` is on (QScreen wrappers are not kept: compared afresh)."""
    screens = QGuiApplication.screens()
    screen = widget.screen()
    return screens.index(screen) if screen in screens else 0
