"""Lessons for every student (issue 29): each step's text is announced once, and with motion
reduced a step's transition neither tweens nor slides."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QPoint, QRect, Qt
from PySide6.QtWidgets import QApplication

from grpo_desktop.core.files.lessons import get_lesson
from grpo_desktop.views.common.lesson_bar import plain_text
from grpo_desktop.window.main_window import MainWindow

BASELINE = "group-is-baseline"


@pytest.fixture
def lessons(window: MainWindow):
    window.install_deferred_features()
    for pane in window.panes:
        pane.chart.animation_ms = 60  # these tests need not watch the 3 s animation
    return window.lessons


@pytest.fixture
def heard(monkeypatch) -> list[tuple[object, str]]:
    """What the lesson controller announces (the bus itself is tested in tests/atspi)."""
    said: list[tuple[object, str]] = []
    monkeypatch.setattr(
        "grpo_desktop.window.lesson_controller.announce",
        lambda widget, text, assertive=False: said.append((widget, text, assertive)),
    )
    return said


@pytest.fixture
def reduced(window: MainWindow):
    """View ▸ Reduce motion, for this run only; allowed again afterwards."""
    window.presentation.set_reduce_motion(True, remember=False)
    yield
    window.presentation.set_reduce_motion(False, remember=False)


def test_each_step_is_announced_once_politely_in_plain_words(qtbot, window, lessons, heard):
    lesson = get_lesson(BASELINE)
    lessons.start(BASELINE)
    first = lesson.steps[0]
    assert len(heard) == 1
    widget, text, assertive = heard[0]
    assert widget is lessons.bar and not assertive
    assert text.startswith(f"Step 1 of {len(lesson.steps)}: {plain_text(first.title)}")
    assert plain_text(first.text) in text and "<b>" not in text and "<i>" not in text
    qtbot.keyClick(window, Qt.Key.Key_PageDown)
    assert len(heard) == 2 and heard[1][1].startswith(f"Step 2 of {len(lesson.steps)}: ")
    assert plain_text(lesson.steps[1].text) in heard[1][1]
    lessons.reveal()  # revealing is no new step: nothing more to say
    qtbot.keyClick(window, Qt.Key.Key_PageUp)
    assert [text[:9] for _, text, _ in heard] == ["Step 1 of", "Step 2 of", "Step 1 of"]
    lessons.exit()
    assert len(heard) == 3 and lessons.step_announcement() == ""


def test_with_motion_reduced_the_reveal_shows_its_steps_at_once(qtbot, window, lessons, reduced):
    lessons.start(BASELINE)
    steps = get_lesson(BASELINE).steps
    predict = next(i for i, s in enumerate(steps) if s.hide_advantages and s.view == "advantage")
    lessons.go_to(predict)
    qtbot.waitUntil(lambda: not window.lab.chart.is_animating())
    QApplication.processEvents()
    chart = window.lab.chart
    assert chart.isVisible()
    lessons.reveal()  # the class sees r − mean, then A: each at once, never a tween
    animator = chart.animator
    assert chart.is_animating() and animator.stepwise()
    values = chart._values
    assert chart.bar_heights() == list(values.centered)
    # The clock is driven by hand: on a loaded machine its ticks can skip a whole phase.
    animator.clock.pause()
    half = animator.clock.duration() // 2
    animator.clock.setCurrentTime(half // 2)  # a quarter in: still r − mean, not a tween
    assert animator.phase() == 1 and chart.bar_heights() == list(values.centered)
    animator.clock.setCurrentTime(half + half // 4)  # just into step 2: A at once
    assert animator.phase() == 2 and chart.bar_heights() == list(values.advantages)
    animator.clock.resume()
    qtbot.waitUntil(lambda: not chart.is_animating())
    assert window.view == "advantage" and chart.bar_heights() == list(values.advantages)


def test_the_spotlight_jumps_to_its_part_without_sliding(qtbot, window, lessons, reduced):
    lessons.start(BASELINE)
    QApplication.processEvents()
    spotlight = lessons.spotlight
    for target in (window.lab.chart, window.lab.stats_panel, window.lab.trace_grid):
        spotlight.set_target(target)
        # At once, before any event runs: the ring stands around its part, no frames between.
        expected = QRect(target.mapTo(window.centralWidget(), QPoint(0, 0)), target.size())
        assert spotlight.target_rect() == expected


def test_with_motion_reduced_p_advances_the_run_and_s_and_page_down_step(
    qtbot, window, lessons, reduced
):
    qtbot.keyClick(window, Qt.Key.Key_T, Qt.KeyboardModifier.ControlModifier)
    page = window.training_page
    state = page.state
    assert state.run.step_count == 0
    qtbot.keyClick(window, Qt.Key.Key_P)
    assert not state.playing and state.run.step_count == state.speed == 30
    assert page.controls.progress.format().startswith("30 / ")
    qtbot.keyClick(window, Qt.Key.Key_S)
    assert not state.playing and state.run.step_count == 31
    qtbot.keyClick(window, Qt.Key.Key_PageDown)
    assert not state.playing and state.run.step_count == 32
