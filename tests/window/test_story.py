"""The seeds' story on screen: reward ↔ advantage, worked math, easy vs hard, conventions."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QPoint, Qt
from PySide6.QtWidgets import QComboBox, QLabel, QWidget

from grpo_desktop import core
from grpo_desktop.core.common.theme import DARK
from grpo_desktop.views.lab.advantage_chart import AdvantageChart
from grpo_desktop.views.lab.math_panel import MathPanel
from grpo_desktop.views.lab.trace_card import TraceCard
from grpo_desktop.window.main_window import MainWindow


@pytest.fixture(autouse=True)
def quick_animation(window: MainWindow) -> None:
    """Animations run in 60 ms here; the shared window fixture comes from conftest."""
    for pane in window.panes:
        pane.chart.animation_ms = 60


def lab_chart(window: MainWindow) -> AdvantageChart:
    return window.lab.chart


def math_text(window: MainWindow) -> str:
    return window.findChild(MathPanel, "mathPanel").toPlainText()


def test_view_toggle_animates_to_rewards_and_back_to_exact_advantages(qtbot, window):
    toggle = window.findChild(type(window.view_toggle), "viewToggle")
    assert toggle.isChecked()
    chart = lab_chart(window)
    with qtbot.waitSignal(chart.animation_finished, timeout=3000):
        toggle.trigger()
    assert chart.bar_heights() == [1.0, 0.0, 0.0, 1.0]
    with qtbot.waitSignal(chart.animation_finished, timeout=3000):
        toggle.trigger()
    assert chart.bar_heights() == [1.0, -1.0, -1.0, 1.0]


def test_view_toggle_has_a_keyboard_shortcut_and_can_be_instant(qtbot, window):
    window.animate_action.setChecked(False)
    qtbot.keyClick(window, Qt.Key.Key_V)
    assert not lab_chart(window).is_animating()
    assert lab_chart(window).bar_heights() == [1.0, 0.0, 0.0, 1.0]
    assert window.view == "reward"


def test_math_panel_works_the_seed_group(window):
    text = math_text(window)
    assert "mean = (1+0+0+1)/4 = 2/4 = 0.5" in text
    assert "std = √0.25 = 0.5" in text
    assert "A = +0.5/0.5 = +1.0" in text and "A = −0.5/0.5 = −1.0" in text


def test_math_panel_follows_clicks_to_the_easy_group(qtbot, window):
    window.group_size_spin.setValue(5)
    cards = [window.findChild(TraceCard, f"traceCard{i}") for i in range(5)]
    for index, wanted in enumerate([True, True, True, True, False]):
        if cards[index].property("correct") != wanted:
            qtbot.mouseClick(cards[index], Qt.MouseButton.LeftButton, pos=QPoint(20, 20))
    text = math_text(window)
    assert "0.8 × 0.2 = 0.16" in text and "A = −0.8/0.4 = −2.0" in text


@pytest.mark.parametrize("name", core.convention_names())
def test_every_convention_rescores_the_chart_and_the_math(window, name):
    combo = window.findChild(QComboBox, "conventionCombo")
    combo.setCurrentIndex(combo.findData(name))
    combo.activated.emit(combo.currentIndex())
    expected = core.group_stats([1, 0, 0, 1], name).advantages
    assert lab_chart(window).bar_heights() == pytest.approx(list(expected))
    assert core.get_convention(name).formula in math_text(window)


def test_trl_shows_0866_and_says_why(window):
    window.request_convention("trl")
    assert lab_chart(window).bar_heights()[0] == pytest.approx(0.8659, abs=1e-4)
    assert "+0.866 / −0.866" in math_text(window) and "sample std" in math_text(window)
    window.undo_action.trigger()
    assert lab_chart(window).bar_heights() == [1.0, -1.0, -1.0, 1.0]


def test_compare_view_shows_minus_two_and_plus_two(qtbot, window):
    window.compare_action.trigger()
    compare = window.findChild(QWidget, "compareView")
    assert compare.isVisible()
    easy, hard = window.easy, window.hard
    assert easy.chart.bar_heights() == pytest.approx([0.5, 0.5, 0.5, 0.5, -2.0])
    assert hard.chart.bar_heights() == pytest.approx([2.0, -0.5, -0.5, -0.5, -0.5])
    notes = [label.text() for label in compare.findChildren(QLabel, "loudestNote")]
    assert any("gets −2.0" in note for note in notes)
    assert any("gets +2.0" in note for note in notes)
    assert easy.trace_grid.card(4).highlighted and hard.trace_grid.card(0).highlighted
    assert not easy.trace_grid.card(0).highlighted


def test_both_sides_of_the_comparison_stay_interactive(qtbot, window):
    window.show_compare(True)
    hard_card = window.hard.trace_grid.card(1)
    qtbot.mouseClick(hard_card, Qt.MouseButton.LeftButton, pos=QPoint(20, 20))
    assert window.hard.chart.bar_heights()[1] > 0
    easy_card = window.easy.trace_grid.card(4)
    qtbot.mouseClick(easy_card, Qt.MouseButton.LeftButton, pos=QPoint(20, 20))
    assert window.easy.state.snapshot.stats.degenerate
    assert "Easy: Mark trace 5 right" in window.undo_action.text()


def test_the_ppo_panel_is_a_drawing_with_its_point(window):
    window.show_explanation("ppo")
    panel = window.findChild(QWidget, "ppoPanel")
    assert panel.isVisible()
    assert "stands exactly where" in panel.accessibleDescription()
    assert panel.sizeHint().width() > 300


def test_the_ppo_drawing_first_opened_after_a_theme_change_is_drawn_in_that_theme(window):
    window.presentation.set_theme("dark", remember=False)
    window.show_explanation("ppo")  # the tab's first showing builds its drawing
    panel = window.findChild(QWidget, "ppoPanel")
    assert panel.grab().toImage().pixelColor(1, 1).name() == DARK.surface


def test_the_comparison_scrolls_instead_of_growing_past_the_screen(window):
    window.presentation.set_theme("projector", remember=False)
    window.show_compare(True)
    hint = window.minimumSizeHint()
    assert hint.width() <= 1280 and hint.height() <= 800, hint
