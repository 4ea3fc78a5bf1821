"""SpilloverChart: the batch's answers' Δ log p beside the held-out prompts', with a caption."""

from __future__ import annotations

from grpo_desktop.core.common.theme import LIGHT, PROJECTOR
from grpo_desktop.core.update.update_snapshot import Spillover
from grpo_desktop.views.update.spillover_chart import SpilloverChart

SPILL = Spillover(
    steps=1,
    prompt="23+45=",
    batch_deltas=(0.2, -0.1, 0.3),
    batch_advantages=(1.0, -1.0, 1.0),
    held_out_prompts=("12+34=", "50+7="),
    held_out_answers=("46.", "57."),
    held_out_deltas=(0.05, -0.5),
    held_out_noun="sums",
    caption="One Adam step on 3 answers to 23+45= raised the right answer's log-probability "
    "on 1 of 2 held-out sums (mean −0.225).",
)


def test_bars_caption_and_groups_follow_the_spillover(qtbot):
    chart = SpilloverChart(LIGHT)
    qtbot.addWidget(chart)
    chart.show_spillover(SPILL)
    assert chart.bar_heights() == ([0.2, -0.1, 0.3], [0.05, -0.5])
    assert chart.caption_text() == SPILL.caption
    assert chart.group_labels() == ["batch (3)", "held-out (2)"]
    low, high = chart.y_range()
    assert low <= -0.5 and high >= 0.5
    assert "12+34=46.: +0.050" in chart.accessibleDescription()
    assert SPILL.held_out_raised == 1


def test_none_empties_the_chart_and_a_theme_keeps_the_bars(qtbot):
    chart = SpilloverChart(LIGHT)
    qtbot.addWidget(chart)
    chart.show_spillover(SPILL)
    chart.set_theme(PROJECTOR)
    assert chart.bar_heights()[1] == [0.05, -0.5]
    chart.show_spillover(None)
    assert chart.bar_heights() == ([], []) and chart.caption_text() == ""
