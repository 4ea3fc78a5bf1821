"""The lab window end to end: real clicks and keys reproduce the seeds' numbers everywhere."""

from __future__ import annotations

import time

import pytest
from event_log import EventLog
from PySide6.QtCore import QPoint, Qt
from PySide6.QtGui import QKeySequence
from PySide6.QtWidgets import QLabel, QSpinBox, QWidget

from grpo_desktop.views.lab.advantage_chart import AdvantageChart
from grpo_desktop.views.lab.trace_card import TraceCard
from grpo_desktop.window.main_window import MainWindow


def card(window: MainWindow, index: int) -> TraceCard:
    found = window.findChild(TraceCard, f"traceCard{index}")
    assert found is not None, f"traceCard{index} not found"
    return found


def click_card(qtbot, window: MainWindow, index: int) -> None:
    target = card(window, index)
    qtbot.mouseClick(
        target, Qt.MouseButton.LeftButton, pos=QPoint(target.width() // 2, target.height() // 2)
    )


def stat(window: MainWindow, name: str) -> str:
    return window.findChild(QLabel, name).text()


def chart(window: MainWindow) -> AdvantageChart:
    return window.findChild(AdvantageChart, "advantageChart")


def banner_visible(window: MainWindow) -> bool:
    return window.findChild(QWidget, "degenerateBanner").isVisible()


def set_cards(qtbot, window: MainWindow, wanted: list[int]) -> None:
    for index, reward in enumerate(wanted):
        if card(window, index).property("correct") != bool(reward):
            click_card(qtbot, window, index)


def test_default_window_shows_the_seed_problem_and_its_numbers(window):
    panel = window.findChild(QWidget, "problemPanel")
    assert "Compute 23 × 47." in " ".join(label.text() for label in panel.findChildren(QLabel))
    assert "1081" in window.findChild(QLabel, "answerKey").text()
    assert window.findChild(QSpinBox, "groupSizeSpin").value() == 4
    assert [card(window, i).property("correct") for i in range(4)] == [True, False, False, True]
    assert stat(window, "statPar") == "0.5"
    assert stat(window, "statStd") == "0.5"
    assert stat(window, "statPushedUp") == "2"
    assert stat(window, "statPushedDown") == "2"
    assert chart(window).bar_heights() == pytest.approx([1.0, -1.0, -1.0, 1.0])
    assert not banner_visible(window)


def test_clicking_cards_to_all_correct_flattens_everything_and_shows_the_banner(qtbot, window):
    click_card(qtbot, window, 1)
    click_card(qtbot, window, 2)
    assert stat(window, "statPar") == "1"
    assert stat(window, "statStd") == "0"
    assert (stat(window, "statPushedUp"), stat(window, "statPushedDown")) == ("0", "0")
    assert chart(window).bar_heights() == [0.0, 0.0, 0.0, 0.0]
    assert banner_visible(window)
    click_card(qtbot, window, 2)
    assert not banner_visible(window)


def test_all_wrong_group_is_degenerate_too(qtbot, window):
    set_cards(qtbot, window, [0, 0, 0, 0])
    assert stat(window, "statPar") == "0"
    assert banner_visible(window)
    assert "wrong" in window.findChild(QLabel, "bannerMessage").text()


def test_easy_group_reproduces_the_seeds_minus_two(qtbot, window):
    window.group_size_spin.setValue(5)
    set_cards(qtbot, window, [1, 1, 1, 1, 0])
    assert stat(window, "statPar") == "0.8"
    assert stat(window, "statStd") == "0.4"
    assert (stat(window, "statPushedUp"), stat(window, "statPushedDown")) == ("4", "1")
    assert chart(window).bar_heights() == pytest.approx([0.5, 0.5, 0.5, 0.5, -2.0])


def test_hard_group_reproduces_the_seeds_plus_two(qtbot, window):
    window.group_size_spin.setValue(5)
    set_cards(qtbot, window, [1, 0, 0, 0, 0])
    assert stat(window, "statPar") == "0.2"
    assert chart(window).bar_heights() == pytest.approx([2.0, -0.5, -0.5, -0.5, -0.5])


def test_space_and_enter_on_a_focused_card_toggle_it(qtbot, window):
    target = card(window, 1)
    target.setFocus()
    qtbot.keyClick(target, Qt.Key.Key_Space)
    assert card(window, 1).property("correct") is True
    qtbot.keyClick(card(window, 1), Qt.Key.Key_Return)
    assert card(window, 1).property("correct") is False


def test_number_keys_toggle_cards_one_to_nine(qtbot, window):
    window.group_size_spin.setValue(9)
    before = card(window, 8).property("correct")
    qtbot.keyClick(window, Qt.Key.Key_9)
    assert card(window, 8).property("correct") is (not before)
    qtbot.keyClick(window, Qt.Key.Key_2)
    assert card(window, 1).property("correct") is True


def test_changing_g_keeps_the_remaining_cards_and_builds_that_many(qtbot, window):
    click_card(qtbot, window, 1)  # now 1,1,0,1
    window.group_size_spin.setValue(12)
    assert window.findChild(TraceCard, "traceCard11") is not None
    assert window.findChild(TraceCard, "traceCard12") is None
    assert [card(window, i).property("correct") for i in range(4)] == [True, True, False, True]
    assert len(chart(window).bar_heights()) == 12
    window.group_size_spin.setValue(3)
    assert window.findChild(TraceCard, "traceCard3") is None
    assert [card(window, i).property("correct") for i in range(3)] == [True, True, False]


def test_g_64_builds_64_cards_and_64_bars(window):
    window.group_size_spin.setValue(64)
    assert window.findChild(TraceCard, "traceCard63") is not None
    assert len(chart(window).bar_heights()) == 64


def test_presets_and_undo_restore_the_previous_group(qtbot, window):
    window.reward_pattern_actions["hard"].trigger()
    assert chart(window).bar_heights() == pytest.approx([2.0, -0.5, -0.5, -0.5, -0.5])
    assert window.undo_action.text() == "&Undo Preset Hard 1,0,0,0,0"
    window.undo_action.trigger()
    assert chart(window).bar_heights() == pytest.approx([1.0, -1.0, -1.0, 1.0])
    assert "23 × 47" in window.windowTitle()


def test_sample_a_group_shows_its_seed_and_replays(qtbot, window):
    window.group_size_spin.setValue(16)
    window.sample_action.trigger()
    first = [card(window, i).property("correct") for i in range(16)]
    assert "seed 1" in window.statusBar().currentMessage()
    window.sample_action.trigger()
    assert "seed 2" in window.statusBar().currentMessage()
    window.undo_action.trigger()
    window.undo_action.trigger()
    window.workbench.next_sample_seed = 1
    window.sample_action.trigger()
    assert [card(window, i).property("correct") for i in range(16)] == first


def test_choosing_another_problem_shows_its_prompt_and_preset(qtbot, window):
    window.request_problem("easy-add-17-25")
    assert "17 + 25" in window.findChild(QLabel, "problemPrompt").text()
    assert chart(window).bar_heights() == pytest.approx([0.5, 0.5, 0.5, 0.5, -2.0])


def test_toggling_a_card_moves_no_card(qtbot, window):
    geometries = [card(window, i).geometry() for i in range(4)]
    click_card(qtbot, window, 2)
    assert [card(window, i).geometry() for i in range(4)] == geometries


def test_the_banner_appearing_moves_nothing(qtbot, window):
    watched = [card(window, 0), chart(window), window.findChild(QWidget, "statsPanel")]
    before = [w.mapTo(window, QPoint(0, 0)) for w in watched] + [w.size() for w in watched]
    set_cards(qtbot, window, [1, 1, 1, 1])
    assert banner_visible(window)
    after = [w.mapTo(window, QPoint(0, 0)) for w in watched] + [w.size() for w in watched]
    assert after == before


def combo_convention(window: MainWindow) -> str:
    combo = window.findChild(QWidget, "conventionCombo")
    return combo.currentData()


def conventions_on_screen(window: MainWindow) -> set[str]:
    return {pane.state.snapshot.convention.name for pane in window.panes}


def test_verl_then_easy_vs_hard_then_undo_keeps_every_group_on_one_convention(qtbot, window):
    # The bug the architecture review found: after Ctrl+Z the lab was back on textbook while
    # the easy/hard groups stayed on verl, and the combo still said verl while comparing.
    combo = window.findChild(QWidget, "conventionCombo")
    combo.setCurrentIndex(combo.findData("verl"))
    combo.activated.emit(combo.currentIndex())
    qtbot.keyClick(window, Qt.Key.Key_E, Qt.KeyboardModifier.ControlModifier)
    assert window.pages.currentWidget() is window.compare_page
    assert conventions_on_screen(window) == {"verl"} and combo_convention(window) == "verl"
    qtbot.keyClick(window, Qt.Key.Key_E, Qt.KeyboardModifier.ControlModifier)
    qtbot.keyClick(window, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    assert conventions_on_screen(window) == {"textbook"}
    assert combo_convention(window) == "textbook"
    qtbot.keyClick(window, Qt.Key.Key_E, Qt.KeyboardModifier.ControlModifier)
    assert conventions_on_screen(window) == {"textbook"}
    assert combo_convention(window) == "textbook"


def test_a_card_click_styles_each_card_once_and_leaves_the_g_box_alone(qtbot, window, monkeypatch):
    """Qt repaints a spin box (and the tool bar behind it) whenever its value is set, even to
    the same number: a click, which never changes G, must not set it (issue #14)."""
    from PySide6.QtCore import QEvent

    from grpo_desktop.views.lab.trace_grid import TraceGrid

    grid = window.findChild(TraceGrid)
    spin = window.findChild(QSpinBox, "groupSizeSpin")
    qtbot.wait(30)  # the first paint is done
    presentation_passes, spin_updates = [], []
    monkeypatch.setattr(grid, "set_presentation", lambda *a: presentation_passes.append(a))
    original = spin.setValue
    monkeypatch.setattr(spin, "setValue", lambda v: (spin_updates.append(v), original(v)))
    counter = EventLog(QEvent.Type.Paint, spin)
    click_card(qtbot, window, 1)
    qtbot.wait(30)  # every update the click posted has painted
    spin.removeEventFilter(counter)
    assert presentation_passes == []  # the snapshot pass styled the cards itself
    assert spin_updates == []
    assert counter.count == 0
    assert spin.value() == 4
    assert card(window, 1).property("correct") is True
    window.workbench.set_group_size(6)  # a new G still reaches the box
    assert spin_updates == [6]
    assert spin.value() == 6


def test_the_view_toggle_is_checked_exactly_while_advantages_are_shown(window):
    """Issue 25, item 14: "Show rewards" was checked (toolbar and View menu) while A showed."""
    assert window.view == "advantage" and window.lab.chart.view() == "advantage"
    assert window.view_toggle.text() == "Show advantages" and window.view_toggle.isChecked()
    assert window.view_toggle.iconText() == "Advantages A"
    window.set_view("reward", animate=False)
    assert window.lab.chart.view() == "reward"
    assert window.view_toggle.text() == "Show advantages" and not window.view_toggle.isChecked()
    window.view_toggle.trigger()  # V: back to the advantages, and ticked again
    assert window.view == "advantage" and window.view_toggle.isChecked()
    assert window.view_toggle.text() == "Show advantages"


def test_the_training_run_shows_only_its_own_g_box(window):
    """Issue 25, item 14: the lab's G box showed (disabled) beside the run's own."""
    assert window.group_size_tool.isVisible()
    window.workbench.set_workspace("training")
    assert not window.group_size_tool.isVisible()
    window.workbench.set_workspace("lab")
    assert window.group_size_tool.isVisible()


def test_each_animation_step_lasts_the_view_menus_choice_and_is_remembered(window):
    """Issue 25, item 2: about 1.5 s per captioned step by default, set in View ▸ Animation step."""
    from grpo_desktop.model.settings import ANIMATION_STEP_DEFAULT_MS

    assert window.animation_step_ms == ANIMATION_STEP_DEFAULT_MS == 1500
    assert window.lab.chart.animation_ms == 3000  # both captioned steps
    menu = window.animation_step_menu
    assert menu.menuAction() in window.view_menu.actions()
    choice = next(a for a in menu.actions() if a.data() == 2500)
    choice.trigger()
    assert choice.isChecked() and window.settings.animation_step_ms == 2500
    assert [a.data() for a in menu.actions() if a.isChecked()] == [2500]
    assert window.lab.chart.animation_ms == 5000
    assert window.easy.chart.animation_ms == 5000  # built later, same pace


def test_ctrl_shift_z_and_ctrl_y_both_redo_and_each_key_is_bound_once(qtbot, window):
    keys = [key.toString() for key in window.redo_action.shortcuts()]
    assert len(keys) == len(set(keys)), keys
    assert {"Ctrl+Shift+Z", "Ctrl+Y"} <= set(keys)
    control, shift = Qt.KeyboardModifier.ControlModifier, Qt.KeyboardModifier.ShiftModifier
    for modifiers, key in ((control | shift, Qt.Key.Key_Z), (control, Qt.Key.Key_Y)):
        click_card(qtbot, window, 1)
        assert window.state.snapshot.rewards == (1, 1, 0, 1)
        qtbot.keyClick(window, Qt.Key.Key_Z, control)
        assert window.state.snapshot.rewards == (1, 0, 0, 1)
        qtbot.keyClick(window, key, modifiers)
        assert window.state.snapshot.rewards == (1, 1, 0, 1), QKeySequence(key | modifiers)
        qtbot.keyClick(window, Qt.Key.Key_Z, control)


def test_a_card_click_does_not_re_measure_the_worked_math(qtbot, window, monkeypatch):
    # New text toggling the math panel's scroll bar used to re-fit its size on every click.
    from grpo_desktop.views.lab.math_panel import MathPanel

    measured = []
    original = MathPanel._text_height
    monkeypatch.setattr(
        MathPanel, "_text_height", lambda self, *a: measured.append(a) or original(self, *a)
    )
    for index in (0, 1, 2, 3, 0):
        click_card(qtbot, window, index)
    assert measured == []


def test_page_down_outside_a_lesson_takes_one_captioned_step_per_press(qtbot, window):
    """Issue 25, item 2: a clicker steps the reward → advantage animation one press at a time.

    Page Down from the rewards plays step 1 and waits at r − mean with its caption (the axis
    reading "r − mean"); the next Page Down plays step 2 and lands on A. Page Up goes back the
    same way, and from the middle it undoes only step 1.
    """
    from PySide6.QtCore import Qt

    window.install_deferred_features()
    chart = window.lab.chart
    window.set_view("reward", animate=False)
    values = chart._values
    title = lambda: chart.advantage_plot.getAxis("left").labelText  # noqa: E731

    def press(key) -> None:
        qtbot.keyClick(window, key)
        qtbot.waitUntil(lambda: not chart.is_animating(), timeout=10_000)

    window.set_animation_step_ms(500)
    press(Qt.Key.Key_PageDown)
    assert window.view == "advantage" and window.view_toggle.isChecked()
    assert chart.waiting() and chart.phase() == 1
    assert chart.bar_heights() == list(values.centered)
    assert chart.caption_text() == values.forward_captions[0]
    assert title() == "r − mean"
    qtbot.wait(600)  # a press, not the clock, moves it on
    assert chart.waiting()
    press(Qt.Key.Key_PageDown)
    assert not chart.waiting() and chart.phase() == 0
    assert chart.bar_heights() == list(values.advantages) and title() == "advantage A"
    press(Qt.Key.Key_PageDown)  # already on A: nothing to step
    assert chart.bar_heights() == list(values.advantages)
    press(Qt.Key.Key_PageUp)
    assert window.view == "reward" and chart.waiting()
    assert chart.bar_heights() == list(values.centered)
    assert chart.caption_text() == values.reverse_captions[0]
    press(Qt.Key.Key_PageDown)  # from the middle, forward again: only step 2
    assert window.view == "advantage" and chart.phase() == 0
    assert chart.bar_heights() == list(values.advantages)


def test_v_plays_both_steps_at_the_chosen_pace(qtbot, window):
    """Each step lasts the chosen 500 ms. The animation runs on the wall clock, so a loaded
    machine can only make a step last longer: the test reads when each step began instead of
    sampling the phase after a fixed wait (which failed in CI when the wait overran 500 ms)."""
    chart = window.lab.chart
    window.set_animation_step_ms(500)
    window.set_view("reward", animate=False)
    stages = []
    chart.phase_changed.connect(lambda phase: stages.append((phase, time.monotonic())))
    started = time.monotonic()
    window.view_toggle.trigger()
    assert chart.is_animating() and chart.caption_text().startswith("Step 1 of 2")
    assert chart.animator.clock.duration() == 1000  # two steps of 500 ms
    with qtbot.waitSignal(chart.animation_finished, timeout=10_000):
        pass
    assert [phase for phase, _ in stages] == [1, 2, 0] and not chart.waiting()
    step_2_began, ended = (at - started for _, at in stages[1:])
    assert step_2_began >= 0.49  # step 1 played its 500 ms before step 2 began
    assert ended >= 0.99  # and the two steps together their 1000 ms


@pytest.mark.parametrize("how", ["a run's group opens", "the Training run shows"])
def test_a_group_size_typed_but_not_confirmed_is_dropped_when_the_box_turns_off(qtbot, window, how):
    """Found by the soak (issue 24): disabling the G box committed the typed text, so the box
    showed 23 beside a group of 4, or the hidden lab was resized."""
    from PySide6.QtTest import QTest
    from rollout_files import recorded

    spin = window.group_size_spin
    spin.setFocus()
    spin.selectAll()
    QTest.keyClicks(spin, "23")
    history = window.workbench.undo_stack.count()
    if how == "a run's group opens":
        window.workbench.open_recorded_group(recorded(rewards=(1.0, 0.0, 0.0, 1.0)))
        history += 1
    else:
        window.workbench.set_workspace("training")
    assert window.workbench.lab.group_size == 4
    assert spin.value() == 4 and spin.text() == "4"
    assert window.workbench.undo_stack.count() == history
