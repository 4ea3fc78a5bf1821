"""Lesson mode end to end: a lecturer pages through a lesson with a clicker's keys.

Every step puts its group on screen (without undoable edits), picks the view, hides or reveals the
advantages and rings the part of the window it talks about; leaving the lesson restores the lab.
"""

from __future__ import annotations

import dataclasses
import os
import subprocess
import sys

import numpy as np
import pytest
from PySide6.QtCore import QPoint, QRect, Qt
from PySide6.QtGui import QFont
from PySide6.QtWidgets import QApplication, QLabel, QMessageBox, QWidget

from grpo_desktop.core.common.theme import PROJECTOR
from grpo_desktop.core.files.lessons import (
    LessonError,
    UnknownLessonError,
    get_lesson,
    load_lessons,
)
from grpo_desktop.window.lesson_controller import FINISH_TEXT, NEXT_TEXT, LessonController
from grpo_desktop.window.main_window import MainWindow

BASELINE = "group-is-baseline"
TWO_GROUPS = "same-formula-two-groups"


@pytest.fixture(autouse=True)
def quick_animation(window: MainWindow) -> None:
    """The reward → advantage animation runs in 60 ms here (a class watches it for 3 s): these
    tests wait for it on almost every step. Its timing has its own tests in the views."""
    for pane in window.panes:
        pane.chart.animation_ms = 60


@pytest.fixture
def lessons(window) -> LessonController:
    window.install_deferred_features()
    return window.lessons


def settle(qtbot, window: MainWindow) -> None:
    """Let layouts run and every chart animation finish. The animations take 60 ms; the wait
    allows far more, as a machine loaded several times over (the development loop beside other
    work) once took over 5 s to end one: a wait for a state, not a time limit."""
    qtbot.waitUntil(
        lambda: not any(pane.chart.is_animating() for pane in window.panes), timeout=30_000
    )
    QApplication.processEvents()


def stat(window: MainWindow, name: str) -> str:
    return window.lab.stats_panel.findChild(QLabel, name).text()


def step_of(title: str, lesson_id: str) -> int:
    return next(i for i, s in enumerate(get_lesson(lesson_id).steps) if s.title == title)


def built_page(window: MainWindow, workspace: str) -> QWidget | None:
    """The Update or Training page if the window has built it, without building it."""
    return window.built_pages.get(workspace)


def rect_in_central(window: MainWindow, widget: QWidget) -> QRect:
    return QRect(widget.mapTo(window.centralWidget(), QPoint(0, 0)), widget.size())


def expected_target(window: MainWindow, highlight: str) -> QWidget | None:
    if highlight in ("training-charts", "frontier", "training-controls"):
        page = window.training_page  # built the first time it is needed, not for a lab step
        return {
            "training-charts": page.charts,
            "frontier": page.frontier,
            "training-controls": page.controls,
        }[highlight]
    if highlight in ("tokens", "push-chart", "token-detail", "update-controls"):
        page = window.update_page  # built the first time it is needed, not for a lab step
        return {
            "tokens": page.rows,
            "push-chart": page.chart,
            "token-detail": page.detail,
            "update-controls": page.controls,
        }[highlight]
    return {
        "cards": window.lab.trace_grid,
        "stats": window.lab.stats_panel,
        "chart": window.lab.chart,
        "banner": window.lab.banner,
        "math": window.explain_tabs,
        "ppo": window.explain_tabs,
        "compare": window.compare_page,
        "none": None,
    }[highlight]


# --- menu and actions ------------------------------------------------------------------------


def test_lesson_menu_sits_before_help_and_lists_every_lesson(window, lessons):
    titles = [action.text() for action in window.menuBar().actions()]
    assert titles.index("&Lesson") == titles.index("&Help") - 1
    entries = [action.text() for action in lessons.menu.actions() if action.text()]
    for lesson in load_lessons():
        assert f"Start: {lesson.title}" in entries
    assert "Start: The group is the baseline" in entries
    for action in (lessons.next_action, lessons.previous_action, lessons.exit_action):
        assert action in lessons.menu.actions()
        assert action in window.actions()  # the keys work with the menu closed
        assert not action.isEnabled()  # only during a lesson
    assert not lessons.reveal_action.isEnabled()
    assert lessons.next_action.shortcut().toString() == "PgDown"
    assert lessons.previous_action.shortcut().toString() == "PgUp"
    assert lessons.reveal_action.shortcut().toString() == "R"
    assert lessons.exit_action.shortcut().toString() == "Esc"


def test_the_menu_entry_starts_its_lesson(window, lessons):
    lessons.start_actions[TWO_GROUPS].trigger()
    assert lessons.active and lessons.lesson.id == TWO_GROUPS and lessons.step_index == 0


def test_lesson_keys_do_not_clash_with_the_windows_own_shortcuts(window, lessons):
    ours = {
        seq.toString()
        for action in (
            lessons.next_action,
            lessons.previous_action,
            lessons.reveal_action,
            lessons.exit_action,
        )
        for seq in action.shortcuts()
    }
    theirs = {
        seq.toString()
        for action in window.actions()
        if action not in (lessons.next_action, lessons.previous_action)
        and action not in (lessons.reveal_action, lessons.exit_action)
        for seq in action.shortcuts()
    }
    theirs |= {shortcut.key().toString() for shortcut in window.card_shortcuts}
    theirs -= {"PgDown", "PgUp"}  # the clicker actions, enabled only outside a lesson
    assert ours and not ours & theirs


# --- starting and paging -------------------------------------------------------------------


