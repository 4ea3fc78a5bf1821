"""Lesson mode: a lecturer pages through a scripted lesson with a clicker (Page Down / Page Up).

``install_lesson_mode(window)`` adds a Lesson menu, a :class:`LessonBar` above the lab and a
:class:`~grpo_desktop.views.spotlight.Spotlight`, and returns the :class:`LessonController` that
drives them. Each step puts its group on screen (set directly on the lab state, so steps are not
undoable edits), picks the chart's view, optionally hides the advantages until the lecturer reveals
them (predict, then reveal), and rings the part of the window the step talks about.

Keys: Page Down / Page Up step through a lesson (Right/Down and Left/Up too, but only while a lesson
runs: outside one the arrows move between cards); R reveals; Escape leaves the lesson. Outside a
lesson a clicker still does something useful: Page Down shows advantages, Page Up rewards.
"""

from __future__ import annotations

import html
import re
from typing import TYPE_CHECKING

from PySide6.QtCore import QEvent, QObject, QSize, Qt, Signal
from PySide6.QtGui import QAction, QKeySequence, QResizeEvent, QShowEvent
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QLabel,
    QMenu,
    QMessageBox,
    QPushButton,
    QSizePolicy,
    QVBoxLayout,
    QWidget,
)

from grpo_desktop.core.lessons import (
    Lesson,
    LessonError,
    LessonLab,
    LessonStep,
    get_lesson,
    load_lessons,
)
from grpo_desktop.core.theme import LIGHT, Theme
from grpo_desktop.views.fonts import scaled_font
from grpo_desktop.views.spotlight import Spotlight

if TYPE_CHECKING:
    from grpo_desktop.window.lab_presenter import LabPresenter
    from grpo_desktop.window.main_window import MainWindow

__all__ = ["LessonBar", "LessonController", "install_lesson_mode"]

NEXT_KEYS = (QKeySequence(Qt.Key.Key_PageDown),)
PREVIOUS_KEYS = (QKeySequence(Qt.Key.Key_PageUp),)
# Some clickers send arrows instead of Page Down / Page Up; only during a lesson, since outside
# one the arrows move keyboard focus between cards.
NEXT_LESSON_KEYS = (*NEXT_KEYS, QKeySequence(Qt.Key.Key_Right), QKeySequence(Qt.Key.Key_Down))
PREVIOUS_LESSON_KEYS = (*PREVIOUS_KEYS, QKeySequence(Qt.Key.Key_Left), QKeySequence(Qt.Key.Key_Up))
REVEAL_KEY = QKeySequence(Qt.Key.Key_R)
EXIT_KEY = QKeySequence(Qt.Key.Key_Escape)

UNPLACED_WIDTH = 100_000  # "wide enough for one line" before a layout has given the bar a width
NEXT_TEXT = "Next ▶"
FINISH_TEXT = "Finish"
_TAG_RE = re.compile(r"<[^<>]*>")


def plain_text(rich: str) -> str:
    """A step text without its <b>/<i> markup (for screen readers and the status bar)."""
    return html.unescape(_TAG_RE.sub("", rich))


def key_names(sequences: list[QKeySequence] | tuple[QKeySequence, ...]) -> str:
    """``"PgDown, Right or Down"``: the keys as the platform writes them."""
    names = [seq.toString(QKeySequence.SequenceFormat.NativeText) for seq in sequences]
    names = [name for name in names if name]
    if len(names) <= 1:
        return "".join(names)
    return f"{', '.join(names[:-1])} or {names[-1]}"


class _ElidedLabel(QLabel):
    """A one-line label that shrinks with "…" instead of widening the window."""

    def __init__(self, name: str) -> None:
        super().__init__(objectName=name)
        self.setTextFormat(Qt.TextFormat.PlainText)
        self.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Fixed)
        self._full = ""

    def full_text(self) -> str:
        return self._full

    def set_full_text(self, text: str) -> None:
        self._full = text
        self.setToolTip(text)
        self.updateGeometry()
        self._elide()

    def sizeHint(self) -> QSize:
        metrics = self.fontMetrics()
        margins = self.contentsMargins()
        width = metrics.horizontalAdvance(self._full) + margins.left() + margins.right() + 2
        return QSize(width, super().sizeHint().height())

    def minimumSizeHint(self) -> QSize:
        return QSize(
            self.fontMetrics().horizontalAdvance("Ab…"), super().minimumSizeHint().height()
        )

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._elide()

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() == QEvent.Type.FontChange:
            self.updateGeometry()
            self._elide()

    def _elide(self) -> None:
        shown = self.fontMetrics().elidedText(
            self._full, Qt.TextElideMode.ElideRight, max(0, self.contentsRect().width())
        )
        if shown != self.text():
            self.setText(shown)


