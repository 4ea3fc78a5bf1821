"""RewardPanel: shows the lab's weights and what each function gives, asks for changes."""

from __future__ import annotations

import pytest

from grpo_desktop.core.lab.lab_rewards import RewardWeights
from grpo_desktop.core.lab.lab_snapshot import build_snapshot
from grpo_desktop.core.lab.problems import get_problem
from grpo_desktop.views.lab.reward_panel import RewardPanel


@pytest.fixture
def panel(qtbot):
    widget = RewardPanel()
    qtbot.addWidget(widget)
    widget.show_snapshot(
        build_snapshot(get_problem("mult-23x47"), [True, False, False, True],
                       weights=RewardWeights(format=0.5))
    )  # fmt: skip
    return widget


def test_it_shows_the_weights_the_formula_and_this_problems_format(panel):
    assert panel.spins["format"].value() == 0.5
    assert panel.formula.text() == "r = 1 × accuracy + 0.5 × format"
    assert "final “Answer:” line" in panel.notes["format"].text()
    assert "3 of this problem's 8 traces" in panel.notes["partial"].text()


def test_showing_a_snapshot_never_echoes_a_request(qtbot, panel):
    with (
        qtbot.assertNotEmitted(panel.weight_requested),
        qtbot.assertNotEmitted(panel.by_hand_requested),
    ):
        panel.show_snapshot(build_snapshot(get_problem("easy-add-17-25"), [True, False]))


def test_a_spin_a_quick_choice_and_the_checkbox_ask_for_changes(qtbot, panel):
    with qtbot.waitSignal(panel.weight_requested) as blocker:
        panel.spins["partial"].setValue(1.0)
    assert blocker.args == ["partial", 1.0]
    with qtbot.waitSignal(panel.weights_requested) as chosen:
        panel.choice_buttons[1].click()
    assert chosen.args == [RewardWeights(accuracy=1.0, format=1.0)]
    with qtbot.waitSignal(panel.by_hand_requested) as toggled:
        panel.by_hand.click()
    assert toggled.args == [True]


def test_in_continuous_mode_the_weights_rest(panel):
    panel.show_snapshot(build_snapshot(get_problem("mult-23x47"), [True, False], scores=[0.2, 0.9]))
    assert panel.by_hand.isChecked()
    assert not panel.spins["accuracy"].isEnabled()
    assert panel.formula.text() == "r = set by hand for each card (continuous mode)"