def test_start_shows_step_one_with_its_group_and_view(qtbot, window, lessons):
    lessons.start(BASELINE)
    settle(qtbot, window)
    lesson = get_lesson(BASELINE)
    bar = lessons.bar
    assert lessons.active and lessons.lesson is lesson and lessons.step_index == 0
    assert lessons.step is lesson.steps[0]
    assert bar.isVisible()
    assert bar.step_counter.text() == f"Step 1 of {len(lesson.steps)}"
    assert bar.step_title.text() == "Par is the group mean"
    assert bar.lesson_title.full_text() == "Lesson: The group is the baseline"
    assert window.state.problem.id == "mult-23x47"
    assert window.state.correct == (True, False, False, True)
    assert window.view == "reward"
    assert window.lab.chart.bar_heights() == [1.0, 0.0, 0.0, 1.0]
    assert stat(window, "statPar") == "0.5"
    assert window.statusBar().currentMessage() == (
        f"Lesson: The group is the baseline — step 1 of {len(lesson.steps)} "
        "(Page Down: next, Page Up: previous)"
    )
    assert not bar.previous_button.isEnabled()
    assert bar.next_button.text() == NEXT_TEXT


def test_page_down_and_page_up_step_through_the_lesson(qtbot, window, lessons):
    lessons.start(BASELINE)
    qtbot.keyClick(window, Qt.Key.Key_PageDown)
    assert lessons.step_index == 1
    assert lessons.bar.step_counter.text() == "Step 2 of 7"
    assert "step 2 of 7" in window.statusBar().currentMessage()
    qtbot.keyClick(window, Qt.Key.Key_PageDown)
    assert lessons.step_index == 2
    qtbot.keyClick(window, Qt.Key.Key_PageUp)
    assert lessons.step_index == 1
    qtbot.keyClick(window, Qt.Key.Key_PageUp)
    qtbot.keyClick(window, Qt.Key.Key_PageUp)  # on step 1: stays
    assert lessons.step_index == 0
    assert lessons.active


def test_the_bars_buttons_page_too(qtbot, window, lessons):
    lessons.start(BASELINE)
    qtbot.mouseClick(lessons.bar.next_button, Qt.MouseButton.LeftButton)
    assert lessons.step_index == 1
    qtbot.mouseClick(lessons.bar.previous_button, Qt.MouseButton.LeftButton)
    assert lessons.step_index == 0
    qtbot.mouseClick(lessons.bar.exit_button, Qt.MouseButton.LeftButton)
    assert not lessons.active


def test_the_last_step_says_finish_and_next_finishes(qtbot, window, lessons):
    lessons.start(BASELINE)
    last = len(get_lesson(BASELINE).steps) - 1
    lessons.go_to(last)
    assert lessons.bar.next_button.text() == FINISH_TEXT
    assert lessons.next_action.text() == "&Finish lesson"
    qtbot.keyClick(window, Qt.Key.Key_PageDown)
    assert not lessons.active
    assert not lessons.bar.isVisible()
    assert "Finished the lesson" in window.statusBar().currentMessage()
    assert lessons.next_action.text() == "&Next step"


def test_restarting_from_the_menu_goes_back_to_step_one(window, lessons):
    lessons.start(BASELINE)
    lessons.go_to(3)
    lessons.start(TWO_GROUPS)
    assert lessons.lesson.id == TWO_GROUPS and lessons.step_index == 0
    assert lessons.bar.step_counter.text() == "Step 1 of 8"


# --- predict, then reveal --------------------------------------------------------------------


def test_the_predict_step_hides_every_advantage(qtbot, window, lessons):
    lessons.start(BASELINE)
    qtbot.keyClick(window, Qt.Key.Key_PageDown)
    settle(qtbot, window)
    assert lessons.step.title == "Predict, then reveal" and lessons.step.hide_advantages
    assert lessons.advantages_hidden
    assert window.view == "advantage"
    assert window.lab.chart.bar_heights() == [0.0, 0.0, 0.0, 0.0]
    assert window.lab.trace_grid.card(0).advantage_hidden
    assert stat(window, "statPushedUp") == "?"
    assert stat(window, "statPushedDown") == "?"
    assert "A = ? (predict first, then reveal)" in window.math_panel.plain_text()
    assert lessons.bar.reveal_button.isVisible()
    assert lessons.reveal_action.isEnabled()


def test_reveal_shows_the_exact_advantages_with_the_animation(qtbot, window, lessons):
    lessons.start(BASELINE)
    lessons.go_to(step_of("Predict, then reveal", BASELINE))
    settle(qtbot, window)
    qtbot.keyClick(window, Qt.Key.Key_R)
    assert window.lab.chart.is_animating()  # the class watches r become A
    settle(qtbot, window)
    assert not lessons.advantages_hidden
    assert window.view == "advantage"
    assert window.lab.chart.bar_heights() == [1.0, -1.0, -1.0, 1.0]
    assert not window.lab.trace_grid.card(0).advantage_hidden
    assert stat(window, "statPushedUp") == "2"
    assert "A = ?" not in window.math_panel.plain_text()
    assert not lessons.bar.reveal_button.isVisible()
    assert not lessons.reveal_action.isEnabled()
    assert lessons.step_index == 1  # revealing does not page


def test_the_reveal_button_reveals(qtbot, window, lessons):
    lessons.start(TWO_GROUPS)
    lessons.go_to(step_of("Predict: the hard problem", TWO_GROUPS))
    qtbot.mouseClick(lessons.bar.reveal_button, Qt.MouseButton.LeftButton)
    settle(qtbot, window)
    assert window.lab.chart.bar_heights() == pytest.approx([2.0, -0.5, -0.5, -0.5, -0.5])