class LessonBar(QFrame):
    """The lesson's title, "Step k of n", the step's title and text, and the paging buttons.

    Laid out in two rows so it takes little of a laptop screen: the step title (under a muted
    "lesson · step k of n" line) sits beside the buttons, and the step text spans the full width
    below. Its height never changes from one step to the next: the title and text labels reserve
    the height of the tallest step title and text of every lesson (:meth:`set_reserved_texts`) at
    the current width, so paging never makes the lab below jump.
    """

    previous_requested = Signal()
    next_requested = Signal()
    reveal_requested = Signal()
    exit_requested = Signal()
    _restyling = True  # until __init__ has built the labels, font events have nothing to restyle

    def __init__(self, theme: Theme = LIGHT, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("lessonBar")
        self.setAccessibleName("Lesson")
        self._theme = theme
        self._reserved_titles: tuple[str, ...] = ()
        self._reserved_texts: tuple[str, ...] = ()

        self.lesson_title = _ElidedLabel("lessonTitle")
        self.step_counter = QLabel(objectName="lessonStepCounter")
        self.step_counter.setTextFormat(Qt.TextFormat.PlainText)
        self.step_title = self._wrapping_label("lessonStepTitle", Qt.TextFormat.PlainText)
        self.step_text = self._wrapping_label("lessonStepText", Qt.TextFormat.RichText)
        self.step_text.setAccessibleDescription("What to notice in this step")
        # Probes measure every reserved text with the labels' fonts; never shown.
        self._title_probe = self._wrapping_label("", Qt.TextFormat.PlainText)
        self._text_probe = self._wrapping_label("", Qt.TextFormat.RichText)
        for probe in (self._title_probe, self._text_probe):
            probe.setParent(self)
            probe.hide()

        self.reveal_button = self._button("Reveal", "lessonReveal", self.reveal_requested)
        self.previous_button = self._button("◀ Previous", "lessonPrevious", self.previous_requested)
        self.next_button = self._button(NEXT_TEXT, "lessonNext", self.next_requested)
        self.exit_button = self._button("✕ Exit", "lessonExit", self.exit_requested)
        self.reveal_button.setAccessibleName("Reveal advantages")
        self.previous_button.setAccessibleName("Previous step")
        self.next_button.setAccessibleName("Next step")
        self.exit_button.setAccessibleName("Exit lesson")
        reveal_policy = self.reveal_button.sizePolicy()
        reveal_policy.setRetainSizeWhenHidden(True)  # showing it must not shift the other buttons
        self.reveal_button.setSizePolicy(reveal_policy)
        self.reveal_button.hide()

        caption = QHBoxLayout()
        caption.setSpacing(14)
        caption.addWidget(self.lesson_title)
        caption.addWidget(self.step_counter)
        caption.addStretch(1)
        heading = QVBoxLayout()
        heading.setSpacing(0)
        heading.addLayout(caption)
        heading.addWidget(self.step_title)
        self._buttons = QHBoxLayout()
        self._buttons.setSpacing(8)
        for button in (self.reveal_button, self.previous_button, self.next_button):
            self._buttons.addWidget(button)
        self._buttons.addSpacing(8)
        self._buttons.addWidget(self.exit_button)
        self._top = QHBoxLayout()
        self._top.setSpacing(16)
        self._top.addLayout(heading, 1)
        self._top.addLayout(self._buttons)
        self._top.setAlignment(self._buttons, Qt.AlignmentFlag.AlignTop)

        column = QVBoxLayout(self)
        column.setContentsMargins(14, 6, 14, 8)
        column.setSpacing(4)
        column.addLayout(self._top)
        column.addWidget(self.step_text)
        self.set_tooltips("PgUp", "PgDown", "R", "Esc")
        self.set_theme(theme)
        self._restyling = False

    @staticmethod
    def _wrapping_label(name: str, text_format: Qt.TextFormat) -> QLabel:
        label = QLabel(objectName=name) if name else QLabel()
        label.setTextFormat(text_format)
        label.setWordWrap(True)
        label.setAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop)
        label.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Minimum)
        return label

    @staticmethod
    def _button(text: str, name: str, signal: Signal) -> QPushButton:
        button = QPushButton(text, objectName=name)
        button.setAutoDefault(False)
        button.clicked.connect(signal)
        return button

    # --- content ----------------------------------------------------------------------------

    def show_step(self, lesson: Lesson, index: int, can_reveal: bool) -> None:
        step = lesson.steps[index]
        count = len(lesson.steps)
        self.lesson_title.set_full_text(f"Lesson: {lesson.title}")
        self.lesson_title.setAccessibleName(f"Lesson: {lesson.title}")
        self.step_counter.setText(f"Step {index + 1} of {count}")
        self.step_counter.setAccessibleName(f"Step {index + 1} of {count}")
        self.step_title.setText(step.title)
        self.step_title.setAccessibleName(f"Step title: {step.title}")
        self.step_text.setText(step.text)
        self.step_text.setAccessibleName(plain_text(step.text))
        self.previous_button.setEnabled(index > 0)
        last = index == count - 1
        self.next_button.setText(FINISH_TEXT if last else NEXT_TEXT)
        self.next_button.setAccessibleName("Finish lesson" if last else "Next step")
        self.set_reveal_visible(can_reveal)
        self._reserve_height()  # covers a title or text that was not in the reserved set

    def set_reveal_visible(self, visible: bool) -> None:
        self.reveal_button.setVisible(visible)

    def set_tooltips(self, previous: str, next_: str, reveal: str, exit_: str) -> None:
        """Each button's tooltip names its keys, e.g. ``"Next step (PgDown, Right or Down)"``."""
        self.previous_button.setToolTip(f"Previous step ({previous})")
        self.next_button.setToolTip(f"Next step; on the last step, finish the lesson ({next_})")
        self.reveal_button.setToolTip(f"Reveal the advantages the class predicted ({reveal})")
        self.exit_button.setToolTip(f"Leave the lesson; the lab keeps this step's group ({exit_})")

    def set_reserved_texts(self, titles: tuple[str, ...], texts: tuple[str, ...]) -> None:
        """Reserve room for the tallest of these step titles and texts (every lesson's)."""
        self._reserved_titles = tuple(titles)
        self._reserved_texts = tuple(texts)
        self._reserve_height()

    # --- look -------------------------------------------------------------------------------

    def set_theme(self, theme: Theme) -> None:
        self._theme = theme
        scale = theme.type_scale
        self.setStyleSheet(
            f"#lessonBar {{ background: {theme.surface}; border: 2px solid {theme.focus};"
            f" border-radius: 10px; }}"
            f"#lessonBar QLabel {{ background: transparent; border: none; color: {theme.text}; }}"
            f"#lessonBar #lessonTitle, #lessonBar #lessonStepCounter {{ color: {theme.muted}; }}"
            f"#lessonBar QPushButton {{ background: {theme.surface}; color: {theme.text};"
            f" border: 1px solid {theme.border}; border-radius: 6px; padding: 5px 14px; }}"
            f"#lessonBar QPushButton:hover {{ border-color: {theme.focus}; }}"
            f"#lessonBar QPushButton:focus {{ border: 2px solid {theme.focus}; }}"
            f"#lessonBar QPushButton:disabled {{ color: {theme.muted};"
            f" border-color: {theme.neutral_fill}; }}"
            f"#lessonBar #lessonNext, #lessonBar #lessonReveal {{ background: {theme.focus};"
            f" color: {theme.surface}; border: 2px solid {theme.focus}; }}"
            f"#lessonBar #lessonNext:focus, #lessonBar #lessonReveal:focus"
            f" {{ border: 2px solid {theme.text}; }}"
        )
        self.lesson_title.setFont(scaled_font(1.0 * scale, bold=True))
        self.step_counter.setFont(scaled_font(1.0 * scale))
        for label in (self.step_title, self._title_probe):
            label.setFont(scaled_font(1.45 * scale, bold=True))
        for label in (self.step_text, self._text_probe):
            label.setFont(scaled_font(1.25 * scale))
        for button in (self.reveal_button, self.previous_button, self.next_button):
            button.setFont(scaled_font(1.05 * scale, bold=True))
        self.exit_button.setFont(scaled_font(1.05 * scale))
        self._fit_next_button()
        self._reserve_height()

    def theme(self) -> Theme:
        return self._theme

    def _fit_next_button(self) -> None:
        """Wide enough for "Next ▶" and "Finish", so the last step does not shift it."""
        current = self.next_button.text()
        self.next_button.setMinimumWidth(0)
        widths = []
        for text in (NEXT_TEXT, FINISH_TEXT):
            self.next_button.setText(text)
            self.next_button.ensurePolished()
            widths.append(self.next_button.sizeHint().width())
        self.next_button.setText(current)
        self.next_button.setMinimumWidth(max(widths))

    def text_widths(self) -> tuple[int, int]:
        """The widths the step title and the step text get at the bar's current width.

        Until a layout has placed the bar its width is Qt's placeholder, and a reservation made
        for it could only be too tall (and grow the window): assume one line each until then.
        """
        if not self.testAttribute(Qt.WidgetAttribute.WA_Resized):
            return UNPLACED_WIDTH, UNPLACED_WIDTH
        margins = self.layout().contentsMargins()
        text = self.contentsRect().width() - margins.left() - margins.right()
        title = text - self._buttons.sizeHint().width() - self._top.spacing()
        return title, text

    def _reserve_height(self) -> None:
        """Fix the bar's height to what the tallest reserved title and text need at this width."""
        title_width, text_width = self.text_widths()
        if title_width <= 0 or text_width <= 0:
            return
        for label, probe, texts, width in (
            (self.step_title, self._title_probe, self._reserved_titles, title_width),
            (self.step_text, self._text_probe, self._reserved_texts, text_width),
        ):
            needed = 0
            for text in (*texts, label.text()):
                probe.setText(text)
                needed = max(needed, probe.heightForWidth(width))
            label.setMinimumHeight(needed)
        margins = self.layout().contentsMargins()
        frame = self.height() - self.contentsRect().height()
        top = max(
            self.lesson_title.sizeHint().height() + self.step_title.minimumHeight(),
            self._buttons.sizeHint().height(),
        )
        height = (
            frame
            + margins.top()
            + top
            + self.layout().spacing()
            + self.step_text.minimumHeight()
            + margins.bottom()
        )
        if self.height() != height or self.minimumHeight() != height:
            self.setFixedHeight(height)

    # --- Qt overrides -----------------------------------------------------------------------

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        if event.size().width() != event.oldSize().width():
            self._reserve_height()

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        self._reserve_height()

    def event(self, event: QEvent) -> bool:
        # An app-wide zoom (QApplication.setFont): the labels' fonts derive from the app font.
        zoomed = event.type() in (QEvent.Type.ApplicationFontChange, QEvent.Type.FontChange)
        result = super().event(event)
        if zoomed and not self._restyling:
            self._restyling = True
            try:
                self.set_theme(self._theme)
            finally:
                self._restyling = False
        return result