def test_paging_back_to_a_predict_step_hides_again(qtbot, window, lessons):
    lessons.start(BASELINE)
    lessons.go_to(1)
    lessons.reveal()
    lessons.next()
    lessons.previous()
    assert lessons.advantages_hidden
    assert window.lab.trace_grid.card(0).advantage_hidden


@pytest.mark.parametrize("lesson_id", [BASELINE, TWO_GROUPS])
def test_step_one_shows_rewards_and_par_but_no_advantage_or_push_count(
    qtbot, window, lessons, lesson_id
):
    lessons.start(lesson_id)
    settle(qtbot, window)
    lab = get_lesson(lesson_id).steps[0].lab
    assert lessons.step_index == 0 and lessons.advantages_hidden
    assert window.view == "reward"
    assert window.lab.chart.bar_heights() == [float(r) for r in lab.rewards]
    assert all(window.lab.trace_grid.card(i).advantage_hidden for i in range(len(lab.rewards)))
    assert stat(window, "statPushedUp") == "?" and stat(window, "statPushedDown") == "?"
    assert stat(window, "statPar") != "?"  # par is what step 1 is about
    assert "A = ?" in window.math_panel.plain_text()
    lessons.next()  # the predict step: still hidden
    assert lessons.step.hide_advantages and lessons.advantages_hidden
    assert window.lab.trace_grid.card(0).advantage_hidden


def test_the_reveal_button_does_not_shift_the_other_buttons(qtbot, window, lessons):
    lessons.start(BASELINE)
    lessons.go_to(step_of("Divide by the group std", BASELINE))
    QApplication.processEvents()
    assert not lessons.bar.reveal_button.isVisible()
    x_next = lessons.bar.next_button.x()
    lessons.previous()  # the predict step: Reveal appears
    QApplication.processEvents()
    assert lessons.bar.reveal_button.isVisible()
    assert lessons.bar.next_button.x() == x_next


# --- what each step shows -------------------------------------------------------------------


def test_the_degenerate_steps_show_the_banner(qtbot, window, lessons):
    lessons.start(BASELINE)
    lessons.go_to(step_of("All correct: no signal", BASELINE))
    settle(qtbot, window)
    assert window.lab.banner.isVisible()
    assert window.lab.chart.bar_heights() == [0.0, 0.0, 0.0, 0.0]
    lessons.go_to(step_of("All wrong: the other side", BASELINE))
    assert window.state.correct == (False, False, False, False)
    assert window.lab.banner.isVisible()


def test_the_compare_step_shows_both_groups_side_by_side(qtbot, window, lessons):
    lessons.start(TWO_GROUPS)
    lessons.go_to(step_of("Same formula, two groups", TWO_GROUPS))
    settle(qtbot, window)
    assert window.compare_action.isChecked()
    assert window.compare_view.isVisible()
    assert window.easy.state.correct == (True, True, True, True, False)
    assert window.hard.state.correct == (True, False, False, False, False)
    assert window.easy.chart.bar_heights()[4] == pytest.approx(-2.0)
    assert window.hard.chart.bar_heights()[0] == pytest.approx(2.0)
    assert "gets −2.0" in window.compare_view.left.note.text()
    assert "gets +2.0" in window.compare_view.right.note.text()
    lessons.next()  # back to one lab
    assert not window.compare_view.isVisible()
    assert window.lab_page.isVisible()


def test_a_steps_convention_is_applied(qtbot, window, lessons):
    lessons.start(TWO_GROUPS)
    lessons.go_to(step_of("Real trainers differ", TWO_GROUPS))
    settle(qtbot, window)
    assert window.state.convention == "trl"
    assert window.lab.chart.bar_heights()[0] == pytest.approx(0.866, abs=5e-4)
    assert window.convention_combo.currentData() == "trl"


def lesson_steps() -> list:
    """Every step of every lesson; only the first to ring each kind of target is left in the
    development loop (``pytest -m "not slow"``), the others are slow (about 3 s each)."""
    steps, seen = [], set()
    for lesson in load_lessons():
        for index, step in enumerate(lesson.steps):
            marks = pytest.mark.slow if step.highlight in seen else ()
            seen.add(step.highlight)
            steps.append(pytest.param(lesson.id, index, id=f"{lesson.id}-{index}", marks=marks))
    return steps


STEPS = lesson_steps()


@pytest.mark.parametrize(("lesson_id", "index"), STEPS)
def test_the_spotlight_rings_the_steps_widget(qtbot, window, lessons, lesson_id, index):
    lessons.start(lesson_id)
    lessons.go_to(index)
    settle(qtbot, window)
    step = lessons.step
    target = expected_target(window, step.highlight)
    spotlight = lessons.spotlight
    if target is None:
        assert not spotlight.isVisible()
        return
    assert spotlight.target() is target
    qtbot.waitUntil(lambda: spotlight.geometry().contains(rect_in_central(window, target)))
    assert spotlight.isVisible()
    assert spotlight.parentWidget() is window.centralWidget()
    assert spotlight.testAttribute(Qt.WidgetAttribute.WA_TransparentForMouseEvents)
    siblings = [w for w in window.centralWidget().children() if isinstance(w, QWidget)]
    assert siblings[-1] is spotlight  # raised above the lab
    if step.highlight == "math":
        assert window.explain_tabs.currentIndex() == 0
    if step.highlight == "ppo":
        assert window.explain_tabs.currentIndex() == 1


def test_the_spotlight_follows_its_target_when_the_window_resizes(qtbot, window, lessons):
    lessons.start(BASELINE)
    lessons.go_to(step_of("Par is the group mean", BASELINE))
    spotlight = lessons.spotlight
    chart = window.lab.stats_panel  # the step rings the tiles
    qtbot.waitUntil(lambda: spotlight.geometry().contains(rect_in_central(window, chart)))
    before = spotlight.geometry()
    window.resize(1600, 950)
    qtbot.waitUntil(lambda: spotlight.geometry() != before)
    qtbot.waitUntil(lambda: spotlight.geometry().contains(rect_in_central(window, chart)))
    assert spotlight.target_rect() == rect_in_central(window, chart)