class LessonController(QObject):
    """Runs one lesson at a time in ``window``: steps, reveal, highlight, menu and keys."""

    step_changed = Signal(int)  # the step index shown (0-based)
    active_changed = Signal(bool)

    def __init__(self, window: MainWindow) -> None:
        super().__init__(window)
        self.setObjectName("lessonController")
        self.window = window
        self._lesson: Lesson | None = None
        self._index = 0
        self._hidden = False
        try:
            self.lessons: tuple[Lesson, ...] = load_lessons()
            self.load_error = ""
        except LessonError as exc:  # a broken install: the lab still works, the menu says why
            self.lessons = ()
            self.load_error = str(exc)

        self.bar = LessonBar(window.theme)
        self.bar.set_reserved_texts(
            tuple(step.title for lesson in self.lessons for step in lesson.steps),
            tuple(step.text for lesson in self.lessons for step in lesson.steps),
        )
        self.bar.hide()
        window.central_column.insertWidget(0, self.bar)
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
        self.clicker_advantage = self._action(
            "Show advantages (clicker, outside a lesson)",
            "clickerAdvantageAction",
            NEXT_KEYS,
            "Outside a lesson, Page Down shows the advantages",
        )
        self.clicker_advantage.triggered.connect(lambda: self.window.set_view("advantage"))
        self.clicker_reward = self._action(
            "Show rewards (clicker, outside a lesson)",
            "clickerRewardAction",
            PREVIOUS_KEYS,
            "Outside a lesson, Page Up shows the rewards",
        )
        self.clicker_reward.triggered.connect(lambda: self.window.set_view("reward"))

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
        self.window.menuBar().insertMenu(self.window.help_menu.menuAction(), menu)
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
        return self._hidden

    # --- driving ----------------------------------------------------------------------------

    def start(self, lesson_id: str) -> None:
        """Start (or restart) the lesson ``lesson_id`` at its first step.

        Raises :class:`~grpo_desktop.core.lessons.LessonError` (``UnknownLessonError`` for an
        unknown id) before anything on screen changes.
        """
        lesson = get_lesson(lesson_id)
        was_active = self.active
        self._lesson, self._index = lesson, 0
        self.next_action.setShortcuts(list(NEXT_LESSON_KEYS))
        self.previous_action.setShortcuts(list(PREVIOUS_LESSON_KEYS))
        self.bar.show()
        self._apply_step()
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
        if self._lesson is None or not self._hidden:
            return
        window = self.window
        # Predict, then reveal: the class watches r turn into r − mean and then into A.
        window.set_view("reward", animate=False)
        self._set_hidden(False)
        window.set_view("advantage", animate=True)
        window.statusBar().showMessage(f"Revealed. {self._progress_message()}")

    def exit(self, finished: bool = False) -> None:
        """Leave the lesson; the lab keeps the last step's group."""
        if self._lesson is None:
            return
        lesson, index = self._lesson, self._index
        self._lesson = None
        self._set_hidden(False)
        self.spotlight.set_target(None)
        self.bar.hide()
        self.next_action.setShortcuts(list(NEXT_KEYS))
        self.previous_action.setShortcuts(list(PREVIOUS_KEYS))
        self.next_action.setText("&Next step")
        self._sync_enabled()
        what = "Finished" if finished else "Left"
        self.window.statusBar().showMessage(
            f"{what} the lesson “{lesson.title}”. The lab keeps step {index + 1}'s group: "
            "click the cards to explore it."
        )
        self.active_changed.emit(False)

    def set_theme(self, theme: Theme) -> None:
        self.bar.set_theme(theme)
        self.spotlight.set_theme(theme)

    # --- applying a step --------------------------------------------------------------------

    def _apply_step(self) -> None:
        assert self._lesson is not None
        step = self._lesson.steps[self._index]
        window = self.window
        if step.compare is None:
            assert step.lab is not None
            window.show_compare(False)
            self._set_lab(window.lab, step.lab)
        else:
            window.show_compare(True)
            self._set_lab(window.easy, step.compare[0])
            self._set_lab(window.hard, step.compare[1])
        window.undo_stack.clear()  # a lesson step is not an edit to undo
        self._set_hidden(step.hide_advantages)  # before the view: hidden bars do not animate
        window.set_view(step.view, animate=True)
        window.explain_tabs.setCurrentIndex(1 if step.highlight == "ppo" else 0)
        self.spotlight.set_target(self._highlight_target(step.highlight))
        self.bar.show_step(self._lesson, self._index, self._hidden)
        last = self._index == len(self._lesson.steps) - 1
        self.next_action.setText("&Finish lesson" if last else "&Next step")
        self._sync_enabled()
        window.statusBar().showMessage(self._progress_message())
        self.step_changed.emit(self._index)

    @staticmethod
    def _set_lab(pane: LabPresenter, lab: LessonLab) -> None:
        pane.state.set_problem(lab.problem_id, lab.correct)
        pane.state.set_convention(lab.convention)

    def _set_hidden(self, hidden: bool) -> None:
        self._hidden = hidden
        for pane in self.window.panes:
            pane.set_advantages_hidden(hidden)
        self.window.math_panel.set_advantages_hidden(hidden)
        self.bar.set_reveal_visible(hidden and self.active)
        self._sync_enabled()

    def _highlight_target(self, highlight: str) -> QWidget | None:
        window = self.window
        return {
            "cards": lambda: window.lab.trace_grid,
            "stats": lambda: window.lab.stats_panel,
            "chart": lambda: window.lab.chart,
            "banner": lambda: window.lab.banner,
            "math": lambda: window.explain_tabs,
            "ppo": lambda: window.explain_tabs,
            "compare": lambda: window.compare_page,
        }.get(highlight, lambda: None)()

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
        self.reveal_action.setEnabled(active and self._hidden)
        self.exit_action.setEnabled(active)
        self.clicker_advantage.setEnabled(not active)
        self.clicker_reward.setEnabled(not active)

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



def install_lesson_mode(window: MainWindow) -> LessonController:
    """Add lesson mode to ``window`` (menu, bar, spotlight, keys) and return its controller.

    Call it once the window has its central widget (``MainWindow`` builds ``central_column`` in
    ``setCentralWidget``); a second call returns the controller already installed.
    """
    existing = getattr(window, "lessons", None)
    if isinstance(existing, LessonController):
        return existing
    if window.centralWidget() is None or getattr(window, "central_column", None) is None:
        raise RuntimeError(
            "install_lesson_mode needs the window's central widget and central_column: "
            "call it after setCentralWidget"
        )
    controller = LessonController(window)
    window.lessons = controller
    return controller