def test_cards_under_the_spotlight_still_take_clicks(qtbot, window, lessons):
    lessons.start(BASELINE)
    lessons.go_to(step_of("Predict, then reveal", BASELINE))
    settle(qtbot, window)
    card = window.lab.trace_grid.card(1)
    qtbot.mouseClick(card, Qt.MouseButton.LeftButton, pos=QPoint(card.width() // 2, 20))
    assert window.state.correct == (True, True, False, True)


# --- leaving, undo, keys outside a lesson ---------------------------------------------------


def test_escape_leaves_the_lesson_and_restores_the_lab(qtbot, window, lessons):
    lessons.start(BASELINE)
    lessons.go_to(step_of("Predict, then reveal", BASELINE))
    settle(qtbot, window)
    qtbot.keyClick(window, Qt.Key.Key_Escape)
    assert not lessons.active
    assert lessons.lesson is None and lessons.step is None and lessons.step_index == -1
    assert not lessons.bar.isVisible()
    assert not lessons.spotlight.isVisible()
    assert not lessons.advantages_hidden
    assert not window.lab.trace_grid.card(0).advantage_hidden
    assert stat(window, "statPushedUp") == "2"
    assert "A = ?" not in window.math_panel.plain_text()
    assert window.state.correct == (True, False, False, True)  # the last step's group stays
    message = window.statusBar().currentMessage()
    assert "Left the lesson" in message and "keeps" in message
    for action in (
        lessons.next_action,
        lessons.previous_action,
        lessons.reveal_action,
        lessons.exit_action,
    ):
        assert not action.isEnabled()
    assert [seq.toString() for seq in lessons.next_action.shortcuts()] == ["PgDown"]
    assert [seq.toString() for seq in lessons.previous_action.shortcuts()] == ["PgUp"]


def test_lesson_steps_are_not_undoable_edits(qtbot, window, lessons):
    window.request_toggle(1)  # an edit from before the lesson
    assert window.undo_stack.count() == 1
    for lesson in load_lessons():
        lessons.start(lesson.id)
        for _ in lesson.steps:
            assert window.undo_stack.count() == 0, lessons.step.title
            lessons.next()
    assert not lessons.active
    # A click during a lesson is an ordinary edit, undoable as always.
    lessons.start(BASELINE)
    window.request_toggle(0)
    assert window.undo_stack.count() == 1
    window.undo_stack.undo()
    assert window.state.correct == (True, False, False, True)


def test_arrow_keys_page_only_during_a_lesson(qtbot, window, lessons):
    lessons.start(BASELINE)
    card = window.lab.trace_grid.card(0)
    card.setFocus()
    for key, expected in (
        (Qt.Key.Key_Right, 1),
        (Qt.Key.Key_Down, 2),
        (Qt.Key.Key_Left, 1),
        (Qt.Key.Key_Up, 0),
    ):
        qtbot.keyClick(card, key)
        assert lessons.step_index == expected, key
    lessons.exit()
    # Outside a lesson the arrows move keyboard focus between cards again.
    card.setFocus()
    qtbot.waitUntil(card.hasFocus)
    qtbot.keyClick(card, Qt.Key.Key_Right)
    assert not lessons.active
    assert window.lab.trace_grid.card(1).hasFocus()


def test_outside_a_lesson_page_down_and_up_switch_the_view(qtbot, window, lessons):
    assert window.view == "advantage"
    qtbot.keyClick(window, Qt.Key.Key_PageUp)
    assert window.view == "reward"
    settle(qtbot, window)
    qtbot.keyClick(window, Qt.Key.Key_PageDown)
    assert window.view == "advantage"
    settle(qtbot, window)
    assert not lessons.active
    # During a lesson the same keys page instead.
    lessons.start(BASELINE)  # step 1 shows rewards
    qtbot.keyClick(window, Qt.Key.Key_PageDown)
    assert lessons.step_index == 1
    lessons.exit()
    qtbot.keyClick(window, Qt.Key.Key_PageUp)
    assert window.view == "reward"


# --- errors ----------------------------------------------------------------------------------


def test_an_unknown_lesson_raises_and_leaves_the_lab_alone(window, lessons):
    before = window.state.memento()
    with pytest.raises(UnknownLessonError, match="group-is-baseline"):
        lessons.start("no-such-lesson")
    assert window.state.memento() == before
    assert not lessons.active and not lessons.bar.isVisible()


def test_the_menu_path_turns_a_bad_lesson_into_a_warning(window, lessons, monkeypatch):
    warnings = []
    monkeypatch.setattr(QMessageBox, "warning", lambda *args: warnings.append(args))
    before = window.state.memento()
    assert lessons.start_from_menu("no-such-lesson") is False
    assert len(warnings) == 1 and "no-such-lesson" in warnings[0][2]
    assert window.state.memento() == before
    assert not lessons.active
    assert issubclass(UnknownLessonError, LessonError)


# --- the bar: no jumps, readable, accessible -------------------------------------------------


def test_the_bar_keeps_one_height_on_every_step_of_a_lesson(qtbot, window, lessons):
    """Paging never moves the lab; each lesson reserves its own tallest step, so one lesson's
    long text takes no room from another's."""
    for lesson in load_lessons():
        heights, tops = set(), set()
        lessons.start(lesson.id)
        for index in range(len(lesson.steps)):
            lessons.go_to(index)
            QApplication.processEvents()
            heights.add(lessons.bar.height())
            tops.add(window.pages.y())  # the lab below never moves
            text = lessons.bar.step_text
            assert text.height() >= text.heightForWidth(text.width())  # never clipped
            title = lessons.bar.step_title
            assert title.height() >= title.heightForWidth(title.width())
        assert len(heights) == 1, (lesson.id, heights)
        assert len(tops) == 1, (lesson.id, tops)
        assert lessons.bar.y() < window.pages.y()  # the bar sits above the lab
        assert window.height() == 800  # the window did not grow to fit the bar


def test_the_bar_reserves_room_at_other_widths_and_themes(qtbot, window, lessons):
    window.presentation.set_theme(PROJECTOR.name, remember=False)  # as View ▸ Theme does
    window.resize(1920, 1080)
    heights = set()
    for index in range(len(get_lesson(BASELINE).steps)):
        if index == 0:
            lessons.start(BASELINE)
        else:
            lessons.go_to(index)
        QApplication.processEvents()
        heights.add(lessons.bar.height())
        text = lessons.bar.step_text
        assert text.height() >= text.heightForWidth(text.width())
    assert len(heights) == 1
    assert lessons.bar.theme() is PROJECTOR
    assert lessons.spotlight.ring_width() > 5


def test_an_app_wide_zoom_regrows_the_bar(qtbot, window, lessons):
    lessons.start(BASELINE)
    QApplication.processEvents()
    before_size = lessons.bar.step_text.font().pointSizeF()
    before_height = lessons.bar.height()
    original = QApplication.font()
    bigger = QFont(original)
    bigger.setPointSizeF(original.pointSizeF() * 1.5)
    try:
        QApplication.setFont(bigger)  # what View ▸ Zoom does: the app font, then the theme
        window.apply_theme(window.theme)
        QApplication.processEvents()
        assert lessons.bar.step_text.font().pointSizeF() == pytest.approx(before_size * 1.5)
        assert lessons.bar.height() > before_height
        text = lessons.bar.step_text
        assert text.height() >= text.heightForWidth(text.width())
    finally:
        QApplication.setFont(original)
        window.apply_theme(window.theme)


def test_the_step_text_is_large_and_wraps(window, lessons):
    lessons.start(BASELINE)
    text = lessons.bar.step_text
    assert text.wordWrap()
    assert text.textFormat() == Qt.TextFormat.RichText
    assert text.font().pointSizeF() >= 1.2 * QApplication.font().pointSizeF()
    assert lessons.bar.step_title.font().bold()


def test_the_bar_is_accessible(window, lessons):
    lessons.start(BASELINE)
    lessons.go_to(1)
    bar = lessons.bar
    assert bar.objectName() == "lessonBar"
    assert bar.lesson_title.accessibleName() == "Lesson: The group is the baseline"
    assert bar.step_counter.accessibleName() == "Step 2 of 7"
    assert bar.step_title.accessibleName() == "Step title: Predict, then reveal"
    assert "<" not in bar.step_text.accessibleName()
    assert bar.step_text.accessibleName().startswith("Which answers get pushed up")
    for button, key in (
        (bar.previous_button, "PgUp"),
        (bar.next_button, "PgDown"),
        (bar.reveal_button, "(R)"),
        (bar.exit_button, "Esc"),
    ):
        assert key in button.toolTip()
        assert button.accessibleName()


def test_a_lesson_started_before_the_window_shows_lays_out_like_any_other(qtbot):
    # The --lesson ID path: app.py starts the lesson, then shows the window.
    window = MainWindow()
    qtbot.addWidget(window)
    window.install_deferred_features()
    lessons = window.lessons
    window.resize(1280, 800)
    lessons.start(BASELINE)
    lessons.go_to(step_of("Predict, then reveal", BASELINE))
    with qtbot.waitExposed(window):
        window.show()
    grid = window.lab.trace_grid
    qtbot.waitUntil(lambda: lessons.spotlight.geometry().contains(rect_in_central(window, grid)))
    QApplication.processEvents()
    height = lessons.bar.height()
    lessons.go_to(step_of("One model, not four", BASELINE))
    QApplication.processEvents()
    assert lessons.bar.height() == height
    assert window.height() == 800
    text = lessons.bar.step_text
    assert text.height() >= text.heightForWidth(text.width())


@pytest.mark.parametrize("lesson_id", [BASELINE, TWO_GROUPS])
def test_the_reveal_is_offered_only_once_the_class_is_asked_to_predict(lessons, lesson_id):
    lessons.start(lesson_id)  # step 1 hides A while it shows the rewards: no reveal yet
    assert lessons.advantages_hidden
    assert lessons.bar.reveal_button.isHidden()
    assert not lessons.reveal_action.isEnabled()
    lessons.reveal()
    assert lessons.advantages_hidden
    lessons.next()  # the predict step
    assert lessons.step.view == "advantage" and lessons.advantages_hidden
    assert not lessons.bar.reveal_button.isHidden()
    assert lessons.reveal_action.isEnabled()
    lessons.reveal()
    assert not lessons.advantages_hidden


# --- update steps: the Update workspace in a lesson ----------------------------------------


LENGTH_BIAS = "update-step-length-bias"


def shown_settings(window: MainWindow):
    """The settings the Update page renders (its controls show the last snapshot's)."""
    return window.update_page.controls.settings()


def test_an_update_step_shows_the_update_page_with_its_settings_and_ring(qtbot, window, lessons):
    assert built_page(window, "update") is None  # never opened before the lesson
    lessons.start(LENGTH_BIAS)
    assert built_page(window, "update") is None  # step 1 is a lab step: the page is not built
    lessons.go_to(step_of("Every token weighs the same", LENGTH_BIAS))
    settle(qtbot, window)
    step = lessons.step
    page = window.update_page
    assert step.is_update and step.highlight == "tokens"
    assert window.workbench.workspace == "update"
    assert window.pages.currentWidget() is page
    assert window.workbench.update_settings == step.update
    assert shown_settings(window) == step.update
    assert page.controls.preset_combo.currentData() == "verl/token-mean"
    assert page.controls.compare_combo.currentData() == "verl/seq-mean-token-mean"
    snapshot = page.state.snapshot
    assert [row.correct for row in snapshot.rows] == [True, False]
    assert window.state.problem.id == "length-bias-sum"
    spotlight = lessons.spotlight
    assert spotlight.target() is page.rows
    qtbot.waitUntil(lambda: spotlight.geometry().contains(rect_in_central(window, page.rows)))
    assert spotlight.isVisible()
    assert window.undo_stack.count() == 0  # the settings are not an edit to undo
    assert "update" in window.windowTitle().lower()


def test_each_update_step_puts_its_own_settings_in_force(qtbot, window, lessons):
    lesson = get_lesson(LENGTH_BIAS)
    lessons.start(LENGTH_BIAS)
    for index, step in enumerate(lesson.steps):
        lessons.go_to(index)
        QApplication.processEvents()
        if step.is_update:
            assert window.workbench.update_settings == step.update, step.title
            assert shown_settings(window) == step.update, step.title
            assert window.workbench.workspace == "update"
            assert lessons.spotlight.target() is expected_target(window, step.highlight)
        else:
            assert window.workbench.workspace == "lab"
    # Paging back to an update step shows its own settings again, not the last step's.
    lessons.go_to(step_of("Every answer weighs the same", LENGTH_BIAS))
    assert window.workbench.update_settings.preset == "verl/seq-mean-token-mean"
    assert shown_settings(window).compare_preset == "verl/token-mean"


def test_page_down_and_up_switch_between_the_lab_and_the_update_step(qtbot, window, lessons):
    lessons.start(LENGTH_BIAS)
    settle(qtbot, window)
    assert window.workbench.workspace == "lab" and window.pages.currentWidget() is window.lab_page
    assert lessons.spotlight.target() is window.lab.trace_grid
    assert window.lab.chart.bar_heights() == [1.0, -1.0]

    qtbot.keyClick(window, Qt.Key.Key_PageDown)
    assert lessons.step_index == 1
    assert window.workbench.workspace == "update"
    assert window.pages.currentWidget() is window.update_page
    assert window.update_action.isChecked() and not window.lab_action.isChecked()
    qtbot.keyClick(window, Qt.Key.Key_PageDown)
    qtbot.keyClick(window, Qt.Key.Key_PageDown)
    assert window.workbench.update_settings.preset == "verl/seq-mean-token-mean"

    for _ in range(3):
        qtbot.keyClick(window, Qt.Key.Key_PageUp)
    settle(qtbot, window)
    assert lessons.step_index == 0
    assert window.workbench.workspace == "lab" and window.pages.currentWidget() is window.lab_page
    assert window.lab_action.isChecked() and not window.update_action.isChecked()
    assert lessons.spotlight.target() is window.lab.trace_grid
    qtbot.waitUntil(
        lambda: lessons.spotlight.geometry().contains(
            rect_in_central(window, window.lab.trace_grid)
        )
    )
    assert window.lab.chart.bar_heights() == [1.0, -1.0]  # the lab's views are live again
    assert stat(window, "statPar") == "0.5"
    # A lab step leaves the update settings as the lesson last set them.
    assert window.workbench.update_settings.preset == "verl/token-mean"
    assert window.undo_stack.count() == 0


def test_a_lab_lesson_after_an_update_step_returns_to_the_lab(qtbot, window, lessons):
    lessons.start(LENGTH_BIAS)
    lessons.go_to(step_of("What it does not change", LENGTH_BIAS))
    assert window.workbench.workspace == "update"
    lessons.start(TWO_GROUPS)
    assert window.workbench.workspace == "lab"
    lessons.go_to(step_of("Same formula, two groups", TWO_GROUPS))
    assert window.workbench.workspace == "compare"
    lessons.start(LENGTH_BIAS)
    lessons.go_to(1)
    assert window.workbench.workspace == "update"
    assert window.pages.currentWidget() is window.update_page


def test_leaving_the_lesson_on_an_update_step_keeps_it(qtbot, window, lessons):
    lessons.start(LENGTH_BIAS)
    lessons.go_to(step_of("What Dr. GRPO fixes", LENGTH_BIAS))
    qtbot.keyClick(window, Qt.Key.Key_Escape)
    assert not lessons.active and not lessons.spotlight.isVisible()
    assert window.workbench.workspace == "update"
    assert window.workbench.update_settings.preset == "trl/dr_grpo"
    message = window.statusBar().currentMessage()
    assert "Left the lesson" in message
    assert "The Update step keeps step 5's group and settings" in message
    # Its settings are now the lecturer's to change, as undoable edits.
    window.update_page.request_settings(
        dataclasses.replace(window.workbench.update_settings, inner_steps=3)
    )
    assert window.undo_stack.count() == 1


def test_an_update_step_reached_first_rings_its_target_once_laid_out(qtbot):
    # The page is built by the step itself, before the window shows: the ring must still find it.
    window = MainWindow()
    qtbot.addWidget(window)
    window.install_deferred_features()
    lessons = window.lessons
    window.resize(1280, 800)
    lessons.start(LENGTH_BIAS)
    lessons.go_to(step_of("Add up the pushes", LENGTH_BIAS))
    with qtbot.waitExposed(window):
        window.show()
    chart = window.update_page.chart
    assert lessons.spotlight.target() is chart
    qtbot.waitUntil(lambda: lessons.spotlight.geometry().contains(rect_in_central(window, chart)))
    assert lessons.spotlight.isVisible()
    window.undo_stack.setClean()


def test_the_command_line_starts_the_update_lesson_and_takes_a_screenshot(tmp_path):
    from PySide6.QtGui import QImage

    target = tmp_path / "out.png"
    env = dict(os.environ)
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "grpo_desktop",
            "--lesson",
            LENGTH_BIAS,
            "--screenshot",
            str(target),
            "--size",
            "1280x800",
        ],
        cwd=env["HOME"],  # not the repository root: that would import the source folder
        capture_output=True,
        text=True,
        encoding="utf-8",
        env=env,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("wrote ")
    image = QImage(str(target))
    assert (image.width(), image.height()) == (1280, 800)


# --- training steps: the Training workspace in a lesson --------------------------------------

STALL = "why-runs-stall"


def shown_run(window: MainWindow):
    """The Training page's run and the snapshot its views rendered last."""
    state = window.training_page.state
    return state.run, state.snapshot


def test_a_training_step_shows_the_training_page_at_its_step_count_and_ring(qtbot, window, lessons):
    assert built_page(window, "training") is None  # never opened before the lesson
    lessons.start(STALL)
    assert built_page(window, "training") is None  # step 1 is a lab step: the page is not built
    assert lessons.spotlight.target() is window.lab.banner
    lessons.go_to(1)
    settle(qtbot, window)
    step = lessons.step
    page = window.training_page
    assert step.is_training and step.training_steps == 0 and step.highlight == "frontier"
    assert window.workbench.workspace == "training"
    assert window.pages.currentWidget() is page
    assert window.training_action.isChecked() and not window.lab_action.isChecked()
    assert window.workbench.training_config == step.training
    run, snapshot = shown_run(window)
    assert run.config == step.training and run.step_count == 0
    assert snapshot.steps_done == 0 and snapshot.metric == step.metric
    assert not page.state.playing
    spotlight = lessons.spotlight
    assert spotlight.target() is page.frontier
    qtbot.waitUntil(lambda: spotlight.geometry().contains(rect_in_central(window, page.frontier)))
    assert spotlight.isVisible()
    assert window.undo_stack.count() == 0  # the run's settings are not an edit to undo

    lessons.go_to(2)  # the reveal: the same run, computed to the step's count
    settle(qtbot, window)
    run, snapshot = shown_run(window)
    assert run.step_count == snapshot.steps_done == lessons.step.training_steps == 150
    assert snapshot.focus == "grpo"
    assert f"Step {run.step_count} of {run.config.steps}" in page.status.text()
    assert window.undo_stack.count() == 0


@pytest.mark.parametrize("index", range(1, len(get_lesson(STALL).steps)))
def test_each_training_step_shows_its_own_run_metric_focus_and_ring(qtbot, window, lessons, index):
    lessons.start(STALL)
    lessons.go_to(len(get_lesson(STALL).steps) - 1)  # from elsewhere: nothing carries over
    lessons.go_to(index)
    QApplication.processEvents()
    step = lessons.step
    run, snapshot = shown_run(window)
    assert window.workbench.training_config == step.training == run.config
    assert run.step_count == step.training_steps
    assert snapshot.metric == step.metric and snapshot.focus == step.focus
    assert snapshot.selected_step is None and not snapshot.playing
    assert lessons.spotlight.target() is expected_target(window, step.highlight)
    controls = window.training_page.controls
    assert controls.metric_combo.currentData() == step.metric


def test_the_same_training_step_shows_the_same_run_whichever_way_you_page(qtbot, window, lessons):
    lessons.start(STALL)
    lessons.go_to(3)
    first = shown_run(window)[0].history("grpo")["degenerate_fraction"].copy()
    lessons.go_to(4)  # another run (GRPO and DAPO)
    assert shown_run(window)[0].config.algorithms == ("grpo", "dapo")
    window.training_page.state.set_playing(True)  # the lecturer pressed Play
    window.training_page.state.step_once()
    lessons.go_to(3)
    run, _ = shown_run(window)
    assert run.config.algorithms == ("grpo",) and run.step_count == 150
    assert not window.training_page.state.playing
    again = run.history("grpo")["degenerate_fraction"]
    assert np.array_equal(first, again, equal_nan=True)  # the same seeds: the same run again


def test_the_lessons_runs_are_computed_while_it_starts_and_paging_to_them_computes_none(
    qtbot, window, lessons, monkeypatch
):
    """Paging to a training step computed its run from step 0 there (150 steps, up to 0.4 s
    on stage); the runs are computed in idle time once the lesson starts instead."""
    from collections import OrderedDict

    from grpo_desktop.core.training import computed_runs
    from grpo_desktop.core.training.run import TrainingRun

    monkeypatch.setattr(computed_runs, "_kept", OrderedDict())  # none from earlier tests
    monkeypatch.setattr(computed_runs, "_computing", {})
    lessons.start(STALL)
    assert lessons.runs_ahead.running
    qtbot.waitUntil(lambda: not lessons.runs_ahead.running, timeout=20_000)
    parts: list[int] = []
    part = TrainingRun.step_part
    monkeypatch.setattr(TrainingRun, "step_part", lambda run: parts.append(1) or part(run))
    shown = 0
    for index, step in enumerate(get_lesson(STALL).steps):
        if step.is_training:
            lessons.go_to(index)
            assert shown_run(window)[0].step_count == step.training_steps
            shown += step.training_steps > 0
    assert shown == 4 and parts == []


def test_page_down_and_up_switch_between_the_lab_and_the_training_steps(qtbot, window, lessons):
    lessons.start(STALL)
    settle(qtbot, window)
    assert window.workbench.workspace == "lab" and window.pages.currentWidget() is window.lab_page
    assert window.lab.chart.bar_heights() == [0.0] * 8  # all right: every advantage 0

    qtbot.keyClick(window, Qt.Key.Key_PageDown)
    assert lessons.step_index == 1
    assert window.workbench.workspace == "training"
    assert window.pages.currentWidget() is window.training_page
    assert shown_run(window)[0].step_count == 0
    qtbot.keyClick(window, Qt.Key.Key_PageDown)
    assert lessons.step_index == 2 and shown_run(window)[0].step_count == 150
    qtbot.keyClick(window, Qt.Key.Key_PageUp)
    assert lessons.step_index == 1 and shown_run(window)[0].step_count == 0  # asked again

    qtbot.keyClick(window, Qt.Key.Key_PageUp)
    settle(qtbot, window)
    assert lessons.step_index == 0
    assert window.workbench.workspace == "lab" and window.pages.currentWidget() is window.lab_page
    assert window.lab_action.isChecked() and not window.training_action.isChecked()
    assert lessons.spotlight.target() is window.lab.banner
    assert window.state.problem.id == "easy-add-17-25"  # the lab kept its group
    assert window.lab.chart.bar_heights() == [0.0] * 8  # the lab's views are live again
    assert stat(window, "statPar") == "1"
    assert not window.training_page.state.playing
    assert window.undo_stack.count() == 0
    # A training step leaves the lab's convention and group alone; the lab step puts its own.
    for _ in range(5):
        qtbot.keyClick(window, Qt.Key.Key_PageDown)
    assert lessons.step_index == 5 and window.workbench.workspace == "training"
    assert window.state.problem.id == "easy-add-17-25"
    assert shown_run(window)[0].config.group_size == 16


def test_a_lab_lesson_after_a_training_step_returns_to_the_lab(qtbot, window, lessons):
    lessons.start(STALL)
    lessons.go_to(2)
    assert window.workbench.workspace == "training"
    lessons.start(BASELINE)
    assert window.workbench.workspace == "lab"
    assert window.pages.currentWidget() is window.lab_page
    assert not window.training_page.state.playing


def test_leaving_the_lesson_on_a_training_step_keeps_its_run(qtbot, window, lessons):
    lessons.start(STALL)
    lessons.go_to(4)
    qtbot.keyClick(window, Qt.Key.Key_Escape)
    assert not lessons.active and not lessons.spotlight.isVisible()
    assert window.workbench.workspace == "training"
    run, _ = shown_run(window)
    assert run.config.algorithms == ("grpo", "dapo") and run.step_count == 150
    message = window.statusBar().currentMessage()
    assert "Left the lesson" in message
    assert "The Training run keeps step 5's run" in message
    # The run is now the lecturer's: playing on, and settings as undoable edits.
    window.training_page.state.step_once()
    assert shown_run(window)[0].step_count == 151
    window.training_page.request_config(dataclasses.replace(run.config, seeds=4))
    assert window.undo_stack.count() == 1


def test_a_training_step_reached_first_rings_its_target_once_laid_out(qtbot):
    # The page is built by the step itself, before the window shows: the ring must still find it.
    window = MainWindow()
    qtbot.addWidget(window)
    window.install_deferred_features()
    lessons = window.lessons
    window.resize(1280, 800)
    lessons.start(STALL)
    lessons.go_to(3)
    with qtbot.waitExposed(window):
        window.show()
    charts = window.training_page.charts
    assert lessons.spotlight.target() is charts
    qtbot.waitUntil(lambda: lessons.spotlight.geometry().contains(rect_in_central(window, charts)))
    assert lessons.spotlight.isVisible()
    assert shown_run(window)[0].step_count == 150
    window.undo_stack.setClean()


def test_the_command_line_starts_the_stall_lesson_and_takes_a_screenshot(tmp_path):
    from PySide6.QtGui import QImage

    target = tmp_path / "out.png"
    env = dict(os.environ)
    result = subprocess.run(
        [sys.executable, "-m", "grpo_desktop", "--lesson", STALL, "--screenshot", str(target)],
        cwd=env["HOME"],  # not the repository root: that would import the source folder
        capture_output=True,
        text=True,
        encoding="utf-8",
        env=env,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("wrote ")
    image = QImage(str(target))
    assert not image.isNull() and image.width() > 0


def test_a_ringed_part_of_a_scrolling_side_column_is_scrolled_into_view(qtbot, window, lessons):
    # The projector's large type on a 1280×800 screen: the Training page's side column (the
    # controls over the frontier) scrolls, and a step about the frontier must show it.
    window.presentation.set_theme("projector", remember=False)
    try:
        window.resize(1280, 800)
        lessons.start(STALL)
        for index, step in enumerate(get_lesson(STALL).steps):
            lessons.go_to(index)
            for _ in range(3):
                QApplication.processEvents()
            if step.highlight not in ("frontier", "training-controls"):
                continue
            side = window.training_page.side_column
            target = expected_target(window, step.highlight)
            seen = QRect(side.viewport().mapTo(window, QPoint(0, 0)), side.viewport().size())
            ringed = QRect(target.mapTo(window, QPoint(0, 0)), target.size())
            assert seen.contains(ringed), f"step {index + 1}: {ringed} not inside {seen}"
        assert side.verticalScrollBar().maximum() > 0  # the check above was not vacuous
    finally:
        lessons.exit()
        window.presentation.set_theme("light", remember=False)
